// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Death tests of the checked build: splice and merge between lists whose allocators compare
// unequal (undefined in std), and the precondition violations a list finds at constant cost
// (an element of an empty list, erasing end(), splicing other's end(), a list into itself or a
// range before its own first element, a singular iterator, another list's iterator given to an
// empty list), run in a child process, which must stop through the diagnostic handler with a
// message naming the call; with equal allocators and at the valid edges nothing is reported.

#define BOOST_TEST_MODULE allocplus list checked
#include "support/stateful_allocator.hpp"

#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include "support/usage_reports.hpp"

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>

#if !BOOST_ALLOCPLUS_CHECKED
#  error "the checked list tests need a checked build"
#endif

namespace ba = boost::allocplus;
using allocplus_test::exiting_handler;
using allocplus_test::expect_report;
using allocplus_test::use;
using A = allocplus_test::non_propagating_allocator<int, 2>;
using L = ba::list<int, A>;

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

BOOST_AUTO_TEST_CASE(front_back_and_pops_of_an_empty_list_are_reported)
{
   ba::list<int> l;
   const ba::list<int> &c = l;
   expect_report([&] { use(l.front()); }, "ba::list::front: the list is empty", &l);
   expect_report([&] { use(c.front()); }, "ba::list::front: the list is empty", &l);
   expect_report([&] { use(l.back()); }, "ba::list::back: the list is empty", &l);
   expect_report([&] { use(c.back()); }, "ba::list::back: the list is empty", &l);
   expect_report([&] { l.pop_back(); }, "ba::list::pop_back: the list is empty", &l);
   expect_report([&] { l.pop_front(); }, "ba::list::pop_front: the list is empty", &l);
}

BOOST_AUTO_TEST_CASE(erasing_end_is_reported)
{
   ba::list<int> l{1, 2, 3};
   const std::string not_element = "ba::list::erase: the position is not an element of the list (end(), singular, or "
                                   "of another list)";
   const std::string not_range = "ba::list::erase: the range is not in the list (it starts at end(), is singular, or "
                                 "is of another list)";
   expect_report([&] { l.erase(l.end()); }, not_element, &l);
   expect_report([&] { l.erase(l.cend()); }, not_element, &l);
   expect_report([&] { l.erase(ba::list<int>::const_iterator()); }, not_element, &l);
   expect_report([&] { l.erase(l.end(), l.begin()); }, not_range, &l);   // from end(), around to begin()
   expect_report([&] { l.erase(ba::list<int>::const_iterator(), l.end()); }, not_range, &l);
   expect_report([&] { l.erase(l.begin(), ba::list<int>::const_iterator()); }, not_range, &l);
}

BOOST_AUTO_TEST_CASE(splicing_other_end_is_reported)
{
   ba::list<int> a{1, 2}, b{3, 4};
   expect_report([&] { a.splice(a.end(), b, b.end()); },
                 "ba::list::splice: the iterator is not an element of other (other.end(), singular, or of another list)",
                 &a);
   expect_report([&] { a.splice(a.end(), b, b.end(), b.begin()); },
                 "ba::list::splice: the range is not in other (it starts at other.end(), is singular, or is of another "
                 "list)",
                 &a);
   expect_report([&] { a.splice(ba::list<int>::const_iterator(), b); },
                 "ba::list::splice: the position is not in the list (singular, or of another list)", &a);
}

BOOST_AUTO_TEST_CASE(splicing_a_list_into_itself_is_reported)
{
   ba::list<int> l{1, 2, 3};
   expect_report([&] { l.splice(l.end(), l); }, "ba::list::splice: other is this list", &l);
   expect_report([&] { l.splice(l.begin(), std::move(l)); }, "ba::list::splice: other is this list", &l);
   // The position is the range's first element: inside the range, found at constant cost.
   expect_report([&] { l.splice(l.begin(), l, l.begin(), l.end()); },
                 "ba::list::splice: the position is the first element of the range", &l);
   ba::list<int> other{4, 5};
   expect_report([&] { l.splice(other.begin(), other, other.begin(), other.end()); },
                 "ba::list::splice: the position is the first element of the range", &l);
}

