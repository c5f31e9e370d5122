// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the C core, boost/allocplus/core/dlmalloc.h: one behaviour per test case, each
// promised by a comment of that header.
//
// Most tests run on a heap of their own (ba_create_heap), where consecutive allocations are carved
// from the top chunk one after the other, so a test can arrange a free block right before or right
// after a block (what in-place expansion needs). Such a test first checks the arrangement with
// BOOST_REQUIRE (`follows`), so a heap that lays blocks out differently fails there, visibly.

#define BOOST_TEST_MODULE allocplus core dlmalloc
#include "core/core_test_kit.hpp"
#include "core/test_scale.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <initializer_list>
#include <iterator>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(ALLOCPLUS_TEST_ASAN)
#  include <sanitizer/asan_interface.h>
#endif

using namespace allocplus_test;

namespace {

//! A fresh heap whose mmap threshold is fixed (the default adjusts itself): requests of 1 MiB and
//! more are huge blocks, anything smaller comes from segments.
struct fresh_heap {
   scoped_heap heap;
   ba_heap *h;
   fresh_heap() : heap(), h(heap.get())
   {
      BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1 * MiB) == 1);
   }
   ~fresh_heap()
   {
      ba_check_report r = {nullptr, nullptr};
      BOOST_CHECK_MESSAGE(ba_heap_check(h, &r) == 1,
                          "heap unsound at the end of the test: " << (r.what ? r.what : "?"));
   }
};

//! Whether block b starts right after block a's chunk (a's usable bytes plus a header at most).
bool follows(const void *a, const void *b)
{
   std::ptrdiff_t d = distance(a, b);
   std::size_t u = ba_usable_size(a);
   return d >= static_cast<std::ptrdiff_t>(u) && d <= static_cast<std::ptrdiff_t>(u + 4 * sizeof(void *));
}

unsigned char *bytes(void *p) { return static_cast<unsigned char *>(p); }

std::size_t lcm16(std::size_t s) { return std::lcm(s, std::size_t(16)); }

ba_command_ret command(ba_heap *h, unsigned cmd, std::size_t sizeof_object, std::size_t limit,
                       std::size_t preferred, std::size_t &received, void *reuse,
                       std::size_t alignof_object = 0)
{
   received = 0x5a5a5a5a;   // anything but a plausible answer, so "not set" shows
   return ba_heap_allocation_command(h, cmd, sizeof_object, alignof_object, limit, preferred,
                                     &received, reuse);
}

//! Three blocks carved one after the other: [p][q][guard]; `q` is then free'd by the tests that
//! want a free neighbour after p, and `guard` keeps it from merging into the top chunk.
struct three_blocks {
   void *p, *q, *guard;
   three_blocks(ba_heap *h, std::size_t np, std::size_t nq)
   {
      p = ba_heap_malloc(h, np);
      q = ba_heap_malloc(h, nq);
      guard = ba_heap_malloc(h, 16);
      BOOST_REQUIRE(p && q && guard);
      BOOST_REQUIRE_MESSAGE(follows(p, q) && follows(q, guard),
                            "layout precondition: consecutive allocations on a fresh heap are adjacent");
   }
};

// The run lengths of a chain: how many consecutive nodes are adjacent in memory (node i+1 starts
// where node i's chunk ends).
std::vector<std::size_t> run_lengths(const std::vector<void *> &nodes)
{
   std::vector<std::size_t> runs;
   if (nodes.empty()) return runs;
   std::size_t len = 1;
   for (std::size_t i = 1; i < nodes.size(); ++i) {
      if (follows(nodes[i - 1], nodes[i])) ++len;
      else { runs.push_back(len); len = 1; }
   }
   runs.push_back(len);
   return runs;
}

std::vector<void *> chain_nodes(const ba_chain &c)
{
   std::vector<void *> v;
   for (void *n = c.first; n; n = ba_chain_next(n)) v.push_back(n);
   return v;
}

} // namespace

// =============================================================================================
BOOST_AUTO_TEST_SUITE(malloc_family)

BOOST_AUTO_TEST_CASE(malloc_returns_blocks_aligned_to_16)
{
   BOOST_TEST(BA_MALLOC_ALIGNMENT == 16u);
   std::vector<void *> v;
   for (std::size_t n = 0; n < 2100; n += (n < 64 ? 1 : 37)) {
      void *p = ba_malloc(n);
      BOOST_REQUIRE(p);
      BOOST_TEST(is_aligned(p, 16), "ba_malloc(" << n << ") = " << p);
      v.push_back(p);
   }
   for (void *p : v) ba_free(p);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_FIXTURE_TEST_CASE(heap_malloc_returns_blocks_aligned_to_16, fresh_heap)
{
   std::vector<void *> v;
   for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 24u, 100u, 255u, 256u, 1000u, 4095u, 65536u,
                         300000u, 2000000u}) {
      void *p = ba_heap_malloc(h, n);
      BOOST_REQUIRE(p);
      BOOST_TEST(is_aligned(p, 16), "ba_heap_malloc(" << n << ") = " << p);
      v.push_back(p);
   }
   for (void *p : v) ba_heap_free(h, p);
}

BOOST_AUTO_TEST_CASE(malloc_zero_returns_unique_non_null_blocks)
{
   void *a = ba_malloc(0);
   void *b = ba_malloc(0);
   BOOST_REQUIRE(a);
   BOOST_REQUIRE(b);
   BOOST_TEST(a != b);
   BOOST_TEST(is_aligned(a, 16));
   ba_free(a);
   ba_free(b);
}

