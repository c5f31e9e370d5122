// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Death tests of the checked build: each precondition violation (an index out of range, an
// element of an empty vector, a position outside the vector, an iterator of another vector) runs
// in a child process, which must stop through the diagnostic handler with a message naming the
// call; the valid calls at the edges (the last index, insert at end(), erase of the last element,
// an empty range at end()) are not reported.

#define BOOST_TEST_MODULE allocplus vector checked
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include "support/usage_reports.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#if !BOOST_ALLOCPLUS_CHECKED
#  error "the checked vector tests need a checked build"
#endif

namespace ba = boost::allocplus;
using allocplus_test::exiting_handler;
using allocplus_test::expect_report;
using allocplus_test::use;
using V = ba::vector<int>;

namespace {

//! p, which the optimizer cannot see through: a bad position must reach the check, not draw a
//! compile-time warning about the code after it.
template <class T>
T *hide(T *p)
{
   T *volatile hidden = p;
   return hidden;
}

} // namespace

BOOST_AUTO_TEST_CASE(index_out_of_range_is_reported)
{
   V v{1, 2, 3};
   v.reserve(10);   // the element past the end is inside the buffer: only the check finds it
   const V &c = v;
   expect_report([&] { use(v[3]); }, "ba::vector::operator[]: index 3 out of range (size 3)", &v);
   expect_report([&] { use(c[3]); }, "ba::vector::operator[]: index 3 out of range (size 3)", &v);
   expect_report([&] { use(v[7]); }, "ba::vector::operator[]: index 7 out of range (size 3)", &v);
   const std::size_t huge = static_cast<std::size_t>(-1);
   expect_report([&] { use(v[huge]); },
                 "ba::vector::operator[]: index " + std::to_string(huge) + " out of range (size 3)", &v);
   V empty;
   expect_report([&] { use(empty[0]); }, "ba::vector::operator[]: index 0 out of range (size 0)", &empty);
}

BOOST_AUTO_TEST_CASE(front_back_and_pop_back_of_an_empty_vector_are_reported)
{
   V v;
   v.reserve(4);
   const V &c = v;
   expect_report([&] { use(v.front()); }, "ba::vector::front: the vector is empty", &v);
   expect_report([&] { use(c.front()); }, "ba::vector::front: the vector is empty", &v);
   expect_report([&] { use(v.back()); }, "ba::vector::back: the vector is empty", &v);
   expect_report([&] { use(c.back()); }, "ba::vector::back: the vector is empty", &v);
   expect_report([&] { v.pop_back(); }, "ba::vector::pop_back: the vector is empty", &v);
}

BOOST_AUTO_TEST_CASE(insert_positions_outside_the_vector_are_reported)
{
   V v{1, 2, 3}, other{4, 5, 6};
   const int values[] = {7, 8};
   const std::string outside = "ba::vector::insert: the position is not in the vector";
   expect_report([&] { v.insert(hide(v.end() + 1), 0); }, outside, &v);
   expect_report([&] { v.insert(hide(v.begin() - 1), 0); }, outside, &v);
   expect_report([&] { v.insert(hide(other.begin()), 0); }, outside, &v);   // an iterator of another vector
   expect_report([&] { v.insert(hide(other.end()), 0); }, outside, &v);
   const int x = 9;
   expect_report([&] { v.insert(hide(other.begin() + 1), x); }, outside, &v);
   expect_report([&] { v.insert(hide(other.begin()), 2, x); }, outside, &v);
   expect_report([&] { v.insert(hide(other.begin()), values, values + 2); }, outside, &v);
   expect_report([&] { v.insert(hide(other.begin()), {1, 2}); }, outside, &v);
   expect_report([&] { v.emplace(hide(other.begin()), 0); }, "ba::vector::emplace: the position is not in the vector",
                 &v);
   V empty;
   expect_report([&] { empty.insert(hide(v.begin()), 0); }, outside, &empty);
}

BOOST_AUTO_TEST_CASE(erase_positions_outside_the_vector_are_reported)
{
   V v{1, 2, 3}, other{4, 5, 6};
   v.reserve(10);
   const std::string not_element = "ba::vector::erase: the position is not an element of the vector";
   const std::string not_range = "ba::vector::erase: the range is not in the vector";
   expect_report([&] { v.erase(hide(v.end())); }, not_element, &v);   // end() is not an element
   expect_report([&] { v.erase(hide(v.begin() - 1)); }, not_element, &v);
   expect_report([&] { v.erase(hide(other.begin())); }, not_element, &v);
   expect_report([&] { v.erase(v.begin(), hide(v.end() + 1)); }, not_range, &v);
   expect_report([&] { v.erase(hide(v.begin() + 2), hide(v.begin() + 1)); }, not_range, &v);   // reversed
   expect_report([&] { v.erase(hide(v.begin() - 1), v.begin()); }, not_range, &v);
   expect_report([&] { v.erase(hide(other.begin()), hide(other.end())); }, not_range, &v);
   expect_report([&] { v.erase(hide(other.end()), hide(other.end())); }, not_range, &v);   // empty, but elsewhere
}

BOOST_AUTO_TEST_CASE(a_violation_goes_to_the_replaced_handler)
{
   V v{1};
   const child_outcome out = run_in_child([&] {
      ba_set_diagnostic_handler(exiting_handler);
      use(v[1]);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 7);
   BOOST_TEST(out.err.find("handler: ba::vector::operator[]: index 1 out of range (size 1) | ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(valid_calls_at_the_edges_are_not_reported)
{
   const child_outcome out = run_in_child([] {
      V v{1, 2, 3};
      if (v[2] != 3 || v.front() != 1 || v.back() != 3) std::_Exit(3);
      v.insert(v.end(), 4);   // end() is a position
      v.insert(v.begin(), 0);
      v.emplace(v.end(), 5);
      v.insert(v.end(), 2, 6);
      v.erase(v.end() - 1);   // the last element
      v.erase(v.end(), v.end());   // an empty range at end()
      v.erase(v.begin(), v.end());
      v.insert(v.begin(), 1);   // begin() == end() of an empty vector
      v.pop_back();
      V none;   // no buffer: begin() == end() == null
      none.insert(none.begin(), 7);
      none.erase(none.begin());
      none.erase(none.begin(), none.end());
      if (!v.empty() || !none.empty()) std::_Exit(4);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.signal == 0);
}
