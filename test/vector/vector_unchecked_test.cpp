// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Release builds (NDEBUG) do not check: the misuses below, harmless when unchecked, run to their
// end unreported. The same source built checked (BOOST_ALLOCPLUS_CHECKED=1, the control) must
// report each one, so a check that stayed in a release build, and a misuse that no check finds,
// both fail one of the two programs.

#define BOOST_TEST_MODULE allocplus vector unchecked
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include "support/usage_reports.hpp"

#include <cstddef>
#include <string>

#if defined(NDEBUG) && !defined(ALLOCPLUS_TEST_CONTROL) && BOOST_ALLOCPLUS_CHECKED
#  error "a build with NDEBUG must be unchecked by default"
#endif

namespace ba = boost::allocplus;
using allocplus_test::expect_report_only_when_checked;
using allocplus_test::use;
using V = ba::vector<int>;

// Only addresses: v[3] and front() of an empty vector name memory inside the buffer (reserve),
// which nothing reads.
BOOST_AUTO_TEST_CASE(an_index_out_of_range_is_reported_only_when_checked)
{
   V v{1, 2, 3};
   v.reserve(10);
   const V &c = v;
   expect_report_only_when_checked([&] { use(&v[3]); }, "ba::vector::operator[]: index 3 out of range (size 3)", &v);
   expect_report_only_when_checked([&] { use(&c[9]); }, "ba::vector::operator[]: index 9 out of range (size 3)", &v);
}

BOOST_AUTO_TEST_CASE(front_of_an_empty_vector_is_reported_only_when_checked)
{
   V v;
   v.reserve(4);
   const V &c = v;
   expect_report_only_when_checked([&] { use(&v.front()); }, "ba::vector::front: the vector is empty", &v);
   expect_report_only_when_checked([&] { use(&c.front()); }, "ba::vector::front: the vector is empty", &v);
}

// An empty range erases nothing, wherever it is.
BOOST_AUTO_TEST_CASE(an_empty_range_of_another_vector_is_reported_only_when_checked)
{
   V v{1, 2, 3}, other{4, 5, 6};
   expect_report_only_when_checked([&] { v.erase(other.end(), other.end()); },
                                   "ba::vector::erase: the range is not in the vector", &v);
}

// The macros themselves: unchecked, neither the condition nor the arguments are evaluated.
BOOST_AUTO_TEST_CASE(a_check_evaluates_its_arguments_only_when_checked)
{
   int evaluated = 0;
   const auto holds = [&] {
      ++evaluated;
      return true;
   };
   BOOST_ALLOCPLUS_PRECONDITION(holds(), "never reported", &evaluated);
   BOOST_ALLOCPLUS_INDEX_PRECONDITION(static_cast<std::size_t>(holds()), std::size_t{2}, "never reported", &evaluated);
   (void)holds;   // unchecked, nothing else names it
   BOOST_TEST(evaluated == (BOOST_ALLOCPLUS_CHECKED ? 2 : 0));
}
