// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::adaptive_pool, ba::private_adaptive_pool and their engine (detail/adaptive_node_pool.hpp):
// the block geometry for every node size and overhead, the invariant walk after every step of a
// random run against a model, the blocks given back (MaxFreeBlocks, proved by the core's
// statistics), the handle's semantics, threads freeing each other's nodes, exhaustion, and the
// misuse reports.

#define BOOST_TEST_MODULE allocplus adaptive_pool
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>

#include "support/burst_routes.hpp"
#include "support/tracked.hpp"
#include "support/usage_reports.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ba = boost::allocplus;
using ba::detail::adaptive_node_pool;
using ba::detail::adaptive_pool_geometry;

namespace {

template <class T, std::size_t P = 5, std::size_t MaxFree = 2>
using pap = ba::private_adaptive_pool<T, 256, MaxFree, P>;

bool aligned(const void *p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

std::size_t heap_in_use()
{
   ba_thread_cache_flush();
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_bytes;
}

struct alignas(64) wide {
   char bytes[64];
};

constexpr std::size_t overheads[] = {0, 1, 2, 5, 10};

} // namespace

BOOST_AUTO_TEST_CASE(geometry_for_every_node_size_and_overhead)
{
   static_assert(BA_CHUNK_OVERHEAD == sizeof(std::size_t), "the core's header is a word");
   for (std::size_t percent : overheads) {
      for (std::size_t size = 1; size <= 512; ++size) {
         for (std::size_t align : {std::size_t(1), std::size_t(8), std::size_t(16)}) {
            if (size % align != 0) continue;
            const adaptive_node_pool::parameters params{256, 2, percent};
            const adaptive_pool_geometry g = adaptive_node_pool::geometry_for(size, align, params);
            const std::size_t node = adaptive_node_pool::node_size_for(size, align);
            BOOST_TEST_INFO("size " << size << " align " << align << " overhead " << percent);
            BOOST_TEST_REQUIRE(g.valid());
            BOOST_TEST(g.nodes_per_block >= 256u);
            BOOST_TEST((g.alignment & (g.alignment - 1)) == 0u);
            BOOST_TEST(g.request_bytes + BA_CHUNK_OVERHEAD == g.footprint());
            BOOST_TEST(g.first_offset % std::max<std::size_t>(align, 8) == 0u);
            BOOST_TEST(g.first_offset >= g.header_offset + adaptive_node_pool::header_bytes());
            if (percent == 0) BOOST_TEST(g.subblocks == 1u);
            else BOOST_TEST(g.overhead_bytes(node) * 100 <= percent * g.footprint());
            // Every node ends inside its sub-block (and the last before the core's next header).
            BOOST_TEST(g.first_offset + g.nodes_first * node <= g.alignment - (g.subblocks == 1 ? BA_CHUNK_OVERHEAD : 0));
            if (g.subblocks > 1) BOOST_TEST(g.other_offset + g.nodes_last * node <= g.alignment - BA_CHUNK_OVERHEAD);
         }
      }
   }
}

BOOST_AUTO_TEST_CASE(masking_finds_the_header_of_every_node)
{
   // Two blocks of nodes of each size from pools of each overhead: every node is aligned, inside a
   // block, and goes back (the check word of its header is found by masking its address).
   for (std::size_t percent : overheads) {
      for (std::size_t size = 8; size <= 512; size += (size < 64 ? 8 : 40)) {
         adaptive_node_pool pool("test pool", size, 8, adaptive_node_pool::parameters{256, 1, percent});
         const std::size_t n = 2 * pool.geometry().nodes_per_block + 1;
         std::vector<void *> nodes;
         for (std::size_t i = 0; i < n; ++i) {
            void *p = pool.allocate();
            BOOST_TEST(aligned(p, 8));
            BOOST_TEST(pool.owns(p));
            std::memset(p, 0xab, pool.node_size());
            nodes.push_back(p);
         }
         BOOST_TEST(pool.statistics().blocks == 3u);
         BOOST_TEST(pool.check() == nullptr);
         std::shuffle(nodes.begin(), nodes.end(), std::mt19937(static_cast<unsigned>(size)));
         for (void *p : nodes) pool.deallocate(p);
         BOOST_TEST_INFO("size " << size << " overhead " << percent);
         BOOST_TEST(pool.check() == nullptr);
         BOOST_TEST(pool.statistics().blocks == 1u);   // MaxFreeBlocks 1: the others went back
      }
   }
}

BOOST_AUTO_TEST_CASE(random_run_against_a_model_with_the_walk_after_every_step)
{
   // (One sub-block a block; several: 256 nodes of 40 bytes at 5% are 3 sub-blocks of 4 KiB.)
   for (auto [nodes, percent] : {std::pair<std::size_t, std::size_t>{64, 0}, {64, 2}, {256, 5}}) {
      adaptive_node_pool pool("test pool", 40, 8, adaptive_node_pool::parameters{nodes, 2, percent});
      BOOST_TEST_INFO("nodes " << nodes << " overhead " << percent << ": " << pool.geometry().subblocks << " sub-blocks");
      std::vector<std::pair<unsigned char *, unsigned char>> live;   // node, its fill
      std::mt19937 rng(42);
      for (int step = 0; step < 6000; ++step) {
         const bool grow = step % 2000 < 1200;   // phases that fill and drain the pool
         if (rng() % 10 == 0) {   // a burst, block by block
            const std::size_t n = rng() % 80;
            const std::size_t got = pool.try_allocate_many(n, [&](void *node) {
               const auto fill = static_cast<unsigned char>(rng());
               std::memset(node, fill, 40);
               live.emplace_back(static_cast<unsigned char *>(node), fill);
            });
            BOOST_TEST_REQUIRE(got == n);
         } else if (rng() % 10 == 0 && !live.empty()) {   // nodes given back in one call
            // Some in address order (runs in one block, which may drain in the middle of one),
            // some shuffled.
            const std::size_t n = 1 + rng() % live.size();
            std::shuffle(live.begin(), live.end(), rng);
            if (rng() % 2) std::sort(live.end() - static_cast<std::ptrdiff_t>(n), live.end());
            for (std::size_t i = live.size() - n; i < live.size(); ++i)
               BOOST_TEST((std::count(live[i].first, live[i].first + 40, live[i].second) == 40));
            std::size_t given = live.size() - n;
            pool.deallocate_many([&]() -> void * { return given == live.size() ? nullptr : live[given++].first; });
            live.resize(live.size() - n);
         } else if (live.empty() || (rng() % 100 < (grow ? 65u : 35u))) {
            auto *p = static_cast<unsigned char *>(pool.allocate());
            const auto fill = static_cast<unsigned char>(rng());
            std::memset(p, fill, 40);
            live.emplace_back(p, fill);
         } else {
            const std::size_t i = rng() % live.size();
            auto [p, fill] = live[i];
            BOOST_TEST((std::count(p, p + 40, fill) == 40));
            pool.deallocate(p);
            live[i] = live.back();
            live.pop_back();
         }
         const char *broken = pool.check();
         BOOST_TEST_INFO("step " << step);
         BOOST_TEST_REQUIRE(broken == nullptr);
         const ba::adaptive_pool_statistics s = pool.statistics();
         BOOST_TEST_REQUIRE(s.nodes_in_use == live.size());
         BOOST_TEST_REQUIRE(s.free_blocks <= 2u);
      }
      for (auto &[p, fill] : live) pool.deallocate(p);
      BOOST_TEST(pool.check() == nullptr);
      BOOST_TEST(pool.statistics().blocks <= 2u);
   }
}

namespace {

// Three full blocks; most of block 0's nodes come back (give_back_most_of_block_0 gives back
// nodes[0, per_block - 1), the blocks' nodes in address order), then three of block 2's: the next
// nodes still come from block 2, the fuller.
template <class GiveBack>
void expect_nodes_from_the_fullest_block(GiveBack give_back_most_of_block_0)
{
   adaptive_node_pool pool("test pool", 32, 8, adaptive_node_pool::parameters{64, 4, 0});
   const std::size_t per_block = pool.geometry().nodes_per_block;
   std::vector<void *> nodes;
   for (std::size_t i = 0; i < 3 * per_block; ++i) nodes.push_back(pool.allocate());
   for (std::size_t k = 0; k != 3; ++k)
      std::sort(nodes.begin() + k * per_block, nodes.begin() + (k + 1) * per_block);
   give_back_most_of_block_0(pool, nodes, per_block);
   BOOST_TEST(pool.check() == nullptr);
   for (std::size_t i = 2 * per_block; i < 2 * per_block + 3; ++i) pool.deallocate(nodes[i]);
   void *const first = nodes[2 * per_block], *const last = nodes[3 * per_block - 1];
   for (std::size_t i = 2 * per_block; i < 2 * per_block + 3; ++i) {
      void *p = pool.allocate();
      BOOST_TEST((p >= first && p <= last));
      nodes[i] = p;
      BOOST_TEST(pool.check() == nullptr);
   }
   for (std::size_t i = per_block - 1; i < nodes.size(); ++i) pool.deallocate(nodes[i]);
   BOOST_TEST(pool.statistics().nodes_in_use == 0u);
   BOOST_TEST(pool.check() == nullptr);
}

} // namespace

BOOST_AUTO_TEST_CASE(nodes_come_from_the_fullest_block)
{
   expect_nodes_from_the_fullest_block([](adaptive_node_pool &pool, std::vector<void *> &nodes, std::size_t per_block) {
      for (std::size_t i = 0; i < per_block - 1; ++i) pool.deallocate(nodes[i]);
   });
}

BOOST_AUTO_TEST_CASE(a_block_given_nodes_back_stays_in_its_bucket_until_an_allocation_meets_it)
{
   // One node first (block 0 goes into the lowest bucket), then the others in a burst (it stays
   // there, below its count's bucket): block 0 moves up when an allocation meets it first.
   expect_nodes_from_the_fullest_block([](adaptive_node_pool &pool, std::vector<void *> &nodes, std::size_t per_block) {
      pool.deallocate(nodes[0]);
      std::size_t i = 1;
      pool.deallocate_many([&]() -> void * { return i == per_block - 1 ? nullptr : nodes[i++]; });
   });
}

BOOST_AUTO_TEST_CASE(a_drained_block_hands_its_nodes_out_in_address_order_again)
{
   adaptive_node_pool pool("test pool", 24, 8, adaptive_node_pool::parameters{64, 4, 0});
   const std::size_t per_block = pool.geometry().nodes_per_block;
   std::vector<void *> nodes;
   for (std::size_t i = 0; i < 2 * per_block; ++i) nodes.push_back(pool.allocate());
   std::shuffle(nodes.begin(), nodes.end(), std::mt19937(7));
   for (void *p : nodes) pool.deallocate(p);
   BOOST_TEST(pool.statistics().free_blocks == 2u);
   // A container built now gets its neighbours next to each other, not in the order of the frees.
   std::vector<char *> again;
   for (std::size_t i = 0; i < 2 * per_block; ++i) again.push_back(static_cast<char *>(pool.allocate()));
   for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t i = b * per_block + 1; i < (b + 1) * per_block; ++i)
         BOOST_TEST_REQUIRE(again[i] == again[i - 1] + pool.node_size());
   BOOST_TEST(pool.check() == nullptr);
   // The same when the nodes come back together, shuffled (a bin flushed).
   std::shuffle(again.begin(), again.end(), std::mt19937(8));
   std::size_t given = 0;
   pool.deallocate_many([&]() -> void * { return given == again.size() ? nullptr : again[given++]; });
   BOOST_TEST(pool.statistics().free_blocks == 2u);
   again.clear();
   for (std::size_t i = 0; i < 2 * per_block; ++i) again.push_back(static_cast<char *>(pool.allocate()));
   for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t i = b * per_block + 1; i < (b + 1) * per_block; ++i)
         BOOST_TEST_REQUIRE(again[i] == again[i - 1] + pool.node_size());
   for (char *p : again) pool.deallocate(p);
}