BOOST_AUTO_TEST_CASE(usable_size_is_at_least_the_request_and_all_of_it_is_writable)
{
   for (std::size_t n = 0; n < 5000; n += (n < 300 ? 1 : 97)) {
      void *p = ba_malloc(n);
      BOOST_REQUIRE(p);
      std::size_t u = ba_usable_size(p);
      BOOST_TEST(u >= n);
      std::memset(p, 0xC3, u);   // the whole usable size is the caller's (ASan would object)
      ba_free(p);
   }
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(usable_size_of_null_is_zero)
{
   BOOST_TEST(ba_usable_size(nullptr) == 0u);
}

BOOST_FIXTURE_TEST_CASE(free_of_null_is_a_no_op, fresh_heap)
{
   ba_heap_stats before = stats_of(h);
   ba_free(nullptr);
   ba_heap_free(h, nullptr);
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(after.in_use_bytes == before.in_use_bytes);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_FIXTURE_TEST_CASE(calloc_zeroes_memory_that_held_other_data, fresh_heap)
{
   // Dirty memory first, so a calloc that forgot to zero shows.
   std::vector<void *> dirty;
   for (int i = 0; i < 64; ++i) {
      void *p = ba_heap_malloc(h, 1000);
      BOOST_REQUIRE(p);
      std::memset(p, 0xAB, ba_usable_size(p));
      dirty.push_back(p);
   }
   for (void *p : dirty) ba_heap_free(h, p);
   for (std::size_t n : {1u, 10u, 100u, 333u}) {
      void *p = ba_heap_calloc(h, n, 3);
      BOOST_REQUIRE(p);
      BOOST_TEST(is_aligned(p, 16));
      BOOST_TEST(ba_usable_size(p) >= n * 3);
      BOOST_TEST(all_zero(p, n * 3), "ba_heap_calloc(" << n << ", 3) not zeroed");
      ba_heap_free(h, p);
   }
   void *p = ba_calloc(250, 4);
   BOOST_REQUIRE(p);
   BOOST_TEST(all_zero(p, 1000));
   ba_free(p);
}

BOOST_FIXTURE_TEST_CASE(calloc_of_huge_block_is_zeroed, fresh_heap)
{
   void *p = ba_heap_calloc(h, 3, MiB);
   BOOST_REQUIRE(p);
   BOOST_TEST(stats_of(h).huge_blocks == 1u);
   BOOST_TEST(all_zero(p, 3 * MiB));
   ba_heap_free(h, p);
}

BOOST_AUTO_TEST_CASE(calloc_of_zero_elements_returns_a_block)
{
   void *p = ba_calloc(0, 16);
   void *q = ba_calloc(16, 0);
   BOOST_TEST(p != nullptr);
   BOOST_TEST(q != nullptr);
   ba_free(p);
   ba_free(q);
}

BOOST_AUTO_TEST_CASE(realloc_of_null_allocates)
{
   void *p = ba_realloc(nullptr, 100);
   BOOST_REQUIRE(p);
   BOOST_TEST(ba_usable_size(p) >= 100u);
   std::memset(p, 1, 100);
   ba_free(p);
}

BOOST_FIXTURE_TEST_CASE(realloc_moving_a_block_keeps_its_contents, fresh_heap)
{
   three_blocks b(h, 200, 64);   // q stays in use: p cannot grow in place
   fill(b.p, 200, 1);
   void *r = ba_heap_realloc(h, b.p, 5000);
   BOOST_REQUIRE(r);
   BOOST_TEST(ba_usable_size(r) >= 5000u);
   BOOST_TEST(holds_pattern(r, 200, 1));
   std::memset(bytes(r) + 200, 0, 4800);
   ba_heap_free(h, r);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(realloc_grows_in_place_into_a_free_neighbour, fresh_heap)
{
   three_blocks b(h, 200, 2000);
   fill(b.p, 200, 2);
   ba_heap_free(h, b.q);
   void *r = ba_heap_realloc(h, b.p, 1500);
   BOOST_TEST(r == b.p);
   BOOST_TEST(ba_usable_size(r) >= 1500u);
   BOOST_TEST(holds_pattern(r, 200, 2));
   ba_heap_free(h, r);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(realloc_grows_in_place_into_the_top_chunk, fresh_heap)
{
   void *a = ba_heap_malloc(h, 64);
   void *p = ba_heap_malloc(h, 100);   // the last block: the top chunk follows it
   BOOST_REQUIRE(a && p);
   fill(p, 100, 3);
   void *r = ba_heap_realloc(h, p, 100000);
   BOOST_TEST(r == p);
   BOOST_TEST(holds_pattern(r, 100, 3));
   BOOST_TEST(ba_usable_size(r) >= 100000u);
   ba_heap_free(h, r);
   ba_heap_free(h, a);
}

BOOST_FIXTURE_TEST_CASE(realloc_shrinking_keeps_address_and_contents, fresh_heap)
{
   three_blocks b(h, 4000, 64);
   fill(b.p, 4000, 4);
   ba_heap_stats before = stats_of(h);
   void *r = ba_heap_realloc(h, b.p, 100);
   BOOST_TEST(r == b.p);
   BOOST_TEST(holds_pattern(r, 100, 4));
   BOOST_TEST(ba_usable_size(r) >= 100u);
   BOOST_TEST(ba_usable_size(r) < 4000u);
   BOOST_TEST(stats_of(h).in_use_bytes < before.in_use_bytes);
   ba_heap_free(h, r);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(realloc_to_zero_shrinks_to_the_minimum_and_keeps_the_block, fresh_heap)
{
   void *zero = ba_heap_malloc(h, 0);
   BOOST_REQUIRE(zero);
   std::size_t minimum = ba_usable_size(zero);
   three_blocks b(h, 1000, 64);
   fill(b.p, 1000, 5);
   std::size_t chunks = stats_of(h).in_use_chunks;
   void *r = ba_heap_realloc(h, b.p, 0);
   BOOST_REQUIRE_MESSAGE(r != nullptr, "realloc(p, 0) must not free");
   BOOST_TEST(r == b.p);
   BOOST_TEST(ba_usable_size(r) == minimum);
   BOOST_TEST(holds_pattern(r, std::min<std::size_t>(minimum, 8), 5));
   BOOST_TEST(stats_of(h).in_use_chunks == chunks);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, r);   // still a block: freeing it once is right
   BOOST_TEST(stats_of(h).in_use_chunks == chunks - 1);
   // The default heap's shorthand does the same.
   void *d = ba_malloc(500);
   BOOST_REQUIRE(d);
   void *dr = ba_realloc(d, 0);
   BOOST_TEST(dr == d);
   ba_free(dr);
   ba_heap_free(h, zero);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

// Blocks freed in address order (a list destroyed in order) each merge into the free chunk the
// ones before them made. When that chunk is its tree bin's root, alone of its size, and stays in
// the bin, it grows where it is; else it moves in the tree. Two such runs share the bins, so both
// cases happen. Every step leaves a sound heap, and each run ends as one free chunk that the
// best fit for its size returns.
BOOST_FIXTURE_TEST_CASE(frees_in_address_order_grow_one_free_chunk, fresh_heap)
{
   constexpr int blocks = 300;
   std::vector<void *> a(blocks), b(blocks);
   for (void *&p : a) BOOST_REQUIRE((p = ba_heap_malloc(h, 24)) != nullptr);
   void *separator = ba_heap_malloc(h, 24);
   for (void *&p : b) BOOST_REQUIRE((p = ba_heap_malloc(h, 24)) != nullptr);
   void *guard = ba_heap_malloc(h, 24);
   BOOST_REQUIRE(separator && guard);
   const std::size_t stride = static_cast<std::size_t>(static_cast<char *>(a[1]) - static_cast<char *>(a[0]));
   for (int i = 0; i != blocks; ++i) {
      ba_heap_free(h, a[static_cast<std::size_t>(i)]);
      ba_heap_free(h, b[static_cast<std::size_t>(i)]);
      if (i % 7 == 0) ALLOCPLUS_CHECK_HEAP(h);
   }
   ALLOCPLUS_CHECK_HEAP(h);
   // The quick lists hold the first frees of the size: flush them into the runs.
   ba_heap_trim(h, 0);
   ALLOCPLUS_CHECK_HEAP(h);
   const std::size_t run = blocks * stride;
   void *whole_a = ba_heap_malloc(h, run - sizeof(void *));
   void *whole_b = ba_heap_malloc(h, run - sizeof(void *));
   BOOST_TEST((whole_a == a[0] || whole_a == b[0]));
   BOOST_TEST((whole_b == a[0] || whole_b == b[0]));
   BOOST_TEST(whole_a != whole_b);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, whole_a);
   ba_heap_free(h, whole_b);
   ba_heap_free(h, separator);
   ba_heap_free(h, guard);
   ALLOCPLUS_CHECK_HEAP(h);
}

BOOST_FIXTURE_TEST_CASE(realloc_failure_returns_null_and_leaves_the_block_untouched, fresh_heap)
{
   void *p = ba_heap_malloc(h, 300);
   BOOST_REQUIRE(p);
   fill(p, 300, 6);
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes);
   BOOST_TEST(ba_heap_realloc(h, p, 64 * MiB) == nullptr);
   BOOST_TEST(holds_pattern(p, 300, 6));
   BOOST_TEST(ba_usable_size(p) >= 300u);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(realloc_of_a_huge_block_keeps_contents, fresh_heap)
{
   void *p = ba_heap_malloc(h, 2 * MiB);
   BOOST_REQUIRE(p);
   fill(p, 4096, 7);
   bytes(p)[2 * MiB - 1] = 0x77;
   void *r = ba_heap_realloc(h, p, 8 * MiB);
   BOOST_REQUIRE(r);
   BOOST_TEST(holds_pattern(r, 4096, 7));
   BOOST_TEST(bytes(r)[2 * MiB - 1] == 0x77);
   bytes(r)[8 * MiB - 1] = 1;
   void *s = ba_heap_realloc(h, r, 1000);   // back below the mmap threshold
   BOOST_REQUIRE(s);
   BOOST_TEST(holds_pattern(s, 1000, 7));
   ba_heap_free(h, s);
}

BOOST_FIXTURE_TEST_CASE(realloc_grows_a_huge_block_in_place, fresh_heap)
{
   void *p = ba_heap_malloc(h, 16 * MiB);
   BOOST_REQUIRE(p);
   fill(p, 4096, 8);
   void *r = ba_heap_realloc(h, p, 32 * MiB);
   BOOST_REQUIRE(r);
   BOOST_TEST(r == p, "a huge block keeps reserved address space after it to grow in place");
   BOOST_TEST(holds_pattern(r, 4096, 8));
   ba_heap_free(h, r);
}

BOOST_FIXTURE_TEST_CASE(memalign_returns_blocks_with_the_requested_alignment, fresh_heap)
{
   std::vector<void *> v;
   for (std::size_t a = 1; a <= 64 * KiB; a *= 2)
      for (std::size_t n : {1u, 16u, 100u, 1000u, 5000u}) {
         void *p = ba_heap_memalign(h, a, n);
         BOOST_REQUIRE(p);
         BOOST_TEST(is_aligned(p, std::max<std::size_t>(a, 16)), "memalign(" << a << ", " << n << ") = " << p);
         BOOST_TEST(ba_usable_size(p) >= n);
         std::memset(p, 0x11, n);
         v.push_back(p);
      }
   ALLOCPLUS_CHECK_HEAP(h);
   for (void *p : v) ba_heap_free(h, p);
   void *d = ba_memalign(4096, 10);
   BOOST_REQUIRE(d);
   BOOST_TEST(is_aligned(d, 4096));
   ba_free(d);
   void *huge = ba_heap_memalign(h, 1 * MiB, 3 * MiB);
   BOOST_REQUIRE(huge);
   BOOST_TEST(is_aligned(huge, 1 * MiB));
   ba_heap_free(h, huge);
}

BOOST_AUTO_TEST_CASE(default_heap_shorthands_and_heap_functions_share_one_heap)
{
   ba_heap *d = ba_default_heap();
   BOOST_REQUIRE(d);
   BOOST_TEST(ba_default_heap() == d);
   ba_heap_stats s0;
   ba_stats(&s0);
   void *p = ba_heap_malloc(d, 100);
   void *q = ba_malloc(100);
   BOOST_REQUIRE(p && q);
   ba_heap_stats s1, s1h;
   ba_stats(&s1);
   ba_heap_stats_get(d, &s1h);
   BOOST_TEST(s1.in_use_chunks == s0.in_use_chunks + 2);
   BOOST_TEST(s1h.in_use_chunks == s1.in_use_chunks);
   BOOST_TEST(s1h.in_use_bytes == s1.in_use_bytes);
   ba_free(p);               // allocated with ba_heap_malloc(default), freed with the shorthand
   ba_heap_free(d, q);       // and the other way round
   ba_heap_stats s2;
   ba_stats(&s2);
   BOOST_TEST(s2.in_use_chunks == s0.in_use_chunks);
   BOOST_TEST(s2.in_use_bytes == s0.in_use_bytes);
   BOOST_TEST(ba_heap_check(d, nullptr) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(allocation_command)

// On an old heap (small holes between live blocks) a new block that may expand forward is placed
// with free memory after it, where the next growth happens in place; a block that may not is the
// best fit, a hole, as malloc's.
BOOST_FIXTURE_TEST_CASE(a_new_block_meant_to_grow_forward_is_placed_where_it_can, fresh_heap)
{
   std::vector<void *> live, holes;
   for (int i = 0; i < 200; ++i) {
      holes.push_back(ba_heap_malloc(h, 56));
      live.push_back(ba_heap_malloc(h, 56));
   }
   for (void *p : holes) ba_heap_free(h, p);
   std::size_t rec;
   const ba_command_ret growable = command(h, BA_ALLOCATE_NEW | BA_EXPAND_FWD, 8, 7, 7, rec, nullptr);
   BOOST_REQUIRE(growable.first);
   const ba_command_ret grown = command(h, BA_EXPAND_FWD, 8, 28, 28, rec, growable.first);
   BOOST_TEST(grown.first == growable.first);
   BOOST_TEST(grown.second == 1, "grown in place");
   BOOST_TEST(rec >= 28u);

   const ba_command_ret new_only = command(h, BA_ALLOCATE_NEW, 8, 7, 7, rec, nullptr);
   BOOST_REQUIRE(new_only.first);
   BOOST_TEST((std::find(holes.begin(), holes.end(), new_only.first) != holes.end()), "a hole, the best fit");
   const ba_command_ret stuck = command(h, BA_EXPAND_FWD, 8, 28, 28, rec, new_only.first);
   BOOST_TEST(stuck.first == nullptr, "a live block after it");

   ba_heap_free(h, grown.first);
   ba_heap_free(h, new_only.first);
   for (void *p : live) ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(allocate_new_returns_a_new_block_holding_received_objects, fresh_heap)
{
   for (std::size_t s : {1u, 3u, 8u, 24u, 100u}) {
      std::size_t rec;
      ba_command_ret r = command(h, BA_ALLOCATE_NEW, s, 10, 20, rec, nullptr);
      BOOST_REQUIRE(r.first);
      BOOST_TEST(r.second == 0);
      BOOST_TEST(is_aligned(r.first, 16));
      BOOST_TEST(rec >= 20u);
      BOOST_TEST(rec == ba_usable_size(r.first) / s, "received is the objects the block can hold");
      std::memset(r.first, 0x22, rec * s);
      ba_heap_free(h, r.first);
   }
   std::size_t rec = 0;
   ba_command_ret r = ba_allocation_command(BA_ALLOCATE_NEW, 8, 0, 4, 4, &rec, nullptr);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(rec >= 4u);
   ba_free(r.first);
}

BOOST_FIXTURE_TEST_CASE(allocate_new_honours_the_object_alignment, fresh_heap)
{
   for (std::size_t a = 1; a <= 8192; a *= 2) {
      std::size_t rec;
      ba_command_ret r = command(h, BA_ALLOCATE_NEW, 24, 5, 5, rec, nullptr, a);
      BOOST_REQUIRE(r.first);
      BOOST_TEST(is_aligned(r.first, std::max<std::size_t>(a, 16)), "alignof " << a << ": " << r.first);
      BOOST_TEST(rec >= 5u);
      ba_heap_free(h, r.first);
   }
}

BOOST_FIXTURE_TEST_CASE(allocate_new_falls_back_to_limit_when_preferred_does_not_fit, fresh_heap)
{
   void *warm = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(warm);
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes + 256 * KiB);
   std::size_t rec;
   ba_command_ret r = command(h, BA_ALLOCATE_NEW, 8, 1000, 10 * MiB, rec, nullptr);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 0);
   BOOST_TEST(rec >= 1000u);
   BOOST_TEST(rec < 10 * MiB);
   BOOST_TEST(ba_usable_size(r.first) >= rec * 8);
   ba_heap_free(h, r.first);
   ba_heap_free(h, warm);
}

BOOST_FIXTURE_TEST_CASE(command_with_object_size_zero_fails, fresh_heap)
{
   std::size_t rec;
   ba_command_ret r = command(h, BA_ALLOCATE_NEW, 0, 1, 1, rec, nullptr);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   void *p = ba_heap_malloc(h, 100);
   r = command(h, BA_EXPAND_FWD, 0, 1, 1, rec, p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(allocation_with_limit_above_preferred_fails, fresh_heap)
{
   std::size_t rec;
   ba_command_ret r = command(h, BA_ALLOCATE_NEW, 8, 20, 10, rec, nullptr);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   // The same for an expansion, and the block is left as it was.
   void *a = ba_heap_malloc(h, 64);
   void *p = ba_heap_malloc(h, 64);   // top follows: expansion itself would be possible
   BOOST_REQUIRE(a && p);
   fill(p, 64, 9);
   std::size_t u = ba_usable_size(p);
   r = command(h, BA_EXPAND_FWD, 8, 200, 100, rec, p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   r = command(h, BA_EXPAND_FWD | BA_EXPAND_BWD | BA_ALLOCATE_NEW, 8, 200, 100, rec, p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(ba_usable_size(p) == u);
   BOOST_TEST(holds_pattern(p, 64, 9));
   ba_heap_free(h, p);
   ba_heap_free(h, a);
}

BOOST_FIXTURE_TEST_CASE(command_without_an_operation_fails, fresh_heap)
{
   std::size_t rec;
   ba_command_ret r = command(h, BA_NOTHROW_ALLOCATION, 8, 1, 1, rec, nullptr);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_into_a_free_neighbour_keeps_address_and_contents, fresh_heap)
{
   three_blocks b(h, 160, 4000);
   fill(b.p, 160, 10);
   ba_heap_free(h, b.q);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 8, 300, 300, rec, b.p);
   BOOST_TEST(r.second == 1);
   BOOST_REQUIRE(r.first == b.p);
   BOOST_REQUIRE(rec >= 300u);
   BOOST_TEST(rec == ba_usable_size(b.p) / 8);
   BOOST_TEST(holds_pattern(b.p, 160, 10));
   std::memset(bytes(b.p) + 160, 0, rec * 8 - 160);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_into_the_top_chunk_keeps_address, fresh_heap)
{
   void *a = ba_heap_malloc(h, 64);
   void *p = ba_heap_malloc(h, 64);
   BOOST_REQUIRE(a && p);
   fill(p, 64, 11);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 16, 10000, 10000, rec, p);
   BOOST_TEST(r.second == 1);
   BOOST_REQUIRE(r.first == p);
   BOOST_REQUIRE(rec >= 10000u);
   BOOST_TEST(holds_pattern(p, 64, 11));
   std::memset(bytes(p) + 64, 0, rec * 16 - 64);
   ba_heap_free(h, p);
   ba_heap_free(h, a);
}

// A forward expansion into the top takes a short path of its own (the one a growing vector
// takes); zero_memory sends the same request down the general one. Two heaps over buffers laid
// out alike must then agree on every answer, up to and past the point where the top runs out.
BOOST_AUTO_TEST_CASE(expand_fwd_into_the_top_answers_as_the_general_path_does)
{
   constexpr std::size_t buffer_bytes = 64 * KiB;
   std::vector<unsigned char> buf_short(buffer_bytes + 64), buf_general(buffer_bytes + 64);
   auto aligned = [](std::vector<unsigned char> &b) {
      return b.data() + (64 - reinterpret_cast<std::uintptr_t>(b.data()) % 64) % 64;
   };
   for (std::size_t size : {1u, 3u, 4u, 8u, 12u, 24u, 40u}) {
      for (std::size_t alignment : {0u, 4u, 16u}) {
         for (std::size_t limit_fraction : {1u, 2u}) {
            ba_heap *hs = ba_create_heap_over(aligned(buf_short), buffer_bytes, 1);
            ba_heap *hg = ba_create_heap_over(aligned(buf_general), buffer_bytes, 1);
            BOOST_REQUIRE(hs && hg);
            void *ps = ba_heap_malloc(hs, 40), *pg = ba_heap_malloc(hg, 40);
            BOOST_REQUIRE(ps && pg);
            BOOST_REQUIRE(distance(aligned(buf_short), ps) == distance(aligned(buf_general), pg));
            fill(ps, 40, 3);
            bool failed = false;
            // Steps of at most 16 bytes (the chunk granularity) where the object size allows,
            // so that the last few chunks of room in the top are each tried.
            for (std::size_t preferred = 40 / size + 1; !failed; preferred += size < 16 ? 16 / size : 1) {
               const std::size_t limit = (preferred + limit_fraction - 1) / limit_fraction;
               std::size_t rec_s, rec_g;
               ba_command_ret rs = command(hs, BA_EXPAND_FWD, size, limit, preferred, rec_s, ps, alignment);
               ba_command_ret rg = command(hg, BA_EXPAND_FWD | BA_ZERO_MEMORY, size, limit, preferred, rec_g, pg, alignment);
               BOOST_TEST_CONTEXT("size " << size << ", alignment " << alignment << ", limit " << limit
                                          << ", preferred " << preferred)
               {
                  BOOST_TEST((rs.first == ps) == (rg.first == pg));
                  BOOST_TEST(rs.second == rg.second);
                  BOOST_TEST(rec_s == rec_g);
                  BOOST_TEST(ba_usable_size(ps) == ba_usable_size(pg));
                  BOOST_TEST(stats_of(hs).in_use_bytes == stats_of(hg).in_use_bytes);
                  BOOST_TEST(stats_of(hs).top_bytes == stats_of(hg).top_bytes);
                  BOOST_TEST(holds_pattern(ps, 40, 3));
               }
               failed = rs.first == nullptr;
               if (!failed) BOOST_TEST(rec_s >= limit);
            }
            BOOST_TEST(ba_usable_size(ps) > buffer_bytes / 2, "the block grew through most of the buffer");
            ALLOCPLUS_CHECK_HEAP(hs);
            ALLOCPLUS_CHECK_HEAP(hg);
            ba_destroy_heap(hs);
            ba_destroy_heap(hg);
         }
      }
   }
}

// A new block at the preferred size (with no block to reuse, or for a block that surely cannot
// grow in place) also takes a short path; zero_memory again sends the same request down the
// general one. A random script of commands, vector-like moves, frees and small mallocs (which
// fill the quick lists backward expansion reads) on two heaps laid out alike: every answer, the
// layout and the statistics must agree, so a short path that allocated where the general one
// would have expanded (or the reverse) shows at once.
BOOST_AUTO_TEST_CASE(new_blocks_answer_as_the_general_path_does)
{
   constexpr std::size_t buffer_bytes = 256 * KiB;
   std::vector<unsigned char> buf_short(buffer_bytes + 64), buf_general(buffer_bytes + 64);
   auto aligned = [](std::vector<unsigned char> &b) {
      return b.data() + (64 - reinterpret_cast<std::uintptr_t>(b.data()) % 64) % 64;
   };
   unsigned char *base_s = aligned(buf_short), *base_g = aligned(buf_general);
   ba_heap *hs = ba_create_heap_over(base_s, buffer_bytes, 1);
   ba_heap *hg = ba_create_heap_over(base_g, buffer_bytes, 1);
   BOOST_REQUIRE(hs && hg);
   const std::uint64_t seed_used = allocplus_test::seed(20261123);
   BOOST_TEST_MESSAGE("seed " << seed_used);
   std::uint64_t state = seed_used;
   auto next = [&state](std::size_t n) {   // splitmix64, so both runs of a seed agree anywhere
      std::uint64_t z = (state += 0x9e3779b97f4a7c15u);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
      return static_cast<std::size_t>((z ^ (z >> 31)) % n);
   };
   const std::size_t sizes[] = {1, 4, 8, 12, 16, 24, 40};
   const std::size_t alignments[] = {0, 4, 16, 64};   // 64: memalign, the general path on both
   const unsigned expansions[] = {0, BA_EXPAND_FWD, BA_EXPAND_BWD, BA_EXPAND_FWD | BA_EXPAND_BWD};
   struct block {
      void *s, *g;
      std::size_t size, alignment;
   };
   std::vector<block> live;
   std::size_t moves = 0, news = 0, expanded = 0;
   const std::size_t steps = scaled(20000, 2000);
   for (std::size_t step = 0; step != steps; ++step) {
      const std::size_t op = next(10);
      if (op < 3 && !live.empty()) {   // free one
         const std::size_t i = next(live.size());
         ba_heap_free(hs, live[i].s);
         ba_heap_free(hg, live[i].g);
         live[i] = live.back();
         live.pop_back();
         continue;
      }
      if (op < 5) {   // a small malloc, freed at once half the time: quick lists fill and empty
         const std::size_t n = 1 + next(200);
         void *ps = ba_heap_malloc(hs, n), *pg = ba_heap_malloc(hg, n);
         BOOST_REQUIRE((ps == nullptr) == (pg == nullptr));
         if (!ps) continue;
         BOOST_REQUIRE(distance(base_s, ps) == distance(base_g, pg));
         if (next(2)) {
            ba_heap_free(hs, ps);
            ba_heap_free(hg, pg);
         } else {
            live.push_back({ps, pg, 1, 0});
         }
         continue;
      }
      // A command: a new block, or the growth of a live one (as a vector grows: limit one more
      // than it holds, preferred 1.6 times that), which moves when it gets a new block.
      const bool grow = op >= 6 && !live.empty();   // else a new block
      const std::size_t i = grow ? next(live.size()) : 0;
      const std::size_t size = grow ? live[i].size : sizes[next(std::size(sizes))];
      const std::size_t alignment = grow ? live[i].alignment : alignments[next(std::size(alignments))];
      const unsigned cmd = BA_ALLOCATE_NEW | expansions[next(std::size(expansions))];
      void *reuse_s = grow ? live[i].s : nullptr, *reuse_g = grow ? live[i].g : nullptr;
      const std::size_t held = grow ? ba_usable_size(reuse_s) / size : 0;
      // Now and then a size the block already holds (as a reserve() below the capacity asks):
      // the general path answers that in place.
      const std::size_t limit = next(4) == 0 ? 1 + next(held + 1) : held + 1 + next(8);
      const std::size_t preferred = limit + limit * 3 / 5;
      std::size_t rec_s, rec_g;
      ba_command_ret rs = command(hs, cmd, size, limit, preferred, rec_s, reuse_s, alignment);
      ba_command_ret rg = command(hg, cmd | BA_ZERO_MEMORY, size, limit, preferred, rec_g, reuse_g, alignment);
      BOOST_TEST_CONTEXT("step " << step << ", command " << cmd << ", size " << size << ", alignment "
                                 << alignment << ", limit " << limit << ", preferred " << preferred)
      {
         BOOST_REQUIRE((rs.first == nullptr) == (rg.first == nullptr));
         BOOST_REQUIRE(rs.second == rg.second);
         BOOST_REQUIRE(rec_s == rec_g);
         if (rs.first) {
            BOOST_REQUIRE(distance(base_s, rs.first) == distance(base_g, rg.first));
            // Under ASan: the bytes the owner may touch (the poisoning) agree too.
            BOOST_REQUIRE(ba_usable_size(rs.first) == ba_usable_size(rg.first));
         }
         const ba_heap_stats ss = stats_of(hs), sg = stats_of(hg);
         BOOST_REQUIRE(ss.in_use_bytes == sg.in_use_bytes);
         BOOST_REQUIRE(ss.in_use_chunks == sg.in_use_chunks);
         BOOST_REQUIRE(ss.peak_in_use_bytes == sg.peak_in_use_bytes);
         BOOST_REQUIRE(ss.top_bytes == sg.top_bytes);
         BOOST_REQUIRE(ss.free_bytes == sg.free_bytes);
      }
      if (!rs.first) continue;
      if (rs.second) {
         ++expanded;
         live[i].s = rs.first;
         live[i].g = rg.first;
      } else if (grow) {
         ++moves;
         ba_heap_free(hs, reuse_s);   // the vector moved: its old buffer goes
         ba_heap_free(hg, reuse_g);
         live[i] = {rs.first, rg.first, size, alignment};
      } else {
         ++news;
         live.push_back({rs.first, rg.first, size, alignment});
      }
      if (step % 256 == 0) {
         ALLOCPLUS_CHECK_HEAP(hs);
         ALLOCPLUS_CHECK_HEAP(hg);
      }
   }
   BOOST_TEST_MESSAGE(news << " new blocks, " << moves << " moves, " << expanded << " expansions");
   // The script must reach each path it is about: blocks that move, and blocks that expand.
   BOOST_TEST(moves > steps / 20);
   BOOST_TEST(expanded > steps / 50);
   ALLOCPLUS_CHECK_HEAP(hs);
   ALLOCPLUS_CHECK_HEAP(hg);
   ba_destroy_heap(hs);
   ba_destroy_heap(hg);
}

// The short path for new blocks refuses what the general path refuses: an object size of 0 or
// one too large to represent, even when no bytes are asked for (preferred 0).
BOOST_FIXTURE_TEST_CASE(allocate_new_refuses_object_sizes_the_general_path_refuses, fresh_heap)
{
   const ba_heap_stats before = stats_of(h);
   for (std::size_t size : {std::size_t(0), ~std::size_t(0) / 2, ~std::size_t(0)}) {
      for (std::size_t preferred : {0u, 1u}) {
         std::size_t rec;
         ba_command_ret r = command(h, BA_ALLOCATE_NEW, size, preferred, preferred, rec, nullptr);
         BOOST_TEST_CONTEXT("size " << size << ", preferred " << preferred)
         {
            BOOST_TEST(r.first == nullptr);
            BOOST_TEST(r.second == 0);
            BOOST_TEST(rec == 0u);
         }
      }
   }
   BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks);
}

// A huge block (mapped directly) is never "surely unable to grow": the growth of one goes to the
// general path, which grows it in place; a new block that large comes back huge with every byte
// counted in `received`.
BOOST_FIXTURE_TEST_CASE(new_and_growing_huge_blocks_through_the_short_paths_command, fresh_heap)
{
   std::size_t rec;
   ba_command_ret r = command(h, BA_ALLOCATE_NEW | BA_EXPAND_FWD, 8, 2 * MiB / 8, 2 * MiB / 8, rec, nullptr);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 0);
   BOOST_TEST(stats_of(h).huge_blocks == 1u);
   BOOST_TEST(rec == ba_usable_size(r.first) / 8);
   fill(r.first, 2 * MiB, 21);
   void *huge = r.first;
   r = command(h, BA_ALLOCATE_NEW | BA_EXPAND_FWD | BA_EXPAND_BWD, 8, 3 * MiB / 8, 4 * MiB / 8, rec, huge);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.first == huge);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 3 * MiB / 8);
   BOOST_TEST(holds_pattern(huge, 2 * MiB, 21));
   ba_heap_free(h, huge);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_of_a_block_already_holding_preferred_succeeds_in_place, fresh_heap)
{
   three_blocks b(h, 800, 64);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 8, 50, 100, rec, b.p);
   BOOST_TEST(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec == ba_usable_size(b.p) / 8);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_failure_returns_null_and_the_objects_the_block_holds, fresh_heap)
{
   three_blocks b(h, 160, 64);   // q in use: no room after p
   fill(b.p, 160, 12);
   std::size_t u = ba_usable_size(b.p);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 8, 100, 100, rec, b.p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   BOOST_TEST(rec == u / 8);
   BOOST_TEST(ba_usable_size(b.p) == u);
   BOOST_TEST(holds_pattern(b.p, 160, 12));
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_reaches_limit_when_preferred_does_not_fit, fresh_heap)
{
   three_blocks b(h, 160, 800);   // room for about 1000 bytes after freeing q
   fill(b.p, 160, 13);
   ba_heap_free(h, b.q);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 1, 900, 100000, rec, b.p);
   BOOST_TEST(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 900u);
   BOOST_TEST(rec < 100000u);
   BOOST_TEST(rec == ba_usable_size(b.p));
   BOOST_TEST(holds_pattern(b.p, 160, 13));
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(new_block_at_preferred_comes_before_expansion_to_limit, fresh_heap)
{
   three_blocks b(h, 160, 800);
   fill(b.p, 160, 14);
   ba_heap_free(h, b.q);
   std::size_t u = ba_usable_size(b.p);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 900, 100000, rec, b.p);
   BOOST_REQUIRE(r.first);
   BOOST_REQUIRE(r.first != b.p);   // else freeing both below would free one block twice
   BOOST_TEST(r.second == 0);
   BOOST_TEST(rec >= 100000u);
   BOOST_TEST(ba_usable_size(b.p) == u, "the old block is left as it was");
   BOOST_TEST(holds_pattern(b.p, 160, 14));
   ba_heap_free(h, r.first);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expansion_to_preferred_comes_before_a_new_block, fresh_heap)
{
   three_blocks b(h, 160, 4000);
   ba_heap_free(h, b.q);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 200, 3000, rec, b.p);
   BOOST_TEST(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 3000u);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_or_new_allocates_anew_when_the_neighbour_is_in_use, fresh_heap)
{
   three_blocks b(h, 160, 64);
   fill(b.p, 160, 15);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_ALLOCATE_NEW, 8, 100, 100, rec, b.p);
   BOOST_REQUIRE(r.first);
   BOOST_REQUIRE(r.first != b.p);   // else freeing both below would free one block twice
   BOOST_TEST(r.second == 0);
   BOOST_TEST(rec >= 100u);
   BOOST_TEST(holds_pattern(b.p, 160, 15));   // the caller moves the objects and frees the old block
   ba_heap_free(h, b.p);
   ba_heap_free(h, r.first);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_AUTO_TEST_CASE(expand_bwd_keeps_objects_readable_for_object_sizes_1_to_64)
{
   for (std::size_t s = 1; s <= 64; ++s) {
      BOOST_TEST_CONTEXT("sizeof_object " << s) {
         scoped_heap h;
         void *below = ba_heap_malloc(h, 4096);
         std::size_t n_old = std::max<std::size_t>(1, 300 / s);
         void *p = ba_heap_malloc(h, n_old * s);
         void *guard = ba_heap_malloc(h, 16);
         BOOST_REQUIRE(below && p && guard);
         BOOST_REQUIRE_MESSAGE(follows(below, p) && follows(p, guard), "layout precondition");
         fill(p, n_old * s, static_cast<std::uint32_t>(s));
         std::memset(below, 0xEE, 4096);
         ba_heap_free(h, below);

         std::size_t want = n_old + (2048 + s - 1) / s;   // at least 2 KiB more than p holds
         std::size_t rec;
         ba_command_ret r = command(h, BA_EXPAND_BWD, s, want, want, rec, p);
         BOOST_REQUIRE(r.first);
         BOOST_TEST(r.second == 1);
         unsigned char *np = bytes(r.first);
         BOOST_REQUIRE(np < bytes(p));
         std::size_t moved = static_cast<std::size_t>(bytes(p) - np);
         BOOST_TEST(moved % lcm16(s) == 0u, "start moved by " << moved << ", not a multiple of lcm(" << s << ", 16)");
         BOOST_TEST(is_aligned(np, 16));
         BOOST_TEST(rec >= want);
         BOOST_TEST(rec * s <= ba_usable_size(np));
         BOOST_TEST(moved + n_old * s <= rec * s, "the old objects lie inside the received objects");
         // Old object i is object k + i of the expanded block, with its bytes untouched.
         std::size_t k = moved / s;
         bool intact = true;
         for (std::size_t i = 0; i < n_old && intact; ++i)
            for (std::size_t j = 0; j < s; ++j)
               if (np[(k + i) * s + j] != pattern_byte(static_cast<std::uint32_t>(s), i * s + j)) {
                  intact = false;
                  BOOST_ERROR("old object " << i << " byte " << j << " changed");
                  break;
               }
         std::memset(np, 0x5A, moved);          // the gained bytes are ours
         ALLOCPLUS_CHECK_HEAP(h);
         ba_heap_free(h, np);
         ba_heap_free(h, guard);
         ALLOCPLUS_CHECK_HEAP(h);
      }
   }
}

