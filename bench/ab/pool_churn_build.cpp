// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// One build of the library's headers for pool_churn_ab.sh: compiled with
// -DALLOCPLUS_AB_BUILD=<name> (and that build's include directory), its whole namespace,
// the C core's state included, is renamed to boost::<name>, so that two builds of the headers
// live in one process side by side, each with its heap, thread caches and pools. It defines
// `double churn_round_<name>(int threads, bool set)`: seed 002's node churn (push 1M, erase every
// 3rd, push 1M, erase every 7th, push 1M, destroy) of a std::list<int> (or std::set<int>) over
// ba::node_allocator, in `threads` threads at once (1 or 2), each on a container of its own.
// Returns: the round's wall time in milliseconds.
#if !defined(ALLOCPLUS_AB_BUILD)
#  error "compile with -DALLOCPLUS_AB_BUILD=<a name for the build>"
#endif
#define allocplus ALLOCPLUS_AB_BUILD
#include <boost/allocplus/node_allocator.hpp>
#undef allocplus

#include "pool_churn_round.hpp"

#define ALLOCPLUS_AB_CAT2(a, b) a##b
#define ALLOCPLUS_AB_CAT(a, b) ALLOCPLUS_AB_CAT2(a, b)

double ALLOCPLUS_AB_CAT(churn_round_, ALLOCPLUS_AB_BUILD)(int threads, bool set)
{
   namespace ba = boost::ALLOCPLUS_AB_BUILD;
   return ba_ab::churn_round<ba::node_allocator<int>>(threads, set);
}
