// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::arena and ba::arena_allocator: a random differential test against a model (bytes intact, no
// overlap, inside the buffer, the arena's own walk consistent after every step), alignment, reuse
// through the slot table and the tree, splits, the bump pointer's give-back, reallocate in place,
// exhaustion, std and ba containers, and the misuse reports (checked builds, ASan).

#define BOOST_TEST_MODULE allocplus arena
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/vector.hpp>

#include "support/usage_reports.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ba = boost::allocplus;

namespace {

bool aligned(const void *p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

struct live_block {
   unsigned char *p;
   std::size_t size;
   unsigned char fill;
};

void fill(const live_block &b) { std::memset(b.p, b.fill, b.size); }

bool intact(const live_block &b)
{
   return std::all_of(b.p, b.p + b.size, [&](unsigned char c) { return c == b.fill; });
}

alignas(64) unsigned char big_buffer[1 << 20];

} // namespace

BOOST_AUTO_TEST_CASE(random_operations_match_a_model)
{
   ba::arena a(big_buffer, sizeof big_buffer);
   std::mt19937 rng(22);
   std::vector<live_block> live;
   const std::size_t sizes[] = {1, 8, 16, 24, 100, 500, 4000, 16000, 20000, 70000};
   unsigned char next_fill = 1;
   std::size_t most_in_tree = 0, most_in_slots = 0, failures = 0, moved = 0, in_place = 0;
   std::size_t merged = 0, grown = 0;
   for (int step = 0; step < 20000; ++step) {
      const unsigned op = rng() % 10;
      if (op < 5 || live.empty()) {
         // Large blocks of a few exact sizes half the time: rings of same-size free blocks form.
         const std::size_t k = rng() % 10;
         const std::size_t size = sizes[k] + (k >= 8 && rng() % 2 == 0 ? 0 : rng() % 64);
         // Over-aligned a quarter of the time; else 16 or, half the time, 8 or less (compact
         // blocks for the sizes up to 256 bytes and the larger ones that leave at most 8 bytes
         // in their last granule).
         const std::size_t alignment =
            rng() % 4 == 0 ? std::size_t(16) << (rng() % 4) : rng() % 2 == 0 ? 16 : std::size_t(1) << (rng() % 4);
         unsigned char *p = static_cast<unsigned char *>(a.try_allocate(size, alignment));
         if (p == nullptr) {
            BOOST_TEST(a.statistics().largest_free_block < size + alignment);
            ++failures;
            continue;
         }
         BOOST_TEST(aligned(p, alignment));
         BOOST_TEST(a.capacity(p) >= size);
         live.push_back({p, size, next_fill++});
         fill(live.back());
      } else if (op < 8) {
         const std::size_t i = rng() % live.size();
         BOOST_TEST(intact(live[i]));
         a.deallocate(live[i].p);
         live[i] = live.back();
         live.pop_back();
      } else if (op == 9 && rng() % 2 == 0) {
         // A resize that never moves: growth at the bump end or into the free block after it.
         const std::size_t i = rng() % live.size();
         const std::size_t size = live[i].size + rng() % 3000;
         const std::size_t capacity = a.capacity(live[i].p);
         if (!a.try_resize_in_place(live[i].p, size)) {
            BOOST_TEST(a.capacity(live[i].p) == capacity);
            continue;
         }
         BOOST_TEST(a.capacity(live[i].p) >= size);
         BOOST_TEST(intact(live[i]));
         if (size > capacity) ++grown;
         live[i].size = size;
         fill(live[i]);
      } else {
         const std::size_t i = rng() % live.size();
         const std::size_t size = sizes[rng() % 10] + rng() % 64;
         unsigned char *q = static_cast<unsigned char *>(a.try_reallocate(live[i].p, size));
         if (q == nullptr) {
            BOOST_TEST(intact(live[i]));
            continue;
         }
         ++(q == live[i].p ? in_place : moved);
         const live_block kept{q, std::min(size, live[i].size), live[i].fill};
         BOOST_TEST(intact(kept));
         live[i] = {q, size, next_fill++};
         fill(live[i]);
      }
      if (step % 97 == 0) {
         const ba::arena_statistics before = a.statistics();
         const ba::arena_defragment_result r = a.defragment();
         BOOST_TEST_REQUIRE(a.verify());
         BOOST_TEST(r.free_blocks_after <= r.free_blocks_before);
         BOOST_TEST(r.largest_free_block_after >= r.largest_free_block_before);
         BOOST_TEST(a.statistics().bytes_available == before.bytes_available);   // nothing lost
         BOOST_TEST(a.statistics().live_blocks == before.live_blocks);
         merged += r.free_blocks_before - r.free_blocks_after;
         // Every run was merged: a second pass finds nothing to do.
         const ba::arena_defragment_result again = a.defragment();
         BOOST_TEST(again.free_blocks_after == again.free_blocks_before);
         BOOST_TEST(again.bytes_returned_to_bump == 0u);
         for (const live_block &b : live) BOOST_TEST(intact(b));
      }
      BOOST_TEST_REQUIRE(a.verify());
      most_in_tree = std::max(most_in_tree, a.statistics().free_blocks_in_tree);
      most_in_slots = std::max(most_in_slots, a.statistics().free_blocks_in_slots);
      if (step % 500 == 0) {
         std::vector<live_block> sorted = live;
         std::sort(sorted.begin(), sorted.end(), [](const live_block &x, const live_block &y) { return x.p < y.p; });
         for (std::size_t k = 0; k != sorted.size(); ++k) {
            BOOST_TEST(intact(sorted[k]));
            BOOST_TEST(sorted[k].p >= big_buffer);
            BOOST_TEST(sorted[k].p + sorted[k].size <= big_buffer + sizeof big_buffer);
            if (k + 1 != sorted.size()) BOOST_TEST(sorted[k].p + sorted[k].size <= sorted[k + 1].p);
         }
         BOOST_TEST(a.statistics().live_blocks == live.size());
      }
   }
   // The run went through every path: both free stores, exhaustion, moves and in-place resizes.
   BOOST_TEST(most_in_tree > 0u);
   BOOST_TEST(most_in_slots > 0u);
   BOOST_TEST(failures > 0u);
   BOOST_TEST(moved > 0u);
   BOOST_TEST(in_place > 0u);
   BOOST_TEST(merged > 0u);
   BOOST_TEST(grown > 0u);
   for (const live_block &b : live) {
      BOOST_TEST(intact(b));
      a.deallocate(b.p);
   }
   BOOST_TEST(a.verify());
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.bytes_allocated == 0u);
   BOOST_TEST(s.bytes_available == s.buffer_size);
   // Freed in no particular order, the blocks went to the free stores until the last one: the
   // arena was then empty, and the whole buffer is bump room again.
   BOOST_TEST(s.free_blocks_in_slots == 0u);
   BOOST_TEST(s.free_blocks_in_tree == 0u);
   BOOST_TEST(s.largest_free_block == s.buffer_size - 16);
   const ba::arena_defragment_result r = a.defragment();
   BOOST_TEST(r.free_blocks_before == 0u);
   BOOST_TEST(r.bytes_returned_to_bump == 0u);
   BOOST_TEST(a.verify());
}

// The last live block freed, an arena of one region starts again from its buffer's start: its
// free lists and tree are emptied (their blocks are in the bump room now), and the next blocks
// come from the bump pointer in address order.
BOOST_AUTO_TEST_CASE(freeing_the_last_live_block_empties_an_arena_of_one_region)
{
   alignas(16) static unsigned char buffer[1 << 16];
   ba::arena a(buffer, sizeof buffer);
   for (int round = 0; round != 3; ++round) {
      void *small[8], *large = a.allocate(20000);
      for (void *&p : small) p = a.allocate(48);
      BOOST_TEST(static_cast<unsigned char *>(large) == buffer + 16);   // the buffer's first block, every round
      for (int i = 1; i != 8; ++i) BOOST_TEST(small[i] > small[i - 1]);
      a.deallocate(large);
      // small[1..6] to their slot list, small[7] to the bump pointer, small[0] last: its free is
      // the fast path's (a block of a slot class, not at the bump end).
      for (int i = 1; i != 8; ++i) a.deallocate(small[i]);
      BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);
      BOOST_TEST(a.free_blocks_of_size(64) == 6u);
      a.deallocate(small[0]);
      const ba::arena_statistics s = a.statistics();
      BOOST_TEST(s.live_blocks == 0u);
      BOOST_TEST(s.free_blocks_in_slots == 0u);
      BOOST_TEST(s.free_blocks_in_tree == 0u);
      BOOST_TEST(a.free_blocks_of_size(64) == 0u);
      BOOST_TEST(s.bytes_available == s.buffer_size);
      BOOST_TEST(s.bytes_allocated == 0u);
      BOOST_TEST(s.bytes_overhead == 0u);
      BOOST_TEST(s.largest_free_block == s.buffer_size - 16);
      BOOST_TEST(a.verify());
   }
   // A small block comes from the bump pointer at the buffer's start, not from a free list (the
   // six blocks of 64 bytes freed above would hand out the last one freed).
   void *p = a.allocate(48);
   BOOST_TEST(static_cast<unsigned char *>(p) == buffer + 16);
   // The blocks of the rounds before lie past the bump pointer: no longer the arena's blocks
   // (owns), still in its memory (contains: a resource over the arena sends their frees to it).
   BOOST_TEST(!a.owns(buffer + 16 + 20016 + 16));
   BOOST_TEST(a.contains(buffer + 16 + 20016 + 16));
   BOOST_TEST(a.contains(buffer + sizeof buffer - 1));
   BOOST_TEST(!a.contains(buffer + sizeof buffer));
   static unsigned char elsewhere[16];
   BOOST_TEST(!a.contains(elsewhere));
   a.deallocate(p);
}

// The same for an arena without a buffer, whose one region came from the upstream, and with an
// over-aligned block (a lead) freed last: its lead no longer counts as overhead.
BOOST_AUTO_TEST_CASE(freeing_the_last_live_block_empties_an_arena_grown_once)
{
   ba::arena a(ba_default_heap());
   void *first = a.allocate(48);
   void *aligned = a.allocate(100, 256);
   void *last = a.allocate(48);   // (so that the aligned block does not end at the bump pointer)
   ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.regions == 1u);
   const std::size_t lead = static_cast<std::size_t>(static_cast<unsigned char *>(aligned) - 16 -
                                                     (static_cast<unsigned char *>(first) + 48));
   BOOST_TEST(s.bytes_overhead == 3 * 16 + lead);
   BOOST_TEST(s.bytes_allocated == 64 + (16 + lead + a.capacity(aligned)) + 64);
   a.deallocate(first);
   a.deallocate(last);
   a.deallocate(aligned);
   s = a.statistics();
   BOOST_TEST(s.live_blocks == 0u);
   BOOST_TEST(s.bytes_overhead == 0u);
   BOOST_TEST(s.bytes_allocated == 0u);
   BOOST_TEST(s.free_blocks_in_slots == 0u);
   BOOST_TEST(s.bytes_available == s.buffer_size);
   BOOST_TEST(a.allocate(48) == first);   // the region's start again
   BOOST_TEST(a.verify());
   a.release();
}