BOOST_FIXTURE_TEST_CASE(expand_bwd_of_a_block_already_holding_preferred_succeeds_in_place, fresh_heap)
{
   three_blocks b(h, 800, 64);   // nothing free on either side
   for (unsigned cmd : {BA_EXPAND_BWD, BA_EXPAND_FWD, BA_EXPAND_FWD | BA_EXPAND_BWD}) {
      BOOST_TEST_CONTEXT("command " << cmd) {
         std::size_t rec;
         ba_command_ret r = command(h, cmd, 8, 50, 100, rec, b.p);   // holds 100 already
         BOOST_TEST(r.first == b.p);
         BOOST_TEST(r.second == 1);
         BOOST_TEST(rec >= 100u);
         BOOST_TEST(rec == ba_usable_size(b.p) / 8);
         r = command(h, cmd, 8, 50, 1000, rec, b.p);                 // preferred out of reach, limit held
         BOOST_TEST(r.first == b.p);
         BOOST_TEST(r.second == 1);
         BOOST_TEST(rec >= 100u);
         BOOST_TEST(rec < 1000u);
      }
   }
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(expand_bwd_reaches_limit_when_preferred_does_not_fit, fresh_heap)
{
   void *below = ba_heap_malloc(h, 1000);
   void *p = ba_heap_malloc(h, 96);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(below && p && guard);
   BOOST_REQUIRE(follows(below, p) && follows(p, guard));
   fill(p, 96, 16);
   ba_heap_free(h, below);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_BWD, 16, 50, 100000, rec, p);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(bytes(r.first) < bytes(p));
   BOOST_TEST(rec >= 50u);
   BOOST_TEST(rec < 100000u);
   BOOST_TEST(holds_pattern(p, 96, 16));
   ba_heap_free(h, r.first);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(expand_bwd_honours_an_object_alignment_above_16, fresh_heap)
{
   void *below = ba_heap_malloc(h, 8192);
   std::size_t rec;
   // 24-byte objects aligned to 32: the start may move only by multiples of lcm(24, 32) = 96.
   ba_command_ret pr = command(h, BA_ALLOCATE_NEW, 24, 8, 8, rec, nullptr, 32);
   // Larger than the remainder the alignment may leave before p (under 32 + 32 bytes), so the
   // guard lands after p, never between `below` and p.
   void *guard = ba_heap_malloc(h, 100);
   BOOST_REQUIRE(below && pr.first && guard);
   void *p = pr.first;
   BOOST_REQUIRE(is_aligned(p, 32));
   fill(p, 8 * 24, 17);
   ba_heap_free(h, below);
   ba_command_ret r = command(h, BA_EXPAND_BWD, 24, 100, 100, rec, p, 32);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 1);
   std::size_t moved = static_cast<std::size_t>(bytes(p) - bytes(r.first));
   BOOST_TEST(moved > 0u);
   BOOST_TEST(moved % 96 == 0u);
   BOOST_TEST(is_aligned(r.first, 32));
   BOOST_TEST(rec >= 100u);
   BOOST_TEST(holds_pattern(p, 8 * 24, 17));
   ba_heap_free(h, r.first);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(expand_bwd_without_a_free_block_below_fails, fresh_heap)
{
   void *first = ba_heap_malloc(h, 160);   // nothing below the first block of a fresh heap
   void *p = ba_heap_malloc(h, 160);       // an in-use block below this one
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(first && p && guard);
   for (void *x : {first, p}) {
      std::size_t u = ba_usable_size(x);
      std::size_t rec;
      ba_command_ret r = command(h, BA_EXPAND_BWD, 8, 100, 100, rec, x);
      BOOST_TEST(r.first == nullptr);
      BOOST_TEST(r.second == 0);
      BOOST_TEST(rec == u / 8);
      BOOST_TEST(ba_usable_size(x) == u);
   }
   ba_heap_free(h, first);
   ba_heap_free(h, p);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_or_bwd_uses_the_space_below_when_the_space_after_is_taken, fresh_heap)
{
   void *below = ba_heap_malloc(h, 4096);
   void *p = ba_heap_malloc(h, 128);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(below && p && guard);
   BOOST_REQUIRE(follows(below, p) && follows(p, guard));
   fill(p, 128, 18);
   ba_heap_free(h, below);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_EXPAND_BWD, 16, 200, 200, rec, p);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(bytes(r.first) < bytes(p));
   BOOST_TEST(rec >= 200u);
   BOOST_TEST(holds_pattern(p, 128, 18));
   ba_heap_free(h, r.first);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(zero_memory_zeroes_a_new_block, fresh_heap)
{
   void *dirty = ba_heap_malloc(h, 3000);
   BOOST_REQUIRE(dirty);
   std::memset(dirty, 0xAB, ba_usable_size(dirty));
   ba_heap_free(h, dirty);
   std::size_t rec;
   ba_command_ret r = command(h, BA_ALLOCATE_NEW | BA_ZERO_MEMORY, 4, 500, 700, rec, nullptr);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(all_zero(r.first, rec * 4));
   ba_heap_free(h, r.first);
}

BOOST_FIXTURE_TEST_CASE(zero_memory_zeroes_the_bytes_gained_forward, fresh_heap)
{
   three_blocks b(h, 160, 4000);
   std::memset(b.q, 0xAB, ba_usable_size(b.q));
   fill(b.p, 160, 19);
   std::size_t u = ba_usable_size(b.p);
   ba_heap_free(h, b.q);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_ZERO_MEMORY, 8, 400, 400, rec, b.p);
   BOOST_REQUIRE(r.first == b.p);
   BOOST_TEST(holds_pattern(b.p, 160, 19));
   BOOST_TEST(all_zero(bytes(b.p) + u, rec * 8 - u));
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(zero_memory_zeroes_the_bytes_gained_backward, fresh_heap)
{
   void *below = ba_heap_malloc(h, 4096);
   void *p = ba_heap_malloc(h, 160);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(below && p && guard);
   BOOST_REQUIRE(follows(below, p) && follows(p, guard));
   std::memset(below, 0xAB, ba_usable_size(below));
   fill(p, 160, 20);
   std::size_t u = ba_usable_size(p);
   ba_heap_free(h, below);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_BWD | BA_ZERO_MEMORY, 16, 200, 200, rec, p);
   BOOST_REQUIRE(r.first);
   BOOST_REQUIRE(bytes(r.first) < bytes(p));
   BOOST_TEST(all_zero(r.first, static_cast<std::size_t>(bytes(p) - bytes(r.first))));
   BOOST_TEST(holds_pattern(p, 160, 20));
   unsigned char *end_old = bytes(p) + u, *end_new = bytes(r.first) + rec * 16;
   if (end_new > end_old) BOOST_TEST(all_zero(end_old, static_cast<std::size_t>(end_new - end_old)));
   ba_heap_free(h, r.first);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(shrink_in_place_shrinks_to_the_fewest_objects_not_below_the_minimum, fresh_heap)
{
   three_blocks b(h, 8000, 64);
   fill(b.p, 8000, 21);
   ba_heap_stats before = stats_of(h);
   std::size_t rec;
   // Shrinking: limit is the maximum (500 objects), preferred the minimum (100 objects).
   ba_command_ret r = command(h, BA_SHRINK_IN_PLACE, 8, 500, 100, rec, b.p);
   BOOST_TEST(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 100u);
   BOOST_TEST(rec <= 500u);
   BOOST_TEST(rec == ba_usable_size(b.p) / 8);
   BOOST_TEST(ba_usable_size(b.p) <= 100 * 8 + 4 * sizeof(void *), "shrunk to the fewest objects");
   BOOST_TEST(holds_pattern(b.p, 800, 21));
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_bytes + 7000 <= before.in_use_bytes, "the tail went back to the heap");
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(shrink_in_place_fails_when_the_block_cannot_get_under_the_maximum, fresh_heap)
{
   three_blocks b(h, 64, 64);
   std::size_t u = ba_usable_size(b.p);
   fill(b.p, u, 22);
   std::size_t rec;
   // At most u - 1 bytes would need a remainder far smaller than any chunk.
   ba_command_ret r = command(h, BA_SHRINK_IN_PLACE, 1, u - 1, u - 1, rec, b.p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(r.second == 0);
   BOOST_TEST(rec == u);
   BOOST_TEST(ba_usable_size(b.p) == u);
   BOOST_TEST(holds_pattern(b.p, u, 22));
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(try_shrink_in_place_reports_without_shrinking, fresh_heap)
{
   three_blocks b(h, 8000, 64);
   fill(b.p, 8000, 23);
   std::size_t u = ba_usable_size(b.p);
   ba_heap_stats before = stats_of(h);
   std::size_t rec;
   ba_command_ret r = command(h, BA_TRY_SHRINK_IN_PLACE, 8, 500, 100, rec, b.p);
   BOOST_TEST(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 100u);
   BOOST_TEST(rec <= 500u);
   BOOST_TEST(ba_usable_size(b.p) == u);
   BOOST_TEST(stats_of(h).in_use_bytes == before.in_use_bytes);
   BOOST_TEST(holds_pattern(b.p, 8000, 23));
   // And a shrink that cannot succeed is reported as such.
   ba_command_ret f = command(h, BA_TRY_SHRINK_IN_PLACE, 1, u - 1, u - 1, rec, b.p);
   BOOST_TEST(f.first == nullptr);
   BOOST_TEST(rec == u);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.q);
   ba_heap_free(h, b.guard);
}

BOOST_FIXTURE_TEST_CASE(shrink_in_place_of_a_huge_block_returns_memory, fresh_heap)
{
   void *p = ba_heap_malloc(h, 64 * MiB);
   BOOST_REQUIRE(p);
   fill(p, 4096, 24);
   ba_heap_stats before = stats_of(h);
   BOOST_TEST(before.huge_bytes >= 64 * MiB);
   std::size_t rec;
   ba_command_ret r = command(h, BA_SHRINK_IN_PLACE, 1, 16 * MiB, 8 * MiB, rec, p);
   BOOST_TEST(r.first == p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 8 * MiB);
   BOOST_TEST(rec <= 16 * MiB);
   BOOST_TEST(holds_pattern(p, 4096, 24));
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.huge_bytes <= 16 * MiB + 64 * KiB);
   BOOST_TEST(after.system_bytes + 40 * MiB <= before.system_bytes);
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(huge_block_expands_forward_in_place, fresh_heap)
{
   void *p = ba_heap_malloc(h, 64 * MiB);
   BOOST_REQUIRE(p);
   BOOST_TEST(stats_of(h).huge_blocks == 1u);
   fill(p, 4096, 25);
   bytes(p)[64 * MiB - 1] = 0x99;
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 1, 128 * MiB, 128 * MiB, rec, p);
   BOOST_TEST(r.second == 1);
   BOOST_REQUIRE(r.first == p);
   BOOST_REQUIRE(rec >= 128 * MiB);
   BOOST_REQUIRE(ba_usable_size(p) >= 128 * MiB);
   BOOST_TEST(holds_pattern(p, 4096, 25));
   BOOST_TEST(bytes(p)[64 * MiB - 1] == 0x99);
   bytes(p)[128 * MiB - 1] = 0x98;
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.huge_blocks == 1u);
   BOOST_TEST(s.huge_bytes >= 128 * MiB);
   ba_heap_free(h, p);
   BOOST_TEST(stats_of(h).huge_blocks == 0u);
}

