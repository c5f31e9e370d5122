// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/vector.hpp and is_trivially_relocatable.hpp: the std::vector
// interface over every kind of allocator; growth by forward expansion, backward expansion and
// new buffers (each forced by an expansion-limited allocator or a mask); self-insertion under
// each growth path; shrink_to_fit in place; the received size as capacity; bitwise relocation
// and a self-pointing type; allocator propagation; incomplete types; deduction guides.

#define BOOST_TEST_MODULE allocplus vector
#include "support/allocator_test_kit.hpp"
#include "support/grown_buffer_placement.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <iterator>
#include <list>
#include <memory>
#include <memory_resource>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

// --- element types ----------------------------------------------------------------------------

//! Points to itself; every copy or move repoints. Using an object whose pointer is stale (one
//! moved with memcpy) throws.
struct self_pointing {
   int value;
   self_pointing *self;

   self_pointing(int v = 0) noexcept : value(v), self(this) {}
   self_pointing(const self_pointing &o) : value(o.get()), self(this) {}
   self_pointing(self_pointing &&o) noexcept : value(o.value), self(this) {}
   self_pointing &operator=(const self_pointing &o)
   {
      value = o.get();
      return *this;
   }
   int get() const
   {
      if (self != this) throw std::logic_error("self_pointing moved bitwise");
      return value;
   }
};

//! Opted in as bitwise relocatable; its move (never used by growth then) counts.
struct relocatable {
   static inline int moves = 0;
   static inline int copies = 0;
   int value;
   std::unique_ptr<int> owned;   // not trivially copyable

   relocatable(int v = 0) : value(v), owned(new int(v)) {}
   relocatable(const relocatable &o) : value(o.value), owned(new int(*o.owned)) { ++copies; }
   relocatable(relocatable &&o) noexcept(false) : value(o.value), owned(std::move(o.owned)) { ++moves; }
   relocatable &operator=(const relocatable &o)
   {
      value = o.value;
      owned.reset(new int(*o.owned));
      return *this;
   }
   relocatable &operator=(relocatable &&o) noexcept
   {
      value = o.value;
      owned = std::move(o.owned);
      return *this;
   }
   int get() const { return owned && *owned == value ? value : -1; }
};

int value_of(int x) { return x; }
int value_of(const std::string &s) { return std::stoi(s); }
int value_of(const self_pointing &x) { return x.get(); }
int value_of(const relocatable &x) { return x.get(); }
template <class Tag, std::size_t B, bool N, std::size_t Al>
int value_of(const tracked<Tag, B, N, Al> &x)
{
   return x.value();
}

template <class T>
T make(int i)
{
   if constexpr (std::is_same<T, std::string>::value) return std::to_string(i) + std::string(20, ' ');
   else return T(i);
}

template <class V>
std::vector<int> values(const V &v)
{
   std::vector<int> r;
   for (const auto &x : v) r.push_back(value_of(x));
   return r;
}

template <class V>
std::vector<int> iota_values(std::size_t n, int from = 0)
{
   std::vector<int> r(n);
   std::iota(r.begin(), r.end(), from);
   return r;
}

} // namespace

namespace boost { namespace allocplus {
template <>
struct is_trivially_relocatable<relocatable> : std::true_type {};
}} // namespace boost::allocplus

namespace {

// --- allocators -------------------------------------------------------------------------------

ba::heap &test_heap()
{
   static ba::heap h;
   return h;
}

template <class A>
A make_allocator()
{
   return A();
}
template <>
ba::heap_allocator<int> make_allocator<ba::heap_allocator<int>>()
{
   return ba::heap_allocator<int>(test_heap());
}

using every_allocator = boost::mpl::list<
   ba::allocator<int, 1>, ba::allocator<int, 2>, ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>,
   ba::allocator<int, 2, ba::expand_fwd>, ba::allocator<int, 2, ba::expand_bwd>, ba::heap_allocator<int>,
   std::allocator<int>, std::pmr::polymorphic_allocator<int>, propagating_allocator<int, 1>,
   propagating_allocator<int, 2>, non_propagating_allocator<int, 2>, forward_expansion_allocator<int>,
   backward_expansion_allocator<int>, counting_allocator<ba::allocator<int>>>;

} // namespace