// An arena of several regions keeps its free blocks filed when its last live block is freed:
// the regions' blocks stay where they are until release().
BOOST_AUTO_TEST_CASE(freeing_the_last_live_block_of_an_arena_of_several_regions_files_it)
{
   alignas(16) static unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   std::vector<void *> blocks;
   while (a.statistics().regions < 2) blocks.push_back(a.allocate(48));
   for (void *p : blocks) a.deallocate(p);
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.live_blocks == 0u);
   BOOST_TEST(s.regions == 2u);
   BOOST_TEST(s.free_blocks_in_slots > 0u);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(defragment_merges_adjacent_free_blocks_and_gives_the_tail_to_the_bump_pointer)
{
   alignas(16) static unsigned char buffer[1 << 16];
   ba::arena a(buffer, sizeof buffer);
   void *p[6];
   for (void *&q : p) q = a.allocate(64);   // blocks of 80 bytes, back to back
   a.deallocate(p[1]);
   a.deallocate(p[2]);                      // p[1] and p[2]: two blocks of 80 between live ones
   a.deallocate(p[4]);                      // p[4], p[5]'s neighbour, and then p[5] at the bump end
   a.deallocate(p[5]);
   BOOST_TEST(a.free_blocks_of_size(80) == 3u);
   const std::size_t available = a.statistics().bytes_available;

   const ba::arena_defragment_result r = a.defragment();
   BOOST_TEST(r.free_blocks_before == 3u);
   BOOST_TEST(r.free_blocks_after == 1u);           // p[1] and p[2] as one block of 160
   BOOST_TEST(r.bytes_returned_to_bump == 80u);     // p[4]: now bump room again
   BOOST_TEST(a.free_blocks_of_size(80) == 0u);
   BOOST_TEST(a.free_blocks_of_size(160) == 1u);
   BOOST_TEST(a.statistics().bytes_available == available);
   BOOST_TEST(a.verify());
   void *merged = a.allocate(144);                  // fits only the merged block (or the bump room)
   BOOST_TEST(merged == p[1]);

   // Runs large enough for the tree merge into the tree.
   void *big[4];
   for (void *&q : big) q = a.allocate(10000);
   (void)a.allocate(64);
   a.deallocate(big[1]);
   a.deallocate(big[2]);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 0u);
   a.defragment();
   BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);
   BOOST_TEST(a.allocate(20000) == big[1]);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(alignment_is_honoured_and_a_bad_one_refused)
{
   alignas(16) unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   for (std::size_t al = 1; al <= 4096; al *= 2) {
      // A node (24 or 48 bytes) at 8-byte alignment or less: a compact block, its pointer 8 mod
      // 16; at 16 and more, and for a size over 256 bytes that fills its last granule,
      // max(al, 16).
      for (const std::size_t size : {24, 48}) {
         void *p = a.allocate(size, al);
         BOOST_TEST(aligned(p, std::max<std::size_t>(al, 16)) == (al > 8));
         BOOST_TEST(aligned(p, std::max<std::size_t>(al, 8)));
         std::memset(p, 0x5a, size);
      }
      void *q = a.allocate(272, al);
      BOOST_TEST(aligned(q, std::max<std::size_t>(al, 16)));
      std::memset(q, 0x5a, 272);
   }
   BOOST_CHECK_THROW((void)a.allocate(16, 48), std::invalid_argument);
   BOOST_TEST(a.try_allocate(16, 48) == nullptr);
   BOOST_TEST(a.try_allocate(16, 0) == nullptr);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(a_freed_small_block_is_reused_from_its_slot)
{
   alignas(16) unsigned char buffer[8192];
   ba::arena a(buffer, sizeof buffer);
   void *x = a.allocate(100);
   void *keep = a.allocate(16);   // so x does not end at the bump pointer
   a.deallocate(x);
   BOOST_TEST(a.free_blocks_of_size(128) == 1u);   // 100 + header, rounded to 16
   BOOST_TEST(a.allocate(110) == x);                // same class
   BOOST_TEST(a.free_blocks_of_size(128) == 0u);
   a.deallocate(x);
   a.deallocate(keep);
}

BOOST_AUTO_TEST_CASE(a_large_free_block_is_found_in_the_tree_and_split)
{
   static unsigned char buffer[256 * 1024];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *x = static_cast<unsigned char *>(a.allocate(100000));
   void *keep = a.allocate(16);
   a.deallocate(x);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);
   // Lower bound: a smaller request takes the front of the block, the rest stays free.
   unsigned char *y = static_cast<unsigned char *>(a.allocate(40000));
   BOOST_TEST(y == x);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);   // the remainder, about 60000 bytes
   unsigned char *z = static_cast<unsigned char *>(a.allocate(50000));
   BOOST_TEST(z > y);
   BOOST_TEST(z < x + 100000);
   BOOST_TEST(a.verify());
   // A remainder too small to keep stays with the block.
   a.deallocate(z);
   const std::size_t tree_block = a.capacity(y) + 16;   // y's block, before z's
   (void)tree_block;
   unsigned char *w = static_cast<unsigned char *>(a.allocate(a.statistics().largest_free_block - 8));
   BOOST_TEST(a.verify());
   a.deallocate(w);
   a.deallocate(y);
   a.deallocate(keep);
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(a_block_at_the_bump_end_goes_back_to_it)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   const std::size_t room = a.statistics().bytes_available;
   void *x = a.allocate(1000);
   BOOST_TEST(a.statistics().bytes_available < room);
   a.deallocate(x);
   BOOST_TEST(a.statistics().bytes_available == room);
   BOOST_TEST(a.statistics().free_blocks_in_slots == 0u);   // not filed: the bump pointer took it
   BOOST_TEST(a.allocate(1000) == x);
   a.deallocate(x);
}

BOOST_AUTO_TEST_CASE(reallocate_stays_in_place_at_the_bump_end_and_within_a_class)
{
   static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *p = static_cast<unsigned char *>(a.allocate(100));
   std::memset(p, 7, 100);
   unsigned char *q = static_cast<unsigned char *>(a.reallocate(p, 30000));   // grows at the bump end
   BOOST_TEST(q == p);
   BOOST_TEST(std::count(q, q + 100, 7) == 100);
   q = static_cast<unsigned char *>(a.reallocate(q, 50));                     // shrinks there
   BOOST_TEST(q == p);
   void *blocker = a.allocate(16);
   BOOST_TEST(a.reallocate(q, 60) == p);   // same class (80 bytes): same pointer away from the end
   std::memset(p, 9, 60);
   unsigned char *r = static_cast<unsigned char *>(a.reallocate(p, 500));   // grows: moves
   BOOST_TEST(r != p);
   BOOST_TEST(std::count(r, r + 60, 9) == 60);
   BOOST_TEST(a.verify());
   a.deallocate(r);
   a.deallocate(blocker);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.statistics().live_blocks == 0u);
}

BOOST_AUTO_TEST_CASE(exhaustion_returns_null_throws_and_leaves_containers_as_they_were)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   BOOST_TEST(a.try_allocate(5000) == nullptr);
   BOOST_CHECK_THROW((void)a.allocate(5000), std::bad_alloc);
   BOOST_TEST(a.try_allocate(static_cast<std::size_t>(-1)) == nullptr);
   BOOST_TEST(a.statistics().live_blocks == 0u);
   {
      std::vector<int, ba::arena_allocator<int>> v{ba::arena_allocator<int>(a)};
      for (int i = 0; i < 200; ++i) v.push_back(i);
      bool threw = false;
      try {
         for (;;) v.push_back(1);
      } catch (const std::bad_alloc &) {
         threw = true;
      }
      BOOST_TEST(threw);
      for (int i = 0; i < 200; ++i) BOOST_TEST(v[static_cast<std::size_t>(i)] == i);
      BOOST_TEST(a.verify());
   }
   BOOST_CHECK_THROW((void)ba::arena_allocator<int>(a).allocate(static_cast<std::size_t>(-1) / 2),
                     std::bad_array_new_length);
   BOOST_TEST(a.statistics().live_blocks == 0u);
}

BOOST_AUTO_TEST_CASE(a_buffer_too_small_is_refused)
{
   alignas(16) unsigned char buffer[64];
   BOOST_CHECK_THROW(ba::arena(buffer + 1, 40), std::invalid_argument);   // 25 bytes once aligned
   BOOST_CHECK_THROW(ba::arena(nullptr, 4096), std::invalid_argument);
   ba::arena a(buffer + 1, 63);   // misaligned: used from its first 16-byte boundary
   BOOST_TEST(a.statistics().buffer_size == 48u);
   void *p = a.allocate(16);
   BOOST_TEST(aligned(p, 16));
   a.deallocate(p);
}

BOOST_AUTO_TEST_CASE(allocators_share_their_arena_and_compare_by_it)
{
   alignas(16) unsigned char b1[1024], b2[1024];
   ba::arena a1(b1, sizeof b1), a2(b2, sizeof b2);
   ba::arena_allocator<int> x(a1), y(a1), z(a2);
   ba::arena_allocator<double> r(x);
   BOOST_TEST((x == y));
   BOOST_TEST((x != z));
   BOOST_TEST((r == x));
   BOOST_TEST(&r.resource() == &a1);
}

BOOST_AUTO_TEST_CASE(std_and_ba_containers_over_an_arena)
{
   static unsigned char buffer[8 << 20];
   ba::arena a(buffer, sizeof buffer);
   {
      std::vector<std::int64_t, ba::arena_allocator<std::int64_t>> v{ba::arena_allocator<std::int64_t>(a)};
      std::deque<std::int64_t, ba::arena_allocator<std::int64_t>> d{ba::arena_allocator<std::int64_t>(a)};
      std::list<std::int64_t, ba::arena_allocator<std::int64_t>> l{ba::arena_allocator<std::int64_t>(a)};
      std::map<std::int64_t, std::int64_t, std::less<>, ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>> m{
         ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>(a)};
      std::unordered_map<std::int64_t, std::int64_t, std::hash<std::int64_t>, std::equal_to<>,
                         ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>>
         u{16, std::hash<std::int64_t>(), std::equal_to<>(), ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>(a)};
      ba::vector<std::int64_t, ba::arena_allocator<std::int64_t>> bv{ba::arena_allocator<std::int64_t>(a)};
      ba::list<std::int64_t, ba::arena_allocator<std::int64_t>> bl{ba::arena_allocator<std::int64_t>(a)};
      using string = std::basic_string<char, std::char_traits<char>, ba::arena_allocator<char>>;
      std::vector<string, ba::arena_allocator<string>> strings{ba::arena_allocator<string>(a)};
      for (std::int64_t i = 0; i < 10000; ++i) {
         v.push_back(i);
         d.push_back(i);
         l.push_back(i);
         m.emplace(i, i);
         u.emplace(i, i);
         bv.push_back(i);
         bl.push_back(i);
         if (i % 100 == 0) strings.emplace_back(std::size_t(20000 + i), 'x', ba::arena_allocator<char>(a));
         if (i % 3 == 0) {
            d.pop_front();
            l.pop_front();
            m.erase(i / 2);
            u.erase(i / 2);
            bl.pop_front();
         }
      }
      BOOST_TEST(a.verify());
      BOOST_TEST(v.size() == 10000u);
      BOOST_TEST(bv.back() == 9999);
      BOOST_TEST(std::accumulate(v.begin(), v.end(), std::int64_t(0)) == std::int64_t(9999) * 10000 / 2);
      BOOST_TEST(l.back() == 9999);
      BOOST_TEST(bl.size() == l.size());
      BOOST_TEST(m.size() == u.size());
      BOOST_TEST(strings.size() == 100u);
      BOOST_TEST(strings[99].size() == 29900u);
      BOOST_TEST(a.statistics().free_blocks_in_tree + a.statistics().free_blocks_in_slots > 0u);
   }
   BOOST_TEST(a.statistics().live_blocks == 0u);
   BOOST_TEST(a.verify());
}

// ---- growth: regions chained from an upstream heap ---------------------------------------------