BOOST_FIXTURE_TEST_CASE(huge_block_expands_forward_in_place_for_any_object_size, fresh_heap)
{
   std::size_t rec;
   ba_command_ret a = command(h, BA_ALLOCATE_NEW, 24, 100000, 100000, rec, nullptr);   // 2.4 MB
   BOOST_REQUIRE(a.first);
   BOOST_TEST(stats_of(h).huge_blocks == 1u);
   fill(a.first, rec * 24, 26);
   std::size_t old = rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 24, 400000, 400000, rec, a.first);
   BOOST_TEST(r.second == 1);
   BOOST_REQUIRE(r.first == a.first);
   BOOST_REQUIRE(rec >= 400000u);
   BOOST_TEST(holds_pattern(a.first, old * 24, 26));
   std::memset(bytes(a.first) + old * 24, 0, (rec - old) * 24);
   ba_heap_free(h, a.first);
}

BOOST_FIXTURE_TEST_CASE(huge_reserve_lets_a_huge_block_grow_in_place_by_the_reserve, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_HUGE_RESERVE, 256 * MiB) == 1);
   void *p = ba_heap_malloc(h, 4 * MiB);
   BOOST_REQUIRE(p);
   fill(p, 4096, 27);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 1, 200 * MiB, 200 * MiB, rec, p);
   BOOST_TEST(r.first == p);
   BOOST_TEST(rec >= 200 * MiB);
   BOOST_TEST(holds_pattern(p, 4096, 27));
   ba_heap_free(h, p);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(bursts)

BOOST_AUTO_TEST_CASE(chain_helpers_link_nodes_through_their_first_word)
{
   void *nodes[4][2];
   ba_chain c;
   ba_chain_init(&c);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   ba_chain_push_back(&c, nodes[1]);
   ba_chain_push_back(&c, nodes[2]);
   ba_chain_push_front(&c, nodes[0]);
   BOOST_TEST(c.size == 3u);
   BOOST_TEST(c.first == static_cast<void *>(nodes[0]));
   BOOST_TEST(c.last == static_cast<void *>(nodes[2]));
   BOOST_TEST(ba_chain_next(nodes[0]) == static_cast<void *>(nodes[1]));
   BOOST_TEST(ba_chain_next(nodes[2]) == nullptr);
   ba_chain d;
   ba_chain_init(&d);
   ba_chain_push_back(&d, nodes[3]);
   ba_chain_splice_back(&c, &d);
   BOOST_TEST(ba_chain_empty(&d) == 1);
   BOOST_TEST(d.size == 0u);
   BOOST_TEST(c.size == 4u);
   BOOST_TEST(c.last == static_cast<void *>(nodes[3]));
   ba_chain_splice_back(&c, &d);   // splicing an empty chain changes nothing
   BOOST_TEST(c.size == 4u);
   BOOST_TEST(ba_chain_pop_front(&c) == static_cast<void *>(nodes[0]));
   BOOST_TEST(ba_chain_pop_front(&c) == static_cast<void *>(nodes[1]));
   BOOST_TEST(ba_chain_pop_front(&c) == static_cast<void *>(nodes[2]));
   BOOST_TEST(ba_chain_pop_front(&c) == static_cast<void *>(nodes[3]));
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(c.last == nullptr);
   BOOST_TEST(c.size == 0u);
}

BOOST_FIXTURE_TEST_CASE(multialloc_of_zero_nodes_succeeds_and_leaves_the_chain_as_it_was, fresh_heap)
{
   ba_chain c;
   ba_chain_init(&c);
   std::size_t chunks = stats_of(h).in_use_chunks;
   BOOST_TEST(ba_heap_multialloc_nodes(h, 0, 32, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(c.size == 0u);
   BOOST_TEST(ba_heap_multialloc_arrays(h, 0, nullptr, 8, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(stats_of(h).in_use_chunks == chunks);
}

BOOST_FIXTURE_TEST_CASE(multialloc_of_one_node_gives_one_block, fresh_heap)
{
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 1, 40, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(c.size == 1u);
   BOOST_TEST(c.first == c.last);
   BOOST_REQUIRE(c.first);
   BOOST_TEST(ba_chain_next(c.first) == nullptr);
   BOOST_TEST(ba_usable_size(c.first) >= 40u);
   BOOST_TEST(is_aligned(c.first, 16));
   ba_heap_free(h, ba_chain_pop_front(&c));
}

// Runs of one, two and three nodes (the carve's shortest loops): one run each, every node a sound
// in-use block, freed one by one.
BOOST_FIXTURE_TEST_CASE(multialloc_runs_of_one_two_and_three_nodes_are_sound, fresh_heap)
{
   const ba_heap_stats before = stats_of(h);
   for (std::size_t n : {1u, 2u, 3u}) {
      BOOST_TEST_CONTEXT(n << " nodes") {
         ba_chain c;
         ba_chain_init(&c);
         BOOST_REQUIRE(ba_heap_multialloc_nodes(h, n, 40, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 1);
         std::vector<void *> nodes = chain_nodes(c);
         BOOST_TEST(c.size == n);
         BOOST_TEST(nodes.size() == n);
         BOOST_TEST(run_lengths(nodes) == std::vector<std::size_t>{n}, boost::test_tools::per_element());
         BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks + n);
         ALLOCPLUS_CHECK_HEAP(h);
         for (void *x : nodes) {
            fill(x, 40, 7u);
            ba_heap_free(h, x);
            ALLOCPLUS_CHECK_HEAP(h);
         }
         BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks);
      }
   }
}

// The last node of a run takes what its chunk has beyond the run (too little for a chunk of its
// own): carved from a free chunk 16 bytes larger than the run, the run's last block is 16 bytes
// larger than the others.
BOOST_FIXTURE_TEST_CASE(multialloc_the_last_node_of_a_run_takes_the_unsplittable_rest, fresh_heap)
{
   for (std::size_t count : {2u, 3u}) {
      BOOST_TEST_CONTEXT(count << " nodes") {
         const std::size_t elem = 1000;
         void *guard0 = ba_heap_malloc(h, 16);
         // A node's chunk (two blocks carved one after the other from the top: how far apart),
         // and a chunk's overhead.
         void *probe0 = ba_heap_malloc(h, elem);
         void *probe1 = ba_heap_malloc(h, elem);
         BOOST_REQUIRE(guard0 && probe0 && probe1 && follows(probe0, probe1));
         const std::size_t nb = static_cast<std::size_t>(static_cast<char *>(probe1) - static_cast<char *>(probe0));
         // (elem + a chunk's overhead is a multiple of 16: usable and asked-for bytes are equal,
         // with or without AddressSanitizer.)
         const std::size_t overhead = nb - ba_usable_size(probe0);
         ba_heap_free(h, probe1);
         ba_heap_free(h, probe0);
         const std::size_t total = count * nb;
         void *hole = ba_heap_malloc(h, total + 16 - overhead);   // a chunk of total + 16 bytes
         void *guard1 = ba_heap_malloc(h, 16);
         BOOST_REQUIRE(hole && guard1);
         ba_heap_free(h, hole);
         ba_chain c;
         ba_chain_init(&c);
         BOOST_REQUIRE(ba_heap_multialloc_nodes(h, count, elem, count, &c) == 1);
         std::vector<void *> nodes = chain_nodes(c);
         BOOST_REQUIRE_MESSAGE(nodes.front() == hole, "the run is carved from the hole");
         BOOST_TEST(run_lengths(nodes) == std::vector<std::size_t>{count}, boost::test_tools::per_element());
         // (Measured between block addresses: under AddressSanitizer, ba_usable_size gives the
         // bytes asked for.)
         for (std::size_t i = 0; i + 1 < count; ++i)
            BOOST_TEST(static_cast<char *>(nodes[i + 1]) - static_cast<char *>(nodes[i]) == static_cast<std::ptrdiff_t>(nb));
         BOOST_TEST(static_cast<char *>(guard1) - static_cast<char *>(nodes.back()) == static_cast<std::ptrdiff_t>(nb + 16),
                    "the last chunk reaches the guard after the hole");
         ALLOCPLUS_CHECK_HEAP(h);
         ba_heap_multidealloc(h, &c);
         ba_heap_free(h, guard0);
         ba_heap_free(h, guard1);
         ALLOCPLUS_CHECK_HEAP(h);
      }
   }
}

BOOST_FIXTURE_TEST_CASE(multialloc_appends_to_a_non_empty_chain, fresh_heap)
{
   ba_chain c;
   ba_chain_init(&c);
   void *mine = ba_heap_malloc(h, 64);
   BOOST_REQUIRE(mine);
   ba_chain_push_back(&c, mine);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 10, 24, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(c.size == 11u);
   BOOST_TEST(c.first == mine);
   std::size_t lengths[] = {1, 2, 3};
   BOOST_REQUIRE(ba_heap_multialloc_arrays(h, 3, lengths, 8, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(c.size == 14u);
   BOOST_TEST(chain_nodes(c).size() == 14u);
   BOOST_TEST(ba_chain_next(c.last) == nullptr);
   ba_heap_multidealloc(h, &c);
   BOOST_TEST(ba_chain_empty(&c) == 1);
}

BOOST_FIXTURE_TEST_CASE(multialloc_nodes_are_aligned_disjoint_and_separately_freeable, fresh_heap)
{
   ba_heap_stats before = stats_of(h);
   for (std::size_t elem : {1u, 8u, 16u, 24u, 100u, 1000u}) {
      BOOST_TEST_CONTEXT("elem_size " << elem) {
         ba_chain c;
         ba_chain_init(&c);
         BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 1000, elem, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
         std::vector<void *> nodes = chain_nodes(c);
         BOOST_REQUIRE(nodes.size() == 1000u);
         BOOST_TEST(c.size == 1000u);
         BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks + 1000);
         for (std::size_t i = 0; i < nodes.size(); ++i) {
            BOOST_TEST(is_aligned(nodes[i], 16));
            BOOST_TEST(ba_usable_size(nodes[i]) >= std::max<std::size_t>(elem, sizeof(void *)));
         }
         for (std::size_t i = 0; i < nodes.size(); ++i)
            fill(nodes[i], std::max<std::size_t>(elem, sizeof(void *)), static_cast<std::uint32_t>(i));
         for (std::size_t i = 0; i < nodes.size(); ++i)
            BOOST_TEST(holds_pattern(nodes[i], std::max<std::size_t>(elem, sizeof(void *)), static_cast<std::uint32_t>(i)));
         // Free in an order unlike the allocation's.
         for (std::size_t i = 0; i < nodes.size(); i += 2) ba_heap_free(h, nodes[i]);
         ALLOCPLUS_CHECK_HEAP(h);
         for (std::size_t i = 1; i < nodes.size(); i += 2) ba_heap_free(h, nodes[i]);
         ALLOCPLUS_CHECK_HEAP(h);
         BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks);
         BOOST_TEST(stats_of(h).in_use_bytes == before.in_use_bytes);
      }
   }
}

// How a burst is cut into runs (default: up to 4096 bytes, or contiguous_elements nodes) is not
// observable: runs carved one after the other from the top chunk are adjacent too. What is
// observable is that "all contiguous" keeps every node in one run, even when free holes would fit
// some of them, and that every way of cutting gives valid, separately freeable nodes.
BOOST_FIXTURE_TEST_CASE(multialloc_nodes_all_contiguous_puts_every_node_in_one_run, fresh_heap)
{
   // Holes of about 1 KiB all over the heap first.
   std::vector<void *> holes, guards;
   for (int i = 0; i < 200; ++i) {
      holes.push_back(ba_heap_malloc(h, 1000));
      guards.push_back(ba_heap_malloc(h, 16));
   }
   for (void *x : holes) ba_heap_free(h, x);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 2000, 40, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 1);
   std::vector<std::size_t> runs = run_lengths(chain_nodes(c));
   BOOST_TEST(runs.size() == 1u);
   BOOST_TEST(runs.front() == 2000u);
   ba_heap_multidealloc(h, &c);
   for (void *x : guards) ba_heap_free(h, x);
}

BOOST_FIXTURE_TEST_CASE(multialloc_nodes_cut_into_any_runs_are_valid_and_freeable, fresh_heap)
{
   std::vector<void *> holes, guards;   // a fragmented heap, so runs may land in holes
   for (int i = 0; i < 100; ++i) {
      holes.push_back(ba_heap_malloc(h, 100 + 50 * (i % 7)));
      guards.push_back(ba_heap_malloc(h, 16));
   }
   for (void *x : holes) ba_heap_free(h, x);
   ba_heap_stats before = stats_of(h);
   for (std::size_t contiguous : {BA_MULTIALLOC_DEFAULT_CONTIGUOUS, std::size_t(1), std::size_t(7), std::size_t(1000),
                                  BA_MULTIALLOC_ALL_CONTIGUOUS}) {
      BOOST_TEST_CONTEXT("contiguous " << contiguous) {
         ba_chain c;
         ba_chain_init(&c);
         BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 500, 24, contiguous, &c) == 1);
         std::vector<void *> nodes = chain_nodes(c);
         BOOST_REQUIRE(nodes.size() == 500u);
         std::vector<void *> sorted = nodes;
         std::sort(sorted.begin(), sorted.end());
         for (std::size_t i = 1; i < sorted.size(); ++i)
            BOOST_TEST(distance(sorted[i - 1], sorted[i]) >= static_cast<std::ptrdiff_t>(ba_usable_size(sorted[i - 1])),
                       "nodes overlap");
         for (std::size_t i = 0; i < nodes.size(); ++i) {
            BOOST_TEST(is_aligned(nodes[i], 16));
            fill(nodes[i], 24, static_cast<std::uint32_t>(i));
         }
         for (std::size_t i = 0; i < nodes.size(); ++i) BOOST_TEST(holds_pattern(nodes[i], 24, static_cast<std::uint32_t>(i)));
         for (std::size_t i = 0; i < nodes.size(); i += 3) ba_heap_free(h, nodes[i]);
         ALLOCPLUS_CHECK_HEAP(h);
         for (std::size_t i = 0; i < nodes.size(); ++i)
            if (i % 3) ba_heap_free(h, nodes[i]);
         BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks);
      }
   }
   for (void *x : guards) ba_heap_free(h, x);
}

