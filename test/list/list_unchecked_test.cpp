// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Release builds (NDEBUG) do not check: the misuses below, harmless when unchecked, run to their
// end unreported. The same source built checked (BOOST_ALLOCPLUS_CHECKED=1, the control) must
// report each one, so a check that stayed in a release build, and a misuse that no check finds,
// both fail one of the two programs.

#define BOOST_TEST_MODULE allocplus list unchecked
#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include "support/usage_reports.hpp"

#include <string>

#if defined(NDEBUG) && !defined(ALLOCPLUS_TEST_CONTROL) && BOOST_ALLOCPLUS_CHECKED
#  error "a build with NDEBUG must be unchecked by default"
#endif

namespace ba = boost::allocplus;
using allocplus_test::expect_report_only_when_checked;
using allocplus_test::use;
using L = ba::list<int>;

// Only addresses: front() and back() of an empty list name the header's place, which nothing reads.
BOOST_AUTO_TEST_CASE(front_and_back_of_an_empty_list_are_reported_only_when_checked)
{
   L l;
   const L &c = l;
   expect_report_only_when_checked([&] { use(&l.front()); }, "ba::list::front: the list is empty", &l);
   expect_report_only_when_checked([&] { use(&c.back()); }, "ba::list::back: the list is empty", &l);
}

// Nothing inserted, nothing erased, nothing moved: the misuse is only in the iterators.
BOOST_AUTO_TEST_CASE(another_list_iterators_are_reported_only_when_checked)
{
   L empty, full{1, 2, 3}, third{4};
   expect_report_only_when_checked([&] { empty.insert(full.begin(), 0, 7); },
                                   "ba::list::insert: the position is not in the list (singular, or of another list)",
                                   &empty);
   expect_report_only_when_checked([&] { empty.erase(full.end(), full.end()); },
                                   "ba::list::erase: the range is not in the list (it starts at end(), is singular, "
                                   "or is of another list)",
                                   &empty);
   expect_report_only_when_checked([&] { full.splice(full.end(), empty, third.begin(), third.begin()); },
                                   "ba::list::splice: the range is not in other (it starts at other.end(), is "
                                   "singular, or is of another list)",
                                   &full);
   expect_report_only_when_checked([&] { full.erase(L::const_iterator(), L::const_iterator()); },
                                   "ba::list::erase: the range is not in the list (it starts at end(), is singular, "
                                   "or is of another list)",
                                   &full);
}