namespace {

std::size_t default_heap_in_use()
{
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_bytes;
}

// Fills many blocks of mixed sizes (some over the slot limit, some over-aligned), frees a third of
// them and reallocates some, checking every block's bytes and the arena's walk along the way.
void churn_with_patterns(ba::arena &a, int count)
{
   std::mt19937 rng(2022);
   std::vector<live_block> live;
   const std::size_t sizes[] = {8, 24, 100, 500, 3000, 20000};
   unsigned char next_fill = 1;
   for (int step = 0; step < count; ++step) {
      const std::size_t size = sizes[rng() % 6] + rng() % 32;
      const std::size_t alignment = rng() % 8 == 0 ? 128 : 16;
      unsigned char *p = static_cast<unsigned char *>(a.allocate(size, alignment));
      BOOST_TEST_REQUIRE(aligned(p, alignment));
      BOOST_TEST_REQUIRE(a.owns(p));
      BOOST_TEST_REQUIRE(a.contains(p));
      live.push_back({p, size, next_fill++});
      fill(live.back());
      if (step % 3 == 2) {
         const std::size_t i = rng() % live.size();
         BOOST_TEST_REQUIRE(intact(live[i]));
         a.deallocate(live[i].p);
         live[i] = live.back();
         live.pop_back();
      }
      if (step % 7 == 3) {   // in place at a bump end, or moved, maybe to a new region
         live_block &b = live[rng() % live.size()];
         const std::size_t resized = sizes[rng() % 6] + rng() % 32;
         unsigned char *q = static_cast<unsigned char *>(a.reallocate(b.p, resized));
         BOOST_TEST_REQUIRE(intact(live_block{q, std::min(b.size, resized), b.fill}));
         b = {q, resized, next_fill++};
         fill(b);
      }
      if (step % 50 == 0) BOOST_TEST_REQUIRE(a.verify());
   }
   BOOST_TEST_REQUIRE(a.verify());
   for (const live_block &b : live) {
      BOOST_TEST_REQUIRE(intact(b));
      a.deallocate(b.p);
   }
   BOOST_TEST(a.verify());
   BOOST_TEST(a.statistics().live_blocks == 0u);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_small_buffer_grows_by_regions_from_the_default_heap)
{
   alignas(16) unsigned char buffer[1024];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   BOOST_TEST(a.upstream() == ba_default_heap());
   BOOST_TEST(a.statistics().regions == 1u);
   churn_with_patterns(a, 3000);
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.regions > 3u);
   BOOST_TEST(s.buffer_size > 1024u + 20000u);   // the buffer and the regions together
   BOOST_TEST(s.upstream_bytes > s.buffer_size - 1024u);
   BOOST_TEST(s.bytes_allocated == 0u);
   a.release();
   BOOST_TEST(a.statistics().regions == 1u);
   BOOST_TEST(a.statistics().buffer_size == 1024u);
   BOOST_TEST(a.statistics().bytes_available == 1024u);
   BOOST_TEST(a.allocate(16) == buffer + 16);   // bumping from the buffer again
   a.release();
}

BOOST_AUTO_TEST_CASE(an_arena_without_a_buffer_grows_from_an_independent_heap)
{
   ba::heap h;
   const std::size_t in_use = h.stats().in_use_bytes;
   {
      ba::arena a(nullptr, 4096, h);
      BOOST_TEST(a.upstream() == h.native_handle());
      BOOST_TEST(a.statistics().regions == 0u);    // nothing taken before the first allocation
      BOOST_TEST(a.statistics().buffer_size == 0u);
      BOOST_TEST(a.verify());
      void *first = a.allocate(100);
      BOOST_TEST(a.statistics().regions == 1u);
      BOOST_TEST(a.statistics().upstream_bytes == 4096u);
      BOOST_TEST(h.stats().in_use_bytes >= in_use + 4096u);
      a.deallocate(first);
      churn_with_patterns(a, 3000);
      BOOST_TEST(a.statistics().regions > 3u);
      BOOST_TEST(h.check());
      BOOST_TEST(h.stats().in_use_bytes >= in_use + a.statistics().upstream_bytes);
   }
   BOOST_TEST(h.stats().in_use_bytes == in_use);   // destruction gave every region back
   BOOST_CHECK_THROW(ba::arena(static_cast<ba_heap *>(nullptr)), std::invalid_argument);
   BOOST_CHECK_THROW(ba::arena(nullptr, 4096, static_cast<ba_heap *>(nullptr)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(regions_grow_geometrically_and_fit_a_large_request)
{
   ba::heap h;
   ba::arena a(nullptr, 4096, h);
   std::vector<std::size_t> spans;   // bytes of each region, from the statistics' growth
   std::size_t before = 0;
   for (int i = 0; i < 6; ++i) {
      (void)a.allocate(4000);   // fills what is left, then a region of its own at times
      const std::size_t now = a.statistics().upstream_bytes;
      if (now != before) spans.push_back(now - before);
      before = now;
   }
   BOOST_TEST_REQUIRE(spans.size() >= 3u);
   for (std::size_t i = 1; i != spans.size(); ++i) BOOST_TEST(spans[i] == 2 * spans[i - 1]);
   // A request larger than the next region gets a region of its size.
   const std::size_t regions = a.statistics().regions;
   void *huge = a.allocate(1 << 20);
   BOOST_TEST(a.statistics().regions == regions + 1);
   std::memset(huge, 0x11, 1 << 20);
   BOOST_TEST(a.verify());
   a.release();
   BOOST_TEST(a.statistics().regions == 0u);
   BOOST_TEST(h.stats().in_use_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(blocks_freed_in_older_regions_are_reused)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   void *in_buffer = a.allocate(64);
   void *keep = a.allocate(64);
   (void)keep;
   unsigned char *large = static_cast<unsigned char *>(a.allocate(3000));   // still in the buffer
   BOOST_TEST(large < buffer + sizeof buffer);
   void *big = a.allocate(30000);   // in a region of its own: the tree's size
   BOOST_TEST(a.statistics().regions == 2u);
   (void)a.allocate(64);            // keeps `big` off the bump end
   void *later = a.allocate(40000); // a third region
   BOOST_TEST(a.statistics().regions == 3u);
   (void)later;
   a.deallocate(in_buffer);
   a.deallocate(big);
   BOOST_TEST(a.free_blocks_of_size(80) == 1u);
   BOOST_TEST(a.statistics().free_blocks_in_tree >= 1u);
   BOOST_TEST(a.allocate(64) == in_buffer);   // from the slot table, in the buffer
   BOOST_TEST(a.allocate(30000) == big);      // from the tree, in the second region
   BOOST_TEST(a.statistics().regions == 3u);  // neither took a new region
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(the_room_left_in_a_region_becomes_a_free_block)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   void *first = a.allocate(1000);   // 1024 block bytes: 3072 left in the buffer
   (void)first;
   void *elsewhere = a.allocate(5000);   // no room: a new region; the 3072 bytes are filed
   BOOST_TEST(a.statistics().regions == 2u);
   BOOST_TEST(!(elsewhere >= static_cast<void *>(buffer) && elsewhere < static_cast<void *>(buffer + sizeof buffer)));
   BOOST_TEST(a.free_blocks_of_size(3072) == 1u);
   BOOST_TEST(a.allocate(3056) == static_cast<unsigned char *>(first) + 1024);   // that block, exactly
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(defragment_merges_inside_each_region_never_across)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   std::vector<void *> blocks;
   while (a.statistics().regions == 1) blocks.push_back(a.allocate(64));   // 80 bytes each
   // 51 blocks fill 4080 bytes of the buffer; the 16 left cannot be a block; the 52nd is in a region.
   BOOST_TEST(blocks.size() == 52u);
   for (void *p : blocks) a.deallocate(p);
   const ba::arena_defragment_result r = a.defragment();
   BOOST_TEST(r.free_blocks_after == 1u);             // the buffer's 51 blocks as one
   BOOST_TEST(a.free_blocks_of_size(51 * 80) == 1u);  // not merged with anything past the buffer
   BOOST_TEST(r.bytes_returned_to_bump == 0u);        // the region's block went back when freed
   BOOST_TEST(a.verify());
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.bytes_available == s.buffer_size - 16);   // the 16 bytes at the buffer's end
   BOOST_TEST(a.allocate(51 * 80 - 16) == blocks[0]);      // the merged block
   a.release();
}

BOOST_AUTO_TEST_CASE(release_gives_every_region_back_to_the_default_heap)
{
   const std::size_t in_use = default_heap_in_use();
   alignas(16) static unsigned char buffer[2048];
   {
      ba::arena a(buffer, sizeof buffer, ba_default_heap());
      for (int i = 0; i < 2000; ++i) std::memset(a.allocate(200), i & 0xff, 200);
      BOOST_TEST(a.statistics().regions > 5u);
      BOOST_TEST(default_heap_in_use() >= in_use + a.statistics().upstream_bytes);
      a.release();
      BOOST_TEST(default_heap_in_use() == in_use);
      BOOST_TEST(a.statistics().regions == 1u);
      BOOST_TEST(a.statistics().upstream_bytes == 0u);
      for (int i = 0; i < 2000; ++i) std::memset(a.allocate(200), i & 0xff, 200);   // grows again
      BOOST_TEST(a.statistics().regions > 5u);
      BOOST_TEST(a.verify());
      a.release();   // the blocks die with it: no live blocks at destruction
      for (int i = 0; i < 100; ++i) (void)a.allocate(200);
      a.release();
   }
   BOOST_TEST(default_heap_in_use() == in_use);
   ba_check_report report{};
   BOOST_TEST(ba_check(&report) == 1);
}

BOOST_AUTO_TEST_CASE(containers_over_a_growing_arena)
{
   const std::size_t in_use = default_heap_in_use();
   alignas(16) unsigned char buffer[1024];
   ba::arena a(buffer, sizeof buffer, ba_default_heap());
   {
      using entry = std::pair<const std::int64_t, std::int64_t>;
      std::vector<std::int64_t, ba::arena_allocator<std::int64_t>> v{ba::arena_allocator<std::int64_t>(a)};
      std::map<std::int64_t, std::int64_t, std::less<>, ba::arena_allocator<entry>> m{ba::arena_allocator<entry>(a)};
      ba::vector<std::int64_t, ba::arena_allocator<std::int64_t>> bv{ba::arena_allocator<std::int64_t>(a)};
      ba::list<std::int64_t, ba::arena_allocator<std::int64_t>> bl{ba::arena_allocator<std::int64_t>(a)};
      for (std::int64_t i = 0; i < 20000; ++i) {
         v.push_back(i);
         m.emplace(i, -i);
         bv.push_back(i);
         bl.push_back(i);
         if (i % 4 == 0) {
            m.erase(i / 2);
            bl.pop_front();
         }
         if (i % 1000 == 0) BOOST_TEST_REQUIRE(a.verify());
      }
      BOOST_TEST(a.statistics().regions > 5u);
      BOOST_TEST(a.verify());
      for (std::int64_t i = 0; i < 20000; ++i) {
         BOOST_TEST_REQUIRE(v[static_cast<std::size_t>(i)] == i);
         BOOST_TEST_REQUIRE(bv[static_cast<std::size_t>(i)] == i);
      }
      for (const auto &kv : m) BOOST_TEST_REQUIRE(kv.second == -kv.first);
      std::int64_t expected = 5000;
      for (std::int64_t x : bl) BOOST_TEST_REQUIRE(x == expected++);
      BOOST_TEST(expected == 20000);
      BOOST_TEST(m.size() == 20000u - 5000u);
   }
   BOOST_TEST(a.statistics().live_blocks == 0u);
   BOOST_TEST(a.verify());
   a.release();
   BOOST_TEST(default_heap_in_use() == in_use);
}

BOOST_AUTO_TEST_CASE(an_exhausted_upstream_gives_null_or_bad_alloc_and_containers_stay)
{
   alignas(16) static unsigned char heap_buffer[256 * 1024];
   ba::heap h(heap_buffer, sizeof heap_buffer);
   const std::size_t in_use = h.stats().in_use_bytes;
   alignas(16) unsigned char buffer[1024];
   ba::arena a(buffer, sizeof buffer, h);
   // Raw blocks until the heap has no region left to give.
   std::vector<live_block> live;
   unsigned char next_fill = 1;
   for (;;) {
      unsigned char *p = static_cast<unsigned char *>(a.try_allocate(3000));
      if (p == nullptr) break;
      live.push_back({p, 3000, next_fill++});
      fill(live.back());
   }
   BOOST_TEST(live.size() > 40u);
   const ba::arena_statistics full = a.statistics();
   BOOST_TEST(a.try_allocate(100000) == nullptr);
   BOOST_CHECK_THROW((void)a.allocate(100000), std::bad_alloc);
   BOOST_TEST(a.statistics().regions == full.regions);   // nothing taken, nothing changed
   BOOST_TEST(a.statistics().bytes_available == full.bytes_available);
   BOOST_TEST(a.verify());
   for (const live_block &b : live) BOOST_TEST_REQUIRE(intact(b));
   // Half of them back: containers fill that, then fail, and stay as they were.
   for (std::size_t i = 0; i < live.size(); i += 2) a.deallocate(live[i].p);
   {
      std::vector<int, ba::arena_allocator<int>> v{ba::arena_allocator<int>(a)};
      ba::list<int, ba::arena_allocator<int>> l{ba::arena_allocator<int>(a)};
      std::size_t pushed = 0;
      bool threw = false;
      try {
         for (;; ++pushed) {
            v.push_back(static_cast<int>(pushed));
            l.push_back(static_cast<int>(pushed));
         }
      } catch (const std::bad_alloc &) {
         threw = true;
      }
      BOOST_TEST(threw);
      BOOST_TEST(v.size() >= pushed);
      BOOST_TEST(l.size() == pushed);
      for (std::size_t i = 0; i < pushed; ++i) BOOST_TEST_REQUIRE(v[i] == static_cast<int>(i));
      int expected = 0;
      for (int x : l) BOOST_TEST_REQUIRE(x == expected++);
      BOOST_TEST(a.verify());
   }
   for (std::size_t i = 1; i < live.size(); i += 2) BOOST_TEST_REQUIRE(intact(live[i]));
   a.release();
   BOOST_TEST(h.stats().in_use_bytes == in_use);
   BOOST_TEST(h.check());
}

// ---- misuse -----------------------------------------------------------------------------------

// What a free of a pointer that is no live block of the arena reports.
const char *const not_a_live_block =
   "ba::arena::deallocate: a block freed twice, not from this arena, or its header overwritten";

#if BOOST_ALLOCPLUS_CHECKED || defined(BOOST_ALLOCPLUS_CORE_ASAN)

BOOST_AUTO_TEST_CASE(a_double_free_is_reported)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(64);
         void *keep = a.allocate(64);
         (void)keep;
         a.deallocate(p);
         a.deallocate(p);
      },
      not_a_live_block,
      buffer + 16);
}