BOOST_FIXTURE_TEST_CASE(multialloc_arrays_of_mixed_lengths_give_arrays_of_those_lengths, fresh_heap)
{
   std::vector<std::size_t> lengths;
   for (std::size_t i = 0; i < 300; ++i) lengths.push_back((i * 7919) % 97);   // includes 0
   for (std::size_t contiguous : {BA_MULTIALLOC_DEFAULT_CONTIGUOUS, BA_MULTIALLOC_ALL_CONTIGUOUS, std::size_t(5)}) {
      BOOST_TEST_CONTEXT("contiguous " << contiguous) {
         ba_chain c;
         ba_chain_init(&c);
         BOOST_REQUIRE(ba_heap_multialloc_arrays(h, lengths.size(), lengths.data(), 12, contiguous, &c) == 1);
         std::vector<void *> nodes = chain_nodes(c);
         BOOST_REQUIRE(nodes.size() == lengths.size());
         for (std::size_t i = 0; i < nodes.size(); ++i) {
            BOOST_TEST(is_aligned(nodes[i], 16));
            BOOST_TEST(ba_usable_size(nodes[i]) >= lengths[i] * 12);
         }
         for (std::size_t i = 0; i < nodes.size(); ++i)
            fill(nodes[i], std::max<std::size_t>(lengths[i] * 12, sizeof(void *)), static_cast<std::uint32_t>(i));
         for (std::size_t i = 0; i < nodes.size(); ++i)
            BOOST_TEST(holds_pattern(nodes[i], std::max<std::size_t>(lengths[i] * 12, sizeof(void *)),
                                     static_cast<std::uint32_t>(i)));
         if (contiguous == BA_MULTIALLOC_ALL_CONTIGUOUS) BOOST_TEST(run_lengths(nodes).size() == 1u);
         for (std::size_t i = 0; i < nodes.size(); ++i) ba_heap_free(h, nodes[i]);   // each on its own
         ALLOCPLUS_CHECK_HEAP(h);
      }
   }
}

BOOST_FIXTURE_TEST_CASE(multialloc_failure_leaves_chain_and_heap_as_they_were, fresh_heap)
{
   void *warm = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(warm);
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes + 512 * KiB);
   ba_chain c;
   ba_chain_init(&c);
   ba_chain_push_back(&c, warm);
   ba_heap_stats before = stats_of(h);
   // 100000 nodes of 64 bytes need far more than the limit allows.
   BOOST_TEST(ba_heap_multialloc_nodes(h, 100000, 64, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(c.size == 1u);
   BOOST_TEST(c.first == warm);
   BOOST_TEST(c.last == warm);
   BOOST_TEST(ba_chain_next(warm) == nullptr);
   BOOST_TEST(ba_heap_multialloc_nodes(h, 100000, 64, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 0);
   BOOST_TEST(c.size == 1u);
   std::vector<std::size_t> lengths(20000, 4);
   BOOST_TEST(ba_heap_multialloc_arrays(h, lengths.size(), lengths.data(), 16, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 0);
   BOOST_TEST(c.size == 1u);
   BOOST_TEST(c.last == warm);
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(after.in_use_bytes == before.in_use_bytes);
   ALLOCPLUS_CHECK_HEAP(h);
   // What fits still works.
   BOOST_TEST(ba_heap_multialloc_nodes(h, 100, 64, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(c.size == 101u);
   ba_heap_multidealloc(h, &c);
}

BOOST_FIXTURE_TEST_CASE(multidealloc_frees_blocks_of_every_origin_and_empties_the_chain, fresh_heap)
{
   ba_heap_stats before = stats_of(h);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 50, 24, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   std::size_t lengths[] = {3, 0, 100, 7};
   BOOST_REQUIRE(ba_heap_multialloc_arrays(h, 4, lengths, 8, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 1);
   ba_chain_push_back(&c, ba_heap_malloc(h, 77));
   ba_chain_push_back(&c, ba_heap_calloc(h, 10, 10));
   ba_chain_push_back(&c, ba_heap_memalign(h, 256, 300));
   ba_chain_push_back(&c, ba_heap_realloc(h, nullptr, 5000));
   ba_chain_push_back(&c, ba_heap_malloc(h, 2 * MiB));   // a huge block
   std::size_t rec;
   ba_chain_push_front(&c, command(h, BA_ALLOCATE_NEW, 8, 4, 9, rec, nullptr).first);
   BOOST_TEST(stats_of(h).in_use_chunks == before.in_use_chunks + 60);
   ba_heap_multidealloc(h, &c);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(c.size == 0u);
   BOOST_TEST(c.last == nullptr);
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(after.in_use_bytes == before.in_use_bytes);
   BOOST_TEST(after.huge_blocks == 0u);
}

BOOST_FIXTURE_TEST_CASE(multidealloc_of_an_empty_chain_does_nothing, fresh_heap)
{
   ba_chain c;
   ba_chain_init(&c);
   ba_heap_multidealloc(h, &c);
   ba_multidealloc(&c);
   BOOST_TEST(ba_chain_empty(&c) == 1);
}

BOOST_FIXTURE_TEST_CASE(multidealloc_of_a_burst_gives_its_memory_back_in_one_piece, fresh_heap)
{
   void *guard_below = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(guard_below);
   ba_heap_stats before = stats_of(h);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 500, 48, BA_MULTIALLOC_ALL_CONTIGUOUS, &c) == 1);
   void *first = c.first;
   void *guard_above = ba_heap_malloc(h, 16);   // keeps the burst from merging into top
   BOOST_REQUIRE(guard_above);
   ba_heap_multidealloc(h, &c);
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks + 1);
   BOOST_TEST(after.free_chunks <= before.free_chunks + 1, "the burst merged into one free chunk");
   // The whole burst's space is one chunk again: a block of its size fits where it was.
   void *big = ba_heap_malloc(h, 500 * 48);
   BOOST_TEST(big == first);
   ba_heap_free(h, big);
   ba_heap_free(h, guard_above);
   ba_heap_free(h, guard_below);
}

BOOST_AUTO_TEST_CASE(default_heap_burst_functions_work)
{
   ba_heap_stats before;
   ba_stats(&before);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_multialloc_nodes(100, 32, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   std::size_t lengths[] = {1, 2, 3, 4};
   BOOST_REQUIRE(ba_multialloc_arrays(4, lengths, 100, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(c.size == 104u);
   void *one = ba_chain_pop_front(&c);
   ba_free(one);
   ba_multidealloc(&c);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   ba_heap_stats after;
   ba_stats(&after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(heaps)

BOOST_AUTO_TEST_CASE(created_heap_is_independent_of_the_default_heap)
{
   scoped_heap h;
   ba_heap_stats d0;
   ba_stats(&d0);
   ba_heap_stats h0 = h.stats();
   std::vector<void *> v;
   for (int i = 0; i < 100; ++i) v.push_back(ba_heap_malloc(h, 100));
   ba_heap_stats d1;
   ba_stats(&d1);
   BOOST_TEST(d1.in_use_chunks == d0.in_use_chunks);
   BOOST_TEST(h.stats().in_use_chunks == h0.in_use_chunks + 100);
   BOOST_TEST(h.get() != ba_default_heap());
   for (void *p : v) ba_heap_free(h, p);
   ALLOCPLUS_CHECK_HEAP(h.get());
}

BOOST_AUTO_TEST_CASE(heap_without_a_lock_works)
{
   scoped_heap h(0, 0);
   void *p = ba_heap_malloc(h, 1000);
   BOOST_REQUIRE(p);
   void *q = ba_heap_realloc(h, p, 3000);
   BOOST_REQUIRE(q);
   ALLOCPLUS_CHECK_HEAP(h.get());
   ba_heap_free(h, q);
}

BOOST_AUTO_TEST_CASE(destroy_heap_returns_the_bytes_released)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1 * MiB) == 1);
   for (int i = 0; i < 100; ++i) BOOST_REQUIRE(ba_heap_malloc(h, 10000));   // never freed
   BOOST_REQUIRE(ba_heap_malloc(h, 4 * MiB));                               // a huge block
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.system_bytes >= 5 * MiB);
   std::size_t released = ba_destroy_heap(h);
   BOOST_TEST(released >= s.system_bytes);
}

BOOST_AUTO_TEST_CASE(heap_with_a_capacity_reserves_segments_of_at_least_that_size)
{
   scoped_heap h(64 * MiB, 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, size_max) == 1);
   std::vector<void *> v;
   for (int i = 0; i < 48; ++i) v.push_back(ba_heap_malloc(h, 1 * MiB));
   for (void *p : v) BOOST_REQUIRE(p);
   BOOST_TEST(h.stats().segments == 1u, "48 MiB fit in the first segment of 64 MiB");
   for (void *p : v) ba_heap_free(h, p);
}

BOOST_AUTO_TEST_CASE(heap_over_a_buffer_under_4_KiB_is_refused)
{
   alignas(16) static unsigned char buf[4096];
   BOOST_TEST(ba_create_heap_over(buf, 0, 1) == nullptr);
   BOOST_TEST(ba_create_heap_over(buf, 100, 1) == nullptr);
   BOOST_TEST(ba_create_heap_over(buf, 4095, 0) == nullptr);
}

BOOST_AUTO_TEST_CASE(heap_over_a_buffer_of_4_KiB_is_created_and_allocates)
{
   alignas(16) static unsigned char buf[4096];
   ba_heap *h = ba_create_heap_over(buf, sizeof buf, 1);
   BOOST_REQUIRE(h);
   ALLOCPLUS_CHECK_HEAP(h);
   void *p = ba_heap_malloc(h, 16);
   BOOST_TEST(p != nullptr);
   if (p) {
      BOOST_TEST(bytes(p) >= buf);
      BOOST_TEST(bytes(p) + 16 <= buf + sizeof buf);
      ba_heap_free(h, p);
   }
   ALLOCPLUS_CHECK_HEAP(h);
   BOOST_TEST(ba_destroy_heap(h) == 0u);
}

BOOST_AUTO_TEST_CASE(heap_over_a_buffer_fills_up_then_fails_and_frees_restore_it)
{
   std::vector<unsigned char> buf(256 * KiB);
   for (int locked : {1, 0}) {
      ba_heap *h = ba_create_heap_over(buf.data(), buf.size(), locked);
      BOOST_REQUIRE(h);
      std::vector<void *> v;
      for (int i = 0; i < 100000; ++i) {
         void *p = ba_heap_malloc(h, 1000);
         if (!p) break;
         BOOST_TEST(is_aligned(p, 16));
         BOOST_TEST(bytes(p) >= buf.data());
         BOOST_TEST(bytes(p) + 1000 <= buf.data() + buf.size());
         fill(p, 1000, static_cast<std::uint32_t>(i));
         v.push_back(p);
      }
      BOOST_REQUIRE(v.size() < 100000u);
      BOOST_TEST(v.size() >= 200u, v.size() << " blocks of 1000 bytes in 256 KiB");
      BOOST_TEST(ba_heap_malloc(h, 1000) == nullptr);
      ALLOCPLUS_CHECK_HEAP(h);
      BOOST_TEST(stats_of(h).system_bytes <= buf.size());
      for (std::size_t i = 0; i < v.size(); ++i) BOOST_TEST(holds_pattern(v[i], 1000, static_cast<std::uint32_t>(i)));
      for (void *p : v) ba_heap_free(h, p);
      ALLOCPLUS_CHECK_HEAP(h);
      std::size_t again = 0;
      std::vector<void *> w;
      while (void *p = ba_heap_malloc(h, 1000)) { w.push_back(p); ++again; }
      BOOST_TEST(again >= v.size(), "after freeing everything the heap holds as much again");
      for (void *p : w) ba_heap_free(h, p);
      BOOST_TEST(ba_destroy_heap(h) == 0u);
   }
}

BOOST_AUTO_TEST_CASE(heap_over_an_unaligned_buffer_gives_aligned_blocks)
{
   std::vector<unsigned char> storage(64 * KiB + 16);
   unsigned char *base = storage.data() + 3;
   ba_heap *h = ba_create_heap_over(base, 64 * KiB, 1);
   BOOST_REQUIRE(h);
   std::vector<void *> v;
   for (std::size_t n = 1; n < 2000; n += 111) {
      void *p = ba_heap_malloc(h, n);
      BOOST_REQUIRE(p);
      BOOST_TEST(is_aligned(p, 16));
      BOOST_TEST(bytes(p) >= base);
      BOOST_TEST(bytes(p) + n <= base + 64 * KiB);
      v.push_back(p);
   }
   ALLOCPLUS_CHECK_HEAP(h);
   for (void *p : v) ba_heap_free(h, p);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_CASE(heap_over_a_buffer_never_asks_the_system_for_memory)
{
   std::vector<unsigned char> buf(256 * KiB);
   ba_heap *h = ba_create_heap_over(buf.data(), buf.size(), 1);
   BOOST_REQUIRE(h);
   ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 4 * KiB);
   BOOST_TEST(ba_heap_malloc(h, 1 * MiB) == nullptr);
   void *p = ba_heap_malloc(h, 64 * KiB);   // above the threshold, but must come from the buffer
   BOOST_REQUIRE(p);
   BOOST_TEST(bytes(p) >= buf.data());
   BOOST_TEST(bytes(p) + 64 * KiB <= buf.data() + buf.size());
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 1 * MiB, 1 * MiB, rec, p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(stats_of(h).huge_blocks == 0u);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, p);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(options_and_trim)

BOOST_FIXTURE_TEST_CASE(set_option_accepts_known_options_and_refuses_others, fresh_heap)
{
   BOOST_TEST(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, 1 * MiB) == 1);
   BOOST_TEST(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1 * MiB) == 1);
   BOOST_TEST(ba_heap_set_option(h, BA_OPTION_RELEASE_RATE, 100) == 1);
   BOOST_TEST(ba_heap_set_option(h, BA_OPTION_HUGE_RESERVE, 64 * MiB) == 1);
   BOOST_TEST(ba_heap_set_option(h, BA_OPTION_DECAY_MS, 10) == 1);
   BOOST_TEST(ba_heap_set_option(h, 0, 1) == 0);
   BOOST_TEST(ba_heap_set_option(h, 5, 1) == 0);
   BOOST_TEST(ba_heap_set_option(h, -1, 1) == 0);
}

BOOST_FIXTURE_TEST_CASE(mmap_threshold_maps_requests_at_or_above_it_directly, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 512 * KiB) == 1);
   ba_heap_stats s0 = stats_of(h);
   void *small = ba_heap_malloc(h, 512 * KiB - 4096);
   BOOST_REQUIRE(small);
   BOOST_TEST(stats_of(h).huge_blocks == s0.huge_blocks);
   void *at = ba_heap_malloc(h, 512 * KiB);
   void *big = ba_heap_malloc(h, 3 * MiB);
   BOOST_REQUIRE(at && big);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.huge_blocks == s0.huge_blocks + 2);
   BOOST_TEST(s1.huge_bytes >= s0.huge_bytes + 3 * MiB + 512 * KiB);
   ba_heap_free(h, big);
   ba_heap_free(h, at);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.huge_blocks == s0.huge_blocks);
   BOOST_TEST(s2.huge_bytes == s0.huge_bytes);
   BOOST_TEST(s2.system_bytes + 3 * MiB <= s1.system_bytes, "freeing a huge block unmaps it");
   ba_heap_free(h, small);
}

