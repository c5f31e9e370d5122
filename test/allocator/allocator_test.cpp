// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/allocator.hpp: the allocator requirements, every allocation_command
// and its corner cases, bursts, overflow and out-of-memory. The command and burst tests run on
// both allocators over the C core (ba::allocator on the default heap, ba::heap_allocator on a
// heap of the test's own), which share one implementation; heap.hpp's own behaviour is tested in
// heap_test.cpp.

#define BOOST_TEST_MODULE allocplus allocator
#include "allocator/allocator_test_support.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <set>
#include <type_traits>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

constexpr std::size_t ptrdiff_max = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());

template <class A, class = void>
struct has_allocation_command : std::false_type {};
template <class A>
struct has_allocation_command<
   A, std::void_t<decltype(std::declval<A &>().allocation_command(0u, 0u, std::declval<std::size_t &>(),
                                                                  std::declval<typename A::value_type *&>()))>>
   : std::true_type {};

// A type only ever declared here; the allocator must still be nameable and usable by pointer.
struct incomplete;

// A recursive type: its member container names the allocator of itself while it is incomplete.
struct tree_node {
   int value;
   std::vector<tree_node, ba::allocator<tree_node>> children;
};

//! Fills n objects' bytes of p with a pattern of seed.
template <class T>
void fill_objects(T *p, std::size_t n, std::uint32_t seed)
{
   fill(p, n * sizeof(T), seed);
}
template <class T>
bool objects_hold(const T *p, std::size_t n, std::uint32_t seed)
{
   return holds_pattern(p, n * sizeof(T), seed);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The allocator requirements
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(requirements)

BOOST_AUTO_TEST_CASE(rebinding_keeps_version_and_mask)
{
   using A = ba::allocator<int, 2, ba::expand_fwd>;
   using traits = std::allocator_traits<A>;
   static_assert(std::is_same<traits::rebind_alloc<double>, ba::allocator<double, 2, ba::expand_fwd>>::value, "");
   static_assert(std::is_same<ba::allocator<int, 1>::rebind<char>::other, ba::allocator<char, 1>>::value, "");
   static_assert(std::is_same<ba::allocator<void>::rebind<int>::other, ba::allocator<int>>::value, "");
   A a;
   ba::allocator<double, 2, ba::expand_fwd> b(a);
   A c(b);
   BOOST_TEST((a == b));
   BOOST_TEST((c == a));
   BOOST_TEST(!(a != b));
}

BOOST_AUTO_TEST_CASE(every_instance_and_rebind_frees_what_another_allocated)
{
   ba::allocator<int> a;
   int *p = a.allocate(10);
   ba::allocator<double> b(a);
   ba::allocator<int> c(b);
   c.deallocate(p, 10);
   // Version 1 and 2 allocate from the same heap: what one allocates the other frees.
   ba::allocator<int, 1> v1;
   int *q = v1.allocate(3);
   a.deallocate(q, 3);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(propagation_traits_are_those_of_a_stateless_allocator)
{
   using traits = std::allocator_traits<ba::allocator<int>>;
   static_assert(traits::is_always_equal::value, "");
   static_assert(traits::propagate_on_container_move_assignment::value, "");
   static_assert(!traits::propagate_on_container_copy_assignment::value, "");
   static_assert(!traits::propagate_on_container_swap::value, "");
   static_assert(std::is_empty<ba::allocator<int>>::value && std::is_empty<ba::allocator<int, 1>>::value,
                 "stateless allocators hold nothing");
   static_assert(std::is_nothrow_copy_constructible<ba::allocator<int>>::value, "");
   ba::allocator<int> a;
   BOOST_TEST((traits::select_on_container_copy_construction(a) == a));
}

BOOST_AUTO_TEST_CASE(max_size_is_ptrdiff_max_over_sizeof)
{
   BOOST_TEST(ba::allocator<char>().max_size() == ptrdiff_max);
   BOOST_TEST(ba::allocator<int>().max_size() == ptrdiff_max / sizeof(int));
   BOOST_TEST((ba::allocator<twelve_bytes, 1>().max_size() == ptrdiff_max / 12));
   BOOST_TEST(std::allocator_traits<ba::allocator<double>>::max_size(ba::allocator<double>()) == ptrdiff_max / 8);
}

BOOST_AUTO_TEST_CASE(allocator_of_void_rebinds_to_allocate)
{
   ba::allocator<void> v;
   using traits = std::allocator_traits<ba::allocator<void>>;
   static_assert(std::is_same<traits::pointer, void *>::value, "");
   traits::rebind_alloc<long> a(v);
   long *p = a.allocate(4);
   p[3] = 7;
   BOOST_TEST(p[3] == 7);
   a.deallocate(p, 4);
   ba::allocator<void, 1> v1;
   ba::allocator<short, 1> s(v1);
   s.deallocate(s.allocate(1), 1);
   BOOST_TEST((v == ba::allocator<void>(a)));
}

BOOST_AUTO_TEST_CASE(incomplete_types_can_be_named_and_used_recursively)
{
   ba::allocator<incomplete> inc;
   ba::allocator<incomplete, 1> inc1;
   ba::allocator<int> other(inc);
   BOOST_TEST((inc == other));
   (void)inc1;
   tree_node root{1, {}};
   root.children.push_back(tree_node{2, {}});
   root.children[0].children.push_back(tree_node{3, {}});
   root.children.resize(50);
   BOOST_TEST(root.children[0].children[0].value == 3);
}

BOOST_AUTO_TEST_CASE(version_1_is_standard_and_version_2_adds_the_extended_interface)
{
   static_assert(ba::allocator<int, 1>::version::value == 1, "");
   static_assert(ba::allocator<int>::version::value == 2, "");
   static_assert(ba::allocator_version<ba::allocator<int>>::value == 2, "");
   static_assert(!has_allocation_command<ba::allocator<int, 1>>::value, "version 1 has no allocation_command");
   static_assert(has_allocation_command<ba::allocator<int>>::value, "");
   static_assert(has_allocation_command<ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>>::value, "");
   static_assert(std::is_same<ba::allocator<int>::multiallocation_chain, ba::multiallocation_chain<int>>::value, "");
   static_assert(noexcept(std::declval<ba::allocator<int> &>().deallocate(nullptr, 0)), "");
   static_assert(noexcept(std::declval<ba::allocator<int> &>().size(nullptr)), "");
   static_assert(noexcept(std::declval<ba::allocator<int> &>().deallocate_many(
                    std::declval<ba::multiallocation_chain<int> &>())),
                 "");
   BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(allocate_gives_aligned_writable_blocks)
{
   ba::allocator<std::uint64_t> a;
   ba::allocator<std::uint64_t, 1> a1;
   for (std::size_t n : {0u, 1u, 2u, 7u, 100u, 5000u, 100000u}) {
      std::uint64_t *p = a.allocate(n), *q = a1.allocate(n);
      BOOST_TEST(is_aligned(p, BA_MALLOC_ALIGNMENT));
      BOOST_TEST(is_aligned(q, BA_MALLOC_ALIGNMENT));
      fill_objects(p, n, 1);
      fill_objects(q, n, 2);
      BOOST_TEST(objects_hold(p, n, 1));
      BOOST_TEST(objects_hold(q, n, 2));
      a.deallocate(p, n);
      a1.deallocate(q, n);
   }
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(allocate_at_least_reports_every_object_the_block_holds)
{
   ba::allocator<twelve_bytes> a;
   ba::allocator<twelve_bytes, 1> a1;
   for (std::size_t n : {1u, 3u, 50u, 1000u}) {
      ba::allocation_result<twelve_bytes *> r = a.allocate_at_least(n);
      BOOST_TEST(r.count >= n);
      BOOST_TEST(r.count == a.size(r.ptr));
      BOOST_TEST(r.count * 12 <= ba_usable_size(r.ptr));
      BOOST_TEST(r.count * 12 + 12 > ba_usable_size(r.ptr));
      fill_objects(r.ptr, r.count, 3);
      auto r1 = a1.allocate_at_least(n);
      BOOST_TEST(r1.count >= n);
      fill_objects(r1.ptr, r1.count, 4);
      BOOST_TEST(objects_hold(r.ptr, r.count, 3));
      a.deallocate(r.ptr, r.count);
      a1.deallocate(r1.ptr, r1.count);
   }
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(over_aligned_types_get_their_alignment, S, both_subjects)
{
   S s;
   auto a = s.template make<aligned64>();
   auto a1 = s.template make<aligned64, 1>();
   std::vector<aligned64 *> blocks;
   for (std::size_t n : {1u, 2u, 3u, 17u, 400u}) {
      blocks.push_back(a.allocate(n));
      blocks.push_back(a1.allocate(n));
      blocks.push_back(a.allocate_at_least(n).ptr);
      std::size_t pref = n;
      aligned64 *reuse = nullptr;
      blocks.push_back(a.allocation_command(ba::allocate_new, n, pref, reuse));
      BOOST_TEST(pref >= n);
   }
   for (aligned64 *p : blocks) BOOST_TEST(is_aligned(p, 64));
   for (aligned64 *p : blocks) a.deallocate(p, 1);
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_individual(10, chain);
   const std::size_t sizes[] = {1, 5, 2};
   a.allocate_many(sizes, 3, chain);
   BOOST_TEST(chain.size() == 13u);
   for (auto it = chain.begin(); it != chain.end(); ++it) BOOST_TEST(is_aligned(&*it, 64));
   a.deallocate_many(chain);
   BOOST_TEST(chain.empty());
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------
// Overflow of n * sizeof(T)
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(overflow)

BOOST_AUTO_TEST_CASE_TEMPLATE(allocate_beyond_max_size_throws_bad_array_new_length, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   auto a1 = s.template make<int, 1>();
   auto c = s.template make<char>();
   BOOST_CHECK_THROW((void)a.allocate(a.max_size() + 1), std::bad_array_new_length);
   BOOST_CHECK_THROW((void)a1.allocate(a1.max_size() + 1), std::bad_array_new_length);
   BOOST_CHECK_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max()), std::bad_array_new_length);
   BOOST_CHECK_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max() / 4 + 1), std::bad_array_new_length);
   BOOST_CHECK_THROW((void)a.allocate_at_least(a.max_size() + 1), std::bad_array_new_length);
   BOOST_CHECK_THROW((void)c.allocate(ptrdiff_max + 1), std::bad_array_new_length);
   // Within max_size but more than any heap holds: out of memory, not overflow.
   BOOST_CHECK_THROW((void)c.allocate(ptrdiff_max), std::bad_alloc);
   try {
      (void)c.allocate(ptrdiff_max);
   } catch (const std::bad_array_new_length &) {
      BOOST_ERROR("an allocation within max_size() is not an overflow");
   } catch (const std::bad_alloc &) {
   }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(allocation_command_beyond_max_size_throws_or_returns_null, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   int *p = a.allocate(10);
   int *reuse = p;
   std::size_t pref = a.max_size() + 1;
   BOOST_CHECK_THROW((void)a.allocation_command(ba::allocate_new | ba::expand_fwd, a.max_size() + 1, pref, reuse),
                     std::bad_array_new_length);
   BOOST_TEST(reuse == nullptr);
   reuse = p;
   pref = a.max_size() + 1;
   BOOST_TEST(a.allocation_command(ba::allocate_new | ba::expand_fwd | ba::nothrow_allocation, a.max_size() + 1, pref,
                                   reuse) == nullptr);
   BOOST_TEST(reuse == nullptr);
   BOOST_TEST(pref == a.size(p));
   // Only the preferred size beyond max_size: it is a preference, clamped; the limit is served.
   reuse = nullptr;
   pref = std::numeric_limits<std::size_t>::max();
   int *q = a.allocation_command(ba::allocate_new | ba::nothrow_allocation, 100, pref, reuse);
   BOOST_REQUIRE(q != nullptr);
   BOOST_TEST(pref >= 100u);
   BOOST_TEST(pref < a.max_size());
   a.deallocate(q, pref);
   a.deallocate(p, 10);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bursts_beyond_max_size_throw_bad_array_new_length, S, both_subjects)
{
   S s;
   auto a = s.template make<double>();
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_individual(2, chain);
   BOOST_CHECK_THROW(a.allocate_many(a.max_size() + 1, 1, chain), std::bad_array_new_length);
   BOOST_CHECK_THROW(a.allocate_individual(a.max_size() + 1, chain), std::bad_array_new_length);
   const std::size_t sizes[] = {1, a.max_size() + 1, 2};
   BOOST_CHECK_THROW(a.allocate_many(sizes, 3, chain), std::bad_array_new_length);
   BOOST_TEST(chain.size() == 2u);   // strong guarantee
   a.deallocate_individual(chain);
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------
// allocation_command
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(commands)

BOOST_AUTO_TEST_CASE_TEMPLATE(allocate_new_reports_the_received_size_and_nulls_reuse, S, both_subjects)
{
   S s;
   auto a = s.template make<twelve_bytes>();
   twelve_bytes *old = a.allocate(5);
   twelve_bytes *reuse = old;
   std::size_t pref = 10;
   twelve_bytes *p = a.allocation_command(ba::allocate_new, 10, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(p != old);
   BOOST_TEST(reuse == nullptr);   // a new block is never `reuse`, even when one was given
   BOOST_TEST(pref >= 10u);
   BOOST_TEST(pref == a.size(p));
   fill_objects(p, pref, 5);       // every received object is usable
   BOOST_TEST(objects_hold(p, pref, 5));
   a.deallocate(p, pref);
   a.deallocate(old, 5);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(limit_above_preferred_raises_the_preferred_size, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   int *reuse = nullptr;
   std::size_t pref = 10;
   int *p = a.allocation_command(ba::allocate_new, 100, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(pref >= 100u);
   a.deallocate(p, pref);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_fwd_keeps_the_start_and_the_objects, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   three_in_a_row<decltype(a)> row(a, 16, 16, 2000);
   fill_objects(row.middle, 16, 7);
   row.free_after();
   int *reuse = row.middle;
   std::size_t pref = 1000;
   int *p = a.allocation_command(ba::expand_fwd, 500, pref, reuse);
   BOOST_TEST(p == row.middle);
   BOOST_TEST(reuse == row.middle);   // expanded: reuse stays, and equals the result
   BOOST_TEST(pref >= 1000u);
   BOOST_TEST(a.size(p) == pref);
   BOOST_TEST(objects_hold(p, 16, 7));
   fill_objects(p, pref, 8);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_fwd_reaches_the_limit_when_preferred_does_not_fit, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   // Room after the middle block for ~100 ints, not for 10000 (the block after `after` stays).
   three_in_a_row<decltype(a)> row(a, 16, 16, 100);
   int *guard = a.allocate(16);
   BOOST_REQUIRE(follows(row.after, guard));
   row.free_after();
   int *reuse = row.middle;
   std::size_t pref = 10000;
   int *p = a.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 50, pref, reuse);
   BOOST_TEST(p == row.middle);
   BOOST_TEST(pref >= 50u);
   BOOST_TEST(pref < 10000u);
   BOOST_TEST(a.size(p) == pref);
   a.deallocate(guard, 16);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_fwd_without_room_fails_leaving_the_block, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   three_in_a_row<decltype(a)> row(a, 16, 16, 16);
   const std::size_t had = a.size(row.middle);
   fill_objects(row.middle, had, 9);
   int *reuse = row.middle;
   std::size_t pref = 1000;
   BOOST_TEST(a.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 1000, pref, reuse) == nullptr);
   BOOST_TEST(reuse == nullptr);
   BOOST_TEST(pref == had);   // on failure: what reuse holds
   reuse = row.middle;
   pref = 1000;
   BOOST_CHECK_THROW((void)a.allocation_command(ba::expand_fwd, 1000, pref, reuse), std::bad_alloc);
   BOOST_TEST(a.size(row.middle) == had);
   BOOST_TEST(objects_hold(row.middle, had, 9));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_or_allocate_new_gives_a_new_block_when_expansion_fails, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   three_in_a_row<decltype(a)> row(a, 16, 16, 16);
   int *reuse = row.middle;
   std::size_t pref = 1000;
   int *p = a.allocation_command(ba::allocate_new | ba::expand_fwd | ba::expand_bwd, 1000, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(p != row.middle);
   BOOST_TEST(reuse == nullptr);   // the caller moves the objects and frees the old block
   BOOST_TEST(pref >= 1000u);
   a.deallocate(p, pref);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expansions_without_reuse_fail, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   int *reuse = nullptr;
   std::size_t pref = 10;
   BOOST_TEST(a.allocation_command(ba::expand_fwd | ba::expand_bwd | ba::nothrow_allocation, 10, pref, reuse)
              == nullptr);
   BOOST_TEST(pref == 0u);
   pref = 10;
   BOOST_CHECK_THROW((void)a.allocation_command(ba::expand_fwd, 10, pref, reuse), std::bad_alloc);
   pref = 10;
   BOOST_TEST(a.allocation_command(ba::nothrow_allocation, 10, pref, reuse) == nullptr);   // no command at all
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_bwd_moves_the_start_by_whole_objects_of_12_bytes, S, both_subjects)
{
   S s;
   auto a = s.template make<twelve_bytes>();
   three_in_a_row<decltype(a)> row(a, 200, 10, 10);
   twelve_bytes *old = row.middle;
   for (std::uint32_t i = 0; i != 10; ++i) old[i] = twelve_bytes{i, i * 2, i * 3};
   row.free_before();
   twelve_bytes *reuse = old;
   std::size_t pref = 100;
   twelve_bytes *p = a.allocation_command(ba::expand_bwd, 100, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   row.middle_is(p);
   BOOST_TEST(p < old);
   BOOST_TEST(reuse == old);   // expanded: reuse keeps the old start, the result is the new one
   const std::ptrdiff_t moved = distance(p, old);
   BOOST_TEST(moved % 12 == 0);   // whole objects...
   BOOST_TEST(moved % 16 == 0);   // ...and whole alignment units: a multiple of lcm(12, 16) = 48
   BOOST_TEST(is_aligned(p, 16));
   BOOST_TEST(pref >= 100u);
   BOOST_TEST(a.size(p) == pref);
   // The objects did not move: they are at index moved / 12 of the new block.
   const std::size_t first = static_cast<std::size_t>(moved) / 12;
   for (std::uint32_t i = 0; i != 10; ++i) {
      BOOST_TEST(p[first + i].a == i);
      BOOST_TEST(p[first + i].c == i * 3);
   }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_bwd_keeps_an_over_aligned_start, S, both_subjects)
{
   S s;
   auto a = s.template make<aligned64>();
   auto c = s.template make<char>();
   // An over-aligned block is cut out of a larger chunk, so it does not follow its neighbour
   // exactly: a free block of bytes, then the block, a little after it.
   std::vector<char *> spare;
   char *before = nullptr;
   aligned64 *old = nullptr;
   for (int attempt = 0; attempt != 200 && !old; ++attempt) {
      char *x = c.allocate(4000);
      aligned64 *m = a.allocate(2);
      const std::ptrdiff_t gap = distance(x, m) - static_cast<std::ptrdiff_t>(ba_usable_size(x));
      if (gap >= 0 && gap < 256) {
         before = x;
         old = m;
      } else {
         spare.push_back(x);
         a.deallocate(m, 2);
      }
   }
   BOOST_REQUIRE(old != nullptr);
   c.deallocate(before, 4000);   // with the remainder cut off in front of the block: free space below
   aligned64 *reuse = old;
   std::size_t pref = 20;
   aligned64 *p = a.allocation_command(ba::expand_bwd | ba::nothrow_allocation, 10, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(p < old);
   BOOST_TEST(is_aligned(p, 64));
   BOOST_TEST(distance(p, old) % 64 == 0);
   BOOST_TEST(pref >= 10u);
   a.deallocate(p, pref);
   for (char *x : spare) c.deallocate(x, 4000);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(forward_expansion_is_preferred_to_backward, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   three_in_a_row<decltype(a)> row(a, 2000, 16, 2000);
   int *guard = a.allocate(16);
   BOOST_REQUIRE(follows(row.after, guard));
   row.free_before();
   row.free_after();
   int *reuse = row.middle;
   std::size_t pref = 200;
   int *p = a.allocation_command(ba::allocate_new | ba::expand_fwd | ba::expand_bwd, 200, pref, reuse);
   BOOST_TEST(p == row.middle);
   BOOST_TEST(reuse == row.middle);
   a.deallocate(guard, 16);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expand_bwd_without_free_block_before_fails, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   three_in_a_row<decltype(a)> row(a, 16, 16, 16);
   int *reuse = row.middle;
   std::size_t pref = 100;
   BOOST_TEST(a.allocation_command(ba::expand_bwd | ba::nothrow_allocation, 100, pref, reuse) == nullptr);
   BOOST_TEST(reuse == nullptr);
   BOOST_TEST(pref == a.size(row.middle));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(shrink_in_place_keeps_the_start_between_min_and_max, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   int *p = a.allocate(1000);
   fill_objects(p, 100, 11);
   int *reuse = p;
   std::size_t pref = 100;   // shrinking: preferred is the minimum...
   int *r = a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, 1000, pref, reuse);   // ...limit the maximum
   BOOST_TEST(r == p);
   BOOST_TEST(reuse == p);
   BOOST_TEST(pref >= 100u);
   BOOST_TEST(pref < 1000u);
   BOOST_TEST(a.size(p) == pref);
   BOOST_TEST(objects_hold(p, 100, 11));
   // What was cut off is free again: a forward expansion takes it back.
   reuse = p;
   std::size_t again = 1000;
   BOOST_TEST(a.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 1000, again, reuse) == p);
   a.deallocate(p, again);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(try_shrink_in_place_reports_without_shrinking, S, both_subjects)
{
   S s;
   auto a = s.template make<int>();
   int *p = a.allocate(1000);
   const std::size_t had = a.size(p);
   int *reuse = p;
   std::size_t pref = 100;
   int *r = a.allocation_command(ba::try_shrink_in_place, had, pref, reuse);
   BOOST_TEST(r == p);
   BOOST_TEST(reuse == p);
   BOOST_TEST(pref >= 100u);
   BOOST_TEST(pref < had);
   BOOST_TEST(a.size(p) == had);   // nothing changed
   std::size_t pref2 = 100;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place, had, pref2, reuse) == p);
   BOOST_TEST(pref2 == pref);      // what try reported is what shrink gives
   a.deallocate(p, pref2);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(shrink_below_nothing_or_above_the_block_fails, S, both_subjects)
{
   S s;
   auto a = s.template make<std::uint64_t>();
   std::uint64_t *p = a.allocate(100);
   const std::size_t had = a.size(p);
   std::uint64_t *reuse = p;
   // The minimum above what the block holds: impossible.
   std::size_t pref = had + 1;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, had + 10, pref, reuse) == nullptr);
   BOOST_TEST(reuse == nullptr);
   BOOST_TEST(pref == had);
   // One object less than the block holds: the remainder is too small to split off, so the
   // block keeps holding more than the maximum.
   reuse = p;
   pref = had - 1;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, had - 1, pref, reuse) == nullptr);
   BOOST_TEST(a.size(p) == had);
   reuse = p;
   pref = had + 1;
   BOOST_CHECK_THROW((void)a.allocation_command(ba::shrink_in_place, had + 1, pref, reuse), std::bad_alloc);
   // Without a block there is nothing to shrink.
   reuse = nullptr;
   pref = 1;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, 10, pref, reuse) == nullptr);
   a.deallocate(p, had);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(zero_memory_zeroes_new_blocks_and_what_a_block_gains, S, both_subjects)
{
   S s;
   auto a = s.template make<unsigned char>();
   // Dirty some memory and give it back, so that what comes next is likely to reuse it.
   unsigned char *dirty = a.allocate(4096);
   std::memset(dirty, 0xAB, 4096);
   a.deallocate(dirty, 4096);
   unsigned char *reuse = nullptr;
   std::size_t pref = 4000;
   unsigned char *p = a.allocation_command(ba::allocate_new | ba::zero_memory, 4000, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(all_zero(p, pref));
   std::memset(p, 0xCD, pref);
   three_in_a_row<decltype(a)> row(a, 64, 64, 8192);
   std::memset(row.middle, 0xEF, a.size(row.middle));
   unsigned char *after = row.after;
   std::memset(after, 0x77, 8192);
   row.free_after();
   const std::size_t had = a.size(row.middle);
   reuse = row.middle;
   std::size_t want = 4000;
   BOOST_REQUIRE(a.allocation_command(ba::expand_fwd | ba::zero_memory, 4000, want, reuse) == row.middle);
   BOOST_TEST(all_zero(row.middle + had, want - had));
   BOOST_TEST(row.middle[had - 1] == 0xEF);   // what it had is kept
   a.deallocate(p, pref);
}

BOOST_AUTO_TEST_CASE(disable_mask_removes_commands)
{
   {
      // allocator<T, 2, expand_fwd>: a block that could grow forward gets a new block instead.
      ba::allocator<int, 2, ba::expand_fwd> masked;
      ba::allocator<int> unmasked;
      three_in_a_row<ba::allocator<int>> row(unmasked, 16, 16, 4000);
      row.free_after();
      int *reuse = row.middle;
      std::size_t pref = 1000;
      int *p = masked.allocation_command(ba::allocate_new | ba::expand_fwd, 1000, pref, reuse);
      BOOST_TEST(p != row.middle);
      BOOST_TEST(reuse == nullptr);
      masked.deallocate(p, pref);
      reuse = row.middle;
      pref = 1000;
      BOOST_TEST(masked.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 1000, pref, reuse) == nullptr);
      reuse = row.middle;
      pref = 1000;
      BOOST_TEST(unmasked.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 1000, pref, reuse)
                 == row.middle);
   }
   {
      // allocator<T, 2, expand_fwd | expand_bwd>: only new blocks, still with their real size.
      ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd> new_only;
      int *reuse = nullptr;
      std::size_t pref = 3;
      int *p = new_only.allocation_command(ba::allocate_new | ba::expand_fwd, 3, pref, reuse);
      BOOST_TEST(pref >= 3u);
      BOOST_TEST(pref == new_only.size(p));
      new_only.deallocate(p, pref);
   }
   {
      // allocator<T, 2, allocate_new>: commands can only expand; allocate still works.
      ba::allocator<int, 2, ba::allocate_new> expand_only;
      int *reuse = nullptr;
      std::size_t pref = 3;
      BOOST_CHECK_THROW((void)expand_only.allocation_command(ba::allocate_new, 3, pref, reuse), std::bad_alloc);
      expand_only.deallocate(expand_only.allocate(3), 3);
   }
   // The mask is part of the type: a mask, not a state.
   static_assert(!std::is_same<ba::allocator<int, 2, ba::expand_fwd>, ba::allocator<int>>::value, "");
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------
// Bursts
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(bursts)

struct node24 {
   void *link;
   std::uint64_t a, b;
};

BOOST_AUTO_TEST_CASE_TEMPLATE(a_burst_of_zero_leaves_the_chain_as_it_was, S, both_subjects)
{
   S s;
   auto a = s.template make<node24>();
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_individual(0, chain);
   BOOST_TEST(chain.empty());
   a.allocate_many(5, 0, chain);
   a.allocate_many(static_cast<const std::size_t *>(nullptr), 0, chain);
   BOOST_TEST(chain.empty());
   a.deallocate_individual(chain);   // an empty chain frees nothing
   a.deallocate_many(chain);
   BOOST_TEST(chain.empty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_burst_of_one_gives_one_node, S, both_subjects)
{
   S s;
   auto a = s.template make<node24>();
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_individual(1, chain);
   BOOST_REQUIRE(chain.size() == 1u);
   node24 *p = chain.pop_front();
   BOOST_TEST(chain.empty());
   BOOST_TEST(a.size(p) >= 1u);
   p->a = 5;
   a.deallocate_one(p);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_burst_of_many_gives_distinct_writable_nodes, S, both_subjects)
{
   S s;
   auto a = s.template make<node24>();
   typename decltype(a)::multiallocation_chain chain;
   const std::size_t n = 1000;
   a.allocate_individual(n, chain);
   BOOST_REQUIRE(chain.size() == n);
   std::vector<node24 *> nodes;
   for (auto it = chain.begin(); it != chain.end(); ++it) nodes.push_back(&*it);
   BOOST_TEST(std::set<node24 *>(nodes.begin(), nodes.end()).size() == n);
   chain.clear();   // the links are about to be overwritten
   for (std::size_t i = 0; i != n; ++i) {
      BOOST_TEST(is_aligned(nodes[i], alignof(node24)));
      BOOST_TEST(a.size(nodes[i]) >= 1u);
      fill(nodes[i], sizeof(node24), static_cast<std::uint32_t>(i));
   }
   for (std::size_t i = 0; i != n; ++i)
      BOOST_TEST(holds_pattern(nodes[i], sizeof(node24), static_cast<std::uint32_t>(i)));
   // Free half one by one, the rest as a burst.
   for (std::size_t i = 0; i < n; i += 2) a.deallocate_one(nodes[i]);
   for (std::size_t i = 1; i < n; i += 2) chain.push_back(nodes[i]);
   a.deallocate_individual(chain);
   BOOST_TEST(chain.empty());
   ALLOCPLUS_CHECK_HEAP(s.heap());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_burst_goes_to_the_front_and_keeps_what_the_chain_had, S, both_subjects)
{
   S s;
   auto a = s.template make<node24>();
   typename decltype(a)::multiallocation_chain chain;
   node24 *mine = a.allocate_one();
   chain.push_back(mine);
   a.allocate_individual(10, chain);
   BOOST_TEST(chain.size() == 11u);
   BOOST_TEST(&*chain.last() == mine);
   a.deallocate_individual(chain);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(allocate_many_of_equal_sizes, S, both_subjects)
{
   S s;
   auto a = s.template make<std::uint32_t>();
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_many(10, 50, chain);
   BOOST_REQUIRE(chain.size() == 50u);
   std::vector<std::uint32_t *> blocks;
   while (!chain.empty()) blocks.push_back(chain.pop_front());
   for (std::size_t i = 0; i != blocks.size(); ++i) {
      BOOST_TEST(a.size(blocks[i]) >= 10u);
      fill(blocks[i], 40, static_cast<std::uint32_t>(i));
   }
   for (std::size_t i = 0; i != blocks.size(); ++i) {
      BOOST_TEST(holds_pattern(blocks[i], 40, static_cast<std::uint32_t>(i)));
      chain.push_back(blocks[i]);
   }
   a.deallocate_many(chain);
   ALLOCPLUS_CHECK_HEAP(s.heap());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(allocate_many_of_mixed_sizes_in_order, S, both_subjects)
{
   S s;
   auto a = s.template make<twelve_bytes>();
   const std::size_t sizes[] = {1, 0, 17, 1000, 3, 64, 5000, 2};
   const std::size_t n = sizeof sizes / sizeof sizes[0];
   typename decltype(a)::multiallocation_chain chain;
   a.allocate_many(sizes, n, chain);
   BOOST_REQUIRE(chain.size() == n);
   std::vector<twelve_bytes *> blocks;
   while (!chain.empty()) blocks.push_back(chain.pop_front());
   for (std::size_t i = 0; i != n; ++i) {
      BOOST_TEST(a.size(blocks[i]) >= sizes[i]);   // in the order of the sizes
      fill(blocks[i], a.size(blocks[i]) * 12, static_cast<std::uint32_t>(100 + i));
   }
   for (std::size_t i = 0; i != n; ++i)
      BOOST_TEST(holds_pattern(blocks[i], a.size(blocks[i]) * 12, static_cast<std::uint32_t>(100 + i)));
   // Every block is an ordinary block: it grows in place like any other.
   twelve_bytes *reuse = blocks[n - 1];
   std::size_t pref = 10;
   twelve_bytes *grown = a.allocation_command(ba::allocate_new | ba::expand_fwd, 10, pref, reuse);
   if (reuse) blocks[n - 1] = grown;
   else a.deallocate(grown, pref);
   for (twelve_bytes *p : blocks) chain.push_front(p);
   a.deallocate_many(chain);
   ALLOCPLUS_CHECK_HEAP(s.heap());
}

BOOST_AUTO_TEST_CASE(deallocate_many_frees_blocks_of_any_origin)
{
   ba::heap h;
   ba::heap_allocator<std::uint64_t> a(h);
   const std::size_t in_use = h.stats().in_use_bytes;
   ba::multiallocation_chain<std::uint64_t> chain;
   a.allocate_many(3, 20, chain);
   chain.push_back(a.allocate(100));
   chain.push_back(a.allocate_one());
   chain.push_back(a.allocate_at_least(7).ptr);
   std::uint64_t *reuse = nullptr;
   std::size_t pref = 33;
   chain.push_front(a.allocation_command(ba::allocate_new, 33, pref, reuse));
   const std::size_t sizes[] = {4, 400, 4000};
   a.allocate_many(sizes, 3, chain);
   BOOST_TEST(h.stats().in_use_bytes > in_use);
   a.deallocate_many(chain);
   BOOST_TEST(chain.empty());
   BOOST_TEST(h.stats().in_use_bytes == in_use);
   BOOST_TEST(h.check());
}

BOOST_AUTO_TEST_CASE(a_burst_that_does_not_fit_changes_nothing)
{
   ba::heap h;
   ba::heap_allocator<node24> a(h);
   ba::multiallocation_chain<node24> chain;
   a.allocate_individual(3, chain);
   const ba_heap_stats before = h.stats();
   h.set_footprint_limit(before.system_bytes);
   BOOST_CHECK_THROW(a.allocate_individual(1000000, chain), std::bad_alloc);
   const std::size_t sizes[] = {10, 10000000, 10};
   BOOST_CHECK_THROW(a.allocate_many(sizes, 3, chain), std::bad_alloc);
   BOOST_TEST(chain.size() == 3u);
   BOOST_TEST(h.stats().in_use_bytes == before.in_use_bytes);
   BOOST_TEST(h.check());
   a.deallocate_individual(chain);
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------
// Out of memory, made reproducible with the core's footprint limit
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(out_of_memory)

BOOST_AUTO_TEST_CASE(the_default_heap_at_its_limit_throws_bad_alloc_or_returns_null)
{
   ba::allocator<char> a;
   ba::allocator<char, 1> a1;
   char *small = a.allocate(100);
   {
      ba_heap_stats st;
      ba_stats(&st);
      footprint_limit_guard limit(ba_default_heap(), st.system_bytes);
      const std::size_t big = st.system_bytes + 64 * MiB;   // more than the heap has, free or not
      BOOST_CHECK_THROW((void)a.allocate(big), std::bad_alloc);
      BOOST_CHECK_THROW((void)a1.allocate(big), std::bad_alloc);
      BOOST_CHECK_THROW((void)a.allocate_at_least(big), std::bad_alloc);
      char *reuse = nullptr;
      std::size_t pref = big;
      BOOST_TEST(a.allocation_command(ba::allocate_new | ba::nothrow_allocation, big, pref, reuse) == nullptr);
      BOOST_TEST(pref == 0u);
      pref = big;
      BOOST_CHECK_THROW((void)a.allocation_command(ba::allocate_new, big, pref, reuse), std::bad_alloc);
      reuse = small;
      pref = big;
      BOOST_TEST(a.allocation_command(ba::expand_fwd | ba::allocate_new | ba::nothrow_allocation, big, pref, reuse)
                 == nullptr);
      BOOST_TEST(reuse == nullptr);
      BOOST_TEST(pref == a.size(small));
      ba::multiallocation_chain<char> chain;
      BOOST_CHECK_THROW(a.allocate_many(big / 4, 4, chain), std::bad_alloc);
      BOOST_TEST(chain.empty());
   }
   // The limit is back: the same request succeeds (address space only; nothing is touched).
   char *p = a.allocate(64 * MiB);
   a.deallocate(p, 64 * MiB);
   a.deallocate(small, 100);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(an_own_heap_at_its_limit_throws_bad_alloc_or_returns_null)
{
   ba::heap h;
   ba::heap_allocator<int> a(h);
   ba::heap_allocator<int, 1> a1(h);
   h.set_footprint_limit(h.stats().system_bytes + 256 * KiB);
   std::vector<int *> blocks;
   bool threw = false;
   for (int i = 0; i != 100000 && !threw; ++i) {
      try {
         blocks.push_back(a.allocate(1000));
      } catch (const std::bad_alloc &) {
         threw = true;
      }
   }
   BOOST_TEST(threw);
   BOOST_TEST(!blocks.empty());
   BOOST_CHECK_THROW((void)a1.allocate(1000), std::bad_alloc);
   int *reuse = nullptr;
   std::size_t pref = 1000;
   BOOST_TEST(a.allocation_command(ba::allocate_new | ba::nothrow_allocation, 1000, pref, reuse) == nullptr);
   for (int *p : blocks) a.deallocate(p, 1000);
   BOOST_TEST(h.check());
   blocks.push_back(a.allocate(1000));   // room again
   a.deallocate(blocks.back(), 1000);
}

BOOST_AUTO_TEST_SUITE_END()