// --- the interface over every allocator -------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(interface_matches_std_vector_over_every_allocator, A, every_allocator)
{
   using vec = ba::vector<int, A>;
   const A a = make_allocator<A>();
   vec v(a);
   std::vector<int> m;
   for (int i = 0; i != 1000; ++i) {
      v.push_back(i);
      m.push_back(i);
   }
   BOOST_TEST(values(v) == m);
   BOOST_TEST(v.capacity() >= v.size());
   v.insert(v.begin() + 10, 5, -1);
   m.insert(m.begin() + 10, 5, -1);
   const int extra[] = {7, 8, 9};
   v.insert(v.begin(), std::begin(extra), std::end(extra));
   m.insert(m.begin(), std::begin(extra), std::end(extra));
   v.insert(v.end(), {1, 2, 3});
   m.insert(m.end(), {1, 2, 3});
   v.emplace(v.begin() + 500, 42);
   m.emplace(m.begin() + 500, 42);
   v.erase(v.begin() + 3, v.begin() + 100);
   m.erase(m.begin() + 3, m.begin() + 100);
   v.erase(v.begin() + 1);
   m.erase(m.begin() + 1);
   BOOST_TEST(values(v) == m);
   v.resize(2000);
   m.resize(2000);
   v.resize(1500, 3);
   m.resize(1500, 3);
   v.resize(3000, 4);
   m.resize(3000, 4);
   BOOST_TEST(values(v) == m);
   v.pop_back();
   m.pop_back();
   v.shrink_to_fit();
   BOOST_TEST(values(v) == m);
   BOOST_TEST(v.capacity() >= v.size());

   vec w(v);
   BOOST_TEST(w == v);
   vec x(std::move(w), a);
   BOOST_TEST(x == v);
   vec y(a);
   y = x;
   BOOST_TEST(y == v);
   y.assign(10, 5);
   BOOST_TEST(values(y) == std::vector<int>(10, 5));
   y.assign(m.begin(), m.end());
   BOOST_TEST(values(y) == m);
   y.assign({1, 2});
   BOOST_TEST(values(y) == (std::vector<int>{1, 2}));
   y = std::move(x);
   BOOST_TEST(values(y) == m);
   std::istringstream in("4 5 6");
   vec z(std::istream_iterator<int>(in), std::istream_iterator<int>(), a);
   BOOST_TEST(values(z) == (std::vector<int>{4, 5, 6}));
   z.swap(y);
   BOOST_TEST(values(y) == (std::vector<int>{4, 5, 6}));
   BOOST_TEST(values(z) == m);
   z.clear();
   BOOST_TEST(z.empty());
   z.shrink_to_fit();
   BOOST_TEST(z.capacity() == 0u);
}

BOOST_AUTO_TEST_CASE(element_access_and_comparisons)
{
   ba::vector<int> v{3, 1, 2};
   const ba::vector<int> &c = v;
   BOOST_TEST(v.front() == 3);
   BOOST_TEST(c.back() == 2);
   BOOST_TEST(v.at(1) == 1);
   BOOST_TEST(c[2] == 2);
   BOOST_TEST(v.data() == &v[0]);
   BOOST_CHECK_THROW(v.at(3), std::out_of_range);
   BOOST_CHECK_THROW(c.at(3), std::out_of_range);
   BOOST_TEST(*v.rbegin() == 2);
   BOOST_TEST(std::distance(v.crbegin(), v.crend()) == 3);
   ba::vector<int> w{3, 1, 3};
   BOOST_TEST((v < w));
   BOOST_TEST((w > v));
   BOOST_TEST((v <= w));
   BOOST_TEST((w >= v));
   BOOST_TEST((v != w));
   BOOST_TEST(!(v == w));
   w[2] = 2;
   BOOST_TEST((v == w));
   swap(v, w);
   BOOST_TEST((v == w));
}