BOOST_AUTO_TEST_CASE(a_node_given_back_twice_in_one_call_is_reported)
{
   for (std::size_t size : {std::size_t(8), std::size_t(24)}) {   // (one word: no mark; the head check)
      adaptive_node_pool pool("test pool", size, 8, adaptive_node_pool::parameters{64, 2, 0});
      void *a = pool.allocate(), *b = pool.allocate();
      (void)pool.allocate();
      std::vector<void *> given{a, b, b};
      BOOST_TEST_INFO("node size " << size);
      allocplus_test::expect_report([&] {
         std::size_t i = 0;
         pool.deallocate_many([&]() -> void * { return i == given.size() ? nullptr : given[i++]; });
      }, "test pool: double free of a node", b);
   }
}

BOOST_AUTO_TEST_CASE(a_burst_that_gives_a_block_more_nodes_than_it_holds_is_reported)
{
   // One-word nodes carry no mark, and a run checks its count once it ends: a node given back
   // twice in one run, not right after itself, into a block whose nodes are then all free, makes
   // the count overflow. (Level 2 checks each node's in-use flag, and ASan its poisoning: they
   // name the node given back twice before the count is reached.)
   adaptive_node_pool pool("test pool", 8, 8, adaptive_node_pool::parameters{64, 2, 0});
   const std::size_t per_block = pool.geometry().nodes_per_block;
   std::vector<void *> nodes;
   for (std::size_t i = 0; i < per_block; ++i) nodes.push_back(pool.allocate());
   BOOST_TEST_REQUIRE(pool.statistics().blocks == 1u);
   std::sort(nodes.begin(), nodes.end());
   std::vector<void *> given(nodes);
   given.push_back(nodes[per_block / 2]);   // in the same sub-block: the same run
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE || defined(BOOST_ALLOCPLUS_CORE_ASAN)
   const std::string message = "test pool: double free of a node";
#else
   const std::string message =
      "test pool: a burst's run of nodes ending here gives their block more nodes than it holds (one was given back twice)";
#endif
   allocplus_test::expect_report([&] {
      std::size_t i = 0;
      pool.deallocate_many([&]() -> void * { return i == given.size() ? nullptr : given[i++]; });
   }, message, given.back());
}