BOOST_FIXTURE_TEST_CASE(mmap_threshold_of_size_max_maps_nothing_directly, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, size_max) == 1);
   void *p = ba_heap_malloc(h, 8 * MiB);
   BOOST_REQUIRE(p);
   BOOST_TEST(stats_of(h).huge_blocks == 0u);
   ba_heap_free(h, p);
}

namespace {
// Allocates `total` bytes in 64 KiB blocks and frees them all, newest first.
void churn_and_free_all(ba_heap *h, std::size_t total)
{
   std::vector<void *> v;
   for (std::size_t i = 0; i < total / (64 * KiB); ++i) {
      void *p = ba_heap_malloc(h, 64 * KiB);
      BOOST_REQUIRE(p);
      bytes(p)[0] = 1;
      v.push_back(p);
   }
   while (!v.empty()) { ba_heap_free(h, v.back()); v.pop_back(); }
}
} // namespace

BOOST_FIXTURE_TEST_CASE(heap_trim_releases_the_free_top_and_reports_the_bytes, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, size_max) == 1);
   churn_and_free_all(h, 16 * MiB);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.system_bytes >= 16 * MiB);
   std::size_t released = ba_heap_trim(h, 0);
   BOOST_TEST(released > 8 * MiB);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.system_bytes == s1.system_bytes - released);
   BOOST_TEST(ba_heap_trim(h, 0) == 0u, "nothing left to release");
   BOOST_TEST(s2.peak_system_bytes >= s1.system_bytes);
   ALLOCPLUS_CHECK_HEAP(h);
   void *p = ba_heap_malloc(h, 5 * 64 * KiB);   // and the heap grows again
   BOOST_REQUIRE(p);
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(heap_trim_keeps_pad_bytes_in_the_top_chunk, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, size_max) == 1);
   churn_and_free_all(h, 16 * MiB);
   std::size_t released = ba_heap_trim(h, 4 * MiB);
   BOOST_TEST(released > 4 * MiB);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.top_bytes >= 4 * MiB);
   BOOST_TEST(s.top_bytes < 8 * MiB);
}

BOOST_AUTO_TEST_CASE(trim_of_the_default_heap_releases_freed_memory)
{
   ba_heap *d = ba_default_heap();
   BOOST_REQUIRE(ba_heap_set_option(d, BA_OPTION_TRIM_THRESHOLD, size_max) == 1);
   std::vector<void *> v;
   for (int i = 0; i < 1024; ++i) v.push_back(ba_malloc(16 * KiB));   // under any mmap threshold
   for (void *p : v) BOOST_REQUIRE(p);
   while (!v.empty()) { ba_free(v.back()); v.pop_back(); }
   ba_heap_stats s1;
   ba_stats(&s1);
   std::size_t released = ba_trim(0);
   BOOST_TEST(released > 0u);
   ba_heap_stats s2;
   ba_stats(&s2);
   BOOST_TEST(s2.system_bytes < s1.system_bytes);
   BOOST_TEST(s2.system_bytes == s1.system_bytes - released);
   BOOST_TEST(ba_check(nullptr) == 1);
   ba_heap_set_option(d, BA_OPTION_TRIM_THRESHOLD, 2 * MiB);
}

BOOST_FIXTURE_TEST_CASE(a_decay_of_zero_returns_a_large_free_top_at_once, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, 256 * KiB) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_DECAY_MS, 0) == 1);
   churn_and_free_all(h, 16 * MiB);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.peak_system_bytes >= 16 * MiB);
   BOOST_TEST(s.system_bytes + 8 * MiB <= s.peak_system_bytes, "system_bytes " << s.system_bytes);
}

namespace {
// The clock of the decay tests: milliseconds the test moves by hand.
std::uint64_t test_now_ms = 0;
std::uint64_t test_clock() { return test_now_ms; }

// A heap on the test's clock, with the default decay delay (1 s).
struct heap_on_a_test_clock : fresh_heap {
   heap_on_a_test_clock()
   {
      test_now_ms = 1000;
      BOOST_REQUIRE(ba_heap_set_clock(h, test_clock) == nullptr);
   }
};

// Builds and frees `total` bytes `rounds` times, the clock moving `ms_per_round` each round;
// returns, per round, whether the heap gave the memory back by itself (its footprint after the
// free fell below half of what it held).
std::vector<bool> trims_per_round(ba_heap *h, std::size_t total, int rounds, std::uint64_t ms_per_round)
{
   std::vector<bool> trimmed;
   for (int i = 0; i < rounds; ++i) {
      churn_and_free_all(h, total);
      test_now_ms += ms_per_round;
      trimmed.push_back(stats_of(h).system_bytes < total / 2);
   }
   return trimmed;
}

// Slow calls of the heap (64 KiB blocks cut from the top and freed back into it), which advance
// a decay epoch and read the clock every 64 of them.
void slow_calls(ba_heap *h, int n)
{
   for (int i = 0; i < n; ++i) ba_heap_free(h, ba_heap_malloc(h, 64 * KiB));
}
} // namespace

BOOST_FIXTURE_TEST_CASE(a_free_top_stays_until_it_has_been_unused_for_the_delay, heap_on_a_test_clock)
{
   churn_and_free_all(h, 16 * MiB);
   const std::size_t held = stats_of(h).system_bytes;
   BOOST_REQUIRE(held >= 16 * MiB);
   test_now_ms += 900;
   slow_calls(h, 200);
   BOOST_TEST(ba_heap_collect(h) == 0u, "before the delay nothing goes back");
   BOOST_TEST(stats_of(h).system_bytes == held);
   test_now_ms += 100;
   slow_calls(h, 100);   // the heap's own calls give it back once the delay is over
   const ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.system_bytes + 12 * MiB <= held, "system_bytes " << s.system_bytes << " of " << held);
   BOOST_TEST(ba_heap_collect(h) == 0u, "nothing more to give");
}

BOOST_FIXTURE_TEST_CASE(collect_gives_back_a_top_left_unused_for_the_delay, heap_on_a_test_clock)
{
   churn_and_free_all(h, 16 * MiB);
   const std::size_t held = stats_of(h).system_bytes;
   test_now_ms += 999;
   BOOST_TEST(ba_heap_collect(h) == 0u);
   test_now_ms += 1;
   const std::size_t released = ba_heap_collect(h);
   BOOST_TEST(released >= 12 * MiB);
   BOOST_TEST(stats_of(h).system_bytes == held - released);
   ALLOCPLUS_CHECK_HEAP(h);
   void *p = ba_heap_malloc(h, 5 * 64 * KiB);   // and the heap grows again
   BOOST_REQUIRE(p);
   ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(a_clock_that_goes_back_makes_memory_wait_its_whole_delay_again, heap_on_a_test_clock)
{
   test_now_ms = 100000;
   churn_and_free_all(h, 16 * MiB);
   const std::size_t held = stats_of(h).system_bytes;
   test_now_ms = 50000;   // back
   BOOST_TEST(ba_heap_collect(h) == 0u, "a clock gone back ends no epoch");
   test_now_ms += 999;
   BOOST_TEST(ba_heap_collect(h) == 0u, "the delay counts from where the clock went back to");
   BOOST_TEST(stats_of(h).system_bytes == held);
   test_now_ms += 1;
   BOOST_TEST(ba_heap_collect(h) >= 12 * MiB);
}

BOOST_FIXTURE_TEST_CASE(memory_rebuilt_within_the_delay_is_never_given_back, heap_on_a_test_clock)
{
   // A large container destroyed and built again every 0.3 s, for 3 s: its pages stay.
   const std::vector<bool> t = trims_per_round(h, 6 * MiB, 10, 300);
   BOOST_TEST(std::count(t.begin(), t.end(), true) == 0);
   // Then left alone: given back after the delay.
   test_now_ms += 1000;
   ba_heap_collect(h);
   BOOST_TEST(stats_of(h).system_bytes < 3 * MiB);
   ALLOCPLUS_CHECK_HEAP(h);
}

BOOST_FIXTURE_TEST_CASE(the_part_of_the_top_used_during_the_delay_is_kept, heap_on_a_test_clock)
{
   churn_and_free_all(h, 16 * MiB);
   const std::size_t held = stats_of(h).system_bytes;
   // The program keeps using 1.5 MiB of it during the delay: that and the pad stay.
   test_now_ms += 500;
   churn_and_free_all(h, 1536 * KiB);
   test_now_ms += 600;
   const std::size_t released = ba_heap_collect(h);
   BOOST_TEST(released >= 12 * MiB);
   BOOST_TEST(stats_of(h).system_bytes >= 1536 * KiB, "system_bytes " << stats_of(h).system_bytes << " of " << held);
}

BOOST_FIXTURE_TEST_CASE(a_large_free_during_the_delay_waits_its_own_delay, heap_on_a_test_clock)
{
   churn_and_free_all(h, 16 * MiB);
   test_now_ms += 600;
   churn_and_free_all(h, 8 * MiB);   // used again and freed: its delay begins now
   test_now_ms += 600;
   BOOST_TEST(ba_heap_collect(h) == 0u);
   test_now_ms += 400;
   BOOST_TEST(ba_heap_collect(h) >= 12 * MiB);
}

BOOST_FIXTURE_TEST_CASE(a_trim_threshold_the_user_set_stays_where_it_was_set, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, 2 * MiB) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_DECAY_MS, 0) == 1);
   const std::vector<bool> t = trims_per_round(h, 6 * MiB, 6, 0);
   BOOST_TEST(std::count(t.begin(), t.end(), true) == 6);
}

BOOST_AUTO_TEST_CASE(the_collector_thread_gives_back_an_idle_programs_top)
{
   ba_heap *d = ba_default_heap();
   BOOST_REQUIRE(ba_heap_set_option(d, BA_OPTION_DECAY_MS, 40) == 1);
   BOOST_REQUIRE(ba_collector_start() == 0);
   BOOST_TEST(ba_collector_start() == 0, "a second start does nothing");
   std::vector<void *> v;
   for (int i = 0; i < 128; ++i) v.push_back(ba_malloc(64 * KiB));   // beyond the caches' sizes
   for (void *p : v) BOOST_REQUIRE(p);
   ba_heap_stats s;
   ba_heap_stats_get(d, &s);
   const std::size_t held = s.system_bytes;
   while (!v.empty()) { ba_free(v.back()); v.pop_back(); }
   // The program makes no call: the collector gives it back (within 2 delays; 10 s at most here).
   bool given_back = false;
   for (int i = 0; i < 500 && !given_back; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ba_heap_stats_get(d, &s);
      given_back = s.system_bytes + 4 * MiB <= held;
   }
   BOOST_TEST(given_back, "system_bytes " << s.system_bytes << " of " << held);
   ba_collector_stop();
   ba_collector_stop();
   BOOST_REQUIRE(ba_heap_set_option(d, BA_OPTION_DECAY_MS, 1000) == 1);
}

BOOST_AUTO_TEST_CASE(collect_gives_back_the_default_heaps_unused_top)
{
   ba_heap *d = ba_default_heap();
   test_now_ms = 1000;
   const ba_clock_fn previous = ba_heap_set_clock(d, test_clock);
   std::vector<void *> v;
   for (int i = 0; i < 128; ++i) v.push_back(ba_malloc(64 * KiB));   // beyond the caches' sizes
   for (void *p : v) BOOST_REQUIRE(p);
   while (!v.empty()) { ba_free(v.back()); v.pop_back(); }
   BOOST_TEST(ba_collect() == 0u);
   test_now_ms += 1000;
   BOOST_TEST(ba_collect() >= 4 * MiB);
   ba_heap_set_clock(d, previous);
}

// A free that merges into the top takes a short path (ba_detail_free_short); it must count toward
// the periodic release of unused segments as the general path does, and leave the free that
// brings the count to 0 to the general path, which releases: here the fourth large free after
// the release rate was set to 4 finds the second segment unused and releases it (the first holds
// the heap's record and is never released).
BOOST_AUTO_TEST_CASE(frees_into_the_top_count_toward_the_release_of_unused_segments)
{
   scoped_heap h(256 * KiB, 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 4 * MiB) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, size_max) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_RELEASE_RATE, 0) == 1);
   std::vector<void *> kept, second;   // 16 KiB blocks: of the first and third segments; of the second
   while (h.stats().segments < 3) {
      void *p = ba_heap_malloc(h, 16 * KiB);
      BOOST_REQUIRE(p);
      (h.stats().segments == 2 ? second : kept).push_back(p);
   }
   // (The block that opened the third segment is among the kept ones; a segment's leftover top
   // was too small for 16 KiB, so no later block comes from an earlier segment.)
   BOOST_REQUIRE(!second.empty());
   // Too large for any segment so far: a fourth one, whose top the frees below go back to.
   void *big = ba_heap_malloc(h, 512 * KiB);
   BOOST_REQUIRE(big);
   BOOST_REQUIRE(h.stats().segments == 4u);
   ba_heap_free(h, big);
   for (void *p : second) ba_heap_free(h, p);   // the second segment is unused now
   BOOST_REQUIRE(h.stats().segments == 4u);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_RELEASE_RATE, 4) == 1);
   for (int i = 1; i <= 4; ++i) {
      void *p = ba_heap_malloc(h, 512 * KiB);   // no free chunk is as large: the top
      BOOST_REQUIRE(p == big);
      ba_heap_free(h, p);                        // back into the top
      BOOST_TEST(h.stats().segments == (i < 4 ? 4u : 3u), "after large free " << i << " of a release rate of 4");
   }
   for (void *p : kept) ba_heap_free(h, p);
   ALLOCPLUS_CHECK_HEAP(h);
}

BOOST_FIXTURE_TEST_CASE(trim_threshold_of_size_max_and_release_rate_0_keep_memory, fresh_heap)
{
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, size_max) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_RELEASE_RATE, 0) == 1);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_DECAY_MS, 0) == 1);
   churn_and_free_all(h, 16 * MiB);
   ba_heap_stats s1 = stats_of(h);
   slow_calls(h, 1000);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.system_bytes == s1.system_bytes);
   BOOST_TEST(s2.system_bytes >= 16 * MiB);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(footprint_limit)

// The free top the decay keeps for a while never makes an allocation fail that an immediate trim
// would have let through: it goes back before the heap reports that memory is out.
BOOST_AUTO_TEST_CASE(the_free_top_kept_for_the_delay_goes_back_before_memory_runs_out)
{
   scoped_heap heap(64 * MiB, 1);
   ba_heap *h = heap.get();
   BOOST_REQUIRE(ba_heap_set_footprint_limit(h, 100 * MiB) == size_max);
   std::vector<void *> v;
   for (int i = 0; i < 60 * 16; ++i) {   // 60 MiB
      v.push_back(ba_heap_malloc(h, 64 * KiB - 64));
      BOOST_REQUIRE(v.back());
   }
   for (int i = 0; i < 50 * 16; ++i) { ba_heap_free(h, v.back()); v.pop_back(); }   // 50 MiB into the top
   BOOST_REQUIRE(stats_of(h).system_bytes >= 55 * MiB);   // kept: the delay has not passed
   void *big = ba_heap_malloc(h, 55 * MiB);
   BOOST_TEST(big != nullptr);
   ba_heap_free(h, big);
   for (void *p : v) ba_heap_free(h, p);
   ALLOCPLUS_CHECK_HEAP(h);
}

// The same for a huge block that grows in place: the free top goes back before the growth is
// refused.
BOOST_AUTO_TEST_CASE(the_free_top_kept_for_the_delay_goes_back_before_a_huge_block_cannot_grow)
{
   scoped_heap heap(64 * MiB, 1);
   ba_heap *h = heap.get();
   BOOST_REQUIRE(ba_heap_set_footprint_limit(h, 100 * MiB) == size_max);
   constexpr std::size_t huge = 33 * MiB;   // past the 32 MiB of a directly mapped block
   void *big = ba_heap_malloc(h, huge);
   BOOST_REQUIRE(big);
   std::vector<void *> v;
   for (int i = 0; i < 60 * 16; ++i) {   // 60 MiB
      v.push_back(ba_heap_malloc(h, 64 * KiB - 64));
      BOOST_REQUIRE(v.back());
   }
   for (int i = 0; i < 50 * 16; ++i) { ba_heap_free(h, v.back()); v.pop_back(); }   // 50 MiB into the top
   BOOST_REQUIRE(stats_of(h).system_bytes >= huge + 55 * MiB);   // kept: the delay has not passed
   // 20 MiB more for the huge block: over the limit unless the kept top goes back first.
   std::size_t received = 0;
   const ba_command_ret r = ba_heap_allocation_command(h, BA_EXPAND_FWD, 1, 0, huge + 20 * MiB, huge + 20 * MiB,
                                                       &received, big);
   BOOST_TEST(r.first == big);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(received >= huge + 20 * MiB);
   BOOST_TEST(stats_of(h).system_bytes <= 100 * MiB);
   ba_heap_free(h, big);
   for (void *p : v) ba_heap_free(h, p);
   ALLOCPLUS_CHECK_HEAP(h);
}

