// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Giving a node pool's memory back after its nodes are freed in random order.
//
//   pool_release_free_blocks/<N>/<alloc>   N nodes of 24 bytes allocated, then (timed) freed in a
//                                          random order and every free block given back.
//                                          Operation: one node freed. Ours keeps the first node in
//                                          use (a pool with none in use starts over at once, and
//                                          would have nothing to sort): its release sorts N - 1
//                                          free nodes. (Boost.Pool's release_memory() gave
//                                          nothing back with a node kept, so it frees all N.)
//
// Allocators: `ba_private_node` (ba::private_node_allocator: frees, then release_free_blocks(),
// which sorts the free nodes once); `boost_pool_ordered` (Boost.Pool's boost::pool<>: the
// ordered frees its release_memory() needs, each a walk of the free list). Boost.Pool runs up to
// 32k nodes only: its ordered frees cost O(n) each, minutes at 1M.

#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/pool/pool.hpp>

#include "benchmark_kit.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace {

namespace ba = boost::allocplus;

struct node24 {
   char bytes[24];
};
constexpr std::size_t kNodesPerBlock = 256;

// The same random order for every allocator (Fisher-Yates with the kit's fixed-seed generator).
template <class T>
void shuffle(std::vector<T> &v)
{
   ba_bench::fixed_seed_rng rng(20261125);
   for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.between(0, i - 1)]);
}

void bm_ours(benchmark::State &state, std::size_t n)
{
   double timed = 0;
   std::vector<node24 *> nodes(n);
   for (auto _ : state) {
      ba::private_node_allocator<node24, kNodesPerBlock> pool;
      for (auto &p : nodes) p = pool.allocate(1);
      node24 *first = nodes.front();
      nodes.erase(nodes.begin());
      shuffle(nodes);
      auto t0 = ba_bench::stopwatch_clock::now();
      for (node24 *p : nodes) pool.deallocate(p, 1);
      const std::size_t released = pool.release_free_blocks();
      timed += ba_bench::seconds_since(t0);
      if (pool.statistics().blocks != 1 || released == 0) state.SkipWithError("blocks were kept");
      pool.deallocate(first, 1);
      nodes.insert(nodes.begin(), first);
   }
   ba_bench::set_timed_part_per_op(state, timed, static_cast<double>(n - 1));
}

void bm_boost_pool(benchmark::State &state, std::size_t n)
{
   double timed = 0;
   std::vector<void *> nodes(n);
   for (auto _ : state) {
      boost::pool<> pool(sizeof(node24), kNodesPerBlock);
      for (auto &p : nodes) p = pool.malloc();
      shuffle(nodes);
      auto t0 = ba_bench::stopwatch_clock::now();
      for (void *p : nodes) pool.ordered_free(p);
      const bool released = pool.release_memory();
      timed += ba_bench::seconds_since(t0);
      if (!released) state.SkipWithError("blocks were kept");
   }
   ba_bench::set_timed_part_per_op(state, timed, static_cast<double>(n));
}

} // namespace

int main(int argc, char **argv)
{
   const std::pair<std::size_t, const char *> sizes[] = {{4096, "4k"}, {32768, "32k"}, {1000000, "1M"}};
   for (const auto &[n, label] : sizes) {
      const std::string table = std::string("pool_release_free_blocks/") + label + "/";
      ba_bench::register_benchmark(table + "ba_private_node", [n = n](benchmark::State &s) { bm_ours(s, n); });
      if (n <= 32768)
         ba_bench::register_benchmark(table + "boost_pool_ordered", [n = n](benchmark::State &s) { bm_boost_pool(s, n); });
   }
   return ba_bench::run_benchmarks(argc, argv);
}