BOOST_AUTO_TEST_CASE(a_foreign_pointer_is_reported)
{
   static unsigned char buffer[8192];
   static std::int64_t elsewhere[4];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         (void)a.allocate(64);
         a.deallocate(&elsewhere[2]);
      },
      not_a_live_block, &elsewhere[2]);
}

// A pointer into none of a growing arena's regions, even one inside a region's memory (its
// record, before its first block), is foreign. The upstream is a heap over a static buffer, so
// the child's regions are where a first run in the parent found them.
BOOST_AUTO_TEST_CASE(a_pointer_into_no_region_of_a_growing_arena_is_reported)
{
   alignas(16) static unsigned char heap_buffer[64 * 1024];
   static unsigned char buffer[1024];
   const auto scenario = [&](bool misuse) {
      ba::heap h(heap_buffer, sizeof heap_buffer);
      ba::arena a(buffer, sizeof buffer, h);
      (void)a.allocate(2000);   // a region: the block right after its record
      void *p = a.allocate(3000);
      (void)a.allocate(64);
      a.deallocate(p);          // a block of a region behind the bump pointer's: fine
      unsigned char *record = static_cast<unsigned char *>(a.allocate(5000)) - 32;   // a third region's
      if (misuse) a.deallocate(record);
      a.release();
      return record;
   };
   unsigned char *const record = scenario(false);
   allocplus_test::expect_report([&] { (void)scenario(true); },
                                 not_a_live_block, record);
}

#endif

// ---- hardening: forged links and headers in freed memory (every build) -------------------------

namespace {

const char *const overwritten = "ba::arena: a free block is overwritten (a write after free, or an overflow?)";
const char *const no_block_after = "ba::arena: no block starts where the block before says it ends (a header "
                                   "overwritten by an overflow, or a write after free?)";

// Writes `value` at `where` in freed memory, as a write after free would. Not instrumented: under
// ASan the write itself would be reported, and it is the arena's own check this is about.
BOOST_ALLOCPLUS_CORE_NO_ASAN void write_after_free(void *where, std::uintptr_t value)
{
   *static_cast<volatile std::uintptr_t *>(where) = value;
}

// Reads a word the arena keeps poisoned under ASan (a header), as the overrun before a write would.
BOOST_ALLOCPLUS_CORE_NO_ASAN std::uintptr_t read_raw(const void *where)
{
   return *static_cast<const volatile std::uintptr_t *>(where);
}

// Where a write after free lands in a freed block whose user pointer was p: the slot list's link
// (protected as the arena protects it, so only the arena's checks stand in the way) ...
void forge_slot_link(void *p, const void *to)
{
   write_after_free(p, ba::ba_detail_link_key(p) ^ reinterpret_cast<std::uintptr_t>(to));
}

// ... and the tree's links: parent, left, right (boost::intrusive's compact red-black node).
void forge_tree_right_link(void *p, const void *to)
{
   write_after_free(static_cast<std::uintptr_t *>(p) + 2, reinterpret_cast<std::uintptr_t>(to));
}

void forge_tree_left_link(void *p, const void *to)
{
   write_after_free(static_cast<std::uintptr_t *>(p) + 1, reinterpret_cast<std::uintptr_t>(to));
}

} // namespace

BOOST_AUTO_TEST_CASE(a_slot_link_forged_to_a_stack_address_is_reported_never_followed)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char on_the_stack[64];
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(64);    // blocks of 80 bytes from the buffer's start
         void *second = a.allocate(64);
         (void)a.allocate(64);            // keeps them off the bump end
         a.deallocate(first);
         a.deallocate(second);            // the list: second, first
         forge_slot_link(second, on_the_stack + 16);
         void *p = a.allocate(64);        // second: reads the forged link and stops
         void *q = a.allocate(64);        // without the check: on_the_stack + 32
         std::printf("%p %p\n", p, q);
      },
      overwritten, buffer + 80);
}

// The same in a growing arena: the list's blocks are in the buffer, no longer the current region,
// and the forged link must still be found to name no region's block.
BOOST_AUTO_TEST_CASE(a_slot_link_forged_in_an_older_region_is_reported_never_followed)
{
   alignas(16) static unsigned char buffer[1024];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char on_the_stack[64];
         ba::arena a(buffer, sizeof buffer, ba_default_heap());
         void *first = a.allocate(64);
         void *second = a.allocate(64);
         (void)a.allocate(64);
         (void)a.allocate(2000);          // a region from the heap: the buffer is behind
         BOOST_TEST_REQUIRE(a.statistics().regions == 2u);
         a.deallocate(first);
         a.deallocate(second);
         forge_slot_link(second, on_the_stack + 16);
         void *p = a.allocate(64);
         void *q = a.allocate(64);
         std::printf("%p %p\n", p, q);
      },
      overwritten, buffer + 80);
}

BOOST_AUTO_TEST_CASE(a_slot_link_forged_to_a_live_block_is_reported_when_reached)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(64);
         void *second = a.allocate(64);
         void *live = a.allocate(64);     // its block starts at buffer + 160
         a.deallocate(first);
         a.deallocate(second);
         forge_slot_link(second, static_cast<unsigned char *>(live) - 16);
         void *p = a.allocate(64);        // second
         void *q = a.allocate(64);        // would be the live block again: its check word stops it
         std::printf("%p %p\n", p, q);
      },
      overwritten, buffer + 160);
}

BOOST_AUTO_TEST_CASE(a_slot_link_overwritten_with_plain_bytes_is_reported)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(64);
         (void)a.allocate(64);
         a.deallocate(first);
         write_after_free(first, 0x4141414141414141u);   // not protected: decodes to a wild address
         void *p = a.allocate(64);
         std::printf("%p\n", p);
      },
      overwritten, buffer);
}

BOOST_AUTO_TEST_CASE(a_tree_link_forged_to_a_stack_address_is_reported_never_followed)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char fake_node[64] = {};
         ba::arena a(buffer, sizeof buffer);
         void *root = a.allocate(20000);   // a block of 20016 bytes at the buffer's start
         (void)a.allocate(64);
         void *other = a.allocate(20000);
         (void)a.allocate(64);
         a.deallocate(root);
         a.deallocate(other);              // the tree: root, other on its right
         forge_tree_right_link(root, fake_node);
         void *p = a.allocate(20000);      // checks the root's links before it uses the tree
         std::printf("%p\n", p);
      },
      overwritten, buffer);
}

// The erase's rebalancing rotates around a sibling off the lookup's path and moves the sibling's
// child: a forged link there must be found before the rotation writes through it.
BOOST_AUTO_TEST_CASE(a_tree_link_off_the_lookup_path_is_reported_before_a_rotation_uses_it)
{
   alignas(16) static unsigned char buffer[1 << 18];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char fake_node[64] = {};
         ba::arena a(buffer, sizeof buffer);
         void *blocks[4];
         for (int i = 0; i < 4; ++i) {
            blocks[i] = a.allocate(20000 + 10000 * static_cast<std::size_t>(i));   // 20016, 30016... bytes
            (void)a.allocate(64);                                                 // 80 bytes between
         }
         // Freed in size order: the tree is 30K at the root, 20K and 40K black, 50K red right of 40K.
         for (void *b : blocks) a.deallocate(b);
         forge_tree_left_link(blocks[2], fake_node);   // 40K's left link (off the path to 20K)
         // Takes 20K, a black leaf: the rebalancing rotates left around 40K, which would set the
         // forged node's parent (a write to the stack) without the check.
         void *p = a.allocate(20000);
         std::printf("%p\n", p);
      },
      overwritten, buffer + 20016 + 80 + 30016 + 80);
}

// A free block over 16 KiB: header (16), the tree's links (24), the ring's next and previous.
void forge_ring_next_link(void *p, const void *to)
{
   write_after_free(static_cast<unsigned char *>(p) + 24, reinterpret_cast<std::uintptr_t>(to));
}

BOOST_AUTO_TEST_CASE(a_ring_link_forged_to_a_stack_address_is_reported_never_followed)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char on_the_stack[128];
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(20000);
         (void)a.allocate(64);
         void *second = a.allocate(20000);
         (void)a.allocate(64);
         a.deallocate(first);    // the tree's block of its size
         a.deallocate(second);   // in its ring
         forge_ring_next_link(first, on_the_stack + 56);   // links of an aligned "block" on the stack
         void *p = a.allocate(20000);   // would take the forged ring member
         std::printf("%p\n", p);
      },
      overwritten, buffer);
}

void forge_ring_previous_link(void *p, const void *to)
{
   write_after_free(static_cast<unsigned char *>(p) + 32, reinterpret_cast<std::uintptr_t>(to));
}

BOOST_AUTO_TEST_CASE(a_ring_link_forged_on_a_growth_into_a_ring_member_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         alignas(16) unsigned char on_the_stack[128];
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(1000);          // a block of 1024 bytes at the buffer's start
         void *member = a.allocate(20000);    // right after p
         (void)a.allocate(64);
         void *head = a.allocate(20000);
         (void)a.allocate(64);
         a.deallocate(head);     // the tree's block of its size
         a.deallocate(member);   // in its ring
         forge_ring_next_link(member, on_the_stack + 56);
         std::printf("%d\n", a.try_resize_in_place(p, 15000));   // would unlink member
      },
      overwritten, buffer + 1024);
}

// A block taken into its neighbour is no free block any more, though its old links are still
// there: a ring link forged to it must not hand out memory inside the live block.
BOOST_AUTO_TEST_CASE(a_ring_link_forged_to_a_block_taken_by_a_growth_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 17];
   unsigned char *const heir_block = buffer + 1024 + 20016 + 80;
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(1000);           // 1024 bytes
         unsigned char *n = static_cast<unsigned char *>(a.allocate(20000));   // 20016, after p
         (void)a.allocate(64);
         unsigned char *m = static_cast<unsigned char *>(a.allocate(20000));
         (void)a.allocate(64);
         a.deallocate(n);   // the tree's block of its size
         a.deallocate(m);   // in its ring
         if (!a.try_resize_in_place(p, 1024 + 20016 - 16)) std::abort();   // p takes all of n: m is the tree's now
         forge_ring_next_link(m, n + 24);   // n's old links, inside p
         forge_ring_previous_link(m, n + 24);
         void *q = a.allocate(20000);   // would be n, inside p
         std::printf("%p\n", q);
      },
      overwritten, heir_block);
}