BOOST_AUTO_TEST_CASE(a_footprint_limit_below_the_kept_top_gives_the_top_back)
{
   scoped_heap heap(64 * MiB, 1);
   ba_heap *h = heap.get();
   std::vector<void *> v;
   for (int i = 0; i < 16 * 16; ++i) v.push_back(ba_heap_malloc(h, 64 * KiB - 64));
   for (void *p : v) BOOST_REQUIRE(p);
   while (!v.empty()) { ba_heap_free(h, v.back()); v.pop_back(); }
   BOOST_REQUIRE(stats_of(h).system_bytes >= 16 * MiB);
   ba_heap_set_footprint_limit(h, 4 * MiB);
   BOOST_TEST(stats_of(h).system_bytes <= 4 * MiB);
   BOOST_TEST(ba_heap_malloc(h, 1 * MiB) != nullptr);
}

BOOST_FIXTURE_TEST_CASE(footprint_limit_returns_the_previous_limit_and_shows_in_stats, fresh_heap)
{
   BOOST_TEST(stats_of(h).footprint_limit == size_max);
   BOOST_TEST(ba_heap_set_footprint_limit(h, 64 * MiB) == size_max);
   BOOST_TEST(stats_of(h).footprint_limit == 64 * MiB);
   BOOST_TEST(ba_heap_set_footprint_limit(h, size_max) == 64 * MiB);
   BOOST_TEST(stats_of(h).footprint_limit == size_max);
}

BOOST_FIXTURE_TEST_CASE(footprint_limit_reached_gives_null_and_a_sound_heap, fresh_heap)
{
   void *warm = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(warm);
   std::size_t limit = stats_of(h).system_bytes + 1 * MiB;
   ba_heap_set_footprint_limit(h, limit);
   std::vector<void *> v;
   for (int i = 0; i < 10000; ++i) {
      void *p = ba_heap_malloc(h, 64 * KiB);
      if (!p) break;
      v.push_back(p);
      BOOST_REQUIRE(stats_of(h).system_bytes <= limit);
   }
   BOOST_REQUIRE(v.size() < 10000u);
   BOOST_TEST(v.size() >= 1u);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.system_bytes <= limit);
   BOOST_TEST(s.peak_system_bytes <= limit);
   ALLOCPLUS_CHECK_HEAP(h);
   BOOST_TEST(ba_heap_calloc(h, 1, 64 * KiB) == nullptr);
   BOOST_TEST(ba_heap_memalign(h, 4096, 64 * KiB) == nullptr);
   BOOST_TEST(ba_heap_malloc(h, 2 * MiB) == nullptr, "huge blocks count too");
   std::size_t rec;
   BOOST_TEST(command(h, BA_ALLOCATE_NEW, 1, 64 * KiB, 64 * KiB, rec, nullptr).first == nullptr);
   ALLOCPLUS_CHECK_HEAP(h);
   // A freed block is reused without the system.
   ba_heap_free(h, v.back());
   v.pop_back();
   void *again = ba_heap_malloc(h, 64 * KiB);
   BOOST_TEST(again != nullptr);
   if (again) v.push_back(again);
   for (void *p : v) ba_heap_free(h, p);
   ba_heap_free(h, warm);
}

BOOST_FIXTURE_TEST_CASE(raising_the_footprint_limit_lets_allocation_succeed_again, fresh_heap)
{
   void *warm = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(warm);
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes + 512 * KiB);
   std::vector<void *> v;
   while (void *p = ba_heap_malloc(h, 64 * KiB)) {
      v.push_back(p);
      BOOST_REQUIRE(v.size() < 10000u);
   }
   std::size_t at_limit = v.size();
   ba_heap_set_footprint_limit(h, size_max);
   for (int i = 0; i < 100; ++i) {
      void *p = ba_heap_malloc(h, 64 * KiB);
      BOOST_REQUIRE(p);
      v.push_back(p);
   }
   BOOST_TEST(v.size() == at_limit + 100);
   void *huge = ba_heap_malloc(h, 4 * MiB);
   BOOST_TEST(huge != nullptr);
   ba_heap_free(h, huge);
   ALLOCPLUS_CHECK_HEAP(h);
   for (void *p : v) ba_heap_free(h, p);
   ba_heap_free(h, warm);
}

BOOST_FIXTURE_TEST_CASE(footprint_limit_applies_to_huge_blocks, fresh_heap)
{
   ba_heap_set_footprint_limit(h, stats_of(h).system_bytes + 4 * MiB);
   BOOST_TEST(ba_heap_malloc(h, 8 * MiB) == nullptr);
   void *p = ba_heap_malloc(h, 2 * MiB);
   BOOST_REQUIRE(p);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 1, 16 * MiB, 16 * MiB, rec, p);
   BOOST_TEST(r.first == nullptr);
   BOOST_TEST(rec == ba_usable_size(p));
   BOOST_TEST(stats_of(h).system_bytes <= stats_of(h).footprint_limit);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, p);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
BOOST_AUTO_TEST_SUITE(statistics)

BOOST_FIXTURE_TEST_CASE(in_use_figures_follow_malloc_and_free_exactly, fresh_heap)
{
   ba_heap_stats s0 = stats_of(h);
   void *p = ba_heap_malloc(h, 100);
   BOOST_REQUIRE(p);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.in_use_chunks == s0.in_use_chunks + 1);
   BOOST_TEST(s1.in_use_bytes >= s0.in_use_bytes + ba_usable_size(p), "headers included");
   BOOST_TEST(s1.in_use_bytes <= s0.in_use_bytes + ba_usable_size(p) + 4 * sizeof(void *));
   void *q = ba_heap_malloc(h, 5000);
   BOOST_REQUIRE(q);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.in_use_chunks == s0.in_use_chunks + 2);
   BOOST_TEST(s2.in_use_bytes - s1.in_use_bytes >= ba_usable_size(q));
   ba_heap_free(h, p);
   ba_heap_stats s3 = stats_of(h);
   BOOST_TEST(s3.in_use_chunks == s0.in_use_chunks + 1);
   BOOST_TEST(s3.in_use_bytes == s2.in_use_bytes - (s1.in_use_bytes - s0.in_use_bytes));
   ba_heap_free(h, q);
   ba_heap_stats s4 = stats_of(h);
   BOOST_TEST(s4.in_use_chunks == s0.in_use_chunks);
   BOOST_TEST(s4.in_use_bytes == s0.in_use_bytes);
}

BOOST_FIXTURE_TEST_CASE(peaks_only_grow_and_bound_the_current_figures, fresh_heap)
{
   std::size_t peak_in_use = 0, peak_system = 0;
   std::vector<void *> v;
   for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 200; ++i) v.push_back(ba_heap_malloc(h, 1000 + 37 * i));
      for (std::size_t i = 0; i < v.size(); i += 2) { ba_heap_free(h, v[i]); v[i] = nullptr; }
      ba_heap_stats s = stats_of(h);
      BOOST_TEST(s.peak_in_use_bytes >= s.in_use_bytes);
      BOOST_TEST(s.peak_system_bytes >= s.system_bytes);
      BOOST_TEST(s.peak_in_use_bytes >= peak_in_use);
      BOOST_TEST(s.peak_system_bytes >= peak_system);
      peak_in_use = s.peak_in_use_bytes;
      peak_system = s.peak_system_bytes;
      v.erase(std::remove(v.begin(), v.end(), nullptr), v.end());
   }
   for (void *p : v) ba_heap_free(h, p);
   ba_heap_trim(h, 0);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.peak_in_use_bytes == peak_in_use);
   BOOST_TEST(s.peak_system_bytes == peak_system);
}

BOOST_FIXTURE_TEST_CASE(in_use_and_free_bytes_fit_in_system_bytes, fresh_heap)
{
   std::vector<void *> v;
   for (int i = 0; i < 500; ++i) v.push_back(ba_heap_malloc(h, 16 + (i * 131) % 3000));
   for (std::size_t i = 0; i < v.size(); i += 3) ba_heap_free(h, v[i]);
   ba_heap_stats s = stats_of(h);
   BOOST_TEST(s.in_use_bytes + s.free_bytes <= s.system_bytes);
   BOOST_TEST(s.top_bytes <= s.free_bytes);
   BOOST_TEST(s.free_chunks >= 2u, "free chunks in bins, top included");
   BOOST_TEST(s.segments >= 1u);
   BOOST_TEST(s.system_bytes <= s.footprint_limit);
   for (std::size_t i = 0; i < v.size(); ++i)
      if (i % 3) ba_heap_free(h, v[i]);
}

BOOST_FIXTURE_TEST_CASE(stats_count_huge_blocks, fresh_heap)
{
   ba_heap_stats s0 = stats_of(h);
   void *a = ba_heap_malloc(h, 2 * MiB);
   void *b = ba_heap_malloc(h, 3 * MiB);
   BOOST_REQUIRE(a && b);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.huge_blocks == s0.huge_blocks + 2);
   BOOST_TEST(s1.huge_bytes >= s0.huge_bytes + 5 * MiB);
   BOOST_TEST(s1.system_bytes >= s0.system_bytes + 5 * MiB);
   BOOST_TEST(s1.in_use_chunks == s0.in_use_chunks + 2);
   ba_heap_free(h, a);
   ba_heap_free(h, b);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.huge_blocks == s0.huge_blocks);
   BOOST_TEST(s2.huge_bytes == s0.huge_bytes);
   BOOST_TEST(s2.in_use_chunks == s0.in_use_chunks);
   BOOST_TEST(s2.in_use_bytes == s0.in_use_bytes);
}

BOOST_FIXTURE_TEST_CASE(bursts_and_commands_count_in_the_in_use_figures, fresh_heap)
{
   ba_heap_stats s0 = stats_of(h);
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 64, 48, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &c) == 1);
   BOOST_TEST(stats_of(h).in_use_chunks == s0.in_use_chunks + 64);
   BOOST_TEST(stats_of(h).in_use_bytes >= s0.in_use_bytes + 64 * 48);
   std::size_t rec;
   void *p = command(h, BA_ALLOCATE_NEW, 8, 10, 10, rec, nullptr).first;
   BOOST_REQUIRE(p);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.in_use_chunks == s0.in_use_chunks + 65);
   ba_command_ret r = command(h, BA_EXPAND_FWD, 8, 1000, 1000, rec, p);   // p is last: grows into top
   BOOST_REQUIRE(r.first == p);
   ba_heap_stats s2 = stats_of(h);
   BOOST_TEST(s2.in_use_chunks == s1.in_use_chunks);
   BOOST_TEST(s2.in_use_bytes >= s1.in_use_bytes + 990 * 8);
   ba_heap_free(h, p);
   ba_heap_multidealloc(h, &c);
   ba_heap_stats s3 = stats_of(h);
   BOOST_TEST(s3.in_use_chunks == s0.in_use_chunks);
   BOOST_TEST(s3.in_use_bytes == s0.in_use_bytes);
}

BOOST_AUTO_TEST_CASE(stats_of_the_default_heap_are_those_of_ba_default_heap)
{
   ba_heap_stats a, b;
   ba_stats(&a);
   ba_heap_stats_get(ba_default_heap(), &b);
   BOOST_TEST(a.in_use_chunks == b.in_use_chunks);
   BOOST_TEST(a.in_use_bytes == b.in_use_bytes);
   BOOST_TEST(a.system_bytes == b.system_bytes);
   BOOST_TEST(a.footprint_limit == b.footprint_limit);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
// =============================================================================================
// Quick lists: a freed small block is held for the next allocation of its size instead of
// coalescing at once; held blocks must still serve expansion, never make the heap grow or an
// allocation fail, count as free in the statistics, and be checked by ba_heap_check.
BOOST_AUTO_TEST_SUITE(quick_lists)

BOOST_FIXTURE_TEST_CASE(a_freed_small_block_is_the_next_block_of_its_size, fresh_heap)
{
   void *a = ba_heap_malloc(h, 100);
   void *b = ba_heap_malloc(h, 100);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(a && b && guard);
   ba_heap_free(h, a);
   ba_heap_free(h, b);
   ALLOCPLUS_REQUIRE_HEAP(h);
   void *c = ba_heap_malloc(h, 100);   // last in, first out
   void *d = ba_heap_malloc(h, 100);
   BOOST_TEST(c == b);
   BOOST_TEST(d == a);
   for (void *p : {c, d, guard}) ba_heap_free(h, p);
}

BOOST_FIXTURE_TEST_CASE(held_blocks_count_as_free_in_the_statistics, fresh_heap)
{
   std::vector<void *> v;
   for (int i = 0; i < 6; ++i) v.push_back(ba_heap_malloc(h, 200));
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(guard);
   ba_heap_stats before = stats_of(h);
   std::size_t freed = 0;
   for (void *p : v) {
      freed += ba_usable_size(p);
      ba_heap_free(h, p);
   }
   ba_heap_stats after = stats_of(h);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks - 6);
   BOOST_TEST(after.free_bytes >= before.free_bytes + freed);
   BOOST_TEST(after.system_bytes == before.system_bytes);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, guard);
}

BOOST_FIXTURE_TEST_CASE(expand_fwd_grows_into_a_held_block_after_it, fresh_heap)
{
   three_blocks b(h, 96, 96);
   fill(b.p, 96, 21);
   ba_heap_free(h, b.q);   // held in its quick list, not coalesced
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_FWD, 8, 20, 20, rec, b.p);
   BOOST_REQUIRE(r.first == b.p);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(rec >= 20u);
   BOOST_TEST(holds_pattern(b.p, 96, 21));
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, b.p);
   ba_heap_free(h, b.guard);
}

#if !defined(ALLOCPLUS_TEST_TSAN)
BOOST_FIXTURE_TEST_CASE(expand_bwd_grows_into_a_held_block_before_it, fresh_heap)
{
   void *below = ba_heap_malloc(h, 200);
   void *p = ba_heap_malloc(h, 96);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(below && p && guard);
   BOOST_REQUIRE(follows(below, p) && follows(p, guard));
   fill(p, 96, 22);
   ba_heap_free(h, below);   // held in its quick list
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_BWD, 16, 15, 15, rec, p);
   BOOST_REQUIRE(r.first);
   BOOST_TEST(r.second == 1);
   BOOST_TEST(bytes(r.first) < bytes(p));
   BOOST_TEST(rec >= 15u);
   BOOST_TEST(holds_pattern(p, 96, 22));
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, r.first);
   ba_heap_free(h, guard);
}
#endif

// Backward expansion takes a held block straight from its quick list: all of it, part of it (the
// rest goes back as a free chunk), or, when a free chunk lies before it, both together.
BOOST_AUTO_TEST_CASE(expand_bwd_takes_all_part_or_more_than_a_held_block)
{
   enum class take { all, part, with_the_free_chunk_before };
   for (take how : {take::all, take::part, take::with_the_free_chunk_before}) {
      fresh_heap heap_of_this_case;
      ba_heap *h = heap_of_this_case.h;
      void *lower = ba_heap_malloc(h, 2000);   // too large for a quick list: freed into a bin
      void *held = ba_heap_malloc(h, 200);
      void *p = ba_heap_malloc(h, 96);
      void *guard = ba_heap_malloc(h, 16);
      BOOST_REQUIRE(lower && held && p && guard);
      BOOST_REQUIRE(follows(lower, held) && follows(held, p) && follows(p, guard));
      fill(p, 96, 23);
      const std::size_t held_chunk = static_cast<std::size_t>(distance(held, p));
      const std::size_t lower_chunk = static_cast<std::size_t>(distance(lower, held));
      if (how == take::with_the_free_chunk_before) ba_heap_free(h, lower);
      ba_heap_free(h, held);   // held in its quick list
      const std::size_t gain = how == take::all ? held_chunk : how == take::part ? 32 : held_chunk + 1024;
      const std::size_t objects = (ba_usable_size(p) + gain) / 16;
      std::size_t rec;
      ba_command_ret r = command(h, BA_EXPAND_BWD, 16, objects, objects, rec, p);
      BOOST_TEST_CONTEXT("case " << static_cast<int>(how))
      {
         BOOST_REQUIRE(r.first);
         BOOST_TEST(r.second == 1);
         BOOST_TEST(rec >= objects);
         if (how == take::all) BOOST_TEST(r.first == held);
         if (how == take::part) BOOST_TEST(distance(r.first, p) == 32);
         if (how == take::with_the_free_chunk_before) {
            BOOST_TEST(bytes(r.first) < bytes(held));
            BOOST_TEST(bytes(r.first) >= bytes(lower));
         }
         BOOST_TEST(holds_pattern(p, 96, 23));
         ALLOCPLUS_CHECK_HEAP(h);
         // What was not taken is free and usable again.
         if (how == take::part) {
            void *rest = ba_heap_malloc(h, held_chunk - 32 - 16);
            BOOST_TEST(rest == held, "the rest of the held block is allocated again at its place");
            ba_heap_free(h, rest);
         }
         if (how == take::with_the_free_chunk_before) {
            void *rest = ba_heap_malloc(h, lower_chunk - 1024 - 48);
            BOOST_TEST(rest == lower, "the rest of the free chunk before is allocated again at its place");
            ba_heap_free(h, rest);
         }
      }
      if (how != take::with_the_free_chunk_before) ba_heap_free(h, lower);
      ba_heap_free(h, r.first);
      ba_heap_free(h, guard);
      ALLOCPLUS_CHECK_HEAP(h);
   }
}

