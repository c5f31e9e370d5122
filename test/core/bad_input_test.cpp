// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Bad input to the C core: every function given what it must refuse fails the documented way
// (null, 0, or {null, 0}) without touching the heap or the caller's block.

#define BOOST_TEST_MODULE allocplus core bad input
#include "core/core_test_kit.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace allocplus_test;

namespace {

// Sizes a heap can never provide: SIZE_MAX and its neighbours, and the sizes whose padding to a
// chunk (header, alignment) or to pages would overflow.
const std::size_t near_size_max[] = {
   size_max, size_max - 1, size_max - 7, size_max - 8, size_max - 15, size_max - 16, size_max - 31,
   size_max - 64, size_max - 4095, size_max - 4096, size_max - 65536, size_max / 2 + 1, size_max / 2,
   size_max / 2 - 4096, std::size_t(1) << 62, std::size_t(PTRDIFF_MAX), std::size_t(PTRDIFF_MAX) + 1,
};

const std::size_t not_powers_of_two[] = {3, 5, 6, 7, 12, 24, 48, 100, 1000, 4095, 4097, 65535,
                                         size_max, size_max / 2, (std::size_t(1) << 20) + 16};

//! A heap for one test, with its state checked at the end: nothing of a refused request may stay.
struct watched_heap {
   scoped_heap heap;
   ba_heap *h;
   ba_heap_stats start;
   watched_heap() : heap(), h(heap.get())
   {
      ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1 * MiB);
      ba_heap_free(h, ba_heap_malloc(h, 16));   // initialise, so the start figures are settled
      ba_heap_stats_get(h, &start);
   }
   ~watched_heap()
   {
      ba_heap_stats end;
      ba_heap_stats_get(h, &end);
      BOOST_CHECK_EQUAL(end.in_use_chunks, start.in_use_chunks);
      BOOST_CHECK_EQUAL(end.in_use_bytes, start.in_use_bytes);
      BOOST_CHECK_EQUAL(end.huge_blocks, start.huge_blocks);
      ALLOCPLUS_CHECK_HEAP(h);
   }
};

} // namespace

