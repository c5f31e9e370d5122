// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::list: the std::list interface over every kind of allocator (std, std::pmr, ba version 1
// and 2, a heap's, stateful ones of both versions), the list operations (splice, merge, sort,
// unique, remove, reverse) relinking without allocating, incomplete value types, allocator
// propagation, and max_size.

#define BOOST_TEST_MODULE allocplus list
#include "support/allocator_test_kit.hpp"
#include "support/fault_injection.hpp"   // as_int, values

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <list>
#include <memory>
#include <memory_resource>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

//! Every operation of the interface over allocator a, with results checked element by element.
template <class T, class A>
void exercise(const A &a)
{
   using L = ba::list<T, A>;
   using V = std::vector<int>;

   L l(a);
   BOOST_TEST(l.empty());
   BOOST_TEST(l.size() == 0u);
   BOOST_TEST((l.begin() == l.end()));

   L n(3, a);
   BOOST_TEST(values(n) == V({0, 0, 0}));
   L c(4, T(7), a);
   BOOST_TEST(values(c) == V({7, 7, 7, 7}));
   L il({1, 2, 3}, a);
   BOOST_TEST(values(il) == V({1, 2, 3}));
   const std::vector<T> src{5, 6, 7, 8};
   L r(src.begin(), src.end(), a);
   BOOST_TEST(values(r) == V({5, 6, 7, 8}));
   std::istringstream in("9 10 11");   // input iterators: one node at a time
   L fromin{std::istream_iterator<int>(in), std::istream_iterator<int>(), a};
   BOOST_TEST(values(fromin) == V({9, 10, 11}));

   // Copy and move.
   L copy(r);
   BOOST_TEST(values(copy) == values(r));
   L copy2(r, a);
   BOOST_TEST((copy2 == r));
   L moved(std::move(copy));
   BOOST_TEST(values(moved) == V({5, 6, 7, 8}));
   BOOST_TEST(copy.empty());
   L moved2(std::move(moved), a);
   BOOST_TEST(values(moved2) == V({5, 6, 7, 8}));
   copy = il;
   BOOST_TEST(values(copy) == V({1, 2, 3}));
   copy = std::move(moved2);
   BOOST_TEST(values(copy) == V({5, 6, 7, 8}));
   copy = {4, 3};
   BOOST_TEST(values(copy) == V({4, 3}));

   // assign: growing and shrinking.
   l.assign(5, T(2));
   BOOST_TEST(values(l) == V({2, 2, 2, 2, 2}));
   l.assign(2, T(3));
   BOOST_TEST(values(l) == V({3, 3}));
   l.assign(src.begin(), src.end());
   BOOST_TEST(values(l) == V({5, 6, 7, 8}));
   l.assign({1});
   BOOST_TEST(values(l) == V({1}));

   // insert / emplace / push / pop.
   auto it = l.insert(l.end(), T(4));
   BOOST_TEST(*it == T(4));
   it = l.insert(l.begin(), 2, T(0));
   BOOST_TEST((it == l.begin()));
   BOOST_TEST(values(l) == V({0, 0, 1, 4}));
   it = l.insert(std::next(l.begin(), 3), src.begin(), src.begin() + 2);
   BOOST_TEST(*it == T(5));
   BOOST_TEST(values(l) == V({0, 0, 1, 5, 6, 4}));
   it = l.insert(l.begin(), {8, 9});
   BOOST_TEST(values(l) == V({8, 9, 0, 0, 1, 5, 6, 4}));
   BOOST_TEST((l.insert(l.begin(), 0, T(3)) == l.begin()));
   BOOST_TEST((l.insert(l.end(), src.begin(), src.begin()) == l.end()));
   T &b = l.emplace_back(12);
   BOOST_TEST(b == T(12));
   T &f = l.emplace_front(11);
   BOOST_TEST(f == T(11));
   BOOST_TEST(l.front() == T(11));
   BOOST_TEST(l.back() == T(12));
   l.push_back(T(13));
   l.push_front(T(10));
   l.pop_front();
   l.pop_back();
   BOOST_TEST(values(l) == V({11, 8, 9, 0, 0, 1, 5, 6, 4, 12}));

   // erase.
   it = l.erase(l.begin());
   BOOST_TEST(*it == T(8));
   it = l.erase(std::next(l.begin()), std::next(l.begin(), 4));
   BOOST_TEST(*it == T(1));
   BOOST_TEST(values(l) == V({8, 1, 5, 6, 4, 12}));
   BOOST_TEST((l.erase(l.begin(), l.begin()) == l.begin()));

   // resize.
   l.resize(8);
   BOOST_TEST(values(l) == V({8, 1, 5, 6, 4, 12, 0, 0}));
   l.resize(3);
   BOOST_TEST(values(l) == V({8, 1, 5}));
   l.resize(5, T(9));
   BOOST_TEST(values(l) == V({8, 1, 5, 9, 9}));
   l.resize(1, T(9));
   BOOST_TEST(values(l) == V({8}));

   // reverse iterators, comparisons.
   L x({1, 2, 3}, a), y({1, 2, 4}, a);
   BOOST_TEST(std::vector<T>(x.rbegin(), x.rend()) == std::vector<T>({3, 2, 1}));
   BOOST_TEST((x < y));
   BOOST_TEST((x <= y));
   BOOST_TEST((y > x));
   BOOST_TEST((y >= x));
   BOOST_TEST((x != y));
   BOOST_TEST(!(x == y));

   l.clear();
   BOOST_TEST(l.empty());
   BOOST_TEST((l.begin() == l.end()));
}