BOOST_AUTO_TEST_CASE(deduction_guides_and_incomplete_types)
{
   const std::list<double> l{1.0, 2.0};
   ba::vector v(l.begin(), l.end());
   static_assert(std::is_same<decltype(v), ba::vector<double>>::value, "deduced from iterators");
   ba::vector w(l.begin(), l.end(), std::allocator<double>());
   static_assert(std::is_same<decltype(w), ba::vector<double, std::allocator<double>>>::value, "with allocator");
   ba::vector x{1, 2, 3};
   static_assert(std::is_same<decltype(x), ba::vector<int>>::value, "from an initializer list");
   ba::vector y(3u, 'a');
   static_assert(std::is_same<decltype(y), ba::vector<char>>::value, "n copies, not a range");
   BOOST_TEST(y.size() == 3u);

   struct tree {
      int value;
      ba::vector<tree> children;   // tree is incomplete here
   };
   tree t{1, {}};
   for (int i = 0; i != 100; ++i) t.children.push_back(tree{i, {}});
   t.children[5].children.push_back(tree{7, {}});
   BOOST_TEST(t.children[5].children[0].value == 7);
   BOOST_TEST(t.children.back().value == 99);
}

BOOST_AUTO_TEST_CASE(beyond_max_size_throws_length_error)
{
   ba::vector<int> v{1, 2, 3};
   BOOST_CHECK_THROW(v.reserve(v.max_size() + 1), std::length_error);
   BOOST_CHECK_THROW(v.resize(v.max_size() + 1), std::length_error);
   // Through a volatile: with the constant, GCC 12 follows the (unreachable) path where the
   // elements fit and warns that constructing them would overflow the address space.
   volatile std::size_t all = v.max_size();
   BOOST_CHECK_THROW(v.insert(v.begin(), all, 0), std::length_error);
   BOOST_CHECK_THROW(ba::vector<int>(v.max_size() + 1), std::length_error);
   // doc/vector.md: the allocator's max_size(), at most PTRDIFF_MAX / sizeof(T); ba::allocator's is
   // exactly that.
   BOOST_TEST(v.max_size() == std::size_t(PTRDIFF_MAX) / sizeof(int));
   BOOST_TEST(values(v) == (std::vector<int>{1, 2, 3}));
}

// --- growth paths -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(forward_expansion_grows_without_moving)
{
   using elem = tracked<struct fwd_tag, 8, false>;   // throwing move: only forward may be used
   allocation_counters c;
   using A = counting_allocator<ba::allocator<elem>>;
   ba::vector<elem, A> v{A(c)};
   v.reserve(1);
   elem::counters().reset();
   const elem *start = v.data();
   std::size_t moved_buffers = 0;
   for (int i = 0; i != 20000; ++i) {
      v.emplace_back(i);
      if (v.data() != start) ++moved_buffers, start = v.data();
   }
   // The core's top chunk lets the buffer grow in place: at most a couple of moves.
   BOOST_TEST(c.expansions_fwd > 5u);
   BOOST_TEST(moved_buffers <= 2u);
   BOOST_TEST(elem::counters().copies + elem::counters().moves <= static_cast<long>(moved_buffers * 20000));
   BOOST_TEST(c.expansions_bwd == 0u);
   for (int i = 0; i != 20000; ++i) BOOST_REQUIRE(v[static_cast<std::size_t>(i)].value() == i);
   // The received size is the capacity: every element of the block (filled, so that under ASan
   // no spare capacity is poisoned: the core's size() reports the unpoisoned bytes).
   while (v.size() < v.capacity()) v.emplace_back(0);
   BOOST_TEST(v.capacity() == ba::allocator<elem>().size(v.data()));
}

BOOST_AUTO_TEST_CASE(forward_only_allocator_expands_forward)
{
   using elem = tracked<struct fwd_only_tag, 8, true>;
   elem::counters().reset();
   {
      allocation_counters c;
      using A = counting_allocator<forward_expansion_allocator<elem>>;
      ba::vector<elem, A> v{A(c)};
      for (int i = 0; i != 300; ++i) v.emplace_back(i);
      BOOST_TEST(c.expansions_fwd > 0u);
      BOOST_TEST(c.expansions_bwd == 0u);
      for (int i = 0; i != 300; ++i) BOOST_REQUIRE(v[static_cast<std::size_t>(i)].value() == i);
      BOOST_TEST(elem::counters().live == 300);
   }
   BOOST_TEST(elem::counters().live == 0);
}

