// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 003: a pool per container for node containers (private_node_allocator), against
// std::allocator and boost::container's pool per container (private_adaptive_pool: Boost.Container
// 1.81 has no private_node_allocator), in one program so that
// bench/run.py puts them in the same tables. The containers map an int to a pair of strings
// (short ones: the nodes are the only allocations), keys in random order.
//
//   seed003_map_insert/<n>/<alloc>          insert n keys into an empty std::map (the map's
//                                            destruction is not timed). Operation: one insert.
//   seed003_map_erase/<n>/<alloc>           erase the n keys of a full map, in another random
//                                            order (the build is not timed). Operation: one erase.
//   seed003_map_lookup_hit/<n>/<alloc>      find each of the n keys of a map built beforehand.
//   seed003_map_lookup_miss/<n>/<alloc>     find n keys the map does not hold.
//   seed003_umap_insert, seed003_umap_reserve_insert (reserve(n) first), seed003_umap_erase,
//   seed003_umap_lookup_hit, seed003_umap_lookup_miss: the same with std::unordered_map.
//
// n: 1000, 32768, 1048576. Allocators: `std_allocator`, `ba_private_node`
// (ba::private_node_allocator<T>), `boost_private_adaptive_v1`
// (boost::container::private_adaptive_pool<T, 256, 2, 5, 1>: version 1, whose allocate(1) takes a
// node from the pool; its version 2 sends allocate(1) to dlmalloc).

#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/container/adaptive_pool.hpp>

#include "benchmark_kit.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using value_type = std::pair<std::string, std::string>;
using entry = std::pair<const int, value_type>;

const std::size_t sizes[] = {1000, 32768, 1048576};

// Keys 0, 2, 4, ... (present) in one random order for inserts and lookups, another for erases;
// the odd keys are the misses.
struct keys {
   std::vector<int> insert_order, erase_order, misses;
   explicit keys(std::size_t n)
   {
      std::mt19937 rng(2013);
      for (std::size_t i = 0; i < n; ++i) insert_order.push_back(static_cast<int>(2 * i));
      std::shuffle(insert_order.begin(), insert_order.end(), rng);
      erase_order = insert_order;
      std::shuffle(erase_order.begin(), erase_order.end(), rng);
      for (int k : insert_order) misses.push_back(k + 1);
   }
};

const keys &keys_of(std::size_t n)
{
   static std::map<std::size_t, std::unique_ptr<keys>> all;
   auto &k = all[n];
   if (!k) k = std::make_unique<keys>(n);
   return *k;
}

template <template <class> class Alloc>
struct config {
   using map = std::map<int, value_type, std::less<int>, Alloc<entry>>;
   using umap = std::unordered_map<int, value_type, std::hash<int>, std::equal_to<int>, Alloc<entry>>;
};

template <class T>
using std_alloc = std::allocator<T>;
template <class T>
using ba_private = ba::private_node_allocator<T>;
template <class T>
using boost_private = bc::private_adaptive_pool<T, 256, 2, 5, 1>;

template <class Container>
void fill(Container &c, const std::vector<int> &order)
{
   for (int k : order) c.emplace(k, value_type("first", "second"));
}

template <class Container>
auto reserve(Container &c, std::size_t n) -> decltype(c.reserve(n))
{
   c.reserve(n);
}
inline void reserve(...) {}   // std::map: nothing to reserve

enum class what { insert, reserve_insert, erase, lookup_hit, lookup_miss };

template <class Container>
void bm(benchmark::State &state, std::size_t n, what w)
{
   const keys &k = keys_of(n);
   if (w == what::lookup_hit || w == what::lookup_miss) {
      Container c;
      fill(c, k.insert_order);
      const std::vector<int> &probe = w == what::lookup_hit ? k.insert_order : k.misses;
      std::size_t found = 0;
      for (auto _ : state) {
         for (int key : probe) found += c.find(key) != c.end();
         benchmark::DoNotOptimize(found);
      }
   } else {
      for (auto _ : state) {
         state.PauseTiming();
         auto c = std::make_unique<Container>();
         if (w == what::erase) fill(*c, k.insert_order);
         state.ResumeTiming();
         if (w == what::erase) {
            for (int key : k.erase_order) c->erase(key);
         } else {
            if (w == what::reserve_insert) reserve(*c, n);
            fill(*c, k.insert_order);
         }
         benchmark::DoNotOptimize(c.get());
         state.PauseTiming();
         c.reset();
         state.ResumeTiming();
      }
   }
   state.SetLabel("time per element");
   ba_bench::set_time_per_op(state, static_cast<double>(n));
}

template <template <class> class Alloc>
void register_all(const char *alloc_name)
{
   using map = typename config<Alloc>::map;
   using umap = typename config<Alloc>::umap;
   const std::pair<const char *, what> map_rows[] = {{"seed003_map_insert", what::insert},
                                                     {"seed003_map_erase", what::erase},
                                                     {"seed003_map_lookup_hit", what::lookup_hit},
                                                     {"seed003_map_lookup_miss", what::lookup_miss}};
   const std::pair<const char *, what> umap_rows[] = {{"seed003_umap_insert", what::insert},
                                                      {"seed003_umap_reserve_insert", what::reserve_insert},
                                                      {"seed003_umap_erase", what::erase},
                                                      {"seed003_umap_lookup_hit", what::lookup_hit},
                                                      {"seed003_umap_lookup_miss", what::lookup_miss}};
   for (std::size_t n : sizes) {
      const std::string tail = "/" + std::to_string(n) + "/" + alloc_name;
      for (auto &r : map_rows) {
         const what w = r.second;
         ba_bench::register_benchmark(r.first + tail, [n, w](benchmark::State &s) { bm<map>(s, n, w); });
      }
      for (auto &r : umap_rows) {
         const what w = r.second;
         ba_bench::register_benchmark(r.first + tail, [n, w](benchmark::State &s) { bm<umap>(s, n, w); });
      }
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_all<std_alloc>("std_allocator");
   register_all<ba_private>("ba_private_node");
   register_all<boost_private>("boost_private_adaptive_v1");
   return ba_bench::run_benchmarks(argc, argv);
}