ba::heap &test_heap()
{
   static ba::heap h;
   return h;
}

} // namespace

BOOST_AUTO_TEST_CASE(interface_works_with_std_allocator) { exercise<int>(std::allocator<int>()); }
BOOST_AUTO_TEST_CASE(interface_works_with_ba_allocator_version_1) { exercise<int>(ba::allocator<int, 1>()); }
BOOST_AUTO_TEST_CASE(interface_works_with_ba_allocator_version_2) { exercise<int>(ba::allocator<int, 2>()); }
BOOST_AUTO_TEST_CASE(interface_works_with_heap_allocator)
{
   exercise<int>(ba::heap_allocator<int>(test_heap()));
   exercise<long>(ba::heap_allocator<long, 1>(test_heap()));
}
BOOST_AUTO_TEST_CASE(interface_works_with_pmr)
{
   std::pmr::unsynchronized_pool_resource pool;
   exercise<int>(std::pmr::polymorphic_allocator<int>(&pool));
}
BOOST_AUTO_TEST_CASE(interface_works_with_stateful_allocators)
{
   stateful_registry::instance().reset_mismatches();
   exercise<int>(propagating_allocator<int, 1>(3));
   exercise<int>(non_propagating_allocator<int, 2>(4));
   BOOST_TEST(stateful_registry::instance().mismatches() == 0u);
   BOOST_TEST(stateful_registry::instance().live(3) == 0u);
   BOOST_TEST(stateful_registry::instance().live(4) == 0u);
}

BOOST_AUTO_TEST_CASE(pmr_elements_get_the_list_resource)
{
   std::pmr::unsynchronized_pool_resource pool;
   ba::list<std::pmr::string, std::pmr::polymorphic_allocator<std::pmr::string>> l(&pool);
   l.emplace_back("a string long enough to leave the small-string buffer");
   l.insert(l.end(), 3, std::pmr::string("another string long enough to be allocated"));
   for (const auto &s : l) BOOST_TEST(s.get_allocator().resource() == &pool);
}

namespace {
//! A value type that holds lists of itself: ba::list<T> must be a complete type while T is not.
struct tree {
   int value = 0;
   ba::list<tree> children;
   ba::list<tree, std::allocator<tree>>::iterator unused_iterator;
};
} // namespace