BOOST_FIXTURE_TEST_CASE(expand_bwd_is_not_fooled_by_data_that_looks_like_a_size, fresh_heap)
{
   // The word before p's header is the last word of the block before it: here in use, holding
   // a value that would name a chunk of the quick lists if it were believed.
   void *decoy = ba_heap_malloc(h, 48);
   void *below = ba_heap_malloc(h, 40);
   void *p = ba_heap_malloc(h, 96);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(decoy && below && p && guard);
   BOOST_REQUIRE(follows(decoy, below) && follows(below, p));
   ba_heap_free(h, decoy);   // held: a quick chunk right before `below`
   std::size_t distance_to_decoy = static_cast<std::size_t>(bytes(p) - bytes(decoy));
   std::size_t last_word = ba_usable_size(below) - sizeof(std::size_t);
   std::memcpy(bytes(below) + last_word, &distance_to_decoy, sizeof distance_to_decoy);
   std::size_t rec;
   ba_command_ret r = command(h, BA_EXPAND_BWD, 16, 15, 15, rec, p);
   BOOST_TEST(r.first == nullptr);   // `below` is in use: nothing may be taken
   BOOST_TEST(r.second == 0);
   ALLOCPLUS_CHECK_HEAP(h);
   for (void *q : {below, p, guard}) ba_heap_free(h, q);
}

BOOST_AUTO_TEST_CASE(held_blocks_never_make_an_allocation_fail)
{
   // A heap over 256 KiB filled with small blocks of many sizes, all freed (most of them held),
   // then one block of most of the heap: the held blocks must coalesce for it.
   std::vector<unsigned char> buf(256 * KiB);
   ba_heap *h = ba_create_heap_over(buf.data(), buf.size(), 1);
   BOOST_REQUIRE(h);
   std::vector<void *> v;
   for (std::size_t i = 0;; ++i) {
      void *p = ba_heap_malloc(h, 16 + (i * 40) % 900);
      if (!p) break;
      v.push_back(p);
   }
   BOOST_REQUIRE(v.size() > 100u);
   for (void *p : v) ba_heap_free(h, p);
   ALLOCPLUS_REQUIRE_HEAP(h);
   void *big = ba_heap_malloc(h, 200 * KiB);
   BOOST_TEST(big != nullptr);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, big);
   ba_destroy_heap(h);
}

BOOST_FIXTURE_TEST_CASE(trim_gives_back_what_the_quick_lists_hold, fresh_heap)
{
   ba_heap_stats s0 = stats_of(h);
   std::vector<void *> v;
   for (int i = 0; i < 20000; ++i) v.push_back(ba_heap_malloc(h, 16 + (i % 60) * 16));
   for (void *p : v) ba_heap_free(h, p);
   ba_heap_trim(h, 0);
   ba_heap_stats s1 = stats_of(h);
   BOOST_TEST(s1.system_bytes <= s0.system_bytes + 64 * KiB,
              "footprint after trim " << s1.system_bytes << ", before the blocks " << s0.system_bytes);
   BOOST_TEST(s1.free_chunks == 1u, "everything coalesced into the top");
}

BOOST_AUTO_TEST_CASE(check_reports_an_overwritten_quick_link)
{
   std::vector<unsigned char> buf(64 * KiB);
   ba_heap *h = ba_create_heap_over(buf.data(), buf.size(), 1);
   BOOST_REQUIRE(h);
   void *q = ba_heap_malloc(h, 100);
   void *p = ba_heap_malloc(h, 100);
   void *guard = ba_heap_malloc(h, 16);
   BOOST_REQUIRE(q && p && guard);
   ba_heap_free(h, q);
   ba_heap_free(h, p);   // held first in its quick list: its first word links to q
   ALLOCPLUS_REQUIRE_HEAP(h);
#if defined(ALLOCPLUS_TEST_ASAN)
   ASAN_UNPOISON_MEMORY_REGION(p, sizeof(void *));
#endif
   void *saved;
   std::memcpy(&saved, p, sizeof saved);
   const std::uintptr_t garbage = 12345;   // a use after free writes an int
   std::memcpy(p, &garbage, sizeof garbage);
   ba_check_report r = {nullptr, nullptr};
   BOOST_TEST(ba_heap_check(h, &r) == 0);
   BOOST_TEST(r.what != nullptr);
   if (r.what) BOOST_TEST(std::string(r.what).find("quick") != std::string::npos, r.what);
   std::memcpy(p, &saved, sizeof saved);
#if defined(ALLOCPLUS_TEST_ASAN)
   ASAN_POISON_MEMORY_REGION(p, sizeof(void *));
#endif
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, guard);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(heap_check)

BOOST_AUTO_TEST_CASE(check_of_a_sound_heap_returns_1_and_no_report)
{
   ba_check_report r = {"untouched", &r};
   BOOST_TEST(ba_check(&r) == 1);
   BOOST_TEST(r.what == nullptr);
   BOOST_TEST(ba_check(nullptr) == 1);
   scoped_heap h;
   std::vector<void *> v;
   for (int i = 0; i < 300; ++i) v.push_back(ba_heap_malloc(h, 10 + i * 41));
   for (std::size_t i = 0; i < v.size(); i += 2) ba_heap_free(h, v[i]);
   r.what = "untouched";
   BOOST_TEST(ba_heap_check(h, &r) == 1);
   BOOST_TEST(r.what == nullptr);
   for (std::size_t i = 1; i < v.size(); i += 2) ba_heap_free(h, v[i]);
}

BOOST_AUTO_TEST_CASE(check_reports_a_corrupted_chunk_header)
{
   // On a heap over our own buffer, overwrite the header in front of a block (the 16 bytes
   // before it: where a boundary-tagged heap keeps the chunk's size), then put it back.
   std::vector<unsigned char> buf(64 * KiB);
   ba_heap *h = ba_create_heap_over(buf.data(), buf.size(), 1);
   BOOST_REQUIRE(h);
   void *a = ba_heap_malloc(h, 100);
   void *p = ba_heap_malloc(h, 100);
   void *b = ba_heap_malloc(h, 100);
   BOOST_REQUIRE(a && p && b);
   void *free_one = ba_heap_malloc(h, 200);
   void *c = ba_heap_malloc(h, 100);
   ba_heap_free(h, free_one);   // so the walk also passes a free chunk
   ALLOCPLUS_REQUIRE_HEAP(h);
   unsigned char *header = bytes(p) - 2 * sizeof(std::size_t);
#if defined(ALLOCPLUS_TEST_ASAN)
   ASAN_UNPOISON_MEMORY_REGION(header, 2 * sizeof(std::size_t));
#endif
   unsigned char saved[2 * sizeof(std::size_t)];
   std::memcpy(saved, header, sizeof saved);
   std::memset(header, 0, sizeof saved);
   ba_check_report r = {nullptr, nullptr};
   BOOST_TEST(ba_heap_check(h, &r) == 0);
   BOOST_TEST(r.what != nullptr);
   if (r.what) BOOST_TEST_MESSAGE("ba_heap_check found: " << r.what << " at " << r.where);
   std::memcpy(header, saved, sizeof saved);
   ALLOCPLUS_CHECK_HEAP(h);
   ba_heap_free(h, a);
   ba_heap_free(h, p);
   ba_heap_free(h, b);
   ba_heap_free(h, c);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_SUITE_END()

// =============================================================================================
// Misuse reports. Each case runs in a forked child: the handler must not return into the heap, so
// it reports through a pipe and _exit()s with a code the parent checks.
BOOST_AUTO_TEST_SUITE(diagnostics)

namespace {

int report_fd = -1;

struct report {
   std::string message;
   const void *address = nullptr;
   const ba_heap *heap = nullptr;
};

// "message\n<address>\n<heap>\n" through the pipe, then exit 42.
void reporting_handler(const char *message, const void *address, const ba_heap *heap)
{
   std::string s = std::string(message ? message : "(null)") + "\n" +
                   std::to_string(reinterpret_cast<std::uintptr_t>(address)) + "\n" +
                   std::to_string(reinterpret_cast<std::uintptr_t>(heap)) + "\n";
   ssize_t w = write(report_fd, s.data(), s.size());
   (void)w;
   _exit(42);
}

void returning_handler(const char *message, const void *, const ba_heap *)
{
   std::string s = std::string("returned from: ") + (message ? message : "(null)") + "\n";
   ssize_t w = write(report_fd, s.data(), s.size());
   (void)w;
}

struct child_outcome {
   bool exited = false;
   int exit_code = -1;
   int signal = 0;
   std::string output;   // what went to the pipe (the child's stderr goes there too)
};

// Runs `body` in a forked child with stderr and report_fd on a pipe; the child _exit(0)s if the
// body returns.
template <class F>
child_outcome run_in_child(F body)
{
   int fds[2];
   BOOST_REQUIRE(pipe(fds) == 0);
   pid_t pid = fork();
   BOOST_REQUIRE(pid >= 0);
   if (pid == 0) {
      // Boost.Test's signal handlers would resume the test tree in the child.
      std::signal(SIGABRT, SIG_DFL);
      std::signal(SIGSEGV, SIG_DFL);
      std::signal(SIGBUS, SIG_DFL);
      close(fds[0]);
      dup2(fds[1], 2);
      report_fd = fds[1];
      body();
      _exit(0);
   }
   close(fds[1]);
   child_outcome out;
   char buf[512];
   ssize_t n;
   while ((n = read(fds[0], buf, sizeof buf)) > 0) out.output.append(buf, static_cast<std::size_t>(n));
   close(fds[0]);
   int status = 0;
   BOOST_REQUIRE(waitpid(pid, &status, 0) == pid);
   out.exited = WIFEXITED(status);
   out.exit_code = out.exited ? WEXITSTATUS(status) : -1;
   out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
   return out;
}

report parse(const std::string &s)
{
   report r;
   std::size_t a = s.find('\n');
   std::size_t b = a == std::string::npos ? a : s.find('\n', a + 1);
   if (b == std::string::npos) { r.message = s; return r; }
   r.message = s.substr(0, a);
   r.address = reinterpret_cast<const void *>(std::stoull(s.substr(a + 1, b - a - 1)));
   r.heap = reinterpret_cast<const ba_heap *>(std::stoull(s.substr(b + 1)));
   return r;
}

std::string lower(std::string s)
{
   for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
   return s;
}

bool near(const void *a, const void *b, std::size_t within)
{
   std::ptrdiff_t d = distance(a, b);
   return d >= -static_cast<std::ptrdiff_t>(within) && d <= static_cast<std::ptrdiff_t>(within);
}

} // namespace

BOOST_AUTO_TEST_CASE(set_diagnostic_handler_returns_the_previous_handler)
{
   ba_diagnostic_handler first = ba_set_diagnostic_handler(reporting_handler);
   BOOST_TEST((ba_set_diagnostic_handler(returning_handler) == reporting_handler));
   BOOST_TEST((ba_set_diagnostic_handler(first) == returning_handler));
}

BOOST_AUTO_TEST_CASE(free_of_an_interior_pointer_calls_the_handler)
{
   void *p = ba_calloc(1, 256);   // zeroed: the bytes in front of p + 64 look like no chunk at all
   void *guard = ba_malloc(16);
   BOOST_REQUIRE(p && guard);
   void *interior = bytes(p) + 64;
   child_outcome o = run_in_child([&] {
      ba_set_diagnostic_handler(reporting_handler);
      ba_free(interior);
   });
   BOOST_TEST(o.exited);
   BOOST_TEST(o.exit_code == 42, "the handler was not called; child output: " << o.output);
   report r = parse(o.output);
   BOOST_TEST_MESSAGE("message: " << r.message);
   BOOST_TEST(lower(r.message).find("free") != std::string::npos, "the message names the bad free: " << r.message);
   BOOST_TEST(near(r.address, interior, 64), "address " << r.address << " vs " << interior);
   BOOST_TEST(r.heap == ba_default_heap());
   ba_free(p);
   ba_free(guard);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(double_free_calls_the_handler)
{
   scoped_heap h;
   void *p = ba_heap_malloc(h, 100);
   void *guard = ba_heap_malloc(h, 16);   // p does not merge into top
   BOOST_REQUIRE(p && guard);
   child_outcome o = run_in_child([&] {
      ba_set_diagnostic_handler(reporting_handler);
      ba_heap_free(h, p);
      ba_heap_free(h, p);
   });
   BOOST_TEST(o.exit_code == 42, "the handler was not called; child output: " << o.output);
   report r = parse(o.output);
   BOOST_TEST_MESSAGE("message: " << r.message);
   BOOST_TEST(lower(r.message).find("free") != std::string::npos, "the message names the bad free: " << r.message);
   BOOST_TEST(near(r.address, p, 32));
   BOOST_TEST(r.heap == h.get());
   ba_heap_free(h, p);
   ba_heap_free(h, guard);
}

#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
// Only the checked build finds the heap of a pointer before trusting its header; the unchecked
// one reports what it finds, which a block of another heap need not show.
BOOST_AUTO_TEST_CASE(free_of_a_block_of_another_heap_calls_the_handler)
{
   scoped_heap a, b;
   void *p = ba_heap_malloc(a, 100);
   void *guard = ba_heap_malloc(a, 16);
   BOOST_REQUIRE(p && guard);
   child_outcome o = run_in_child([&] {
      ba_set_diagnostic_handler(reporting_handler);
      ba_heap_free(b, p);
   });
   BOOST_TEST(o.exit_code == 42, "the handler was not called; child output: " << o.output);
   report r = parse(o.output);
   BOOST_TEST_MESSAGE("message: " << r.message);
   BOOST_TEST(!r.message.empty());
   ba_heap_free(a, p);
   ba_heap_free(a, guard);
}
#endif

BOOST_AUTO_TEST_CASE(handler_that_returns_makes_the_heap_abort)
{
   void *p = ba_calloc(1, 256);
   void *guard = ba_malloc(16);
   BOOST_REQUIRE(p && guard);
   child_outcome o = run_in_child([&] {
      ba_set_diagnostic_handler(returning_handler);
      ba_free(bytes(p) + 64);
      const char after[] = "heap continued\n";
      ssize_t w = write(report_fd, after, sizeof after - 1);
      (void)w;
   });
   BOOST_TEST(o.output.find("returned from:") != std::string::npos, "the handler was called: " << o.output);
   BOOST_TEST(o.output.find("heap continued") == std::string::npos);
   BOOST_TEST(o.signal == SIGABRT, "child " << (o.exited ? "exited " : "killed by signal ")
                                             << (o.exited ? o.exit_code : o.signal));
   ba_free(p);
   ba_free(guard);
}

BOOST_AUTO_TEST_CASE(default_handler_prints_the_message_and_aborts)
{
   void *p = ba_calloc(1, 256);
   void *guard = ba_malloc(16);
   BOOST_REQUIRE(p && guard);
   child_outcome o = run_in_child([&] {
      ba_set_diagnostic_handler(nullptr);
      ba_free(bytes(p) + 64);
   });
   BOOST_TEST(o.signal == SIGABRT);
   BOOST_TEST(!o.output.empty(), "the default handler prints the message on stderr");
   BOOST_TEST_MESSAGE("stderr: " << o.output);
   ba_free(p);
   ba_free(guard);
}

BOOST_AUTO_TEST_SUITE_END()