BOOST_AUTO_TEST_CASE(a_node_given_back_to_a_block_whose_nodes_are_all_free_is_reported)
{
   // A one-word node carries no mark: given back twice, not right after itself, into a block
   // whose nodes are all free by then, it is found by the block's count (and the pool goes on
   // unharmed until the report, however its block was kept).
   adaptive_node_pool pool("test pool", 8, 8, adaptive_node_pool::parameters{64, 2, 0});
   void *a = pool.allocate(), *b = pool.allocate();
   pool.deallocate(a);
   pool.deallocate(b);   // the block's nodes are all free: it is kept
   BOOST_TEST(pool.check() == nullptr);
   allocplus_test::expect_report([&] { pool.deallocate(a); }, "test pool: double free of a node", a);
}

BOOST_AUTO_TEST_CASE(a_burst_that_empties_blocks_and_runs_on_keeps_every_count)
{
   // A burst's runs (the nodes of one sub-block in a row) end where the nodes jump to another
   // block and back, at a sub-block's end (2%: several sub-blocks a block), and with the last
   // free node of a block, which may go back to the core then (there, the next node is of
   // another sub-block too: the run's own bound on its count only guards against a double
   // free). With 24-byte nodes (marked) and one-word nodes (not).
   for (std::size_t size : {std::size_t(8), std::size_t(24)}) {
      for (std::size_t percent : {std::size_t(0), std::size_t(2)}) {
         BOOST_TEST_INFO("node size " << size << ", overhead " << percent << "%");
         adaptive_node_pool pool("test pool", size, 8, adaptive_node_pool::parameters{64, 1, percent});
         const std::size_t per_block = pool.statistics().nodes_per_block;
         // Blocks fill one at a time (the fullest first): nodes [k * per_block, (k + 1) *
         // per_block) are block k's, put in address order; a fourth block has five in use.
         std::vector<void *> nodes;
         for (std::size_t i = 0; i != 3 * per_block + 5; ++i) nodes.push_back(pool.allocate());
         for (std::size_t k = 0; k != 4; ++k)
            std::sort(nodes.begin() + k * per_block, k == 3 ? nodes.end() : nodes.begin() + (k + 1) * per_block);
         // Freed in one burst: every node of blocks 0 and 1 and three of block 2, with block 3's
         // five amid block 0's. Blocks 3, 0 and 1 empty in that order: the pool keeps the first.
         std::vector<void *> given(nodes.begin(), nodes.begin() + 2 * per_block + 3);
         given.insert(given.begin() + per_block / 2, nodes.end() - 5, nodes.end());
         std::size_t i = 0;
         const std::size_t freed = pool.deallocate_many([&]() -> void * { return i == given.size() ? nullptr : given[i++]; });
         BOOST_TEST(freed == given.size());
         const auto s = pool.statistics();
         BOOST_TEST(s.nodes_in_use == nodes.size() - given.size());
         BOOST_TEST(s.free_blocks == 1u);
         BOOST_TEST(s.blocks == 2u);
         BOOST_TEST(pool.check() == static_cast<const char *>(nullptr));
         for (auto p = nodes.begin() + 2 * per_block + 3; p != nodes.begin() + 3 * per_block; ++p) pool.deallocate(*p);
         BOOST_TEST(pool.statistics().nodes_in_use == 0u);
         BOOST_TEST(pool.check() == static_cast<const char *>(nullptr));
      }
   }
}