BOOST_AUTO_TEST_CASE(incomplete_value_type)
{
   tree root;
   root.children.emplace_back();
   root.children.back().value = 1;
   root.children.back().children.resize(3);
   tree copy = root;
   BOOST_TEST(copy.children.size() == 1u);
   BOOST_TEST(copy.children.front().children.size() == 3u);
   BOOST_TEST(copy.children.front().value == 1);
}

BOOST_AUTO_TEST_CASE(splice_moves_nodes_in_every_form)
{
   ba::list<int> a{1, 2, 3}, b{10, 20, 30};
   const int *twenty = &*std::next(b.begin());
   a.splice(std::next(a.begin()), b, std::next(b.begin()));   // one element
   BOOST_TEST(values(a) == std::vector<int>({1, 20, 2, 3}));
   BOOST_TEST(values(b) == std::vector<int>({10, 30}));
   BOOST_TEST(&*std::next(a.begin()) == twenty);
   BOOST_TEST(a.size() == 4u);
   BOOST_TEST(b.size() == 2u);
   a.splice(a.end(), b, b.begin(), b.end());   // a range
   BOOST_TEST(values(a) == std::vector<int>({1, 20, 2, 3, 10, 30}));
   BOOST_TEST(b.empty());
   b.splice(b.begin(), std::move(a));   // everything
   BOOST_TEST(a.empty());
   BOOST_TEST(b.size() == 6u);
   // Within one list: an element, a range; splicing an element before itself or its successor.
   b.splice(b.begin(), b, std::prev(b.end()));
   BOOST_TEST(values(b) == std::vector<int>({30, 1, 20, 2, 3, 10}));
   b.splice(b.begin(), b, b.begin());
   b.splice(std::next(b.begin()), b, b.begin());
   BOOST_TEST(values(b) == std::vector<int>({30, 1, 20, 2, 3, 10}));
   b.splice(b.begin(), b, std::next(b.begin(), 3), b.end());
   BOOST_TEST(values(b) == std::vector<int>({2, 3, 10, 30, 1, 20}));
   BOOST_TEST(b.size() == 6u);
}

BOOST_AUTO_TEST_CASE(list_operations_allocate_nothing_and_move_no_element)
{
   using elem = tracked<struct list_ops_tag>;
   allocation_counters counts;
   using A = counting_allocator<ba::allocator<elem>>;
   ba::list<elem, A> a{A(counts)}, b{A(counts)};
   for (int v : {5, 1, 4, 1, 5, 9, 2, 6}) a.emplace_back(v);
   for (int v : {3, 5, 8}) b.emplace_back(v);
   std::vector<const elem *> addresses;
   for (const elem &e : a) addresses.push_back(&e);
   counts.reset();
   elem::counters().reset();
   a.sort();
   b.sort();
   a.merge(b);
   a.reverse();
   a.splice(a.begin(), b);
   BOOST_TEST(counts.calls() == 0u);
   BOOST_TEST(counts.deallocations == 0u);
   BOOST_TEST(elem::counters().copies_and_moves() == 0);
   BOOST_TEST(elem::counters().copy_assignments + elem::counters().move_assignments == 0);
   BOOST_TEST(values(a) == std::vector<int>({9, 8, 6, 5, 5, 5, 4, 3, 2, 1, 1}));
   for (const elem *p : addresses)   // every original element is still where it was
      BOOST_TEST((std::find_if(a.begin(), a.end(), [p](const elem &e) { return &e == p; }) != a.end()));
}

namespace {
struct keyed {
   int key;
   int order;
   operator int() const { return key; }
};
} // namespace

