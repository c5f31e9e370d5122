// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::private_node_allocator and its engine (detail/node_pool.hpp): the allocator requirements,
// the handle's semantics (copies and rebinds share, a copied container gets new pools, moves take
// them along), std and ba containers over it against std::allocator, release_free_blocks against
// the core's statistics, bursts and exhaustion, and (checked builds) the misuse reports.

#define BOOST_TEST_MODULE allocplus private_node_allocator
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/list.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>
#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/allocplus/vector.hpp>

#include "support/tracked.hpp"
#include "support/usage_reports.hpp"

#include <algorithm>
#include <deque>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ba = boost::allocplus;

namespace {

template <class T, std::size_t N = 256, unsigned V = 2>
using pna = ba::private_node_allocator<T, N, V>;

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

} // namespace

BOOST_AUTO_TEST_CASE(nodes_are_distinct_aligned_and_reused)
{
   pna<double> a;
   std::vector<double *> nodes;
   for (int i = 0; i < 1000; ++i) {
      double *p = a.allocate(1);
      BOOST_TEST(aligned(p, alignof(double)));
      *p = i;
      nodes.push_back(p);
   }
   std::vector<double *> sorted = nodes;
   std::sort(sorted.begin(), sorted.end());
   BOOST_TEST((std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()));
   for (int i = 0; i < 1000; ++i) BOOST_TEST(*nodes[static_cast<std::size_t>(i)] == i);
   double *last = nodes.back();
   a.deallocate(last, 1);
   BOOST_TEST(a.allocate(1) == last);   // the node freed last is the next one handed out
   ba::node_pool_statistics s = a.statistics();
   BOOST_TEST(s.nodes_in_use == 1000u);
   BOOST_TEST(s.blocks == 4u);   // 1000 nodes, 256 a block
   BOOST_TEST(s.node_size == sizeof(double));
   for (double *p : nodes) a.deallocate(p, 1);
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
}

BOOST_AUTO_TEST_CASE(small_and_over_aligned_nodes)
{
   pna<char> c;
   char *p = c.allocate(1), *q = c.allocate(1);
   BOOST_TEST(static_cast<std::size_t>(q > p ? q - p : p - q) >= sizeof(void *));   // a node holds a link
   c.deallocate(p, 1);
   c.deallocate(q, 1);
   pna<wide, 16> w;
   std::vector<wide *> ws;
   for (int i = 0; i < 100; ++i) {
      ws.push_back(w.allocate(1));
      BOOST_TEST(aligned(ws.back(), 64));
   }
   for (wide *x : ws) w.deallocate(x, 1);
}

BOOST_AUTO_TEST_CASE(arrays_go_to_the_core)
{
   pna<int> a;
   int *p = a.allocate(10);
   for (int i = 0; i < 10; ++i) p[i] = i;
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
   BOOST_TEST(ba_usable_size(p) >= 10 * sizeof(int));
   a.deallocate(p, 10);
   auto r = a.allocate_at_least(1);
   BOOST_TEST(r.count == 1u);   // exactly one node
   BOOST_TEST(a.statistics().nodes_in_use == 1u);
   a.deallocate(r.ptr, r.count);
   auto big = a.allocate_at_least(5);
   BOOST_TEST(big.count >= 5u);
   a.deallocate(big.ptr, big.count);
   BOOST_CHECK_THROW((void)a.allocate(a.max_size() + 1), std::bad_array_new_length);
}

BOOST_AUTO_TEST_CASE(allocation_command_never_hands_out_a_single_object)
{
   pna<long> a;
   std::size_t n = 1;
   long *reuse = nullptr;
   long *p = a.allocation_command(ba::allocate_new, 1, n, reuse);
   BOOST_TEST(n >= 2u);   // deallocate(p, 1) would mean a node of the pool
   a.deallocate(p, n);
}

BOOST_AUTO_TEST_CASE(copies_and_rebinds_share_moves_take)
{
   pna<int> a;
   pna<int> b(a);   // a had no pools: made now, for both
   BOOST_TEST((a == b));
   pna<long> r(a);
   BOOST_TEST((r == a));
   int *p = b.allocate(1);
   a.deallocate(p, 1);   // a node of b goes back through a: same pools
   BOOST_TEST(b.statistics().nodes_in_use == 0u);
   BOOST_TEST(b.statistics().free_nodes == 256u);

   pna<int> c;
   pna<int> d;
   int *q = c.allocate(1);
   BOOST_TEST((c != d));   // each made its own
   pna<int> e(std::move(c));
   BOOST_TEST((e == c));   // a moved-from allocator is unchanged (std::deque relies on it)
   c.deallocate(q, 1);
   pna<int> f, g;
   BOOST_TEST((f == f));
   BOOST_TEST((f != g));   // neither has pools yet: each will make its own
   BOOST_TEST((a.select_on_container_copy_construction() != a));
}

namespace {

struct bytes_136 {
   char bytes[136];
};
struct alignas(16) aligned_16 {
   char bytes[16];
};
struct unaligned_16 {
   char bytes[16];
};

} // namespace