// A node made its own parent and left child passes the checks of its neighbourhood (each link
// points back); a lookup that followed it would never end.
BOOST_AUTO_TEST_CASE(a_tree_link_forged_into_a_cycle_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *big = a.allocate(20000);
         (void)a.allocate(64);
         a.deallocate(big);   // the tree's root
         write_after_free(big, reinterpret_cast<std::uintptr_t>(big));   // its parent: itself
         forge_tree_left_link(big, big);                                 // its left child: itself
         void *p = a.allocate(20000);
         std::printf("%p\n", p);
      },
      overwritten, buffer);
}

BOOST_AUTO_TEST_CASE(a_ring_block_moved_to_the_tree_by_a_write_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(20000);
         (void)a.allocate(64);
         unsigned char *second = static_cast<unsigned char *>(a.allocate(20000));
         (void)a.allocate(64);
         a.deallocate(first);
         a.deallocate(second);   // in the ring: its header says so
         // An overrun rewrites the place in second's header (bytes 12-13, align_log2): now "in the tree".
         const std::uintptr_t word = read_raw(second - 8);
         write_after_free(second - 8, word & ~(static_cast<std::uintptr_t>(0xffff) << 32));
         a.defragment();   // the walk checks every free block
      },
      overwritten, buffer + 20016 + 80);
}

BOOST_AUTO_TEST_CASE(a_tree_block_size_overwritten_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 17];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *big = a.allocate(20000);
         (void)a.allocate(64);
         a.deallocate(big);
         write_after_free(buffer, 100000);   // an overrun backwards into the header's size
         void *p = a.allocate(30000);       // would split a block that is not there
         std::printf("%p\n", p);
      },
      overwritten, buffer);
}

// An overrun of one block rewrites the next one's header, its state left as it was: the free
// must not file a block where the forged lead says. lead_rewritten_then_freed(lead): the second of
// three 64-byte blocks is freed with its lead (the low half of the header's second word, beside
// the alignment and the state, which are kept) rewritten; the report names its user address.
namespace {

alignas(16) unsigned char lead_test_buffer[8192];
unsigned char *const lead_test_second_user = lead_test_buffer + 80 + 16;

void lead_rewritten_then_freed(std::uint32_t lead)
{
   ba::arena a(lead_test_buffer, sizeof lead_test_buffer);
   (void)a.allocate(64);
   void *second = a.allocate(64);
   (void)a.allocate(64);
   std::uintptr_t *header = static_cast<std::uintptr_t *>(second) - 2;
   write_after_free(header + 1, (read_raw(header + 1) & ~std::uintptr_t(0xffffffff)) | lead);
   a.deallocate(second);
}

} // namespace

// A lead of 256 MiB: far below the arena.
BOOST_AUTO_TEST_CASE(a_live_header_rewritten_by_an_overrun_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { lead_rewritten_then_freed(0x10000000u); },
                                 not_a_live_block,
                                 lead_test_second_user);
}

// A lead within bounds but not a whole number of granules would file a block that starts off
// the granule, which the arena hands out as if it were on one.
BOOST_AUTO_TEST_CASE(a_live_header_whose_lead_is_off_the_granule_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { lead_rewritten_then_freed(8); },
                                 not_a_live_block,
                                 lead_test_second_user);
}

// size_rewritten_then_freed(size): the second of four 64-byte blocks (80 bytes each with their
// headers; the third full of the user's bytes) is freed with its header's size rewritten.
namespace {

void size_rewritten_then_freed(std::uintptr_t size)
{
   ba::arena a(lead_test_buffer, sizeof lead_test_buffer);
   (void)a.allocate(64);
   void *second = a.allocate(64);
   void *third = a.allocate(64);
   (void)a.allocate(64);   // so that the third block does not end at the bump pointer
   std::memset(third, 0xAB, 64);
   write_after_free(static_cast<std::uintptr_t *>(second) - 2, size);
   a.deallocate(second);
}

} // namespace

// A size that reaches past the bump pointer (the free's fast path takes blocks of the current
// region up to 16 KiB): filed, it would hand out the bump room twice.
BOOST_AUTO_TEST_CASE(a_live_header_whose_size_reaches_past_the_bump_pointer_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { size_rewritten_then_freed(4096); }, not_a_live_block, lead_test_second_user);
}

// A size rewritten to end inside the next block (a live one): freed, the block would take the
// neighbour's first bytes with it, and a later allocation would hand them out while the
// neighbour still uses them. The size no longer matches the header's tag.
BOOST_AUTO_TEST_CASE(a_live_header_whose_size_ends_inside_its_neighbour_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { size_rewritten_then_freed(112); },   // 80 bytes of its own, 32 of the third's
                                 not_a_live_block, lead_test_second_user);
}

// A size one granule short (an off-by-one write of the block before into its low byte): the tag
// covers every bit of the size.
BOOST_AUTO_TEST_CASE(a_live_header_whose_size_lost_a_granule_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { size_rewritten_then_freed(64); }, not_a_live_block, lead_test_second_user);
}

// ---- a header that matches its tag is still bounded ----------------------------------------


namespace boost { namespace allocplus { namespace detail {
// What an overrun would need the key for: a header's tag, made here to test the checks that
// stand behind it (a header that matches its tag by one chance in 32768).
struct arena_test_access {
   static std::uint16_t live_tag(const arena &a, const void *start, std::size_t size, std::uint16_t align_log2)
   {
      return a.live_tag(static_cast<const unsigned char *>(start), size, align_log2);
   }
};
}}} // namespace boost::allocplus::detail

namespace {

// The header before `user` rewritten as an overrun would: size, lead, alignment, and the tag
// they make with the block's start (user - 16 - lead), so that it matches.
void forge_live_header(const ba::arena &a, void *user, std::size_t size, std::uint32_t lead, std::uint16_t align_log2)
{
   std::uintptr_t *header = static_cast<std::uintptr_t *>(user) - 2;
   const std::uint16_t tag =
      ba::detail::arena_test_access::live_tag(a, reinterpret_cast<unsigned char *>(header) - lead, size, align_log2);
   write_after_free(header, size);
   write_after_free(header + 1, lead | std::uintptr_t(align_log2) << 32 | std::uintptr_t(tag) << 48);
}

// forged_then_freed(size, lead, align_log2): the second of four 64-byte blocks freed with its
// header rewritten to the one given, its tag made to match.
void forged_then_freed(std::size_t size, std::uint32_t lead, std::uint16_t align_log2)
{
   ba::arena a(lead_test_buffer, sizeof lead_test_buffer);
   (void)a.allocate(64);
   void *second = a.allocate(64);
   (void)a.allocate(64);
   (void)a.allocate(64);
   forge_live_header(a, second, size, lead, align_log2);
   a.deallocate(second);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_whose_size_reaches_past_the_bump_pointer_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { forged_then_freed(4096, 0, 4); }, not_a_live_block, lead_test_second_user);
}

BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_whose_size_is_no_whole_granule_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { forged_then_freed(88, 0, 4); }, not_a_live_block, lead_test_second_user);
}

BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_whose_size_is_under_a_block_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { forged_then_freed(16, 0, 4); }, not_a_live_block, lead_test_second_user);
}

// A lead of a whole alignment: the block would start at the first block's last 16 bytes.
BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_whose_lead_is_not_under_its_alignment_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { forged_then_freed(80, 16, 4); }, not_a_live_block, lead_test_second_user);
}

// A lead reaching below the arena's first block.
BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_whose_lead_reaches_below_the_arena_is_reported_in_every_build)
{
   allocplus_test::expect_report([] { forged_then_freed(80, 1u << 20, 21); }, not_a_live_block, lead_test_second_user);
}

// Sound, the same forged header is freed as the block it describes: the checks above are what
// refused the others.
BOOST_AUTO_TEST_CASE(a_header_matching_its_tag_and_sound_is_freed)
{
   ba::arena a(lead_test_buffer, sizeof lead_test_buffer);
   void *first = a.allocate(64);
   void *second = a.allocate(64);
   void *third = a.allocate(64);
   void *fourth = a.allocate(64);
   forge_live_header(a, second, 80, 0, 4);
   a.deallocate(second);
   BOOST_TEST(a.free_blocks_of_size(80) == 1u);
   BOOST_TEST(a.verify());
   for (void *p : {first, third, fourth}) a.deallocate(p);
}

// An overrun that keeps a header's tag and rewrites its lead and size together: the lead adds
// 2^24 (the start moves down 16 MiB) and the size's bit 4 flips. Were the tag made of one product
// of start ^ size << 20, the two changes would cancel out for a start whose bit 24 is set, and
// the free would file a block 16 MiB below, inside a live one.
BOOST_AUTO_TEST_CASE(a_lead_and_a_size_rewritten_together_are_reported_in_every_build)
{
   constexpr std::size_t span = std::size_t(1) << 24;
   std::unique_ptr<unsigned char[]> memory(new unsigned char[5 * span]);   // (its pages untouched but a few)
   // The first block start at least 16 MiB up whose bit 24 is set: the victim's, after a filler.
   const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(memory.get()) + 15) / 16 * 16;
   const std::uintptr_t target = ((begin + span + 2 * span - 1) & ~(2 * span - 1)) | span;
   unsigned char *const victim_user = reinterpret_cast<unsigned char *>(target) + 16;
   allocplus_test::expect_report(
      [&] {
         ba::arena a(memory.get(), 5 * span);
         (void)a.allocate(target - begin - 16);
         void *victim = a.allocate(64);
         (void)a.allocate(64);
         if (victim != victim_user) std::abort();   // (the report's text would not match)
         std::uintptr_t *header = static_cast<std::uintptr_t *>(victim) - 2;
         write_after_free(header, read_raw(header) ^ 16);          // size 80 -> 64
         write_after_free(header + 1, read_raw(header + 1) + span);   // lead 0 -> 2^24, tag kept
         a.deallocate(victim);
      },
      not_a_live_block, victim_user);
}

// An overrun of a block into the next block's header: checked builds find it when the block
// that overran is freed (the header after it is no block's); every build finds it when the
// block whose header it rewrote is freed (its tag).
BOOST_AUTO_TEST_CASE(an_overrun_into_the_next_header_is_reported_at_the_first_free_that_reads_it)
{
   const auto overrun_then_free = [](bool free_the_overrun_block_first) {
      ba::arena a(lead_test_buffer, sizeof lead_test_buffer);
      (void)a.allocate(64);
      void *second = a.allocate(64);
      void *third = a.allocate(64);
      (void)a.allocate(64);
      std::uintptr_t *third_header = static_cast<std::uintptr_t *>(third) - 2;
      write_after_free(third_header, std::uintptr_t(0x4141414141414141));   // the size, as a string overrun writes it
      if (free_the_overrun_block_first) a.deallocate(second);
      a.deallocate(third);
   };
   allocplus_test::expect_report([&] { overrun_then_free(false); },
                                 not_a_live_block,
                                 static_cast<const void *>(lead_test_buffer + 160 + 16));
#if BOOST_ALLOCPLUS_CHECKED
   allocplus_test::expect_report([&] { overrun_then_free(true); }, no_block_after, lead_test_buffer + 160);
#else
   allocplus_test::expect_report([&] { overrun_then_free(true); },
                                 not_a_live_block,
                                 static_cast<const void *>(lead_test_buffer + 160 + 16));
#endif
}

// A pointer above the bump pointer whose header still says "live" (the arena released since):
// the free's fast path must not take it, where `top - start` would wrap and pass the size check,
// and file bump room the arena hands out again.
BOOST_AUTO_TEST_CASE(a_stale_pointer_above_the_bump_pointer_is_reported_in_every_build)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [] {
         ba::arena a(buffer, sizeof buffer);
         (void)a.allocate(64);
         (void)a.allocate(64);
         void *third = a.allocate(64);
         a.release();
         (void)a.allocate(64);
         a.deallocate(third);
      },
      not_a_live_block, buffer + 160 + 16);
}

BOOST_AUTO_TEST_CASE(a_double_free_is_reported_in_every_build)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(64);
         (void)a.allocate(64);
         a.deallocate(p);
         a.deallocate(p);
      },
      not_a_live_block, buffer + 16);
}

BOOST_AUTO_TEST_CASE(defragment_reports_a_free_block_overwritten)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *first = a.allocate(64);
         (void)a.allocate(64);
         a.deallocate(first);
         write_after_free(buffer, 4096);   // the free block's size: the walk would jump
         a.defragment();
      },
      overwritten, buffer);
}