BOOST_AUTO_TEST_CASE(the_completely_free_blocks_kept_are_the_lowest)
{
   // MaxFreeBlocks 2, five blocks emptied from the highest down: each block emptied once two are
   // kept stays and the highest kept goes back to the core, so that the blocks kept are the two
   // lowest (a block kept high in the heap would keep the core from trimming what lies below).
   adaptive_node_pool pool("test pool", 32, 8, adaptive_node_pool::parameters{64, 2, 0});
   const std::size_t per_block = pool.geometry().nodes_per_block;
   std::vector<char *> nodes;
   for (std::size_t i = 0; i < 5 * per_block; ++i) nodes.push_back(static_cast<char *>(pool.allocate()));
   std::vector<char *> starts;   // each block's lowest node, block by block from the lowest
   for (std::size_t b = 0; b < 5; ++b)
      starts.push_back(*std::min_element(nodes.begin() + b * per_block, nodes.begin() + (b + 1) * per_block));
   std::sort(starts.begin(), starts.end());
   std::sort(nodes.begin(), nodes.end());
   for (std::size_t b = 5; b-- > 0;) {
      for (std::size_t i = b * per_block; i < (b + 1) * per_block; ++i) pool.deallocate(nodes[i]);
      BOOST_TEST(pool.statistics().free_blocks == std::min<std::size_t>(2, 5 - b));
      BOOST_TEST(pool.check() == nullptr);
   }
   BOOST_TEST(pool.statistics().blocks == 2u);
   // The nodes handed out again come from the two lowest blocks.
   for (std::size_t i = 0; i < 2 * per_block; ++i) {
      char *p = static_cast<char *>(pool.allocate());
      BOOST_TEST_REQUIRE(static_cast<void *>(p) < static_cast<void *>(starts[2]));
      nodes[i] = p;
   }
   BOOST_TEST(pool.statistics().blocks == 2u);
   // Both emptied again, the lowest first: the next node comes from the lowest, not from the one
   // emptied last.
   std::sort(nodes.begin(), nodes.begin() + 2 * per_block);
   for (std::size_t i = 0; i < 2 * per_block; ++i) pool.deallocate(nodes[i]);
   BOOST_TEST(pool.statistics().free_blocks == 2u);
   void *p = pool.allocate();
   BOOST_TEST(static_cast<void *>(p) < static_cast<void *>(starts[1]));
   pool.deallocate(p);
   BOOST_TEST(pool.check() == nullptr);
}

BOOST_AUTO_TEST_CASE(nodes_freed_leave_no_block_at_the_top_of_the_heap)
{
   // A thread's bin refilled from a new block, at the top of the heap, whose nodes are never
   // used: when they come back, that block is the first one emptied. The pool must not keep it
   // for good: the core trims its heap from the top, and a block kept there would keep all the
   // memory below it from the system.
   struct node24 {
      void *w[3];   // 24 bytes: a pool no other test uses
   };
   using alloc = ba::adaptive_pool<node24, 256, 2, 0, 1>;
   alloc a;
   const auto system_bytes = [] {
      ba_thread_cache_flush();
      ba_trim(0);
      ba_heap_stats s;
      ba_stats(&s);
      return s.system_bytes;
   };
   const std::size_t before = system_bytes();
   std::vector<node24 *> nodes;
   for (int i = 0; i < 100000; ++i) nodes.push_back(a.allocate(1));
   // On until a refill takes a new block: the nodes in the bin are (mostly) that block's.
   for (const std::size_t blocks = alloc::statistics().blocks; alloc::statistics().blocks == blocks;)
      nodes.push_back(a.allocate(1));
   ba_thread_cache_flush();   // the new block is emptied first
   BOOST_TEST_REQUIRE(alloc::statistics().free_blocks == 1u);
   for (node24 *p : nodes) a.deallocate(p, 1);
   BOOST_TEST(system_bytes() <= before + (std::size_t(1) << 20));
   BOOST_TEST(alloc::statistics().nodes_in_use == 0u);
   BOOST_TEST(alloc::statistics().free_blocks <= 2u);
   alloc::release_free_blocks();
}