// The set remembers the pool last found for each slot of node sizes: sizes 8 and 136 share a
// slot, as do the two 16-byte nodes of different alignment. Each must still get its own pool.
BOOST_AUTO_TEST_CASE(node_sizes_that_share_a_lookup_slot_keep_their_own_pools)
{
   pna<std::uint64_t> small;
   pna<bytes_136> big(small);
   pna<aligned_16> wide(small);
   pna<unaligned_16> narrow(small);
   std::vector<void *> smalls, bigs, wides, narrows;
   for (int i = 0; i < 300; ++i) {   // interleaved: every allocation changes the slot's pool
      smalls.push_back(small.allocate(1));
      bigs.push_back(big.allocate(1));
      wides.push_back(wide.allocate(1));
      narrows.push_back(narrow.allocate(1));
      BOOST_TEST(aligned(wides.back(), 16));
   }
   ba::node_pool_statistics s = small.statistics();
   BOOST_TEST(s.nodes_in_use == 1200u);
   BOOST_TEST(s.blocks == 8u);   // 300 nodes of each of four pools, 256 a block
   BOOST_TEST(s.node_size == 0u);   // more than one pool
   // A node freed goes back to its own pool: the next node of that size is it, and no other
   // size's allocation hands it out.
   big.deallocate(static_cast<bytes_136 *>(bigs.back()), 1);
   narrow.deallocate(static_cast<unaligned_16 *>(narrows.back()), 1);
   void *s1 = small.allocate(1);
   void *w1 = wide.allocate(1);
   BOOST_TEST(s1 != bigs.back());
   BOOST_TEST(w1 != narrows.back());
   BOOST_TEST(static_cast<void *>(big.allocate(1)) == bigs.back());
   BOOST_TEST(static_cast<void *>(narrow.allocate(1)) == narrows.back());
   smalls.push_back(s1);
   wides.push_back(w1);
   for (void *p : smalls) small.deallocate(static_cast<std::uint64_t *>(p), 1);
   for (void *p : bigs) big.deallocate(static_cast<bytes_136 *>(p), 1);
   for (void *p : wides) wide.deallocate(static_cast<aligned_16 *>(p), 1);
   for (void *p : narrows) narrow.deallocate(static_cast<unaligned_16 *>(p), 1);
   BOOST_TEST(small.statistics().nodes_in_use == 0u);
   BOOST_TEST(small.release_free_blocks() == 8u);
}

BOOST_AUTO_TEST_CASE(allocate_shared_pools_its_control_block)
{
   pna<void> a;   // one allocator for every call: one pool set
   std::vector<std::shared_ptr<int>> v;
   for (int i = 0; i < 100; ++i) v.push_back(std::allocate_shared<int>(a, i));
   for (int i = 0; i < 100; ++i) BOOST_TEST(*v[static_cast<std::size_t>(i)] == i);
   BOOST_TEST(a.statistics().nodes_in_use == 100u);   // the control blocks are the pool's nodes
   BOOST_TEST(a.statistics().blocks == 1u);
   v.clear();
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
   // Through a temporary allocator: the control block keeps a copy that frees it.
   auto s = std::allocate_shared<std::string>(pna<std::string>(), "pooled, with a string long enough to allocate");
   BOOST_TEST(s->size() > 20u);
}

namespace {

// Random inserts and erases on a container over the pool and the same over std::allocator.
template <class Pooled, class Plain, class Insert, class Erase>
void differential(Pooled &pooled, Plain &plain, Insert insert, Erase erase, unsigned seed)
{
   std::mt19937 rng(seed);
   for (int i = 0; i < 20000; ++i) {
      int k = static_cast<int>(rng() % 2000);
      if (rng() % 3) {
         insert(pooled, k);
         insert(plain, k);
      } else {
         erase(pooled, k);
         erase(plain, k);
      }
   }
   BOOST_TEST(pooled.size() == plain.size());
   BOOST_TEST(std::equal(pooled.begin(), pooled.end(), plain.begin(), plain.end()));
}

} // namespace

BOOST_AUTO_TEST_CASE(std_and_ba_containers_match_std_allocator)
{
   {
      std::set<int, std::less<int>, pna<int>> s;
      std::set<int> t;
      differential(s, t, [](auto &c, int k) { c.insert(k); }, [](auto &c, int k) { c.erase(k); }, 1);
   }
   {
      std::map<int, std::string, std::less<int>, pna<std::pair<const int, std::string>>> m;
      std::map<int, std::string> n;
      differential(m, n, [](auto &c, int k) { c.emplace(k, std::to_string(k) + " and some more text"); },
                   [](auto &c, int k) { c.erase(k); }, 2);
   }
   {
      std::list<int, pna<int>> l;
      std::list<int> m;
      differential(l, m, [](auto &c, int k) { c.push_back(k); }, [](auto &c, int k) { c.remove(k); }, 3);
   }
   {
      ba::list<int, pna<int>> l;
      std::list<int> m;
      differential(l, m, [](auto &c, int k) { c.push_back(k); },
                   [](auto &c, int k) {
                      for (auto it = c.begin(); it != c.end();) it = *it == k ? c.erase(it) : std::next(it);
                   },
                   4);
      l.insert(l.end(), 1000, 7);   // one burst
      m.insert(m.end(), 1000, 7);
      BOOST_TEST(std::equal(l.begin(), l.end(), m.begin(), m.end()));
   }
   {
      std::unordered_map<int, int, std::hash<int>, std::equal_to<int>, pna<std::pair<const int, int>>> u;
      std::unordered_map<int, int> v;
      std::mt19937 rng(5);
      for (int i = 0; i < 20000; ++i) {
         int k = static_cast<int>(rng() % 2000);
         if (rng() % 3) { u[k] = i; v[k] = i; }
         else { u.erase(k); v.erase(k); }
      }
      BOOST_TEST(u.size() == v.size());
      for (auto &kv : v) BOOST_TEST(u.at(kv.first) == kv.second);
   }
   {
      ba::vector<int, pna<int>> v;   // arrays only: every buffer from the core
      for (int i = 0; i < 1000; ++i) v.push_back(i);
      v.shrink_to_fit();
      BOOST_TEST(v.size() == 1000u);
      BOOST_TEST(v.get_allocator().statistics().nodes_in_use == 0u);
   }
}