BOOST_FIXTURE_TEST_CASE(malloc_near_size_max_returns_null, watched_heap)
{
   for (std::size_t n : near_size_max) {
      BOOST_TEST(ba_heap_malloc(h, n) == nullptr, "ba_heap_malloc(" << n << ")");
      BOOST_TEST(ba_malloc(n) == nullptr, "ba_malloc(" << n << ")");
   }
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_FIXTURE_TEST_CASE(calloc_near_size_max_returns_null, watched_heap)
{
   for (std::size_t n : near_size_max) {
      BOOST_TEST(ba_heap_calloc(h, 1, n) == nullptr, "ba_heap_calloc(1, " << n << ")");
      BOOST_TEST(ba_heap_calloc(h, n, 1) == nullptr, "ba_heap_calloc(" << n << ", 1)");
      BOOST_TEST(ba_calloc(n, 1) == nullptr, "ba_calloc(" << n << ", 1)");
   }
}

BOOST_FIXTURE_TEST_CASE(calloc_whose_product_overflows_returns_null, watched_heap)
{
   const std::size_t half = std::size_t(1) << (sizeof(std::size_t) * 4);   // 2^32 on 64-bit
   struct { std::size_t n, size; } cases[] = {
      {half, half},                 // exactly 2^64: wraps to 0
      {half + 1, half},             // wraps to 2^32: a small, "valid" size
      {size_max / 16 + 1, 16},      // wraps to 0
      {3, size_max / 3 + 1},        // wraps to 2
      {size_max, size_max},
      {size_max, 2},
      {2, size_max / 2 + 1},        // wraps to 0
      {65537, size_max / 65536},    // wraps to a small size
   };
   for (auto c : cases) {
      BOOST_TEST(ba_heap_calloc(h, c.n, c.size) == nullptr, "ba_heap_calloc(" << c.n << ", " << c.size << ")");
      BOOST_TEST(ba_calloc(c.n, c.size) == nullptr, "ba_calloc(" << c.n << ", " << c.size << ")");
   }
}

BOOST_FIXTURE_TEST_CASE(realloc_near_size_max_returns_null_and_keeps_the_block, watched_heap)
{
   void *p = ba_heap_malloc(h, 100);
   void *d = ba_malloc(100);
   BOOST_REQUIRE(p && d);
   fill(p, 100, 1);
   fill(d, 100, 2);
   for (std::size_t n : near_size_max) {
      BOOST_TEST(ba_heap_realloc(h, p, n) == nullptr, "ba_heap_realloc(p, " << n << ")");
      BOOST_TEST(ba_realloc(d, n) == nullptr, "ba_realloc(p, " << n << ")");
      BOOST_TEST(ba_heap_realloc(h, nullptr, n) == nullptr, "ba_heap_realloc(null, " << n << ")");
   }
   BOOST_TEST(holds_pattern(p, 100, 1));
   BOOST_TEST(holds_pattern(d, 100, 2));
   BOOST_TEST(ba_usable_size(p) >= 100u);
   ba_heap_free(h, p);
   ba_free(d);
   // The same for a huge block.
   void *huge = ba_heap_malloc(h, 2 * MiB);
   BOOST_REQUIRE(huge);
   fill(huge, 4096, 3);
   for (std::size_t n : near_size_max) BOOST_TEST(ba_heap_realloc(h, huge, n) == nullptr);
   BOOST_TEST(holds_pattern(huge, 4096, 3));
   ba_heap_free(h, huge);
}

BOOST_FIXTURE_TEST_CASE(memalign_near_size_max_returns_null, watched_heap)
{
   for (std::size_t a : {std::size_t(16), std::size_t(64), std::size_t(4096), std::size_t(1) << 20})
      for (std::size_t n : near_size_max) {
         BOOST_TEST(ba_heap_memalign(h, a, n) == nullptr, "ba_heap_memalign(" << a << ", " << n << ")");
         BOOST_TEST(ba_memalign(a, n) == nullptr, "ba_memalign(" << a << ", " << n << ")");
      }
   // A power-of-two alignment that no address space can honour.
   BOOST_TEST(ba_heap_memalign(h, std::size_t(1) << 63, 16) == nullptr);
}

BOOST_FIXTURE_TEST_CASE(memalign_with_an_alignment_not_a_power_of_two_returns_null, watched_heap)
{
   for (std::size_t a : not_powers_of_two) {
      BOOST_TEST(ba_heap_memalign(h, a, 64) == nullptr, "ba_heap_memalign(" << a << ", 64)");
      BOOST_TEST(ba_memalign(a, 64) == nullptr, "ba_memalign(" << a << ", 64)");
   }
}

BOOST_FIXTURE_TEST_CASE(allocation_command_with_an_alignment_not_a_power_of_two_fails, watched_heap)
{
   void *p = ba_heap_malloc(h, 200);
   BOOST_REQUIRE(p);
   fill(p, 200, 4);
   std::size_t u = ba_usable_size(p);
   for (std::size_t a : not_powers_of_two) {
      std::size_t rec = 0;
      ba_command_ret r = ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 8, a, 4, 4, &rec, nullptr);
      BOOST_TEST(r.first == nullptr, "alignof " << a);
      BOOST_TEST(r.second == 0);
      r = ba_allocation_command(BA_ALLOCATE_NEW, 8, a, 4, 4, &rec, nullptr);
      BOOST_TEST(r.first == nullptr, "alignof " << a);
      r = ba_heap_allocation_command(h, BA_EXPAND_FWD | BA_EXPAND_BWD | BA_ALLOCATE_NEW, 8, a, 30, 30, &rec, p);
      BOOST_TEST(r.first == nullptr, "alignof " << a);
      r = ba_heap_allocation_command(h, BA_SHRINK_IN_PLACE, 8, a, 20, 2, &rec, p);
      BOOST_TEST(r.first == nullptr, "alignof " << a);
   }
   BOOST_TEST(ba_usable_size(p) == u);
   BOOST_TEST(holds_pattern(p, 200, 4));
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(allocation_command_near_size_max_fails, watched_heap)
{
   void *p = ba_heap_malloc(h, 100);
   BOOST_REQUIRE(p);
   fill(p, 100, 5);
   std::size_t u = ba_usable_size(p);
   const std::size_t half = std::size_t(1) << (sizeof(std::size_t) * 4);
   // (sizeof_object, objects): the byte count is near SIZE_MAX or overflows to something small.
   struct { std::size_t size, n; } cases[] = {
      {1, size_max}, {1, size_max - 15}, {16, size_max / 16}, {8, size_max / 8 + 1},
      {half, half}, {half, half + 1}, {24, size_max / 24 + 2}, {size_max, 1}, {size_max - 1, 1},
      {size_max / 2 + 1, 2}, {3, size_max / 3 + 1},
   };
   for (auto c : cases) {
      BOOST_TEST_CONTEXT("sizeof " << c.size << " x " << c.n) {
         for (unsigned cmd : {BA_ALLOCATE_NEW, BA_ALLOCATE_NEW | BA_ZERO_MEMORY, BA_EXPAND_FWD, BA_EXPAND_BWD,
                              BA_EXPAND_FWD | BA_EXPAND_BWD | BA_ALLOCATE_NEW}) {
            std::size_t rec = 0;
            void *reuse = (cmd & (BA_EXPAND_FWD | BA_EXPAND_BWD)) ? p : nullptr;
            ba_command_ret r = ba_heap_allocation_command(h, cmd, c.size, 0, c.n, c.n, &rec, reuse);
            BOOST_TEST(r.first == nullptr, "command " << cmd);
            BOOST_TEST(r.second == 0);
            if (reuse && c.size <= u) BOOST_TEST(rec == u / c.size, "received: the objects reuse holds");
         }
      }
   }
   for (auto c : cases) {
      std::size_t rec = 0;
      BOOST_TEST(ba_allocation_command(BA_ALLOCATE_NEW, c.size, 0, c.n, c.n, &rec, nullptr).first == nullptr,
                 "default heap: sizeof " << c.size << " x " << c.n);
   }
   BOOST_TEST(ba_usable_size(p) == u);
   BOOST_TEST(holds_pattern(p, 100, 5));
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(allocation_command_with_sizeof_zero_or_limit_above_preferred_fails, watched_heap)
{
   std::size_t rec = 0;
   BOOST_TEST(ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 0, 0, 1, 1, &rec, nullptr).first == nullptr);
   BOOST_TEST(ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 0, 0, 0, 0, &rec, nullptr).first == nullptr);
   BOOST_TEST(ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 8, 0, 5, 4, &rec, nullptr).first == nullptr);
   BOOST_TEST(ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 8, 0, size_max, 1, &rec, nullptr).first == nullptr);
}