BOOST_AUTO_TEST_CASE(a_dead_list_leaves_at_most_max_free_blocks_in_the_core)
{
   using node_alloc = ba::adaptive_pool<int>;
   const std::size_t before = heap_in_use();
   {
      std::list<int, node_alloc> l;
      for (int i = 0; i < 200000; ++i) l.push_back(i);
      BOOST_TEST(heap_in_use() > before + 200000 * 24);
   }
   const std::size_t after = heap_in_use();   // (the thread's bins flushed to the pool)
   using list_node = std::_List_node<int>;
   const ba::adaptive_pool_statistics s = ba::adaptive_pool<list_node>::statistics();
   BOOST_TEST(s.nodes_in_use == 0u);
   BOOST_TEST(s.blocks <= 2u);
   BOOST_TEST(s.blocks == s.free_blocks);
   BOOST_TEST(after <= before + s.blocks * s.bytes_held / (s.blocks ? s.blocks : 1) + 4096);
   BOOST_TEST(ba::adaptive_pool<list_node>::check() == nullptr);
   ba::adaptive_pool<list_node>::release_free_blocks();
   BOOST_TEST(ba::adaptive_pool<list_node>::statistics().blocks == 0u);
}

BOOST_AUTO_TEST_CASE(a_list_node_costs_under_24_and_a_half_bytes)
{
   pap<int> a;
   std::list<int, pap<int>> l(a);
   for (int i = 0; i < 100000; ++i) l.push_back(i);
   const ba::adaptive_pool_statistics s = l.get_allocator().statistics();
   BOOST_TEST(s.nodes_in_use == 100000u);
   BOOST_TEST(static_cast<double>(s.bytes_held) / 100000.0 < 24.5);
   BOOST_TEST(s.overhead_bytes * 100 <= 5 * s.bytes_held);
}