// A node does not know its list; but an empty list has no element, so any iterator but its end()
// given to it is another list's.
BOOST_AUTO_TEST_CASE(another_list_iterator_given_to_an_empty_list_is_reported)
{
   ba::list<int> empty, full{1, 2, 3}, none;
   const std::string insert = "ba::list::insert: the position is not in the list (singular, or of another list)";
   expect_report([&] { empty.insert(full.begin(), 0); }, insert, &empty);
   expect_report([&] { empty.insert(full.end(), 0); }, insert, &empty);   // another list's end() too
   expect_report([&] { empty.insert(full.begin(), 2, 0); }, insert, &empty);
   expect_report([&] { empty.emplace(full.begin(), 0); },
                 "ba::list::emplace: the position is not in the list (singular, or of another list)", &empty);
   expect_report([&] { empty.splice(full.begin(), none); },
                 "ba::list::splice: the position is not in the list (singular, or of another list)", &empty);
   expect_report([&] { empty.erase(full.begin()); },
                 "ba::list::erase: the position is not an element of the list (end(), singular, or of another list)",
                 &empty);
   expect_report([&] { empty.erase(full.begin(), full.end()); },
                 "ba::list::erase: the range is not in the list (it starts at end(), is singular, or is of another "
                 "list)",
                 &empty);
   expect_report([&] { empty.erase(full.end(), full.end()); },   // empty, but another list's
                 "ba::list::erase: the range is not in the list (it starts at end(), is singular, or is of another "
                 "list)",
                 &empty);
   // other is empty: the iterator or range said to be its is a third list's.
   expect_report([&] { full.splice(full.end(), empty, none.end()); },
                 "ba::list::splice: the iterator is not an element of other (other.end(), singular, or of another list)",
                 &full);
   ba::list<int> third{7, 8};
   expect_report([&] { full.splice(full.end(), empty, third.begin()); },
                 "ba::list::splice: the iterator is not an element of other (other.end(), singular, or of another list)",
                 &full);
   expect_report([&] { full.splice(full.end(), empty, third.begin(), third.end()); },
                 "ba::list::splice: the range is not in other (it starts at other.end(), is singular, or is of another "
                 "list)",
                 &full);
}

BOOST_AUTO_TEST_CASE(a_singular_position_is_reported)
{
   ba::list<int> l{1, 2};
   const ba::list<int>::const_iterator singular;
   const int values[] = {7, 8};
   const int x = 9;
   const std::string insert = "ba::list::insert: the position is not in the list (singular, or of another list)";
   expect_report([&] { l.insert(singular, 0); }, insert, &l);
   expect_report([&] { l.insert(singular, x); }, insert, &l);
   expect_report([&] { l.insert(singular, 2, x); }, insert, &l);
   expect_report([&] { l.insert(singular, values, values + 2); }, insert, &l);
   expect_report([&] { l.emplace(singular, 0); },
                 "ba::list::emplace: the position is not in the list (singular, or of another list)", &l);
}

BOOST_AUTO_TEST_CASE(a_precondition_violation_goes_to_the_replaced_handler)
{
   ba::list<int> l;
   const child_outcome out = run_in_child([&] {
      ba_set_diagnostic_handler(exiting_handler);
      l.pop_front();
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 7);
   BOOST_TEST(out.err.find("handler: ba::list::pop_front: the list is empty") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(valid_calls_at_the_edges_are_not_reported)
{
   const child_outcome out = run_in_child([] {
      ba::list<int> l{1, 2, 3}, other{4, 5};
      if (l.front() != 1 || l.back() != 3) std::_Exit(3);
      l.insert(l.end(), 4);   // end() is a position
      l.emplace(l.begin(), 0);
      l.erase(std::prev(l.end()));   // the last element
      l.erase(l.end(), l.end());   // an empty range at end()
      l.splice(l.end(), other, other.begin());
      l.splice(l.end(), other, other.end(), other.end());   // an empty range at other's end()
      l.splice(l.begin(), l, std::prev(l.end()));   // within the list
      l.splice(l.begin(), l, std::next(l.begin()), l.end());   // a range after the position
      l.splice(l.end(), l, l.begin(), std::next(l.begin()));
      l.splice(l.begin(), other);
      l.erase(l.begin(), l.end());
      l.push_back(1);
      l.pop_back();
      l.push_front(1);
      l.pop_front();
      // An empty list takes its own end(), and only the empty range there.
      l.insert(l.end(), 2);
      l.pop_back();
      l.erase(l.end(), l.end());
      l.erase(l.begin(), l.end());
      l.splice(l.end(), other);   // other is empty too
      l.splice(l.end(), other, other.end(), other.end());
      if (!l.empty() || !other.empty()) std::_Exit(4);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.signal == 0);
}
