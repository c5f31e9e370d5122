// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Built with -DBOOST_ALLOCPLUS_CHECKED=2 (doc/examples/CMakeLists.txt): the checked levels find
// a double free of a one-word node, which carries no mark for a release build to see.
#include <boost/allocplus/private_node_allocator.hpp>

#include <csetjmp>
#include <cstdint>
#include <cstring>

static std::jmp_buf escape;
static char reported[256];

static void report(const char *message, const void *, const ba_heap *)
{
   std::strncpy(reported, message, sizeof reported - 1);   // (the message may be on the stack)
   std::longjmp(escape, 1);   // a test harness's way out; never back into the pool
}

// The misuse, in a function of its own: nothing of the caller's lives across setjmp.
static void free_twice(boost::allocplus::private_node_allocator<std::uint64_t> &a, std::uint64_t *p)
{
   ba_diagnostic_handler previous = ba_set_diagnostic_handler(report);
   if (setjmp(escape) == 0) a.deallocate(p, 1);   // "... double free of a node"
   ba_set_diagnostic_handler(previous);
}

int main()
{
   static_assert(BOOST_ALLOCPLUS_CHECKED_EXPENSIVE, "this example shows level 2");
   boost::allocplus::private_node_allocator<std::uint64_t> a;
   std::uint64_t *p = a.allocate(1);
   a.deallocate(p, 1);
   free_twice(a, p);
   return std::strstr(reported, "double free of a node") ? 0 : 1;
}