template <class Elem>
void check_backward_growth()
{
   allocation_counters c;
   using A = counting_allocator<backward_expansion_allocator<Elem>>;
   ba::vector<Elem, A> v{A(c)};
   std::vector<int> model;
   for (int i = 0; i != 400; ++i) {
      if (i % 7 == 3) {
         v.emplace(v.begin() + i / 2, make<Elem>(i));
         model.insert(model.begin() + i / 2, i);
      } else {
         v.emplace_back(make<Elem>(i));
         model.push_back(i);
      }
   }
   BOOST_TEST(c.expansions_bwd > 0u);
   BOOST_TEST(c.expansions_fwd == 0u);
   BOOST_TEST(values(v) == model);
   // reserve and a range insert expand backward too: on a copy, whose new block (of exactly
   // its size) ends its slab of 4 times the room.
   ba::vector<Elem, A> w(v);
   std::size_t before = c.expansions_bwd;
   w.reserve(w.capacity() + 1);
   BOOST_TEST(c.expansions_bwd == before + 1);
   BOOST_TEST(values(w) == model);
   std::vector<Elem> more;
   for (int i = 0; i != 300; ++i) more.push_back(make<Elem>(i));
   before = c.expansions_bwd;
   w.insert(w.begin() + 5, more.begin(), more.end());
   const std::vector<int> inserted = iota_values<int>(300);
   model.insert(model.begin() + 5, inserted.begin(), inserted.end());
   BOOST_TEST(c.expansions_bwd == before + 1);
   BOOST_TEST(values(w) == model);
}