BOOST_AUTO_TEST_CASE(containers_copy_move_swap_and_assign)
{
   using elem = allocplus_test::tracked<struct containers_tag>;
   using list_t = std::list<elem, pna<elem>>;
   elem::counters().reset();
   {
      list_t a;
      for (int i = 0; i < 300; ++i) a.emplace_back(i);
      list_t b(a);   // new pools
      BOOST_TEST((a.get_allocator() != b.get_allocator()));
      BOOST_TEST(std::equal(a.begin(), a.end(), b.begin(), b.end()));
      list_t c;
      c.emplace_back(1);
      c = a;   // copy assignment keeps c's pools
      BOOST_TEST((c.get_allocator() != a.get_allocator()));
      BOOST_TEST(c.size() == 300u);
      list_t d(std::move(a));   // shares a's pools
      BOOST_TEST(d.size() == 300u);
      a.emplace_back(5);   // the moved-from list is used again, from the same pools
      BOOST_TEST((a.get_allocator() == d.get_allocator()));
      b.swap(d);   // the pools go along
      BOOST_TEST(b.size() == 300u);
      BOOST_TEST(d.size() == 300u);
      c = std::move(b);   // move assignment takes b's pools
      BOOST_TEST(c.size() == 300u);
      b.emplace_back(9);
      BOOST_TEST(b.size() == 1u);
      d.clear();
      BOOST_TEST(a.size() == 1u);
   }
   BOOST_TEST(elem::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(release_free_blocks_frees_exactly_the_empty_blocks)
{
   const std::size_t before = heap_in_use();
   {
      pna<std::uint64_t, 64> a;
      std::vector<std::uint64_t *> nodes;
      for (int i = 0; i < 64 * 10; ++i) nodes.push_back(a.allocate(1));   // 10 blocks
      BOOST_TEST(a.statistics().blocks == 10u);
      const std::size_t full = heap_in_use();
      // Free every node of blocks 0, 2, 4, 6, 8 (in shuffled order) and half of block 1.
      std::vector<std::uint64_t *> freed;
      for (std::size_t b = 0; b < 10; b += 2)
         for (std::size_t i = 0; i < 64; ++i) freed.push_back(nodes[b * 64 + i]);
      for (std::size_t i = 0; i < 32; ++i) freed.push_back(nodes[64 + i]);
      std::shuffle(freed.begin(), freed.end(), std::mt19937(7));
      for (auto *p : freed) a.deallocate(p, 1);
      BOOST_TEST(a.release_free_blocks() == 5u);
      ba::node_pool_statistics s = a.statistics();
      BOOST_TEST(s.blocks == 5u);
      BOOST_TEST(s.free_nodes == 32u);
      BOOST_TEST(s.nodes_in_use == 64u * 5 - 32);
      BOOST_TEST(heap_in_use() < full);
      BOOST_TEST(full - heap_in_use() >= 5 * 64 * sizeof(std::uint64_t));
      // The nodes left work, and the free ones come out lowest address first.
      std::uint64_t *next = a.allocate(1);
      BOOST_TEST(next == nodes[64]);
      a.deallocate(next, 1);
      for (std::size_t b = 1; b < 10; b += 2)
         for (std::size_t i = b == 1 ? 32 : 0; i < 64; ++i) a.deallocate(nodes[b * 64 + i], 1);
      BOOST_TEST(a.release_free_blocks() == 5u);
      BOOST_TEST(a.statistics().blocks == 0u);
      BOOST_TEST(a.statistics().bytes_held == 0u);
   }
   BOOST_TEST(heap_in_use() == before);
}

BOOST_AUTO_TEST_CASE(bursts_of_nodes)
{
   pna<int> a;
   ba::multiallocation_chain<int> chain;
   a.allocate_individual(0, chain);
   BOOST_TEST(chain.empty());
   a.allocate_individual(1, chain);
   BOOST_TEST(chain.size() == 1u);
   a.allocate_individual(700, chain);
   BOOST_TEST(chain.size() == 701u);
   BOOST_TEST(a.statistics().nodes_in_use == 701u);
   a.deallocate_individual(chain);
   BOOST_TEST(chain.empty());
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
}

BOOST_AUTO_TEST_CASE(exhaustion_throws_and_a_burst_is_all_or_nothing)
{
   ba_thread_cache_flush();
   ba_heap *h = ba_default_heap();
   ba_heap_stats s;
   ba_stats(&s);
   const std::size_t previous = ba_heap_set_footprint_limit(h, s.system_bytes);
   pna<std::uint64_t, 4096> a;
   ba::multiallocation_chain<std::uint64_t> chain;
   std::size_t in_use = 0;
   // Blocks of 32 KiB: the footprint fills after some; every burst either comes whole or not at all.
   for (;;) {
      try {
         a.allocate_individual(1000, chain);
         in_use += 1000;
      } catch (const std::bad_alloc &) {
         break;
      }
      if (in_use > 100000000) break;
   }
   BOOST_TEST(chain.size() == in_use);
   BOOST_TEST(a.statistics().nodes_in_use == in_use);
   std::vector<std::uint64_t *> singles;
   singles.reserve(4096);
   BOOST_CHECK_THROW(
      {
         for (;;) singles.push_back(a.allocate(1));   // what is left of the last block, then a throw
      },
      std::bad_alloc);
   BOOST_TEST(singles.size() < 4096u);
   ba_heap_set_footprint_limit(h, previous);
   for (auto *p : singles) a.deallocate(p, 1);
   a.deallocate_individual(chain);
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
   std::list<int, pna<int>> l(10, 1);
   BOOST_TEST(l.size() == 10u);
}


BOOST_AUTO_TEST_CASE(every_container_moves_swaps_and_assigns)
{
   using elem = allocplus_test::tracked<struct every_container_tag>;
   elem::counters().reset();
   {
      struct big { elem e; char pad[300]; big(int i) : e(i) {} };   // a deque block per element
      std::deque<big, pna<big>> a;
      for (int i = 0; i < 50; ++i) a.emplace_back(i);
      std::deque<big, pna<big>> b(std::move(a));
      BOOST_TEST(b.size() == 50u);
      a.emplace_back(1);
      std::deque<big, pna<big>> c;
      c = std::move(b);
      b = c;
      std::swap(a, c);
      BOOST_TEST(a.size() == 50u);
   }
   {
      using map_t = std::map<int, elem, std::less<int>, pna<std::pair<const int, elem>>>;
      map_t a;
      for (int i = 0; i < 100; ++i) a.emplace(i, i);
      map_t b(a), c(std::move(a));
      a = b;
      b = std::move(c);
      std::swap(a, b);
      BOOST_TEST(a.size() == 100u);
      BOOST_TEST(b.size() == 100u);
   }
   {
      using umap_t = std::unordered_map<int, elem, std::hash<int>, std::equal_to<int>, pna<std::pair<const int, elem>>>;
      umap_t a;
      for (int i = 0; i < 100; ++i) a.emplace(i, i);
      umap_t b(a), c(std::move(a));
      a = b;
      b = std::move(c);
      std::swap(a, b);
      BOOST_TEST(a.size() == 100u);
   }
   {
      std::vector<elem, pna<elem>> a(1, elem(1));   // a buffer of one element is a node
      a.push_back(elem(2));
      std::vector<elem, pna<elem>> b(a), c(std::move(a));
      a = b;
      std::swap(a, c);
      BOOST_TEST(c.size() == 2u);
   }
   BOOST_TEST(elem::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(ba_vector_with_a_one_element_buffer)
{
   ba::vector<long, pna<long>> v(1, 7);   // may be a node of the pool: size() says 1
   for (long i = 0; i < 100; ++i) v.push_back(i);
   BOOST_TEST(v.size() == 101u);
   BOOST_TEST(v[0] == 7);
   pna<long> a;
   long *node = a.allocate(1);
   BOOST_TEST(a.size(node) == 1u);
   a.deallocate(node, 1);
}

BOOST_AUTO_TEST_CASE(version_1_and_the_array_interface)
{
   ba::private_node_allocator<int, 64, 1> v1;
   int *p = v1.allocate(1);
   v1.deallocate(p, 1);
   std::list<int, ba::private_node_allocator<int, 64, 1>> l(10, 1);
   BOOST_TEST(l.size() == 10u);
   pna<int> a;
   auto zero = a.allocate_at_least(0);
   BOOST_TEST(zero.count >= 2u);   // never a count of 1 for a block of the core
   a.deallocate(zero.ptr, zero.count);
   ba::multiallocation_chain<int> chain;
   a.allocate_individual(10, chain);
   a.allocate_many(3, 5, chain);   // arrays of 3
   const std::size_t sizes[] = {1, 4, 1};
   a.allocate_many(sizes, 3, chain);
   BOOST_TEST(chain.size() == 18u);
   BOOST_TEST(a.statistics().nodes_in_use == 12u);
   a.deallocate_many(chain);   // nodes back to the pool, arrays to the core
   BOOST_TEST(a.statistics().nodes_in_use == 0u);
}

BOOST_AUTO_TEST_CASE(release_free_blocks_with_a_block_still_being_carved)
{
   pna<std::uint64_t, 64> a;
   std::vector<std::uint64_t *> nodes;
   for (int i = 0; i < 64 * 2 + 10; ++i) nodes.push_back(a.allocate(1));   // the third block carved to 10
   for (auto *p : nodes) a.deallocate(p, 1);
   BOOST_TEST(a.release_free_blocks() == 3u);
   BOOST_TEST(a.statistics().blocks == 0u);
   BOOST_TEST(a.statistics().free_nodes == 0u);
   std::uint64_t *p = a.allocate(1);   // a new block
   BOOST_TEST(a.statistics().blocks == 1u);
   a.deallocate(p, 1);
}

// The order a pool hands nodes out in after a long life: a pool that empties starts over as a new
// one (its blocks carved again, lowest address first), and a pool left mostly free by scattered
// frees puts its free list in address order before it next hands a node out. Without either, the
// nodes would come out in the order of the shuffled frees.
template <class T>
bool ascending(const std::vector<T *> &nodes)
{
   return std::is_sorted(nodes.begin(), nodes.end(), std::less<T *>());
}

BOOST_AUTO_TEST_CASE(a_pool_that_empties_starts_over_in_address_order)
{
   pna<std::uint64_t, 64> a;
   std::vector<std::uint64_t *> nodes;
   for (int i = 0; i < 64 * 4; ++i) nodes.push_back(a.allocate(1));
   std::vector<std::uint64_t *> lowest_first = nodes;
   std::sort(lowest_first.begin(), lowest_first.end(), std::less<std::uint64_t *>());
   std::shuffle(nodes.begin(), nodes.end(), std::mt19937(11));
   for (auto *p : nodes) a.deallocate(p, 1);
   BOOST_TEST(a.statistics().free_nodes == 64u * 4);
   std::vector<std::uint64_t *> again;
   for (int i = 0; i < 64 * 4; ++i) again.push_back(a.allocate(1));
   BOOST_TEST(again == lowest_first);   // every block's nodes again, lowest first
   BOOST_TEST(a.statistics().blocks == 4u);
   BOOST_TEST(a.statistics().free_nodes == 0u);
   // Started over again, with one block begun: the three not begun go back to the core whole.
   for (auto *p : again) a.deallocate(p, 1);
   std::uint64_t *first = a.allocate(1);
   BOOST_TEST(first == lowest_first.front());
   BOOST_TEST(a.statistics().free_nodes == 64u * 4 - 1);
   BOOST_TEST(a.release_free_blocks() == 3u);
   BOOST_TEST(a.statistics().blocks == 1u);
   BOOST_TEST(a.statistics().free_nodes == 63u);
   a.deallocate(first, 1);
}

BOOST_AUTO_TEST_CASE(a_free_with_nothing_in_use_is_reported_after_starting_over)
{
   pna<std::pair<void *, void *>> a;
   auto *p = a.allocate(1);
   auto *q = a.allocate(1);
   a.deallocate(p, 1);
   allocplus_test::expect_report([&] { a.deallocate(q, 1); a.deallocate(p, 1); },
                                 "ba::private_node_allocator: double free of a node", p);
   a.deallocate(q, 1);
}

// `count` nodes of a pool of 64-node blocks; spaced: each block made with 8 KiB of the core's
// in use after it (given back with this), so that the blocks lie far apart.
template <class T>
struct nodes_of_blocks {
   std::vector<T *> nodes;
   std::vector<void *> spacers;
   nodes_of_blocks(pna<T, 64> &a, std::size_t count, bool spaced)
   {
      for (std::size_t i = 0; i < count; ++i) {
         nodes.push_back(a.allocate(1));
         if (spaced && i % 64 == 0) spacers.push_back(ba_malloc(8192));
      }
   }
   ~nodes_of_blocks()
   {
      for (void *p : spacers) ba_free(p);
   }

   // Frees every node but every `keep_every`-th, in a shuffled order.
   void free_shuffled_keeping_every(pna<T, 64> &a, std::size_t keep_every, unsigned seed)
   {
      for (std::size_t i = 0; i < nodes.size(); ++i) (i % keep_every == 0 ? kept : freed).push_back(nodes[i]);
      std::shuffle(freed.begin(), freed.end(), std::mt19937(seed));
      for (auto *p : freed) a.deallocate(p, 1);
   }
   std::vector<T *> kept, freed;
};

void expect_scattered_frees_to_come_out_in_order(bool spaced)
{
   constexpr std::size_t count = 64 * 400;
   pna<std::uint64_t, 64> a;
   nodes_of_blocks made(a, count, spaced);
   // Every 25th node stays in use (the pool never empties); the other 24576 are freed shuffled.
   // The pool looks at its free list every 4096 free nodes: at the last free, 24576 free for 1024
   // in use is mostly free, and the list is set aside to be put in order. (Nodes freed after that
   // would come out first, in the order they were freed.)
   made.free_shuffled_keeping_every(a, 25, 5);
   const std::vector<std::uint64_t *> &kept = made.kept, &freed = made.freed;
   BOOST_TEST(freed.size() == 24576u);
   const ba::node_pool_statistics held = a.statistics();
   BOOST_TEST(held.free_nodes == freed.size());
   BOOST_TEST(held.nodes_in_use == kept.size());
   std::vector<std::uint64_t *> again;
   for (std::size_t i = 0; i < 1000; ++i) again.push_back(a.allocate(1));
   BOOST_TEST(ascending(again));
   std::vector<std::uint64_t *> lowest_freed = freed;
   std::sort(lowest_freed.begin(), lowest_freed.end(), std::less<std::uint64_t *>());
   BOOST_TEST(again.front() == lowest_freed.front());
   BOOST_TEST(a.statistics().free_nodes == freed.size() - 1000);
   for (auto *p : again) a.deallocate(p, 1);
   for (auto *p : kept) a.deallocate(p, 1);
   BOOST_TEST(a.release_free_blocks() == 400u);
}

BOOST_AUTO_TEST_CASE(a_mostly_free_pool_puts_scattered_frees_in_order)
{
   expect_scattered_frees_to_come_out_in_order(false);
}

BOOST_AUTO_TEST_CASE(a_pool_whose_blocks_lie_far_apart_orders_scattered_frees)
{
   expect_scattered_frees_to_come_out_in_order(true);
}

// A free list with many far links (here 147456 shuffled frees) is ordered a slice of 4096 nodes
// at a time, so that no allocation waits for the whole list. The blocks lie far apart (8 KiB of
// the core's after each), so each slice is sorted rather than marked in a bitmap.
BOOST_AUTO_TEST_CASE(a_very_scattered_free_list_comes_out_in_ordered_slices)
{
   constexpr std::size_t count = 64 * 2592;
   pna<std::uint64_t, 64> a;
   nodes_of_blocks made(a, count, true);
   // Every 9th stays in use: 147456 freed for 18432 in use, mostly free at the last free only.
   made.free_shuffled_keeping_every(a, 9, 3);
   const std::vector<std::uint64_t *> &kept = made.kept, &freed = made.freed;
   BOOST_TEST(freed.size() == 36u * 4096);
   std::vector<std::uint64_t *> again;
   for (std::size_t i = 0; i < freed.size(); ++i) again.push_back(a.allocate(1));
   BOOST_TEST(a.statistics().blocks == 2592u);   // every free node handed out, no block made
   for (std::size_t slice = 0; slice < 36; ++slice) {
      BOOST_TEST_INFO("slice " << slice);
      BOOST_TEST(std::is_sorted(again.begin() + slice * 4096, again.begin() + (slice + 1) * 4096,
                                std::less<std::uint64_t *>()));
   }
   std::vector<std::uint64_t *> sorted_again = again, sorted_freed = freed;
   std::sort(sorted_again.begin(), sorted_again.end(), std::less<std::uint64_t *>());
   std::sort(sorted_freed.begin(), sorted_freed.end(), std::less<std::uint64_t *>());
   BOOST_TEST((sorted_again == sorted_freed));   // each exactly once
   for (auto *p : again) a.deallocate(p, 1);
   for (auto *p : kept) a.deallocate(p, 1);
}

#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
// (Under ASan, and under memcheck, a free node may not be read: the pool walks its list, in
// slices, as for the nodes of one word above.)
struct three_words {
   std::uint64_t w[3];
};

BOOST_AUTO_TEST_CASE(a_pool_whose_nodes_carry_marks_orders_its_free_nodes_whole_by_reading_its_blocks)
{
   // The same scattered frees as the slices' test, of nodes that carry the pool's mark while
   // they are free: the pool reads its blocks in address order for the marked nodes instead of
   // walking its list, and hands every free node out in address order, not a slice at a time.
   constexpr std::size_t count = 64 * 2592;
   pna<three_words, 64> a;
   nodes_of_blocks made(a, count, true);
   made.free_shuffled_keeping_every(a, 9, 3);
   std::vector<three_words *> again;
   for (std::size_t i = 0; i < made.freed.size(); ++i) again.push_back(a.allocate(1));
   BOOST_TEST(a.statistics().blocks == 2592u);
   BOOST_TEST(ascending(again));
   std::vector<three_words *> sorted_freed = made.freed;
   std::sort(sorted_freed.begin(), sorted_freed.end(), std::less<three_words *>());
   BOOST_TEST((again == sorted_freed));   // each exactly once
   for (auto *p : again) a.deallocate(p, 1);
   for (auto *p : made.kept) a.deallocate(p, 1);
}

BOOST_AUTO_TEST_CASE(a_node_in_use_that_holds_the_mark_is_not_taken_for_a_free_one)
{
   // A node in use whose second word holds the pool's mark (copied here from a free node: a
   // program cannot guess it), and a free node whose mark is overwritten (a write after free):
   // the marks the pool reads are as many as its free nodes, but not the same nodes (their
   // addresses' sum and XOR differ). It walks its list instead, and never hands the node in use
   // out.
   constexpr std::size_t count = 64 * 400;
   pna<three_words, 64> a;
   nodes_of_blocks made(a, count, false);
   made.free_shuffled_keeping_every(a, 25, 5);
   three_words *forged = made.kept[7];
   forged->w[1] = made.freed.front()->w[1];   // (a free node's mark)
   made.freed[3]->w[1] = 0;
   std::vector<three_words *> again;
   for (std::size_t i = 0; i < made.freed.size(); ++i) again.push_back(a.allocate(1));
   BOOST_TEST((std::find(again.begin(), again.end(), forged) == again.end()));
   std::vector<three_words *> sorted_freed = made.freed;
   std::sort(sorted_freed.begin(), sorted_freed.end(), std::less<three_words *>());
   BOOST_TEST((again == sorted_freed));   // (the list, walked and put in order: each once)
   forged->w[1] = 0;   // (freed with the mark, it would be taken for a double free)
   for (auto *p : again) a.deallocate(p, 1);
   for (auto *p : made.kept) a.deallocate(p, 1);
}
#endif

BOOST_AUTO_TEST_CASE(release_free_blocks_takes_a_free_list_set_aside_to_be_sorted)
{
   constexpr std::size_t count = 64 * 400;
   pna<std::uint64_t, 64> a;
   std::vector<std::uint64_t *> nodes;
   for (std::size_t i = 0; i < count; ++i) nodes.push_back(a.allocate(1));
   std::uint64_t *kept = nodes[70];   // in the second block
   std::vector<std::uint64_t *> freed = nodes;
   freed.erase(freed.begin() + 70);
   std::shuffle(freed.begin(), freed.end(), std::mt19937(9));
   for (auto *p : freed) a.deallocate(p, 1);
   BOOST_TEST(a.release_free_blocks() == 399u);
   BOOST_TEST(a.statistics().free_nodes == 63u);
   std::vector<std::uint64_t *> again;
   for (int i = 0; i < 63; ++i) again.push_back(a.allocate(1));
   BOOST_TEST(ascending(again));
   BOOST_TEST(a.statistics().blocks == 1u);
   for (auto *p : again) a.deallocate(p, 1);
   a.deallocate(kept, 1);
}

#if BOOST_ALLOCPLUS_CHECKED

BOOST_AUTO_TEST_CASE(checked_builds_report_one_pool_used_from_two_threads)
{
   ba::private_node_allocator<std::uint64_t> shared_by_mistake;
   // (Its pool set is made by the first call, before any guard can exist: made here, first.)
   shared_by_mistake.deallocate(shared_by_mistake.allocate(1), 1);
   allocplus_test::expect_two_threads_reported([&] {
      std::uint64_t *p = shared_by_mistake.allocate(1);
      shared_by_mistake.deallocate(p, 1);
   }, "ba::private_node_allocator", nullptr);
}

BOOST_AUTO_TEST_CASE(checked_builds_report_misuse)
{
   using allocplus_test::expect_report;
   pna<std::uint64_t> a;
   std::uint64_t *p = a.allocate(1);
   expect_report([&] { a.deallocate(p, 1); a.deallocate(p, 1); },
                 "ba::private_node_allocator: double free of a node", p);
   // (Outside the span of the pool's blocks, and misaligned: constant-time checks, level 1.)
   std::uint64_t other = 0;
   expect_report([&] { a.deallocate(&other, 1); },
                 "ba::private_node_allocator: a pointer that did not come from this pool is freed", &other);
   std::uint64_t *misaligned = reinterpret_cast<std::uint64_t *>(reinterpret_cast<char *>(p) + 4);
   expect_report([&] { a.deallocate(misaligned, 1); },
                 "ba::private_node_allocator: a pointer that did not come from this pool is freed", misaligned);
   pna<std::uint64_t> fresh;
   expect_report([&] { fresh.deallocate(p, 1); },
                 "ba::private_node_allocator: a node is given back to an allocator that has none (a pointer from "
                 "elsewhere, or an allocator copied while memory was out)",
                 p);
   a.deallocate(p, 1);
}

#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
// What only the lookup of every pointer in the pool's blocks finds (a bit per node, a search of
// the tree of blocks): checking level 2.
BOOST_AUTO_TEST_CASE(level_2_reports_what_the_lookup_finds)
{
   using allocplus_test::expect_report;
   pna<std::uint64_t> a;
   std::uint64_t *p = a.allocate(1), *q = a.allocate(1);
   // A node of one word (no mark) freed again after another one.
   expect_report([&] { a.deallocate(p, 1); a.deallocate(q, 1); a.deallocate(p, 1); },
                 "ba::private_node_allocator: double free of a node", p);
   expect_report([&] { a.deallocate(p, 3); },
                 "ba::private_node_allocator: a node is given back as an array (deallocate(p, n) with n != 1)", p);
   // Aligned as the nodes are and inside the pool's blocks, but not a node's start.
   pna<std::pair<void *, void *>> b;
   auto *n = b.allocate(1);
   auto *inside = reinterpret_cast<std::pair<void *, void *> *>(reinterpret_cast<char *>(n) + sizeof(void *));
   expect_report([&] { b.deallocate(inside, 1); },
                 "ba::private_node_allocator: a pointer that did not come from this pool is freed", inside);
   a.deallocate(p, 1);
   a.deallocate(q, 1);
   b.deallocate(n, 1);
}
#else
// Level 1 makes constant-time checks only: a pointer inside the pool's blocks, aligned as the
// nodes are, is taken as a node without a lookup (this fails if the lookup runs at level 1).
BOOST_AUTO_TEST_CASE(level_1_does_not_look_pointers_up)
{
   pna<std::pair<void *, void *>> b;
   auto *n = b.allocate(1);
   auto *inside = reinterpret_cast<std::pair<void *, void *> *>(reinterpret_cast<char *>(n) + sizeof(void *));
   const child_outcome out = run_in_child([&] { b.deallocate(inside, 1); });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.signal == 0);
   BOOST_TEST(out.err.empty());
   b.deallocate(n, 1);
}
#endif

BOOST_AUTO_TEST_CASE(checked_builds_report_a_leaking_pool)
{
   const child_outcome out = run_in_child([] {
      pna<int> a;
      (void)a.allocate(1);
      (void)a.allocate(1);
   });
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.err.find("ba::private_node_allocator: a pool destroyed with 2 node(s) still in use") !=
              std::string::npos);
}

#endif

BOOST_AUTO_TEST_CASE(release_builds_catch_a_double_free_of_the_node_freed_last)
{
   pna<char> a;
   char *p = a.allocate(1);
   allocplus_test::expect_report([&] { a.deallocate(p, 1); a.deallocate(p, 1); },
                                 "ba::private_node_allocator: double free of a node", p);
   a.deallocate(p, 1);
}

// A burst (deallocate_individual) goes to the pool once, under one guard: it checks each node as
// deallocate does, and an empty burst to an allocator without pools is nothing.
BOOST_AUTO_TEST_CASE(an_empty_burst_needs_no_pool_and_a_burst_to_none_is_reported)
{
   pna<std::pair<void *, void *>> fresh;
   ba::multiallocation_chain<std::pair<void *, void *>> empty;
   fresh.deallocate_individual(empty);
   BOOST_TEST(fresh.statistics().nodes_in_use == 0u);
   pna<std::pair<void *, void *>> a;
   auto *node = a.allocate(1);
   allocplus_test::expect_report(
      [&] {
         ba::multiallocation_chain<std::pair<void *, void *>> one;
         one.push_front(node);
         fresh.deallocate_individual(one);
      },
      "ba::private_node_allocator: a node is given back to an allocator that has none (a pointer from "
      "elsewhere, or an allocator copied while memory was out)",
      node);
   a.deallocate(node, 1);
}

// (A chain links its nodes through their first word: putting a freed node in one is the test's
// own write after free, which ASan reports first.)
#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
template <class Allocator>
void burst_with_a_freed_node_is_reported(const char *message)
{
   using value = typename Allocator::value_type;
   Allocator a;
   value *freed = a.allocate(1);
   allocplus_test::expect_report(
      [&] {
         ba::multiallocation_chain<value> chain;
         a.allocate_individual(5, chain);
         a.deallocate(freed, 1);
         chain.push_front(freed);
         a.deallocate_individual(chain);
      },
      message, freed);
   a.deallocate(freed, 1);
}

BOOST_AUTO_TEST_CASE(a_burst_that_gives_a_node_back_twice_is_reported)
{
   burst_with_a_freed_node_is_reported<pna<std::pair<void *, void *>>>("ba::private_node_allocator: double free of a node");
   burst_with_a_freed_node_is_reported<ba::private_adaptive_pool<std::pair<void *, void *>>>(
      "ba::private_adaptive_pool: double free of a node");
}
#endif

BOOST_AUTO_TEST_CASE(release_builds_still_catch_a_double_free_of_a_two_word_node)
{
   pna<std::pair<void *, void *>> a;
   auto *p = a.allocate(1);
   auto *q = a.allocate(1);
   // p is not the node freed last when it is freed again: its mark tells.
   allocplus_test::expect_report([&] { a.deallocate(p, 1); a.deallocate(q, 1); a.deallocate(p, 1); },
                                 "ba::private_node_allocator: double free of a node", p);
   a.deallocate(p, 1);
   a.deallocate(q, 1);
}

// (Under ASan the test's own write after free is what is reported.)
#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
BOOST_AUTO_TEST_CASE(a_link_overwritten_after_free_is_reported_not_followed)
{
   pna<std::uint64_t> a;
   // (keep stays in use: a pool with none in use would start over and read no link.)
   std::uint64_t *keep = a.allocate(1), *p = a.allocate(1), *q = a.allocate(1);
   a.deallocate(q, 1);
   a.deallocate(p, 1);   // the list: p -> q
   allocplus_test::expect_report(
      [&] {
         volatile std::uintptr_t *link = reinterpret_cast<volatile std::uintptr_t *>(p);
         *link = *link ^ 0x4u;   // a write after free (a misaligned link)
         (void)a.allocate(1);   // pops p, reads its link
      },
      "ba::private_node_allocator: a free node's link is overwritten (a write after free?)", p);
   std::uint64_t *x = a.allocate(1), *y = a.allocate(1);
   a.deallocate(x, 1);
   a.deallocate(y, 1);
   a.deallocate(keep, 1);
}
#endif
