// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/heap.hpp: ba::heap (owning a core heap, from the system or over a
// buffer) and ba::heap_allocator (a reference to one). The version-2 interface, shared with
// ba::allocator, is tested on both in allocator_test.cpp.

#define BOOST_TEST_MODULE allocplus heap
#include "allocator/allocator_test_support.hpp"

#include <boost/allocplus/heap.hpp>
#include <boost/container/list.hpp>
#include <boost/container/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

//! Whether p lies in [b, b + n).
bool inside(const void *p, const void *b, std::size_t n)
{
   auto x = reinterpret_cast<std::uintptr_t>(p), lo = reinterpret_cast<std::uintptr_t>(b);
   return x >= lo && x < lo + n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(heap)

BOOST_AUTO_TEST_CASE(a_heap_allocates_and_accounts_for_its_blocks)
{
   ba::heap h;
   BOOST_REQUIRE(h.native_handle() != nullptr);
   const ba_heap_stats before = h.stats();
   void *p = h.allocate(1000);
   void *q = h.allocate(100, 256);
   BOOST_TEST(is_aligned(p, BA_MALLOC_ALIGNMENT));
   BOOST_TEST(is_aligned(q, 256));
   BOOST_TEST(h.stats().in_use_bytes >= before.in_use_bytes + 1100);
   BOOST_TEST(h.stats().in_use_chunks == before.in_use_chunks + 2);
   BOOST_TEST(h.check());
   h.deallocate(p);
   h.deallocate(q);
   h.deallocate(nullptr);
   BOOST_TEST(h.stats().in_use_bytes == before.in_use_bytes);
   BOOST_CHECK_THROW((void)h.allocate(10, 3), std::bad_alloc);   // not a power of two
}

BOOST_AUTO_TEST_CASE(heaps_are_independent_of_each_other_and_of_the_default_heap)
{
   ba::heap a, b;
   BOOST_TEST(a.native_handle() != b.native_handle());
   BOOST_TEST(a.native_handle() != ba_default_heap());
   const std::size_t b_in_use = b.stats().in_use_bytes;
   void *p = a.allocate(5000);
   BOOST_TEST(b.stats().in_use_bytes == b_in_use);
   a.deallocate(p);
}

BOOST_AUTO_TEST_CASE(trim_check_options_and_the_footprint_limit)
{
   ba::heap h;
   std::vector<void *> blocks;
   for (int i = 0; i != 64; ++i) blocks.push_back(h.allocate(64 * KiB));
   for (void *p : blocks) h.deallocate(p);
   BOOST_TEST(h.set_option(BA_OPTION_TRIM_THRESHOLD, std::numeric_limits<std::size_t>::max()));
   BOOST_TEST(!h.set_option(12345, 1));
   const std::size_t before = h.stats().system_bytes;
   const std::size_t released = h.trim();
   BOOST_TEST(h.stats().system_bytes == before - released);
   BOOST_TEST(h.set_footprint_limit(1 * MiB) == std::numeric_limits<std::size_t>::max());
   BOOST_TEST(h.stats().footprint_limit == 1 * MiB);
   ba_check_report report = {nullptr, nullptr};
   BOOST_TEST(h.check(&report));
   BOOST_TEST(report.what == nullptr);
}

BOOST_AUTO_TEST_CASE(moving_a_heap_moves_ownership_and_keeps_allocators_valid)
{
   ba::heap a;
   ba::heap_allocator<int> alloc(a);
   int *p = alloc.allocate(10);
   ba_heap *native = a.native_handle();
   ba::heap b(std::move(a));
   BOOST_TEST(a.native_handle() == nullptr);
   BOOST_TEST(b.native_handle() == native);
   alloc.deallocate(p, 10);   // the allocator refers to the core heap, which moved with b
   ba::heap c;
   c = std::move(b);          // c's own heap is destroyed, b's taken
   BOOST_TEST(c.native_handle() == native);
   static_assert(!std::is_copy_constructible<ba::heap>::value, "");
   static_assert(std::is_nothrow_move_constructible<ba::heap>::value, "");
}

BOOST_AUTO_TEST_CASE(a_buffer_too_small_for_a_heap_is_refused)
{
   alignas(16) static unsigned char tiny[1024];
   BOOST_CHECK_THROW(ba::heap(tiny, sizeof tiny), std::bad_alloc);
}

// The error says why and states the minimum; min_buffer_size is the core's own minimum.
BOOST_AUTO_TEST_CASE(a_buffer_too_small_says_the_minimum)
{
   alignas(16) static unsigned char buffer[2 * ba::heap::min_buffer_size];
   std::string what;
   try {
      ba::heap h(buffer, ba::heap::min_buffer_size - 1);
   } catch (const std::bad_alloc &e) {
      what = e.what();
   }
   BOOST_TEST(what.find("needs at least 4096 bytes (ba::heap::min_buffer_size)") != std::string::npos);
   BOOST_TEST(ba::heap::min_buffer_size == 4096u);
   // Exactly the minimum from an aligned address makes a heap; one byte less does not.
   ba_heap *const at_minimum = ba_create_heap_over(buffer, ba::heap::min_buffer_size, 1);
   BOOST_TEST(at_minimum != nullptr);
   if (at_minimum) ba_destroy_heap(at_minimum);
   BOOST_TEST(ba_create_heap_over(buffer, ba::heap::min_buffer_size - 1, 1) == nullptr);
   // An array is taken whole (one below the minimum does not compile: compile_fail.cpp).
   ba::heap over_array(buffer);
   void *const p = over_array.allocate(100);
   BOOST_TEST((p >= buffer && p < buffer + sizeof buffer));
   over_array.deallocate(p);
}

BOOST_AUTO_TEST_CASE(a_heap_over_a_buffer_stays_in_it_until_full)
{
   std::vector<unsigned char> buffer(256 * KiB);
   ba::heap h(buffer.data(), buffer.size());
   ba::heap_allocator<std::uint64_t> a(h);
   std::vector<std::uint64_t *> blocks;
   bool full = false;
   while (!full) {
      try {
         std::uint64_t *p = a.allocate(100);
         BOOST_TEST(inside(p, buffer.data(), buffer.size()));
         BOOST_TEST(inside(p + 99, buffer.data(), buffer.size()));
         p[0] = blocks.size();
         blocks.push_back(p);
      } catch (const std::bad_alloc &) {
         full = true;
      }
      BOOST_REQUIRE(blocks.size() < 1000u);   // 256 KiB holds ~320 blocks of 800 bytes
   }
   BOOST_TEST(blocks.size() > 250u);   // most of the buffer is usable
   // Full: the nothrow command says so with null, the others throw.
   std::uint64_t *reuse = nullptr;
   std::size_t pref = 100;
   BOOST_TEST(a.allocation_command(ba::allocate_new | ba::nothrow_allocation, 100, pref, reuse) == nullptr);
   ba::multiallocation_chain<std::uint64_t> chain;
   BOOST_CHECK_THROW(a.allocate_many(100, 10, chain), std::bad_alloc);
   BOOST_TEST(h.check());
   for (std::size_t i = 0; i != blocks.size(); ++i) BOOST_TEST(blocks[i][0] == i);
   // Free half: the room is back.
   for (std::size_t i = 0; i < blocks.size(); i += 2) a.deallocate(blocks[i], 100);
   std::uint64_t *again = a.allocate(100);
   BOOST_TEST(inside(again, buffer.data(), buffer.size()));
   a.deallocate(again, 100);
   for (std::size_t i = 1; i < blocks.size(); i += 2) a.deallocate(blocks[i], 100);
   BOOST_TEST(h.check());
   BOOST_TEST(h.stats().system_bytes == 0u);   // never asked the system for anything
}

BOOST_AUTO_TEST_CASE(a_container_on_a_full_buffer_keeps_its_elements)
{
   std::vector<unsigned char> buffer(64 * KiB);
   ba::heap h(buffer.data(), buffer.size());
   boost::container::vector<int, ba::heap_allocator<int>> v((ba::heap_allocator<int>(h)));
   bool threw = false;
   try {
      for (int i = 0; i != 1000000; ++i) v.push_back(i);
   } catch (const std::bad_alloc &) {
      threw = true;
   }
   BOOST_TEST(threw);
   BOOST_TEST(v.size() > 10000u);   // it grew in place to most of the buffer
   for (std::size_t i = 0; i != v.size(); ++i)
      if (v[i] != static_cast<int>(i)) BOOST_FAIL("element " << i << " lost");
   BOOST_TEST(inside(v.data(), buffer.data(), buffer.size()));
   v.clear();
   v.shrink_to_fit();
   BOOST_TEST(h.check());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(heap_allocator)

BOOST_AUTO_TEST_CASE(allocators_of_one_heap_compare_equal_across_rebinds)
{
   ba::heap h1, h2;
   ba::heap_allocator<int> a(h1), b(h1), c(h2);
   ba::heap_allocator<double> d(a);
   ba::heap_allocator<int> e(d);
   BOOST_TEST((a == b));
   BOOST_TEST((a == d));
   BOOST_TEST((e == a));
   BOOST_TEST((a != c));
   BOOST_TEST((d != c));
   BOOST_TEST(d.native_heap() == h1.native_handle());
   ba::heap_allocator<int> from_core(ba_default_heap());
   BOOST_TEST(from_core.native_heap() == ba_default_heap());
   c = a;
   BOOST_TEST((c == a));
}

BOOST_AUTO_TEST_CASE(blocks_come_from_the_allocators_heap)
{
   ba::heap h;
   ba::heap_allocator<char> a(h);
   ba_heap_stats def_before;
   ba_stats(&def_before);
   const std::size_t before = h.stats().in_use_bytes;
   char *p = a.allocate(100000);
   BOOST_TEST(h.stats().in_use_bytes >= before + 100000);
   ba_heap_stats def_after;
   ba_stats(&def_after);
   BOOST_TEST(def_after.in_use_bytes == def_before.in_use_bytes);
   a.deallocate(p, 100000);
   BOOST_TEST(h.stats().in_use_bytes == before);
}

BOOST_AUTO_TEST_CASE(propagation_traits_keep_memory_in_its_heap)
{
   using traits = std::allocator_traits<ba::heap_allocator<int>>;
   static_assert(!traits::propagate_on_container_copy_assignment::value, "");
   static_assert(!traits::propagate_on_container_move_assignment::value, "");
   static_assert(!traits::propagate_on_container_swap::value, "");
   static_assert(!traits::is_always_equal::value, "");
   static_assert(!std::is_default_constructible<ba::heap_allocator<int>>::value, "a heap must be named");
   static_assert(std::is_same<traits::rebind_alloc<char>, ba::heap_allocator<char>>::value, "");
   static_assert(std::is_same<ba::heap_allocator<int, 1>::rebind<char>::other, ba::heap_allocator<char, 1>>::value,
                 "");
   ba::heap h1, h2;
   ba::heap_allocator<int> a1(h1), a2(h2);
   // Move assignment between unequal allocators: the elements move, the memory stays in h1.
   std::vector<int, ba::heap_allocator<int>> v1({1, 2, 3}, a1), v2({4, 5, 6, 7}, a2);
   v1 = std::move(v2);
   BOOST_TEST((v1.get_allocator() == a1));
   BOOST_TEST(v1.size() == 4u);
   BOOST_TEST(v1[3] == 7);
   // A copy of a container stays in the same heap.
   std::vector<int, ba::heap_allocator<int>> v3(v1);
   BOOST_TEST((v3.get_allocator() == a1));
   BOOST_TEST((traits::select_on_container_copy_construction(a2) == a2));
}

BOOST_AUTO_TEST_CASE(version_1_and_2_over_the_same_heap)
{
   ba::heap h;
   ba::heap_allocator<int, 1> v1(h);
   ba::heap_allocator<int> v2(h);
   static_assert(ba::heap_allocator<int, 1>::version::value == 1, "");
   static_assert(ba::heap_allocator<int>::version::value == 2, "");
   int *p = v1.allocate(10);
   BOOST_TEST(v2.size(p) >= 10u);   // the same heap: v2 knows v1's blocks
   v2.deallocate(p, 10);
   auto r = v1.allocate_at_least(3);
   BOOST_TEST(r.count >= 3u);
   v1.deallocate(r.ptr, r.count);
   std::list<int, ba::heap_allocator<int, 1>> l(100, 5, v1);
   boost::container::list<int, ba::heap_allocator<int>> bl(100, 5, v2);
   BOOST_TEST(l.size() == bl.size());
   BOOST_TEST(h.check());
}

BOOST_AUTO_TEST_SUITE_END()