BOOST_AUTO_TEST_CASE(sort_and_merge_are_stable)
{
   ba::list<keyed> l;
   for (int i = 0; i != 1000; ++i) l.push_back({(i * 7919) % 13, i});
   l.sort([](const keyed &x, const keyed &y) { return x.key < y.key; });
   auto prev = l.begin();
   for (auto it = std::next(l.begin()); it != l.end(); prev = it++) {
      BOOST_TEST(prev->key <= it->key);
      if (prev->key == it->key) BOOST_TEST(prev->order < it->order);
   }
   ba::list<keyed> a{{1, 0}, {2, 1}, {2, 2}}, b{{1, 10}, {2, 11}, {3, 12}};
   a.merge(b, [](const keyed &x, const keyed &y) { return x.key < y.key; });
   std::vector<int> orders;
   for (const keyed &k : a) orders.push_back(k.order);
   BOOST_TEST(orders == std::vector<int>({0, 10, 1, 2, 11, 12}));
   BOOST_TEST(b.empty());
}

BOOST_AUTO_TEST_CASE(sort_sorts_every_length)
{
   for (int n = 0; n != 70; ++n) {
      ba::list<int> l;
      for (int i = 0; i != n; ++i) l.push_back((i * 37 + 11) % 23);
      std::vector<int> expected = values(l);
      std::sort(expected.begin(), expected.end());
      l.sort();
      BOOST_TEST(values(l) == expected);
      std::vector<int> backwards = values(l);
      l.reverse();
      std::reverse(backwards.begin(), backwards.end());
      BOOST_TEST(values(l) == backwards);
      l.sort(std::greater<>());
      BOOST_TEST(values(l) == backwards);
      BOOST_TEST(l.size() == static_cast<std::size_t>(n));
   }
}

BOOST_AUTO_TEST_CASE(unique_remove_and_remove_if)
{
   ba::list<int> l{1, 1, 2, 3, 3, 3, 1, 4, 4};
   l.unique();
   BOOST_TEST(values(l) == std::vector<int>({1, 2, 3, 1, 4}));
   BOOST_TEST(l.size() == 5u);
   l.unique([](int first, int x) { return x - first < 3; });   // compared with the run's first
   BOOST_TEST(values(l) == std::vector<int>({1, 4}));
   ba::list<int> r{5, 1, 5, 2, 5};
   r.remove(r.front());   // the value is an element: it is erased last
   BOOST_TEST(values(r) == std::vector<int>({1, 2}));
   r.remove_if([](int x) { return x == 1; });
   BOOST_TEST(values(r) == std::vector<int>({2}));
   BOOST_TEST(r.size() == 1u);
}

BOOST_AUTO_TEST_CASE(beyond_max_size_throws_length_error)
{
   ba::list<int> l{1, 2};
   // doc/list.md: the node allocator's max_size(): ba::allocator's over the node type,
   // PTRDIFF_MAX / sizeof(node), below the PTRDIFF_MAX cap.
   using node_allocator = std::allocator_traits<ba::list<int>::allocator_type>::rebind_alloc<ba::detail::list_node<int>>;
   BOOST_TEST(l.max_size() == node_allocator().max_size());
   BOOST_TEST(l.max_size() == std::size_t(PTRDIFF_MAX) / sizeof(ba::detail::list_node<int>));
   BOOST_CHECK_THROW(l.insert(l.end(), l.max_size() - 1, 0), std::length_error);
   BOOST_CHECK_THROW(l.resize(l.max_size() + 1), std::length_error);
   BOOST_CHECK_THROW(ba::list<int>(l.max_size() + 1), std::length_error);
   BOOST_TEST(values(l) == std::vector<int>({1, 2}));
}