BOOST_AUTO_TEST_CASE(private_pools_copies_rebinds_moves_and_swaps)
{
   using elem = allocplus_test::tracked<struct adaptive_private_tag>;
   elem::counters().reset();
   {
      pap<int> a;
      pap<int> b(a);
      BOOST_TEST((a == b));
      pap<long> r(a);
      BOOST_TEST((r == a));
      BOOST_TEST((pap<int>() != pap<int>()));
      BOOST_TEST((a.select_on_container_copy_construction() != a));
   }
   {
      using map_t = std::map<int, elem, std::less<int>, pap<std::pair<const int, elem>>>;
      map_t a;
      for (int i = 0; i < 1000; ++i) a.emplace(i, i);
      map_t b(a), c(std::move(a));
      BOOST_TEST((b.get_allocator() != c.get_allocator()));
      a = b;
      b = std::move(c);
      std::swap(a, b);
      BOOST_TEST(a.size() == 1000u);
      BOOST_TEST(b.size() == 1000u);
      BOOST_TEST(a.get_allocator().check() == nullptr);
      for (int i = 0; i < 1000; i += 3) a.erase(i);
      BOOST_TEST(a.get_allocator().check() == nullptr);
   }
   {
      using umap_t = std::unordered_map<int, elem, std::hash<int>, std::equal_to<int>, pap<std::pair<const int, elem>, 0>>;
      umap_t a;
      for (int i = 0; i < 500; ++i) a.emplace(i, i);
      umap_t b(a), c(std::move(a));
      a = b;
      std::swap(a, c);
      BOOST_TEST(c.size() == 500u);
   }
   {
      ba::list<elem, pap<elem>> a;
      for (int i = 0; i < 300; ++i) a.emplace_back(i);
      ba::list<elem, pap<elem>> b(a);   // pools of its own
      BOOST_TEST((a.get_allocator() != b.get_allocator()));
      b.splice(b.end(), b, b.begin());
      BOOST_TEST(a.size() + b.size() == 600u);
      a.erase(std::next(a.begin(), 10), std::prev(a.end(), 10));
      BOOST_TEST(a.get_allocator().check() == nullptr);
   }
   BOOST_TEST(elem::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(over_aligned_nodes_arrays_and_bursts)
{
   pap<wide, 2> w;
   std::vector<wide *> ws;
   for (int i = 0; i < 600; ++i) {
      ws.push_back(w.allocate(1));
      BOOST_TEST(aligned(ws.back(), 64));
   }
   for (wide *x : ws) w.deallocate(x, 1);
   BOOST_TEST(w.check() == nullptr);

   pap<long> a;
   long *arr = a.allocate(10);
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
   a.deallocate(arr, 10);
   BOOST_CHECK_THROW((void)a.allocate(a.max_size() + 1), std::bad_array_new_length);
   auto r = a.allocate_at_least(1);
   BOOST_TEST(r.count == 1u);
   a.deallocate(r.ptr, 1);
   ba::multiallocation_chain<long> chain;
   a.allocate_individual(700, chain);
   BOOST_TEST(a.statistics().nodes_in_use == 700u);
   BOOST_TEST(a.check() == nullptr);
   a.deallocate_individual(chain);
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
   BOOST_TEST(a.statistics().free_blocks <= 2u);
   std::shared_ptr<int> sp = std::allocate_shared<int>(ba::adaptive_pool<void>(), 5);
   BOOST_TEST(*sp == 5);
}

BOOST_AUTO_TEST_CASE(exhaustion_throws_and_leaves_the_container_as_it_was)
{
   ba_thread_cache_flush();
   ba_heap *h = ba_default_heap();
   ba_heap_stats s;
   ba_stats(&s);
   std::list<std::uint64_t, pap<std::uint64_t>> l;
   for (int i = 0; i < 100; ++i) l.push_back(static_cast<std::uint64_t>(i));
   const std::size_t previous = ba_heap_set_footprint_limit(h, s.system_bytes);
   ba::multiallocation_chain<std::uint64_t> chain;
   pap<std::uint64_t> a(l.get_allocator());
   bool threw = false;
   try {
      for (int i = 0; i < 10000000; ++i) a.allocate_individual(1000, chain);
   } catch (const std::bad_alloc &) {
      threw = true;
   }
   BOOST_TEST(threw);
   const std::size_t held = chain.size();
   BOOST_TEST(held % 1000 == 0u);   // every burst whole, or not at all
   BOOST_CHECK_THROW(
      {
         for (;;) l.push_back(7);
      },
      std::bad_alloc);
   const std::size_t size = l.size();
   BOOST_TEST(l.back() == 7u);
   ba_heap_set_footprint_limit(h, previous);
   a.deallocate_individual(chain);
   BOOST_TEST(l.size() == size);
   BOOST_TEST(l.get_allocator().check() == nullptr);
}

namespace {

// Bursts of Node's shared pool until memory runs out, through the threads' bins or under the lock:
// each is whole or not there, the nodes taken and given back are counted, and the pool's blocks
// hold every invariant.
template <class Node>
void bursts_are_all_or_nothing(bool through_bins)
{
   using shared = ba::adaptive_pool<Node>;
   std::unique_ptr<allocplus_test::bursts_through_bins<ba::detail::shared_pool<adaptive_node_pool>>> steer;
   if (through_bins) steer.reset(new allocplus_test::bursts_through_bins<ba::detail::shared_pool<adaptive_node_pool>>(allocplus_test::adaptive_pool_pool_of<Node>()));
   ba_thread_cache_flush();
   ba_heap *h = ba_default_heap();
   ba_heap_stats s;
   ba_stats(&s);
   const std::size_t previous = ba_heap_set_footprint_limit(h, s.system_bytes);
   const std::size_t in_use_before = shared::statistics().nodes_in_use;
   ba::multiallocation_chain<Node> chain;
   shared a;
   bool threw = false;
   try {
      for (int i = 0; i < 10000000; ++i) a.allocate_individual(1000, chain);
   } catch (const std::bad_alloc &) {
      threw = true;
   }
   ba_heap_set_footprint_limit(h, previous);
   BOOST_TEST(threw);
   BOOST_TEST(chain.size() % 1000 == 0u);   // every burst whole, or not at all
   ba_thread_cache_flush();   // (nodes in the thread's bin count as in use)
   BOOST_TEST(shared::statistics().nodes_in_use == in_use_before + chain.size());
   a.deallocate_individual(chain);
   BOOST_TEST(chain.empty());
   ba_thread_cache_flush();
   BOOST_TEST(shared::statistics().nodes_in_use == in_use_before);
   BOOST_TEST(shared::statistics().free_blocks <= 2u);
   BOOST_TEST(shared::check() == nullptr);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_shared_pools_burst_is_all_or_nothing_under_one_lock)
{
   struct node48 {
      char bytes[48];
   };
   bursts_are_all_or_nothing<node48>(false);
}

BOOST_AUTO_TEST_CASE(a_shared_pools_burst_through_a_threads_bin_is_all_or_nothing)
{
   struct node80 {
      char bytes[80];   // a pool no other test uses
   };
   bursts_are_all_or_nothing<node80>(true);
}

BOOST_AUTO_TEST_CASE(bursts_through_a_threads_bin_keep_every_block_invariant)
{
   // Ranges of a ba::list through the thread's bin (a bin full goes back to the pool with the
   // rest of its burst): the list's values intact, and once the list dies and the bin goes back,
   // no node in use, at most MaxFreeBlocks free blocks, every invariant of the blocks held.
   struct s104 {
      std::uint64_t w[13];   // 104 bytes: a pool no other test uses
   };
   using shared = ba::adaptive_pool<s104>;
   allocplus_test::bursts_through_bins<ba::detail::shared_pool<adaptive_node_pool>> steer(allocplus_test::adaptive_pool_pool_of<s104>());
   std::mt19937 rng(104);
   std::vector<ba::multiallocation_chain<s104>> bursts(40);
   for (int round = 0; round < 20; ++round) {
      for (std::size_t i = 0; i != bursts.size(); ++i) {
         if (!bursts[i].empty()) shared().deallocate_individual(bursts[i]);
         shared().allocate_individual(1 + rng() % 400, bursts[i]);
         for (auto it = bursts[i].begin(); it != bursts[i].end(); ++it) it->w[1] = it->w[12] = i;   // (the first word links the chain)
      }
      for (std::size_t i = 0; i != bursts.size(); ++i)
         for (auto it = bursts[i].begin(); it != bursts[i].end(); ++it) BOOST_TEST((it->w[1] == i && it->w[12] == i));
      BOOST_TEST(shared::check() == nullptr);
   }
   for (auto &chain : bursts) shared().deallocate_individual(chain);
   ba_thread_cache_flush();
   BOOST_TEST(shared::statistics().nodes_in_use == 0u);
   BOOST_TEST(shared::statistics().free_blocks <= 2u);
   BOOST_TEST(shared::check() == nullptr);
}

BOOST_AUTO_TEST_CASE(threads_free_each_others_nodes)
{
   using node_alloc = ba::adaptive_pool<std::uint64_t[3]>;   // 24-byte nodes
   constexpr int threads = 8, rounds = 20000;
   std::vector<std::vector<std::uint64_t *>> handoff(threads);
   std::vector<std::thread> pool;
   std::vector<std::mutex> locks(threads);
   std::atomic<int> torn{0};   // (Boost.Test's assertions are not for other threads)
   for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
         node_alloc a;
         std::mt19937 rng(static_cast<unsigned>(t));
         std::vector<std::uint64_t *> mine;
         for (int i = 0; i < rounds; ++i) {
            auto *p = reinterpret_cast<std::uint64_t *>(a.allocate(1));
            p[0] = p[1] = p[2] = static_cast<std::uint64_t>(t) << 32 | static_cast<std::uint64_t>(i);
            mine.push_back(p);
            if (mine.size() > 64) {
               const int to = static_cast<int>(rng() % threads);
               std::lock_guard<std::mutex> g(locks[static_cast<std::size_t>(to)]);
               handoff[static_cast<std::size_t>(to)].insert(handoff[static_cast<std::size_t>(to)].end(), mine.begin(), mine.end());
               mine.clear();
            }
            std::vector<std::uint64_t *> got;
            {
               std::lock_guard<std::mutex> g(locks[static_cast<std::size_t>(t)]);
               got.swap(handoff[static_cast<std::size_t>(t)]);
            }
            for (auto *q : got) {
               if (q[0] != q[2]) ++torn;
               a.deallocate(reinterpret_cast<std::uint64_t(*)[3]>(q), 1);
            }
         }
         for (auto *q : mine) a.deallocate(reinterpret_cast<std::uint64_t(*)[3]>(q), 1);
      });
   }
   for (auto &t : pool) t.join();
   BOOST_TEST(torn.load() == 0);
   node_alloc a;
   for (auto &h : handoff)
      for (auto *q : h) a.deallocate(reinterpret_cast<std::uint64_t(*)[3]>(q), 1);
   ba_thread_cache_flush();
   const ba::adaptive_pool_statistics s = node_alloc::statistics();
   BOOST_TEST(s.nodes_in_use == 0u);
   BOOST_TEST(s.free_blocks <= 2u);
   BOOST_TEST(node_alloc::check() == nullptr);
}

