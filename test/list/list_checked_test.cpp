// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Death tests of the checked build: splice and merge between lists whose allocators compare
// unequal (undefined in std) run in a child process, which must stop through the diagnostic
// handler with a message naming the operation; with equal allocators nothing is reported.

#define BOOST_TEST_MODULE allocplus list checked
#include "one_heap/child_process.hpp"
#include "support/stateful_allocator.hpp"

#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#if !BOOST_ALLOCPLUS_CHECKED
#  error "the checked list tests need a checked build"
#endif

namespace ba = boost::allocplus;
using A = allocplus_test::non_propagating_allocator<int, 2>;
using L = ba::list<int, A>;

namespace {
void exiting_handler(const char *message, const void *address, const ba_heap *heap)
{
   std::fprintf(stderr, "handler: %s | %p | %p\n", message, address, static_cast<const void *>(heap));
   std::fflush(stderr);
   std::_Exit(7);
}
} // namespace

BOOST_AUTO_TEST_CASE(splice_between_unequal_allocators_stops_with_a_message)
{
   L a({1, 2}, A(1)), b({3}, A(2));
   child_outcome out = run_in_child([&] { a.splice(a.end(), b); });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("ba::list::splice: the lists' allocators are unequal") != std::string::npos);

   out = run_in_child([&] { a.splice(a.end(), b, b.begin()); });
   BOOST_TEST(out.signal == SIGABRT);
   out = run_in_child([&] { a.splice(a.end(), b, b.begin(), b.end()); });
   BOOST_TEST(out.signal == SIGABRT);
}

BOOST_AUTO_TEST_CASE(merge_between_unequal_allocators_goes_to_the_replaced_handler)
{
   L a({1, 2}, A(1)), b({3}, A(2));
   child_outcome out = run_in_child([&] {
      ba_set_diagnostic_handler(exiting_handler);
      a.merge(b);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 7);
   BOOST_TEST(out.err.find("handler: ba::list::merge: the lists' allocators are unequal") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(equal_allocators_are_not_reported)
{
   L a({1, 2}, A(1)), b({3}, A(1));
   child_outcome out = run_in_child([&] {
      a.splice(a.end(), b);
      if (a.size() != 3) std::_Exit(3);
      b.merge(a);
      if (b.size() != 3) std::_Exit(4);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.signal == 0);
}