#if BOOST_ALLOCPLUS_CHECKED

BOOST_AUTO_TEST_CASE(an_arena_used_from_two_threads_at_once_is_reported)
{
   alignas(16) static unsigned char buffer[1 << 16];
   ba::arena a(buffer, sizeof buffer);
   // A block kept live throughout: a free that empties the arena moves its bump pointer back to
   // the start under the other thread, whose next check then finds its own block outside the
   // arena and reports that first (1 run in 40), before the guard sees the two threads.
   void *kept = a.allocate(48);
   allocplus_test::expect_two_threads_reported([&] {
      void *p = a.allocate(48);
      a.deallocate(p);
   }, "ba::arena", &a);
   a.deallocate(kept);
}

BOOST_AUTO_TEST_CASE(a_reallocation_that_allocates_and_frees_is_one_use)
{
   // (A thread inside the arena may call it again: no report.)
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   void *p = a.allocate(32), *q = a.allocate(32);
   (void)q;
   void *r = a.reallocate(p, 200);   // moves: allocates, copies, frees
   BOOST_TEST(r != p);
   a.deallocate(r);
   a.deallocate(q);
}

BOOST_AUTO_TEST_CASE(an_arena_destroyed_with_live_blocks_reports_them)
{
   alignas(16) static unsigned char buffer[8192];
   alignas(ba::arena) static unsigned char storage[sizeof(ba::arena)];
   allocplus_test::expect_report(
      [&] {
         ba::arena *a = ::new (static_cast<void *>(storage)) ba::arena(buffer, sizeof buffer);
         (void)a->allocate(64);    // 80 block bytes
         (void)a->allocate(100);   // 128
         a->~arena();
      },
      "ba::arena: destroyed with 2 live blocks (208 bytes)", storage);
}

#endif

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)

namespace {

// Runs body in a child: ASan must stop it with a use-after-poison report.
template <class Body>
void expect_use_after_poison(Body body)
{
   const child_outcome out = run_in_child(body);
   BOOST_TEST(out.exit_code != 0);
   BOOST_TEST(out.err.find("use-after-poison") != std::string::npos);
}

// A read of a freed block of a (a neighbour kept live, so the block is filed, not bumped back).
void read_after_free(ba::arena &a)
{
   unsigned char *p = static_cast<unsigned char *>(a.allocate(64));
   (void)a.allocate(64);
   a.deallocate(p);
   allocplus_test::use(p[8]);
}

} // namespace

BOOST_AUTO_TEST_CASE(asan_sees_a_use_after_free_and_an_overflow_into_a_header)
{
   static unsigned char buffer[8192];
   expect_use_after_poison([&] {
      ba::arena a(buffer, sizeof buffer);
      read_after_free(a);
   });
   expect_use_after_poison([&] {
      ba::arena a(buffer, sizeof buffer);
      unsigned char *p = static_cast<unsigned char *>(a.allocate(64));
      (void)a.allocate(64);
      p[64 + 4] = 1;   // the next block's header
      a.release();
   });
}

BOOST_AUTO_TEST_CASE(asan_sees_a_use_after_free_and_the_room_past_the_bump_pointer_in_a_region)
{
   expect_use_after_poison([&] {
      ba::arena a(ba_default_heap());
      read_after_free(a);
   });
   expect_use_after_poison([&] {
      ba::arena a(ba_default_heap());
      unsigned char *p = static_cast<unsigned char *>(a.allocate(64));
      allocplus_test::use(p[200]);   // past the last block: room the arena has not handed out
      a.release();
   });
}

#endif

BOOST_AUTO_TEST_CASE(ba_vector_grows_in_place_at_the_bump_end)
{
   static unsigned char buffer[1 << 20];
   ba::arena a(buffer, sizeof buffer);
   ba::vector<std::int64_t, ba::arena_allocator<std::int64_t>> v{ba::arena_allocator<std::int64_t>(a)};
   v.push_back(0);
   const std::int64_t *first = v.data();
   for (std::int64_t i = 1; i < 50000; ++i) v.push_back(i);
   BOOST_TEST(v.data() == first);   // the vector's buffer is the arena's last block: never moved
   BOOST_TEST(a.statistics().live_blocks == 1u);
   for (std::int64_t i = 0; i < 50000; ++i) BOOST_TEST_REQUIRE(v[static_cast<std::size_t>(i)] == i);
   v.resize(10);
   v.shrink_to_fit();
   BOOST_TEST(v.data() == first);   // shrunk in place: the bump pointer took the rest back
   BOOST_TEST(a.statistics().bytes_allocated < 256u);
   BOOST_TEST(a.verify());
}

namespace {

// Bytes 0, 1, 2, ... in the first n bytes of p.
void fill_counting(void *p, std::size_t n)
{
   for (std::size_t i = 0; i != n; ++i) static_cast<unsigned char *>(p)[i] = static_cast<unsigned char>(i);
}

bool still_counting(const void *p, std::size_t n)
{
   for (std::size_t i = 0; i != n; ++i)
      if (static_cast<const unsigned char *>(p)[i] != static_cast<unsigned char>(i)) return false;
   return true;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_block_grows_in_place_into_a_free_small_block_after_it)
{
   alignas(16) static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   void *p = a.allocate(100);    // 128 block bytes
   void *q = a.allocate(200);    // 224, right after p
   (void)a.allocate(16);         // keeps q off the bump end
   fill_counting(p, 100);
   a.deallocate(q);
   BOOST_TEST(a.statistics().free_blocks_in_slots == 1u);
   // 250 bytes need 272 block bytes of the 352 the two hold: the other 80 are a free block again.
   BOOST_TEST(a.try_resize_in_place(p, 250));
   BOOST_TEST(a.capacity(p) == 256u);
   BOOST_TEST(still_counting(p, 100));
   BOOST_TEST(a.free_blocks_of_size(224) == 0u);
   BOOST_TEST(a.free_blocks_of_size(80) == 1u);
   BOOST_TEST(a.verify());
   std::memset(p, 7, a.capacity(p));   // every byte of the grown block is the caller's
   BOOST_TEST(a.verify());
   // A remainder too small for a block of its own stays with the block: 320 bytes need 336 of
   // the 352, and 16 bytes cannot be a block.
   BOOST_TEST(a.try_resize_in_place(p, 320));
   BOOST_TEST(a.capacity(p) == 336u);
   BOOST_TEST(a.statistics().free_blocks_in_slots == 0u);
   BOOST_TEST(a.verify());
   // The next block is live now: no growth, nothing changed.
   BOOST_TEST(!a.try_resize_in_place(p, 400));
   BOOST_TEST(a.capacity(p) == 336u);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(a_block_grows_in_place_into_a_free_tree_block_after_it)
{
   alignas(16) static unsigned char buffer[256 * 1024];
   ba::arena a(buffer, sizeof buffer);
   void *p = a.allocate(1000);
   void *big = a.allocate(40000);
   (void)a.allocate(16);
   fill_counting(p, 1000);
   a.deallocate(big);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);
   BOOST_TEST(a.try_resize_in_place(p, 20000));
   BOOST_TEST(a.capacity(p) >= 20000u);
   BOOST_TEST(a.capacity(p) < 20100u);
   BOOST_TEST(still_counting(p, 1000));
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.free_blocks_in_tree + s.free_blocks_in_slots == 1u);   // the remainder
   BOOST_TEST(a.verify());
   std::memset(p, 1, a.capacity(p));
   // reallocate takes the same way: the pointer stays.
   BOOST_TEST(a.reallocate(p, 30000) == p);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(a_block_grows_in_place_through_a_free_block_into_the_bump_room)
{
   alignas(16) static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *const p = static_cast<unsigned char *>(a.allocate(100));   // 128 block bytes
   void *q = a.allocate(200);                                                 // 224
   void *r = a.allocate(16);                                                  // 32
   a.deallocate(q);   // to its slot list
   a.deallocate(r);   // to the bump pointer, which now sits at q's end
   fill_counting(p, 100);
   const std::size_t room = a.statistics().bytes_available;
   // More than p and q hold together: q and some bump room.
   BOOST_TEST(a.try_resize_in_place(p, 1000));
   BOOST_TEST(a.capacity(p) == 1008u);
   BOOST_TEST(still_counting(p, 100));
   BOOST_TEST(a.statistics().free_blocks_in_slots == 0u);
   BOOST_TEST(a.statistics().bytes_available == room - (1024 - 128));
   BOOST_TEST(a.verify());
   // The block is at the bump end now: the next allocation comes right after it.
   void *after = a.allocate(16);
   BOOST_TEST(static_cast<unsigned char *>(after) == p + 1008 + 16);
   a.deallocate(after);
   a.deallocate(p);
   BOOST_TEST(a.statistics().bytes_available == a.statistics().buffer_size);
   // Less than the two hold: the bump pointer moves back to the block's new end.
   unsigned char *const p2 = static_cast<unsigned char *>(a.allocate(100));
   void *q2 = a.allocate(200);
   void *r2 = a.allocate(16);
   a.deallocate(q2);
   a.deallocate(r2);
   BOOST_TEST(a.try_resize_in_place(p2, 150));
   BOOST_TEST(a.capacity(p2) == 160u);
   BOOST_TEST(static_cast<unsigned char *>(a.allocate(16)) == p2 + 160 + 16);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(a_small_free_block_deep_in_its_slot_list_is_not_taken)
{
   alignas(16) static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   void *p = a.allocate(100);
   void *q = a.allocate(200);
   std::vector<void *> same_size;
   for (unsigned i = 0; i != ba::arena::slot_search_limit; ++i) {
      (void)a.allocate(16);   // keeps each off its neighbours
      same_size.push_back(a.allocate(200));
   }
   (void)a.allocate(16);
   a.deallocate(q);
   for (void *b : same_size) a.deallocate(b);   // q is now the last of its list's first nine
   BOOST_TEST(!a.try_resize_in_place(p, 250));
   BOOST_TEST(a.capacity(p) == 112u);
   BOOST_TEST(a.free_blocks_of_size(224) == ba::arena::slot_search_limit + 1);
   BOOST_TEST(a.verify());
   // One of them taken, q is within reach.
   (void)a.allocate(200);
   BOOST_TEST(a.try_resize_in_place(p, 250));
   BOOST_TEST(a.free_blocks_of_size(224) == ba::arena::slot_search_limit - 1);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(ba_vector_grows_in_place_into_a_freed_neighbour)
{
   alignas(16) static unsigned char buffer[256 * 1024];
   ba::arena a(buffer, sizeof buffer);
   using vector = ba::vector<std::int64_t, ba::arena_allocator<std::int64_t>>;
   vector v{ba::arena_allocator<std::int64_t>(a)};
   v.reserve(100);
   void *blocker;
   {
      vector neighbour{ba::arena_allocator<std::int64_t>(a)};
      neighbour.reserve(5000);   // a tree block, right after v's buffer
      blocker = a.allocate(16);  // and something after it
   }
   const std::int64_t *first = v.data();
   for (std::int64_t i = 0; i != 3000; ++i) v.push_back(i);
   BOOST_TEST(v.data() == first);
   for (std::int64_t i = 0; i != 3000; ++i) BOOST_TEST_REQUIRE(v[static_cast<std::size_t>(i)] == i);
   BOOST_TEST(a.verify());
   a.deallocate(blocker);
}

BOOST_AUTO_TEST_CASE(a_growth_into_a_forged_next_block_is_reported)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(64);    // 80 block bytes
         void *q = a.allocate(64);
         (void)a.allocate(64);
         a.deallocate(q);
         // A write after free rewrites q's size: the free block would reach past its neighbour.
         write_after_free(buffer + 80, read_raw(buffer + 80) + 160);
         std::printf("%d\n", a.try_resize_in_place(p, 200));
      },
      no_block_after, buffer + 80);
}