BOOST_FIXTURE_TEST_CASE(multialloc_whose_total_overflows_fails_and_leaves_the_chain, watched_heap)
{
   // A footprint limit bounds the damage should a heap try to satisfy these one node at a time.
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes + 8 * MiB);
   ba_chain c;
   ba_chain_init(&c);
   struct { std::size_t n, size; } cases[] = {
      {2, size_max / 2 + 1}, {size_max, 1}, {size_max / 16 + 1, 16}, {3, size_max / 3 + 1},
      {1, size_max}, {1, size_max - 8},
   };
   for (auto x : cases) {
      BOOST_TEST(ba_heap_multialloc_nodes(h, x.n, x.size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0,
                 "nodes " << x.n << " x " << x.size);
      BOOST_TEST(ba_heap_multialloc_nodes(h, x.n, x.size, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 0);
      BOOST_TEST(ba_chain_empty(&c) == 1);
      BOOST_TEST(c.size == 0u);
   }
   std::size_t lengths[] = {1, size_max / 8, 1};
   BOOST_TEST(ba_heap_multialloc_arrays(h, 3, lengths, 16, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(ba_heap_multialloc_arrays(h, 3, lengths, 16, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 0);
   std::size_t sum_overflows[] = {size_max / 32, size_max / 32, size_max / 32};   // each fits, the sum does not
   BOOST_TEST(ba_heap_multialloc_arrays(h, 3, sum_overflows, 16, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 0);
   std::size_t one_huge[] = {size_max};
   BOOST_TEST(ba_heap_multialloc_arrays(h, 1, one_huge, 1, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(ba_multialloc_nodes(2, size_max / 2 + 1, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(ba_multialloc_arrays(3, lengths, 16, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(ba_chain_empty(&c) == 1);
}

BOOST_FIXTURE_TEST_CASE(free_of_null_and_realloc_of_null_behave_like_free_and_malloc, watched_heap)
{
   ba_free(nullptr);
   ba_heap_free(h, nullptr);
   void *p = ba_heap_realloc(h, nullptr, 50);
   BOOST_REQUIRE(p);
   BOOST_TEST(ba_usable_size(p) >= 50u);
   ba_heap_free(h, p);
   void *d = ba_realloc(nullptr, 50);
   BOOST_REQUIRE(d);
   ba_free(d);
   void *z = ba_heap_realloc(h, nullptr, 0);
   BOOST_TEST(z != nullptr);
   ba_heap_free(h, z);
   BOOST_TEST(ba_usable_size(nullptr) == 0u);
   ba_chain c;
   ba_chain_init(&c);
   ba_heap_multidealloc(h, &c);
}

BOOST_FIXTURE_TEST_CASE(footprint_limit_reached_gives_null_keeps_the_heap_and_lifts, watched_heap)
{
   std::size_t limit = stats_of(h).system_bytes + 2 * MiB;
   BOOST_TEST(ba_heap_set_footprint_limit(h, limit) == size_max);
   std::vector<void *> v;
   for (;;) {
      void *p = ba_heap_malloc(h, 100 * KiB);
      if (!p) break;
      fill(p, 100 * KiB, static_cast<std::uint32_t>(v.size()));
      v.push_back(p);
      BOOST_REQUIRE(v.size() < 1000u);
   }
   BOOST_TEST(v.size() >= 1u);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.system_bytes <= limit);
   ALLOCPLUS_CHECK_HEAP(h);
   // Every way to ask for more fails the same way.
   BOOST_TEST(ba_heap_malloc(h, 100 * KiB) == nullptr);
   BOOST_TEST(ba_heap_calloc(h, 100, KiB) == nullptr);
   BOOST_TEST(ba_heap_memalign(h, 64, 100 * KiB) == nullptr);
   BOOST_TEST(ba_heap_malloc(h, 4 * MiB) == nullptr);
   std::size_t rec = 0;
   BOOST_TEST(ba_heap_allocation_command(h, BA_ALLOCATE_NEW, 1, 0, 100 * KiB, 100 * KiB, &rec, nullptr).first == nullptr);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_TEST(ba_heap_multialloc_nodes(h, 1000, 1000, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   void *last = v.back();
   BOOST_TEST(ba_heap_realloc(h, last, 4 * MiB) == nullptr);
   BOOST_TEST(holds_pattern(last, 100 * KiB, static_cast<std::uint32_t>(v.size() - 1)));
   ALLOCPLUS_CHECK_HEAP(h);
   BOOST_TEST(stats_of(h).system_bytes <= limit);
   // Lifting the limit makes the same requests succeed.
   BOOST_TEST(ba_heap_set_footprint_limit(h, size_max) == limit);
   void *more = ba_heap_malloc(h, 100 * KiB);
   void *huge = ba_heap_malloc(h, 4 * MiB);
   BOOST_TEST(more != nullptr);
   BOOST_TEST(huge != nullptr);
   ba_heap_free(h, more);
   ba_heap_free(h, huge);
   for (std::size_t i = 0; i < v.size(); ++i) {
      BOOST_TEST(holds_pattern(v[i], 100 * KiB, static_cast<std::uint32_t>(i)));
      ba_heap_free(h, v[i]);
   }
}

BOOST_AUTO_TEST_CASE(create_heap_over_a_buffer_too_small_returns_null)
{
   alignas(16) static unsigned char buf[4096];
   for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(16), std::size_t(1000), std::size_t(4095)})
      BOOST_TEST(ba_create_heap_over(buf, n, 1) == nullptr, "size " << n);
   BOOST_TEST(ba_create_heap_over(nullptr, 0, 0) == nullptr);
}

BOOST_AUTO_TEST_CASE(create_heap_with_a_capacity_near_size_max_returns_null)
{
   for (std::size_t n : near_size_max) {
      ba_heap *h = ba_create_heap(n, 1);
      BOOST_TEST(h == nullptr, "ba_create_heap(" << n << ")");
      if (h) ba_destroy_heap(h);
   }
}
