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

// The trim threshold doubles each time trimmed memory is wanted again; freeing a huge block
// raises the thresholds for blocks of its size, and must never lower what the doubling reached.
BOOST_AUTO_TEST_CASE(freeing_a_huge_block_never_lowers_the_trim_threshold)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   // Free and rebuild 6 MiB at the top three times: trimmed, wanted again, so the threshold goes
   // 2 -> 4 -> 8 MiB, and the 6 MiB of free top are kept from then on.
   for (int i = 0; i < 3; ++i) {
      void *blocks[24];
      for (void *&b : blocks) BOOST_REQUIRE((b = ba_heap_malloc(h, 250 * 1024)));
      for (int j = 23; j >= 0; --j) ba_heap_free(h, blocks[j]);
   }
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   BOOST_TEST_MESSAGE("top after the rebuilds: " << s.top_bytes / 1024 << " KiB");
   BOOST_REQUIRE(s.top_bytes > 5 * mib);

   // A huge block of 1 MiB (aligned requests above the mmap threshold are mapped first) freed:
   // the mmap threshold rises to 1 MiB; the trim threshold must stay at 8 MiB, not drop to twice
   // the block (2 MiB).
   void *huge = ba_heap_memalign(h, 64, mib);
   BOOST_REQUIRE(huge);
   ba_heap_stats_get(h, &s);
   BOOST_REQUIRE(s.huge_blocks == 1u);
   ba_heap_free(h, huge);
   // A free into the top, which a 2 MiB threshold would trim.
   void *p = ba_heap_malloc(h, 300 * 1024);
   BOOST_REQUIRE(p);
   ba_heap_free(h, p);
   ba_heap_stats_get(h, &s);
   BOOST_TEST_MESSAGE("top after the huge free: " << s.top_bytes / 1024 << " KiB");
   BOOST_TEST(s.top_bytes > 5 * mib);
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_destroy_heap(h);
}