BOOST_AUTO_TEST_CASE(copy_assignment_propagates_as_the_allocator_says)
{
   stateful_registry::instance().reset_mismatches();
   {
      using A = propagating_allocator<int, 2>;
      ba::list<int, A> a({1, 2, 3}, A(1)), b({4}, A(2));
      b = a;
      BOOST_TEST(b.get_allocator().id() == 1);
      BOOST_TEST(values(b) == std::vector<int>({1, 2, 3}));
      ba::list<int, A> c({7}, A(3));
      c = std::move(a);   // propagates: takes a's nodes
      BOOST_TEST(c.get_allocator().id() == 1);
      BOOST_TEST(values(c) == std::vector<int>({1, 2, 3}));
      a.swap(b);
      BOOST_TEST(a.get_allocator().id() == 1);
      BOOST_TEST(values(a) == std::vector<int>({1, 2, 3}));
   }
   {
      using A = non_propagating_allocator<int, 2>;
      ba::list<int, A> a({1, 2, 3}, A(5)), b({4}, A(6));
      b = a;
      BOOST_TEST(b.get_allocator().id() == 6);
      BOOST_TEST(values(b) == std::vector<int>({1, 2, 3}));
      ba::list<int, A> c({9}, A(7));
      const int *first = &a.front();
      c = std::move(a);   // unequal, not propagating: the elements move to c's own nodes
      BOOST_TEST(c.get_allocator().id() == 7);
      BOOST_TEST(values(c) == std::vector<int>({1, 2, 3}));
      BOOST_TEST(&c.front() != first);
      ba::list<int, A> d(std::move(c), A(8));   // move construction with another allocator
      BOOST_TEST(d.get_allocator().id() == 8);
      BOOST_TEST(values(d) == std::vector<int>({1, 2, 3}));
      ba::list<int, A> e(d);   // select_on_container_copy_construction: the same id
      BOOST_TEST(e.get_allocator().id() == 8);
   }
   BOOST_TEST(stateful_registry::instance().mismatches() == 0u);
   for (int id = 1; id != 9; ++id) BOOST_TEST(stateful_registry::instance().live(id) == 0u);
}

BOOST_AUTO_TEST_CASE(move_construction_takes_the_nodes)
{
   ba::list<std::string> a{"one", "two"};
   const std::string *one = &a.front();
   ba::list<std::string> b(std::move(a));
   BOOST_TEST(&b.front() == one);
   BOOST_TEST(a.empty());
   a.push_back("three");   // a moved-from list is usable
   BOOST_TEST(a.size() == 1u);
   swap(a, b);
   BOOST_TEST(&a.front() == one);
   BOOST_TEST(b.front() == "three");
}

BOOST_AUTO_TEST_CASE(deduction_from_a_range)
{
   const std::vector<long> v{1, 2, 3};
   ba::list l(v.begin(), v.end());
   static_assert(std::is_same<decltype(l), ba::list<long>>::value, "deduced ba::list<long>");
   BOOST_TEST(l.size() == 3u);
}

// The default constructor builds the allocator of nodes in place, value-initialized, as
// std::list's does: no allocator of T made, converted and moved into the list.
BOOST_AUTO_TEST_CASE(default_constructor_value_initializes_the_allocator_in_place)
{
   using A = constructor_counting_allocator<int>;
   allocator_constructions::reset();
   {
      ba::list<int, A> l;
      const allocator_constructions made = allocator_constructions::get();
      BOOST_TEST(made.defaults == 1);
      BOOST_TEST(made.total() == 1);   // no copy, move or conversion
      BOOST_TEST(l.empty());
   }
   allocator_constructions::reset();
   {
      std::list<int, A> s;
      BOOST_TEST(allocator_constructions::get().total() == 1);   // what std's makes
      BOOST_TEST(s.empty());
   }
   static_assert(std::is_nothrow_default_constructible<ba::list<int, A>>::value, "");

   // Value-initialized, not default-initialized: over storage full of ones, the id is 0.
   using L = ba::list<int, value_initialized_allocator<int>>;
   alignas(L) unsigned char storage[sizeof(L)];
   for (unsigned char &b : storage) *static_cast<volatile unsigned char *>(&b) = 0xff;
   L *const l = ::new (static_cast<void *>(storage)) L;
   BOOST_TEST(l->get_allocator().id == 0);
   l->push_back(1);
   BOOST_TEST(l->front() == 1);
   l->~L();
}