BOOST_AUTO_TEST_CASE(release_builds_catch_a_double_free_and_a_foreign_pointer)
{
   pap<std::uint64_t[2]> a;
   auto *p = a.allocate(1);
   allocplus_test::expect_report([&] { a.deallocate(p, 1); a.deallocate(p, 1); },
                                 "ba::private_adaptive_pool: double free of a node", p);
   // A block of the core's, aligned as the pool's blocks are, that is not one of them: its
   // "header" does not carry the pool's check word (in every build).
   const std::size_t alignment = pap<std::uint64_t[2]>::geometry().alignment;
   char *fake = static_cast<char *>(ba_memalign(alignment, 2 * alignment));
   std::memset(fake, 0, 2 * alignment);
   void *inside = fake + 256;
   allocplus_test::expect_report([&] { a.deallocate(static_cast<std::uint64_t(*)[2]>(inside), 1); },
                                 "ba::private_adaptive_pool: a pointer that did not come from this pool is freed", inside);
   ba_free(fake);
   a.deallocate(p, 1);
}

#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
BOOST_AUTO_TEST_CASE(a_link_overwritten_after_free_is_reported_not_followed)
{
   pap<std::uint64_t[2]> a;
   auto *p = a.allocate(1), *q = a.allocate(1);
   (void)q;
   a.deallocate(p, 1);
   auto *link = reinterpret_cast<volatile std::uintptr_t *>(p);
   allocplus_test::expect_report([&] { *link = *link ^ 0x4u; (void)a.allocate(1); (void)a.allocate(1); },
                                 "ba::private_adaptive_pool: a free node's link is overwritten (a write after free?)", p);
   a.deallocate(q, 1);
}
#endif

#if BOOST_ALLOCPLUS_CHECKED
BOOST_AUTO_TEST_CASE(checked_builds_report_misuse)
{
   ba::adaptive_pool<std::uint64_t> shared;
   std::uint64_t other = 0;
   allocplus_test::expect_report([&] { shared.deallocate(&other, 1); },
                                 "ba::adaptive_pool: a pointer that did not come from this pool is freed", &other);
   // Inside a block of the pool but misaligned: the constant-time check before the header is read.
   pap<std::uint64_t[3]> d;
   auto *n = d.allocate(1);
   auto *misaligned = reinterpret_cast<std::uint64_t(*)[3]>(reinterpret_cast<char *>(n) + 4);
   allocplus_test::expect_report([&] { d.deallocate(misaligned, 1); },
                                 "ba::private_adaptive_pool: a pointer that did not come from this pool is freed", misaligned);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // Level 2: a node of one word (no mark) freed twice, not the one freed last (its byte per
   // node), and a pointer aligned as the nodes are but not at a node's start (its lookup of every
   // pointer in the blocks). test/one_heap's checked_levels_test: level 1 lets both through.
   pap<char> c;
   char *p = c.allocate(1), *q = c.allocate(1);
   c.deallocate(p, 1);
   c.deallocate(q, 1);
   allocplus_test::expect_report([&] { c.deallocate(p, 1); }, "ba::private_adaptive_pool: double free of a node", p);
   auto *inside = reinterpret_cast<std::uint64_t(*)[3]>(reinterpret_cast<char *>(n) + 8);
   allocplus_test::expect_report([&] { d.deallocate(inside, 1); },
                                 "ba::private_adaptive_pool: a pointer that did not come from this pool is freed", inside);
#endif
   d.deallocate(n, 1);
   const child_outcome out = run_in_child([] {
      pap<int> leaky;
      (void)leaky.allocate(1);
      (void)leaky.allocate(1);
   });
   BOOST_TEST(out.err.find("ba::private_adaptive_pool: a pool destroyed with 2 node(s) still in use") != std::string::npos);
}
#endif