BOOST_AUTO_TEST_CASE(large_free_blocks_of_one_size_share_a_ring_and_are_all_reused)
{
   static unsigned char buffer[1 << 20];
   ba::arena a(buffer, sizeof buffer);
   std::vector<void *> blocks, keep;
   for (int i = 0; i != 20; ++i) {
      blocks.push_back(a.allocate(20000));
      keep.push_back(a.allocate(16));
   }
   for (void *b : blocks) a.deallocate(b);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 20u);
   BOOST_TEST(a.verify());
   // A block of another size joins the tree beside them.
   void *other = a.allocate(30000);
   (void)a.allocate(16);
   a.deallocate(other);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 21u);
   BOOST_TEST(a.verify());
   // Every block of the ring is handed out again, none twice, none split.
   std::vector<void *> again;
   for (int i = 0; i != 20; ++i) {
      again.push_back(a.allocate(20000));
      BOOST_TEST(a.verify());
   }
   std::sort(blocks.begin(), blocks.end());
   std::sort(again.begin(), again.end());
   BOOST_TEST(again == blocks);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 1u);
   BOOST_TEST(a.allocate(30000) == other);
   BOOST_TEST(a.statistics().free_blocks_in_tree == 0u);
   a.release();
}

BOOST_AUTO_TEST_CASE(a_block_grows_into_a_large_neighbour_in_a_ring_or_at_its_head)
{
   static unsigned char buffer[1 << 20];
   for (const bool neighbour_freed_first : {true, false}) {
      ba::arena a(buffer, sizeof buffer);
      void *p = a.allocate(1000);
      void *neighbour = a.allocate(20000);
      (void)a.allocate(16);
      std::vector<void *> same;
      for (int i = 0; i != 3; ++i) {
         same.push_back(a.allocate(20000));
         (void)a.allocate(16);
      }
      // Freed first, the neighbour is the tree's block of its size and the others join its ring
      // (taking it makes one of them the tree's); freed last, it is in the ring.
      if (neighbour_freed_first) a.deallocate(neighbour);
      for (void *b : same) a.deallocate(b);
      if (!neighbour_freed_first) a.deallocate(neighbour);
      BOOST_TEST(a.statistics().free_blocks_in_tree == 4u);
      fill_counting(p, 1000);
      BOOST_TEST(a.try_resize_in_place(p, 15000));
      BOOST_TEST(still_counting(p, 1000));
      BOOST_TEST(a.verify());
      const ba::arena_statistics s = a.statistics();
      BOOST_TEST(s.free_blocks_in_tree == 3u);       // the other three
      BOOST_TEST(s.free_blocks_in_slots == 1u);      // what p did not need of the neighbour
      for (int i = 0; i != 3; ++i) BOOST_TEST(a.allocate(20000) != nullptr);
      BOOST_TEST(a.statistics().free_blocks_in_tree == 0u);
      BOOST_TEST(a.verify());
      a.release();
   }
}

BOOST_AUTO_TEST_CASE(random_large_blocks_of_few_sizes_match_a_model)
{
   // Rings of same-size free blocks form and drain all the time: takes from a ring, a tree block
   // leaving with its ring's next block as heir (growth into a neighbour), defragmentation.
   ba::arena a(big_buffer, sizeof big_buffer);
   std::mt19937 rng(2204);
   std::vector<live_block> live;
   const std::size_t sizes[] = {17000, 20000, 33000, 48};
   unsigned char next_fill = 1;
   std::size_t grown = 0, most_in_tree = 0;
   for (int step = 0; step < 6000; ++step) {
      const unsigned op = rng() % 10;
      if (op < 5 || live.empty()) {
         const std::size_t size = sizes[rng() % 4];
         unsigned char *p = static_cast<unsigned char *>(a.try_allocate(size));
         if (p == nullptr) continue;
         live.push_back({p, size, next_fill++});
         fill(live.back());
      } else if (op < 9) {
         const std::size_t i = rng() % live.size();
         BOOST_TEST(intact(live[i]));
         a.deallocate(live[i].p);
         live[i] = live.back();
         live.pop_back();
      } else {
         const std::size_t i = rng() % live.size();
         const std::size_t size = live[i].size + 1000 + rng() % 30000;
         if (a.try_resize_in_place(live[i].p, size)) {
            BOOST_TEST(intact(live[i]));
            live[i].size = size;
            fill(live[i]);
            ++grown;
         }
      }
      if (step % 211 == 0) (void)a.defragment();
      BOOST_TEST_REQUIRE(a.verify());
      most_in_tree = std::max(most_in_tree, a.statistics().free_blocks_in_tree);
   }
   BOOST_TEST(grown > 0u);
   BOOST_TEST(most_in_tree > 5u);
   for (const live_block &b : live) {
      BOOST_TEST(intact(b));
      a.deallocate(b.p);
   }
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(allocation_command_and_bursts)
{
   static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   ba::arena_allocator<int> al(a);
   std::size_t received = 100;
   int *reuse = nullptr;
   int *p = al.allocation_command(ba::allocate_new | ba::zero_memory, 10, received, reuse);
   BOOST_TEST(received >= 100u);
   BOOST_TEST(std::count(p, p + received, 0) == static_cast<std::ptrdiff_t>(received));
   void *blocker = a.allocate(16);
   // Not at the bump end: no forward growth; with allocate_new a new block.
   received = 1000;
   reuse = p;
   BOOST_TEST(al.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 500, received, reuse) == nullptr);
   int *q = al.allocation_command(ba::expand_fwd | ba::allocate_new, 500, received, reuse);
   BOOST_TEST(q != p);
   BOOST_TEST(reuse == nullptr);
   al.deallocate(p, 0);
   // q is at the bump end: it grows there.
   received = 4000;
   reuse = q;
   BOOST_TEST(al.allocation_command(ba::expand_fwd, 2000, received, reuse) == q);
   BOOST_TEST(received >= 4000u);
   received = 10;
   BOOST_TEST(al.allocation_command(ba::shrink_in_place, 100, received, reuse) == q);
   BOOST_TEST(received >= 10u);
   BOOST_TEST(received <= 100u);
   BOOST_CHECK_THROW((void)al.allocation_command(ba::expand_fwd, 1 << 20, received, reuse), std::bad_alloc);
   {
      // An expansion to less than the block holds never shrinks it, and zeroes nothing (the
      // bytes it would zero were counted from the old capacity: an unsigned underflow before).
      const std::size_t held = al.size(q);
      q[held - 1] = 42;
      received = 1;
      BOOST_TEST(al.allocation_command(ba::expand_fwd | ba::zero_memory, 2, received, reuse) == q);
      BOOST_TEST(received == held);
      BOOST_TEST(al.size(q) == held);
      BOOST_TEST(q[held - 1] == 42);
   }
   {
      // A shrink that would leave more than limit fails without touching the block: the caller
      // keeps using all of it (the block used to be cut first, its tail then written over).
      ba::arena_allocator<char> chars(a);
      for (const bool at_bump_end : {true, false}) {
         char *c = chars.allocate(64);
         const std::size_t held = a.capacity(c);   // (72: a compact block of 80 bytes)
         char *after = at_bump_end ? nullptr : chars.allocate(16);
         std::size_t want = 17;   // 24 bytes at least (the smallest block): over the limit of 20
         char *keep = c;
         BOOST_TEST(chars.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, 20, want, keep) == nullptr);
         BOOST_TEST(a.capacity(c) == held);
         BOOST_TEST(a.verify());
         if (after) chars.deallocate(after, 16);
         chars.deallocate(c, 64);
      }
   }
   al.deallocate(q, 0);
   a.deallocate(blocker);
   ba::arena_allocator<int>::multiallocation_chain chain;
   al.allocate_individual(20, chain);
   BOOST_TEST(chain.size() == 20u);
   BOOST_TEST(a.statistics().live_blocks == 20u);
   al.deallocate_individual(chain);
   BOOST_TEST(a.statistics().live_blocks == 0u);
   BOOST_CHECK_THROW(al.allocate_many(4000, 10, chain), std::bad_alloc);   // 160 KB: more than the buffer
   BOOST_TEST(chain.empty());
   BOOST_TEST(a.statistics().live_blocks == 0u);
   BOOST_TEST(a.verify());
}

// ---- compact blocks: a header of one word for small requests at 8-byte alignment or less ------

BOOST_AUTO_TEST_CASE(a_node_of_three_pointers_takes_a_compact_block_of_32_bytes)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *x = static_cast<unsigned char *>(a.allocate(24, 8));
   unsigned char *y = static_cast<unsigned char *>(a.allocate(24, 8));
   BOOST_TEST(x == buffer + 8);   // one word of header, the pointer 8 mod 16
   BOOST_TEST(y == x + 32);
   BOOST_TEST(a.capacity(x) == 24u);
   unsigned char *z = static_cast<unsigned char *>(a.allocate(40, 4));   // 40 + 8: a block of 48
   BOOST_TEST(z == y + 32);
   BOOST_TEST(a.capacity(z) == 40u);
   // A node that fills its last granule (a std::map<int64_t, int64_t> node): compact too, in a
   // block as large as a full header's (48 + 8: 64 bytes), with 8 bytes more to use.
   unsigned char *m = static_cast<unsigned char *>(a.allocate(48, 8));
   BOOST_TEST(m == z + 40 + 8);
   BOOST_TEST(a.capacity(m) == 56u);
   // A size over 256 bytes that fills its last granule, or a request for 16-byte alignment: a
   // full header.
   unsigned char *w = static_cast<unsigned char *>(a.allocate(272, 8));
   BOOST_TEST(w == m + 56 + 16);
   BOOST_TEST(aligned(w, 16));
   BOOST_TEST(a.capacity(w) == 272u);
   unsigned char *v = static_cast<unsigned char *>(a.allocate(24));
   BOOST_TEST(aligned(v, 16));
   BOOST_TEST(a.capacity(v) == 32u);
   std::memset(x, 1, 24);
   std::memset(y, 2, 24);
   std::memset(z, 3, 40);
   std::memset(m, 4, 56);
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.live_blocks == 6u);
   BOOST_TEST(s.bytes_overhead == 4 * 8u + 2 * 16u);
   BOOST_TEST(s.bytes_allocated == 32u + 32u + 48u + 64u + 288u + 48u);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.owns(x));
   // Freed, a compact block is a free block like any other: here a full block of 32 bytes takes it.
   a.deallocate(y);
   BOOST_TEST(a.free_blocks_of_size(32) == 1u);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.allocate(16) == y + 8);
   BOOST_TEST(a.verify());
   BOOST_TEST(std::all_of(x, x + 24, [](unsigned char c) { return c == 1; }));
   BOOST_TEST(std::all_of(z, z + 40, [](unsigned char c) { return c == 3; }));
   BOOST_TEST(std::all_of(m, m + 56, [](unsigned char c) { return c == 4; }));
   a.release();
}

