// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Huge blocks (mapped directly): what freeing one costs under AddressSanitizer, and what it does
// to the thresholds the heap adjusts by itself.
#define BOOST_TEST_MODULE core_huge_blocks
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include <cstring>

#include <sys/resource.h>

namespace {

constexpr std::size_t mib = std::size_t(1) << 20;

std::size_t peak_resident_bytes()
{
   rusage u;
   getrusage(RUSAGE_SELF, &u);
   return static_cast<std::size_t>(u.ru_maxrss) * 1024;
}

} // namespace

// Under ASan, freeing a huge block unpoisons what was committed, not the address space reserved
// after it for growth (64 MiB or more, whose shadow is 8 MiB): 40 frees of live 1 MiB blocks (40
// reservations at different addresses) once raised the peak resident memory by 320 MiB. Without
// ASan the bound holds trivially.
BOOST_AUTO_TEST_CASE(freeing_huge_blocks_writes_no_shadow_for_their_reserve)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 256 * 1024);   // fixed: every 1 MiB block is huge
   void *blocks[40];
   for (void *&p : blocks) {
      BOOST_REQUIRE((p = ba_heap_malloc(h, mib)));
      static_cast<char *>(p)[0] = 1;
   }
   const std::size_t before = peak_resident_bytes();
   for (void *p : blocks) ba_heap_free(h, p);
   const std::size_t after = peak_resident_bytes();
   BOOST_TEST_MESSAGE("peak resident: " << before / mib << " MiB before the frees, " << after / mib << " MiB after");
   BOOST_TEST(after - before < 32 * mib);
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   BOOST_TEST(s.huge_blocks == 0u);
   ba_destroy_heap(h);
}

namespace {
// The top a heap keeps (decay 0: trimmed as soon as it passes the threshold) after a huge block
// of 3 MiB is freed and then 5 MiB freed into the top; `user_threshold` 0: the default.
std::size_t top_kept_after_a_huge_free(std::size_t user_threshold)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_DECAY_MS, 0) == 1);
   if (user_threshold != 0) BOOST_REQUIRE(ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, user_threshold) == 1);
   ba_heap_stats s;
   void *huge = ba_heap_memalign(h, 64, 3 * mib);   // aligned requests above the mmap threshold are mapped
   BOOST_REQUIRE(huge);
   ba_heap_stats_get(h, &s);
   BOOST_REQUIRE(s.huge_blocks == 1u);
   ba_heap_free(h, huge);
   void *blocks[20];
   for (void *&b : blocks) BOOST_REQUIRE((b = ba_heap_malloc(h, 250 * 1024)));
   for (int j = 19; j >= 0; --j) ba_heap_free(h, blocks[j]);
   ba_heap_stats_get(h, &s);
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_destroy_heap(h);
   return s.top_bytes;
}
} // namespace

// Freeing a huge block raises the mmap threshold to its size and the trim threshold to twice
// that (as glibc does: such sizes are likely wanted again), unless the user set the threshold.
BOOST_AUTO_TEST_CASE(freeing_a_huge_block_raises_the_trim_threshold_the_user_did_not_set)
{
   BOOST_TEST(top_kept_after_a_huge_free(0) > 4 * mib, "6 MiB threshold: the 5 MiB stay");
   BOOST_TEST(top_kept_after_a_huge_free(1 * mib) < 1 * mib, "the user's 1 MiB threshold holds");
}