#if BOOST_ALLOCPLUS_CHECKED && !defined(BOOST_ALLOCPLUS_CORE_ASAN)
// Two nodes of one burst in the same sub-block (the burst's nodes come in address order).
template <class Allocator>
std::pair<typename Allocator::value_type *, typename Allocator::value_type *> neighbours(Allocator &a)
{
   using value = typename Allocator::value_type;
   ba::multiallocation_chain<value> chain;
   a.allocate_individual(64, chain);
   const std::uintptr_t subblock = ~(std::uintptr_t(Allocator::geometry().alignment) - 1);
   value *first = chain.pop_front(), *second = nullptr;
   while (!chain.empty()) {
      value *next = chain.pop_front();
      if (!second && (reinterpret_cast<std::uintptr_t>(next) & subblock) == (reinterpret_cast<std::uintptr_t>(first) & subblock)) {
         second = next;
      } else {
         a.deallocate(next, 1);
      }
   }
   BOOST_TEST_REQUIRE(second != nullptr);
   return {first, second};
}

// Gives first and second back to a as one burst (a chain of the two).
template <class Allocator, class Value>
void give_back_as_a_burst(Allocator &a, Value *first, Value *second)
{
   ba::multiallocation_chain<Value> chain;
   chain.push_back(first);
   chain.push_back(second);
   a.deallocate_individual(chain);
}

// A burst given back checks the first node of each run (its nodes in one sub-block) whole, and
// the nodes after it by their alignment (level 1), or each whole, looked up in the pool's blocks
// and with its byte in the map of nodes in use (level 2: a pointer inside a node, and a node of
// one word, no mark, freed before, are reported there too). (A chain links its nodes through
// their first words: a freed node in one is the test's own write after free, which ASan reports
// first.)
template <class ThreeWords, class OneWord>
void a_burst_checks_every_node_of_a_run(const std::string &owner)
{
   ThreeWords a;
   // Not structured bindings: a C++17 lambda cannot capture one (Clang refuses).
   const auto pq = neighbours(a);
   auto *const p = pq.first, *const q = pq.second;
   // A pointer inside q not aligned as the nodes are; at level 2, one that is.
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   for (const std::size_t offset : {8, 4}) {
#else
   for (const std::size_t offset : {4}) {
#endif
      auto *inside = reinterpret_cast<std::uint64_t(*)[3]>(reinterpret_cast<char *>(q) + offset);
      allocplus_test::expect_report(
         [&] { give_back_as_a_burst(a, p, inside); },
         owner + ": a pointer that did not come from this pool is freed", inside);
   }
   a.deallocate(p, 1);
   a.deallocate(q, 1);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   OneWord c;
   const auto rs = neighbours(c);
   auto *const r = rs.first, *const s = rs.second;
   char *t = c.allocate(1);
   allocplus_test::expect_report(
      [&] {
         c.deallocate(s, 1);
         c.deallocate(t, 1);   // (s is not the node freed last: that one is caught in every build)
         ba_thread_cache_flush();   // (the shared pool's: s in a thread's bin is level 2's to find)
         give_back_as_a_burst(c, r, s);
      },
      owner + ": double free of a node", s);
   c.deallocate(r, 1);
   c.deallocate(s, 1);
   c.deallocate(t, 1);
#endif
}

BOOST_AUTO_TEST_CASE(checked_builds_check_every_node_of_a_burst)
{
   a_burst_checks_every_node_of_a_run<pap<std::uint64_t[3]>, pap<char>>("ba::private_adaptive_pool");
   a_burst_checks_every_node_of_a_run<ba::adaptive_pool<std::uint64_t[3]>, ba::adaptive_pool<char>>("ba::adaptive_pool");
}
#endif

#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
// Checking level 2 (adaptive_pool_expensive_test): what needs a search or a walk.
BOOST_AUTO_TEST_CASE(level_2_reports_what_the_lookups_find)
{
   // A node of one word (no mark) freed again while it waits in the thread's bin: a walk of the bin.
   ba::adaptive_pool<char> shared;
   char *p = shared.allocate(1), *q = shared.allocate(1);
   allocplus_test::expect_report([&] { shared.deallocate(p, 1); shared.deallocate(q, 1); shared.deallocate(p, 1); },
                                 "ba::adaptive_pool: double free of a node (held in a thread's bin)", p);
   // A node given back as an array: a search of the pool's blocks.
   pap<std::uint64_t> c;
   std::uint64_t *n = c.allocate(1);
   allocplus_test::expect_report([&] { c.deallocate(n, 3); },
                                 "ba::private_adaptive_pool: a node is given back as an array (deallocate(p, n) with n != 1)", n);
   c.deallocate(n, 1);
   shared.deallocate(p, 1);
   shared.deallocate(q, 1);
}
#endif