BOOST_AUTO_TEST_CASE(a_compact_block_resizes_in_place_and_moves_as_a_block_of_its_alignment)
{
   alignas(16) unsigned char buffer[8192];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *x = static_cast<unsigned char *>(a.allocate(24, 8));
   std::memset(x, 7, 24);
   BOOST_TEST(ba::arena::resized_capacity(x, 100) == 104u);   // 100 + 8: 112 bytes
   BOOST_TEST(a.try_resize_in_place(x, 100));                  // at the bump end
   BOOST_TEST(a.capacity(x) == 104u);
   BOOST_TEST(std::all_of(x, x + 24, [](unsigned char c) { return c == 7; }));
   BOOST_TEST(ba::arena::resized_capacity(x, 8) == 24u);       // the smallest block: 32 bytes
   BOOST_TEST(a.try_resize_in_place(x, 8));
   BOOST_TEST(a.capacity(x) == 24u);
   BOOST_TEST(a.statistics().bytes_allocated == 32u);
   BOOST_TEST(a.verify());
   unsigned char *after = static_cast<unsigned char *>(a.allocate(64));
   // Not at the bump end, nothing free after it: a move, to a block of the same alignment.
   unsigned char *moved = static_cast<unsigned char *>(a.reallocate(x, 1000));   // 1000 + 8: compact
   BOOST_TEST(moved != x);
   BOOST_TEST(a.capacity(moved) == 1000u);
   BOOST_TEST(!aligned(moved, 16));
   BOOST_TEST(std::all_of(moved, moved + 8, [](unsigned char c) { return c == 7; }));
   BOOST_TEST(a.verify());
   // A block of the full kind keeps 16 bytes of header in the same prediction.
   BOOST_TEST(ba::arena::resized_capacity(after, 100) == 112u);
   a.deallocate(after);
   unsigned char *y = static_cast<unsigned char *>(a.allocate(24, 8));   // x's old block, from its slot list
   BOOST_TEST(y == x);
   BOOST_TEST(a.verify());
   a.deallocate(y);
   a.deallocate(moved);
   BOOST_TEST(a.statistics().bytes_allocated == 0u);
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(a_compact_block_grows_into_the_free_block_after_it)
{
   alignas(16) unsigned char buffer[8192];
   ba::arena a(buffer, sizeof buffer);
   unsigned char *x = static_cast<unsigned char *>(a.allocate(24, 8));
   void *next = a.allocate(100);   // 128 bytes
   void *keep = a.allocate(16);
   std::memset(x, 5, 24);
   a.deallocate(next);
   // 120 + 8: 128 bytes of the 32 + 128 it reaches; the last 32 split off as a free block.
   BOOST_TEST(a.try_resize_in_place(x, 120));
   BOOST_TEST(a.capacity(x) == 120u);
   BOOST_TEST(a.free_blocks_of_size(32) == 1u);
   BOOST_TEST(std::all_of(x, x + 24, [](unsigned char c) { return c == 5; }));
   BOOST_TEST(a.verify());
   BOOST_TEST(a.try_resize_in_place(x, 40));   // cut to 48: the tail of 80 filed
   BOOST_TEST(a.capacity(x) == 40u);
   BOOST_TEST(a.free_blocks_of_size(80) == 1u);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.defragment().free_blocks_after == 1u);   // the two tails, one block
   BOOST_TEST(a.free_blocks_of_size(112) == 1u);
   a.deallocate(x);
   a.deallocate(keep);
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(defragment_and_the_walks_step_over_compact_blocks)
{
   alignas(16) unsigned char buffer[16384];
   ba::arena a(buffer, sizeof buffer);
   std::vector<void *> blocks;
   for (int i = 0; i != 60; ++i) blocks.push_back(a.allocate(i % 3 == 0 ? 24 : i % 3 == 1 ? 40 : 64, i % 2 ? 8 : 16));
   for (std::size_t i = 0; i < blocks.size(); i += 3) a.deallocate(blocks[i]);
   for (std::size_t i = 1; i < blocks.size(); i += 3) a.deallocate(blocks[i]);
   BOOST_TEST(a.verify());
   const ba::arena_defragment_result r = a.defragment();
   BOOST_TEST(r.free_blocks_after < r.free_blocks_before);
   BOOST_TEST(a.verify());
   for (std::size_t i = 2; i < blocks.size(); i += 3) a.deallocate(blocks[i]);
   BOOST_TEST(a.statistics().bytes_allocated == 0u);
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(std_containers_of_small_nodes_take_compact_blocks)
{
   alignas(16) static unsigned char buffer[64 * 1024];
   ba::arena a(buffer, sizeof buffer);
   {
      std::list<std::int64_t, ba::arena_allocator<std::int64_t>> l{ba::arena_allocator<std::int64_t>(a)};
      for (std::int64_t i = 0; i != 100; ++i) l.push_back(i);
      // A node of two links and a 64-bit value: 24 bytes, a block of 32.
      BOOST_TEST(a.statistics().bytes_allocated == 100 * 32u);
      BOOST_TEST(a.statistics().bytes_overhead == 100 * 8u);
      for (std::int64_t &x : l) BOOST_TEST(!aligned(&x, 16));
      std::int64_t expected = 0;
      for (std::int64_t x : l) BOOST_TEST_REQUIRE(x == expected++);
      BOOST_TEST(a.verify());
   }
   BOOST_TEST(a.statistics().live_blocks == 0u);
   {
      // A shrink whose result would be over limit for a compact block is refused untouched.
      ba::arena_allocator<char> chars(a);
      char *c = chars.allocate(72);   // compact: 80 bytes, 72 of them the caller's
      (void)chars.allocate(16);
      std::size_t want = 17;          // 17 + 8: 32 bytes, 24 of them the caller's
      char *keep = c;
      BOOST_TEST(static_cast<void *>(chars.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, 20, want,
                                                              keep)) == nullptr);
      BOOST_TEST(a.capacity(c) == 72u);
      want = 17;
      BOOST_TEST(static_cast<void *>(chars.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, 24, want,
                                                              keep)) == static_cast<void *>(c));
      BOOST_TEST(want == 24u);
      BOOST_TEST(a.free_blocks_of_size(48) == 1u);   // the tail cut off
      BOOST_TEST(a.verify());
   }
   a.release();
}

// A block of 0 bytes at an alignment larger than its header: its pointer is inside its block,
// so the free of a block at the bump end finds it (it used to be the block's end, reported as
// not from this arena), and a shrink to 0 keeps it inside too.
BOOST_AUTO_TEST_CASE(a_block_of_0_bytes_at_a_large_alignment_is_freed_at_the_bump_end)
{
   alignas(4096) static unsigned char buffer[8192];
   ba::arena a(buffer, sizeof buffer);
   void *p = a.allocate(0, 512);
   BOOST_TEST(aligned(p, 512));
   BOOST_TEST(a.capacity(p) >= 1u);
   a.deallocate(p);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.statistics().bytes_allocated == 0u);
   void *q = a.allocate(100, 512);
   BOOST_TEST(a.try_resize_in_place(q, 0));
   BOOST_TEST(a.capacity(q) >= 1u);
   BOOST_TEST(a.verify());
   a.deallocate(q);
   BOOST_TEST(a.verify());
   BOOST_TEST(a.statistics().bytes_allocated == 0u);
}

// The last live block freed empties the arena, and a block handed out later holds the freed
// block's old start in its user bytes, which its owner has not written: the stale pointer's word
// must not read as live there.
BOOST_AUTO_TEST_CASE(a_compact_block_freed_again_after_the_arena_emptied_is_reported_in_every_build)
{
   alignas(16) static unsigned char buffer[4096];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *w = a.allocate(16);      // [0, 32)
         void *x = a.allocate(24, 8);   // [32, 64), compact
         void *y = a.allocate(24, 8);
         void *z = a.allocate(24, 8);
         a.deallocate(w);
         a.deallocate(y);
         a.deallocate(z);               // at the bump end
         a.deallocate(x);               // the last live block, on the free's fast path: the arena is empty
         (void)a.allocate(40);          // [0, 64): x's old start lies in its user bytes
         a.deallocate(x);
      },
      not_a_live_block, buffer + 40);
}

BOOST_AUTO_TEST_CASE(release_forgets_compact_blocks_too)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   (void)a.allocate(24, 8);
   (void)a.allocate(64);
   a.release();
   BOOST_TEST(a.verify());
   const ba::arena_statistics s = a.statistics();
   BOOST_TEST(s.live_blocks == 0u);
   BOOST_TEST(s.bytes_overhead == 0u);
   (void)a.allocate(24, 8);
   BOOST_TEST(a.statistics().bytes_overhead == 8u);
   BOOST_TEST(a.verify());
   a.release();
}

BOOST_AUTO_TEST_CASE(a_small_alignment_that_is_no_power_of_two_is_refused)
{
   alignas(16) unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   for (std::size_t al : {0, 3, 5, 6, 7}) {
      BOOST_TEST(a.try_allocate(24, al) == nullptr);
      BOOST_CHECK_THROW((void)a.allocate(24, al), std::invalid_argument);
   }
   BOOST_TEST(a.statistics().live_blocks == 0u);
   // A size no block could hold: no prediction of a block for it either.
   void *p = a.allocate(24, 8);
   BOOST_TEST(ba::arena::resized_capacity(p, static_cast<std::size_t>(-1)) == static_cast<std::size_t>(-1));
   BOOST_TEST(!a.try_resize_in_place(p, static_cast<std::size_t>(-1) - 8));
   BOOST_TEST(a.try_reallocate(p, static_cast<std::size_t>(-1) - 8) == nullptr);
   BOOST_TEST(a.capacity(p) == 24u);
   a.deallocate(p);
   BOOST_TEST(a.verify());
}

BOOST_AUTO_TEST_CASE(a_compact_block_freed_twice_is_reported_in_every_build)
{
   alignas(16) static unsigned char buffer[8192];
   allocplus_test::expect_report(
      [&] {
         ba::arena a(buffer, sizeof buffer);
         void *p = a.allocate(24, 8);
         (void)a.allocate(24, 8);
         a.deallocate(p);
         a.deallocate(p);
      },
      not_a_live_block, buffer + 8);
}

namespace {

// The second of three compact blocks of 32 bytes, its header word rewritten to `word` (an
// overrun of the first), then freed.
alignas(16) unsigned char compact_test_buffer[4096];
unsigned char *const compact_test_second_user = compact_test_buffer + 32 + 8;

// (word(a): the word, made with the arena's key if it is to match its tag.)
template <class Word>
void compact_word_rewritten_then_freed(Word word)
{
   ba::arena a(compact_test_buffer, sizeof compact_test_buffer);
   (void)a.allocate(24, 8);
   void *second = a.allocate(24, 8);
   (void)a.allocate(24, 8);
   write_after_free(static_cast<std::uintptr_t *>(second) - 1, word(a));
   a.deallocate(second);
}

// The header word of a compact block of `size` bytes at the second block's start, its tag made
// with a's key: what a forger who knew the key would write.
std::uintptr_t forged_compact_word(const ba::arena &a, std::size_t size)
{
   const std::uint16_t tag = ba::detail::arena_test_access::live_tag(a, compact_test_second_user - 8, size, 3);
   return size | 1u | std::uintptr_t(tag) << 48;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_compact_header_rewritten_by_an_overrun_is_reported_in_every_build)
{
   // The bytes an overrun of the block before writes: its own data, no tag.
   allocplus_test::expect_report(
      [] { compact_word_rewritten_then_freed([](const ba::arena &) { return std::uintptr_t(0x4141414141414141u); }); },
      not_a_live_block, compact_test_second_user);
   // The size alone, as a full header would have it (the flag gone): not a live compact block.
   allocplus_test::expect_report(
      [] { compact_word_rewritten_then_freed([](const ba::arena &) { return std::uintptr_t(32); }); },
      not_a_live_block, compact_test_second_user);
}

BOOST_AUTO_TEST_CASE(a_compact_header_matching_its_tag_whose_size_reaches_past_the_bump_pointer_is_reported_in_every_build)
{
   allocplus_test::expect_report(
      [] { compact_word_rewritten_then_freed([](const ba::arena &a) { return forged_compact_word(a, 4096); }); },
      not_a_live_block, compact_test_second_user);
   // Under the smallest block: the free would file a block that cannot hold a free block's links.
   allocplus_test::expect_report(
      [] { compact_word_rewritten_then_freed([](const ba::arena &a) { return forged_compact_word(a, 16); }); },
      not_a_live_block, compact_test_second_user);
}

// The control of the two tests above: the word forged for the block's own size is accepted, so
// that what refused theirs is the size they forged, not a word made wrong.
BOOST_AUTO_TEST_CASE(a_compact_header_matching_its_tag_and_sound_is_freed)
{
   ba::arena a(compact_test_buffer, sizeof compact_test_buffer);
   (void)a.allocate(24, 8);
   void *second = a.allocate(24, 8);
   (void)a.allocate(24, 8);
   write_after_free(static_cast<std::uintptr_t *>(second) - 1, forged_compact_word(a, 32));
   a.deallocate(second);
   BOOST_TEST(a.free_blocks_of_size(32) == 1u);
   BOOST_TEST(a.verify());
   a.release();
}

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
BOOST_AUTO_TEST_CASE(asan_sees_an_overflow_into_a_compact_header)
{
   static unsigned char buffer[8192];
   expect_use_after_poison([&] {
      ba::arena a(buffer, sizeof buffer);
      unsigned char *p = static_cast<unsigned char *>(a.allocate(24, 8));
      (void)a.allocate(24, 8);
      p[24 + 2] = 1;   // the next block's header word
      a.release();
   });
}
#endif