BOOST_AUTO_TEST_CASE(backward_expansion_moves_elements_down)
{
   check_backward_growth<int>();
   check_backward_growth<std::string>();
   check_backward_growth<self_pointing>();
   check_backward_growth<relocatable>();
   using elem = tracked<struct bwd_tag, 12, true>;   // 12 bytes: not a multiple of the alignment
   elem::counters().reset();
   check_backward_growth<elem>();
   BOOST_TEST(elem::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(backward_expansion_not_asked_for_throwing_moves)
{
   using elem = tracked<struct no_bwd_tag, 8, false>;   // move may throw, not relocatable
   static_assert(!std::is_nothrow_move_constructible<elem>::value && !ba::is_trivially_relocatable<elem>::value,
                 "the element this test needs");
   allocation_counters c;
   using A = counting_allocator<backward_expansion_allocator<elem>>;
   ba::vector<elem, A> v{A(c)};
   for (int i = 0; i != 200; ++i) v.emplace_back(i);
   BOOST_TEST(c.expansions_bwd == 0u);
   BOOST_TEST(c.allocations > 3u);
   for (int i = 0; i != 200; ++i) BOOST_REQUIRE(v[static_cast<std::size_t>(i)].value() == i);
}

// --- self-insertion under each growth path -----------------------------------------------------

template <class Elem, class A>
void check_self_insertion(const A &a)
{
   for (int round = 0; round != 60; ++round) {
      ba::vector<Elem, A> v(a);
      std::vector<int> m;
      for (int i = 0; i != round; ++i) {
         v.push_back(make<Elem>(i));
         m.push_back(i);
      }
      v.shrink_to_fit();   // full: the next insertion grows
      const int n = static_cast<int>(m.size());
      switch (round % 6) {
      case 0:
         if (n) v.push_back(v[0]), m.push_back(m[0]);
         else v.push_back(make<Elem>(-1)), m.push_back(-1);
         break;
      case 1:
         if (n) v.insert(v.begin(), v.back()), m.insert(m.begin(), m.back());
         break;
      case 2:
         if (n) v.emplace_back(v[static_cast<std::size_t>(n / 2)]), m.push_back(m[static_cast<std::size_t>(n / 2)]);
         break;
      case 3:
         if (n) v.insert(v.begin() + n / 2, 40, v[static_cast<std::size_t>(n - 1)]),
               m.insert(m.begin() + n / 2, 40, m[static_cast<std::size_t>(n - 1)]);
         break;
      case 4:
         if (n) v.resize(static_cast<std::size_t>(3 * n + 5), v[0]), m.resize(static_cast<std::size_t>(3 * n + 5), m[0]);
         break;
      case 5:
         if (n) v.emplace(v.begin() + n / 3, std::move(v[static_cast<std::size_t>(n - 1)])),
               m.insert(m.begin() + n / 3, m[static_cast<std::size_t>(n - 1)]);
         if (n) v.pop_back(), m.pop_back();   // the moved-from one (a std::string is empty)
         break;
      }
      BOOST_REQUIRE(values(v) == m);
      // Once more, now with spare capacity (no growth).
      if (n) {
         v.reserve(v.size() + 50);
         v.push_back(v[0]);
         m.push_back(m[0]);
         v.insert(v.begin(), v.back());
         m.insert(m.begin(), m.back());
         BOOST_REQUIRE(values(v) == m);
      }
   }
}

template <class Elem>
void check_self_insertion_everywhere()
{
   check_self_insertion<Elem>(forward_expansion_allocator<Elem>());
   check_self_insertion<Elem>(backward_expansion_allocator<Elem>());
   check_self_insertion<Elem>(ba::allocator<Elem, 2, ba::expand_fwd | ba::expand_bwd>());
   check_self_insertion<Elem>(ba::allocator<Elem, 2>());
   check_self_insertion<Elem>(std::allocator<Elem>());
}

BOOST_AUTO_TEST_CASE(self_insertion_under_every_growth_path)
{
   check_self_insertion_everywhere<int>();
   check_self_insertion_everywhere<std::string>();
   check_self_insertion_everywhere<self_pointing>();
   check_self_insertion_everywhere<relocatable>();
   using elem = tracked<struct self_tag, 12, true>;
   elem::counters().reset();
   check_self_insertion_everywhere<elem>();
   BOOST_TEST(elem::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(self_insertion_counts_the_paths_it_took)
{
   // The test above is only meaningful if each allocator really took its path.
   allocation_counters fwd, bwd, fresh;
   {
      ba::vector<int, counting_allocator<forward_expansion_allocator<int>>> v(
         counting_allocator<forward_expansion_allocator<int>>{fwd});
      v.push_back(1);
      while (v.size() < v.capacity()) v.push_back(2);
      v.push_back(v[0]);
   }
   {
      ba::vector<int, counting_allocator<backward_expansion_allocator<int>>> v(
         counting_allocator<backward_expansion_allocator<int>>{bwd});
      v.push_back(1);
      while (v.size() < v.capacity()) v.push_back(2);
      v.push_back(v[0]);
      BOOST_TEST(v[1] == 1);
   }
   {
      using masked = ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>;
      ba::vector<int, counting_allocator<masked>> v(counting_allocator<masked>{fresh});
      v.push_back(1);
      while (v.size() < v.capacity()) v.push_back(2);
      v.push_back(v[0]);
   }
   BOOST_TEST(fwd.expansions_fwd == 1u);
   BOOST_TEST(bwd.expansions_bwd == 1u);
   BOOST_TEST(fresh.allocations == 2u);
   BOOST_TEST(fresh.expansions() == 0u);
}

// --- shrink_to_fit ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(shrink_to_fit_shrinks_in_place)
{
   using elem = tracked<struct shrink_tag, 8, false>;
   allocation_counters c;
   using A = counting_allocator<ba::allocator<elem>>;
   ba::vector<elem, A> v{A(c)};
   for (int i = 0; i != 10000; ++i) v.emplace_back(i);
   v.erase(v.begin() + 100, v.end());
   const elem *data = v.data();
   const elem *first = &v[0];
   const std::size_t allocations = c.allocations;
   elem::counters().reset();
   elem::counters().throw_on_copy(1);   // any copy or move would throw
   elem::counters().throw_on_move(1);
   v.shrink_to_fit();
   elem::counters().never_throw();
   BOOST_TEST(v.data() == data);
   BOOST_TEST(&v[0] == first);
   BOOST_TEST(v.capacity() < 200u);
   BOOST_TEST(v.capacity() >= 100u);
   BOOST_TEST(c.shrinks == 1u);
   BOOST_TEST(c.allocations == allocations);
   BOOST_TEST(elem::counters().copies_and_moves() == 0);
   for (int i = 0; i != 100; ++i) BOOST_REQUIRE(v[static_cast<std::size_t>(i)].value() == i);
}

BOOST_AUTO_TEST_CASE(shrink_to_fit_reallocates_with_version_1)
{
   ba::vector<int, std::allocator<int>> v(1000, 1);
   v.resize(10);
   v.shrink_to_fit();
   BOOST_TEST(v.capacity() == 10u);
   BOOST_TEST(values(v) == std::vector<int>(10, 1));
   v.clear();
   v.shrink_to_fit();
   BOOST_TEST(v.capacity() == 0u);
   BOOST_TEST(v.data() == nullptr);
}

// --- the received size ------------------------------------------------------------------------

template <class T>
struct generous_allocator {   // allocate_at_least gives 7 more
   using value_type = T;
   generous_allocator() = default;
   template <class U>
   generous_allocator(const generous_allocator<U> &) noexcept
   {}
   T *allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
   ba::allocation_result<T *> allocate_at_least(std::size_t n) { return {allocate(n + 7), n + 7}; }
   void deallocate(T *p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
   friend bool operator==(const generous_allocator &, const generous_allocator &) { return true; }
   friend bool operator!=(const generous_allocator &, const generous_allocator &) { return false; }
};

BOOST_AUTO_TEST_CASE(capacity_is_what_allocate_at_least_returns)
{
   ba::vector<int, generous_allocator<int>> v(10, 1);
   BOOST_TEST(v.capacity() == 17u);
   v.reserve(100);
   BOOST_TEST(v.capacity() == 107u);
   for (int i = 0; i != 97; ++i) v.push_back(i);
   BOOST_TEST(v.capacity() == 107u);
   v.push_back(1);
   BOOST_TEST(v.capacity() == 214u + 7u);
   ba::vector<int> w(10, 1);
   w.resize(w.capacity());
   BOOST_TEST(w.capacity() == ba::allocator<int>().size(w.data()));
}

// --- relocation -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(relocatable_elements_move_bitwise_to_a_new_buffer)
{
   static_assert(ba::is_trivially_relocatable<int>::value, "trivially copyable");
   static_assert(!ba::is_trivially_relocatable<std::string>::value, "libstdc++'s string points into itself");
   static_assert(!ba::is_trivially_relocatable<self_pointing>::value, "user-written copy");
   static_assert(ba::is_trivially_relocatable<relocatable>::value, "opted in");
   relocatable::moves = relocatable::copies = 0;
   ba::vector<relocatable, std::allocator<relocatable>> v;
   for (int i = 0; i != 1000; ++i) v.emplace_back(i);
   BOOST_TEST(relocatable::moves == 0);   // growth moved them with memcpy
   BOOST_TEST(relocatable::copies == 0);
   for (int i = 0; i != 1000; ++i) BOOST_REQUIRE(v[static_cast<std::size_t>(i)].get() == i);
   v.insert(v.begin(), relocatable(-1));
   BOOST_TEST(v[0].get() == -1);
   BOOST_TEST(v[1000].get() == 999);
}

BOOST_AUTO_TEST_CASE(self_pointing_elements_are_moved_by_their_constructor)
{
   ba::vector<self_pointing, ba::allocator<self_pointing, 2, ba::expand_fwd | ba::expand_bwd>> v;
   for (int i = 0; i != 1000; ++i) v.emplace_back(i);
   v.insert(v.begin() + 3, 100, self_pointing(5));
   v.shrink_to_fit();
   v.reserve(5000);
   for (std::size_t i = 0; i != v.size(); ++i) BOOST_REQUIRE_NO_THROW(v[i].get());
}

// --- stateful allocators ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(propagating_allocator_travels_with_the_buffer)
{
   using A = propagating_allocator<int, 2>;
   const std::size_t mismatches = stateful_registry::instance().mismatches();
   {
      ba::vector<int, A> a(100, 1, A(1)), b(10, 2, A(2));
      a = b;   // copy: propagates
      BOOST_TEST(a.get_allocator().id() == 2);
      ba::vector<int, A> c(5, 3, A(3));
      a = std::move(c);
      BOOST_TEST(a.get_allocator().id() == 3);
      a.swap(b);
      BOOST_TEST(a.get_allocator().id() == 2);
      BOOST_TEST(b.get_allocator().id() == 3);
      for (int i = 0; i != 1000; ++i) b.push_back(i);   // grows with its own allocator
      ba::vector<int, A> d(b);
      BOOST_TEST(d.get_allocator().id() == 3);
   }
   BOOST_TEST(stateful_registry::instance().mismatches() == mismatches);
}

BOOST_AUTO_TEST_CASE(non_propagating_allocator_stays_put)
{
   using A = non_propagating_allocator<int, 2>;
   const std::size_t mismatches = stateful_registry::instance().mismatches();
   {
      ba::vector<int, A> a(100, 1, A(1)), b(10, 2, A(2));
      a = b;
      BOOST_TEST(a.get_allocator().id() == 1);
      BOOST_TEST(values(a) == std::vector<int>(10, 2));
      ba::vector<int, A> c(5000, 3, A(3));
      const int *c_data = c.data();
      a = std::move(c);   // unequal: element-wise
      BOOST_TEST(a.get_allocator().id() == 1);
      BOOST_TEST(a.data() != c_data);
      BOOST_TEST(values(a) == std::vector<int>(5000, 3));
      ba::vector<int, A> d(std::move(a), A(4));
      BOOST_TEST(d.get_allocator().id() == 4);
      BOOST_TEST(d.size() == 5000u);
      ba::vector<int, A> e(std::move(d), A(4));   // equal: takes the buffer
      BOOST_TEST(e.size() == 5000u);
      BOOST_TEST(d.empty());
   }
   BOOST_TEST(stateful_registry::instance().mismatches() == mismatches);
}

BOOST_AUTO_TEST_CASE(pmr_vector_uses_its_resource)
{
   char buffer[4096];
   std::pmr::monotonic_buffer_resource r(buffer, sizeof buffer, std::pmr::null_memory_resource());
   ba::vector<int, std::pmr::polymorphic_allocator<int>> v(&r);
   for (int i = 0; i != 100; ++i) v.push_back(i);
   const char *d = reinterpret_cast<const char *>(v.data());
   BOOST_TEST((d >= buffer && d < buffer + sizeof buffer));
   ba::vector<int, std::pmr::polymorphic_allocator<int>> w;   // the default resource
   w = v;
   BOOST_TEST(w.get_allocator().resource() != &r);
   BOOST_TEST(w == v);
   BOOST_CHECK_THROW(v.reserve(10000), std::bad_alloc);
   BOOST_TEST(v.size() == 100u);
}

BOOST_AUTO_TEST_CASE(pmr_elements_use_the_vectors_resource)
{
   // Uses-allocator construction: every element, also those moved by growth and the copies of
   // self-insertion, uses the vector's resource.
   std::pmr::unsynchronized_pool_resource pool;
   using A = std::pmr::polymorphic_allocator<std::pmr::string>;
   ba::vector<std::pmr::string, A> v(&pool);
   for (int i = 0; i != 300; ++i) {
      v.emplace_back(std::to_string(i) + std::string(40, 'x'));   // not a short string
      if (i % 3 == 0) v.insert(v.begin() + i / 2, v.back());
   }
   v.shrink_to_fit();
   v.reserve(2000);
   for (const auto &s : v) BOOST_REQUIRE(s.get_allocator().resource() == &pool);
   BOOST_TEST(v.size() == 400u);
}

// --- what std asks of T, and no more; what std promises, and no less -----------------------------

namespace {
//! Move-constructible but not assignable (a const member): std::vector appends such elements.
struct not_assignable {
   const int id;
   std::string name;
};

//! Overloads unary & (as COM-style handles do): containers must take addresses with addressof.
struct handle {
   int value;
   int **operator&() const { return nullptr; }
};
} // namespace

BOOST_AUTO_TEST_CASE(appends_need_no_assignment_of_the_element_type)
{
   ba::vector<not_assignable> v;
   v.reserve(2);
   v.push_back(not_assignable{1, "one"});
   v.emplace_back(not_assignable{2, "two"});
   for (int i = 3; i != 100; ++i) v.push_back(not_assignable{i, "n"});   // growth
   BOOST_TEST(v.size() == 99u);
   BOOST_TEST(v[1].name == "two");
   BOOST_TEST(v.back().id == 99);
   v.resize(10, not_assignable{0, ""});
   BOOST_TEST(v.size() == 10u);
   BOOST_TEST(v[9].id == 10);
}

BOOST_AUTO_TEST_CASE(values_are_taken_by_addressof_not_operator_address)
{
   ba::vector<handle> v(2, handle{4});
   v.insert(v.begin(), 1, handle{9});
   v.resize(4, handle{7});
   v.assign(3, handle{5});
   v.assign(6, v[0]);   // an element: the growth path must read it through addressof too
   BOOST_TEST(v.size() == 6u);
   for (const handle &h : v) BOOST_TEST(h.value == 5);
}

BOOST_AUTO_TEST_CASE(input_range_insert_that_fails_leaves_the_vector_unchanged)
{
   failure_plan plan;
   using A = failing_allocator<ba::allocator<int>>;
   ba::vector<int, A> v{A(plan)};
   v.assign({1, 2, 3, 4});
   v.shrink_to_fit();
   std::istringstream in("10 20 30 40 50 60 70 80 90 100 110 120");
   plan.fail_from(1);   // the first growth fails, after the elements that fitted were appended
   BOOST_CHECK_THROW(v.insert(v.begin() + 1, std::istream_iterator<int>(in), std::istream_iterator<int>()),
                     std::bad_alloc);
   BOOST_TEST(plan.fired());
   BOOST_TEST(values(v) == (std::vector<int>{1, 2, 3, 4}));
}

// The default constructor builds the allocator in place, value-initialized, as std::vector's
// does: no temporary moved or copied into the vector.
BOOST_AUTO_TEST_CASE(default_constructor_value_initializes_the_allocator_in_place)
{
   using A = constructor_counting_allocator<int>;
   allocator_constructions::reset();
   {
      ba::vector<int, A> v;
      const allocator_constructions made = allocator_constructions::get();
      BOOST_TEST(made.defaults == 1);
      BOOST_TEST(made.total() == 1);   // no copy, move or conversion
      BOOST_TEST(v.empty());
   }
   allocator_constructions::reset();
   {
      std::vector<int, A> s;
      BOOST_TEST(allocator_constructions::get().total() == 1);   // what std's makes
      BOOST_TEST(s.empty());
   }
   static_assert(std::is_nothrow_default_constructible<ba::vector<int, A>>::value, "");

   // Value-initialized, not default-initialized: over storage full of ones, the id is 0.
   using V = ba::vector<int, value_initialized_allocator<int>>;
   alignas(V) unsigned char storage[sizeof(V)];
   for (unsigned char &b : storage) *static_cast<volatile unsigned char *>(&b) = 0xff;
   V *const v = ::new (static_cast<void *>(storage)) V;
   BOOST_TEST(v->get_allocator().id == 0);
   v->push_back(1);
   BOOST_TEST(v->front() == 1);
   v->~V();
}

// In a process of one thread, ba::allocator<T, 2> takes a growing vector's buffers from the heap
// itself (where they can grow in place), not from the thread's cache. A buffer freed when the
// cache's bin of its size is full goes back to the heap, where the next vector's buffer looks,
// instead of into the bin: a bin that takes such buffers only fills, and each time it is full it
// gives half its blocks back to the heap. So once vectors have filled the bins of their buffers'
// sizes, more vectors built and destroyed leave the caches as they are. (Each vector is followed
// by a live block, as on a heap a program has used for a while: a buffer that ends at the heap's
// top merges into it, cache or no cache.)
BOOST_AUTO_TEST_CASE(buffers_of_grown_vectors_go_back_to_the_heap_when_the_cache_has_no_room)
{
   if (const char *why = allocplus_test::why_grown_buffers_go_through_the_cache()) {
      BOOST_TEST_MESSAGE(why);
      return;
   }
   std::vector<void *> fences;   // blocks too large for the caches: from the heap itself
   const auto build_and_destroy = [&fences](int vectors) {
      for (int v = 0; v != vectors; ++v) {
         ba::vector<int> grown;
         for (int e = 0; e != 20; ++e) grown.push_back(e);
         fences.push_back(ba_malloc(2000));
         BOOST_REQUIRE(fences.back());
      }
   };
   const auto stats = [] {
      ba_heap_stats s;
      ba_heap_stats_get(ba_default_heap(), &s);
      return s;
   };
   fences.reserve(2000);
   ba_thread_cache_flush();
   build_and_destroy(1000);   // each buffer size's bin fills
   const ba_heap_stats filled = stats();
   build_and_destroy(1000);
   const ba_heap_stats after = stats();
   BOOST_TEST(after.cached_blocks == filled.cached_blocks);
   BOOST_TEST(after.cached_bytes == filled.cached_bytes);
   BOOST_TEST(after.in_use_chunks == filled.in_use_chunks + 1000, "every buffer freed, the fences alive");
   ba_check_report report{nullptr, nullptr};
   BOOST_TEST(ba_check(&report) == 1, (report.what ? report.what : ""));
   for (void *f : fences) ba_free(f);
}
