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
// node from the pool; its version 2 sends allocate(1) to dlmalloc), and `zero_cost_bound`: no
// allocator to use but the bound of what any allocator can do here (allocate bumps a pointer
// through memory faulted in beforehand, deallocate does nothing, each container of an insert or
// erase row starts at the same place again): how much of a row's time is the allocator's.

#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/container/adaptive_pool.hpp>

#include "benchmark_kit.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
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

// The memory of zero_cost_bound: 256 MiB, faulted in at the first use (a million map nodes and a
// million-element unordered_map's nodes and every bucket array it grew through take under 160).
class bound_region {
public:
   static void *take(std::size_t count, std::size_t size)
   {
      if (count > capacity / size) throw std::bad_alloc();
      const std::size_t bytes = (count * size + 15) & ~std::size_t(15);
      if (bytes > capacity - used_) throw std::bad_alloc();
      void *p = base() + used_;
      used_ += bytes;
      return p;
   }
   static void give(void *, std::size_t, std::size_t) noexcept {}
   // Before each container (the one before it is gone). The first call faults the memory in.
   static void start_over() noexcept
   {
      (void)base();
      used_ = 0;
   }

private:
   static constexpr std::size_t capacity = std::size_t(256) << 20;
   static unsigned char *base()
   {
      static unsigned char *const memory = [] {
         auto *m = static_cast<unsigned char *>(::operator new(capacity, std::align_val_t(64)));
         std::memset(m, 0, capacity);
         return m;
      }();
      return memory;
   }
   static inline std::size_t used_ = 0;
};

template <class T>
using zero_cost_bound = ba_bench::static_source_allocator<T, bound_region>;

template <class Container>
constexpr bool uses_bound =
   std::is_same_v<typename Container::allocator_type, zero_cost_bound<typename Container::value_type>>;

template <class Container>
void fill(Container &c, const std::vector<int> &order)
{
   for (int k : order) c.emplace(k, value_type("first", "second"));
}

// reserve(c, n) where the container has it (the int overload is the better match), else nothing.
template <class Container>
auto reserve(Container &c, std::size_t n, int) -> decltype(c.reserve(n))
{
   c.reserve(n);
}
template <class Container>
void reserve(Container &, std::size_t, long)   // std::map: nothing to reserve
{
}

enum class what { insert, reserve_insert, erase, lookup_hit, lookup_miss };

// The lookup rows: every probe key found (or not) in a map built beforehand.
template <class Container>
void lookups(benchmark::State &state, const keys &k, what w)
{
   if (uses_bound<Container>) bound_region::start_over();
   Container c;
   fill(c, k.insert_order);
   const std::vector<int> &probe = w == what::lookup_hit ? k.insert_order : k.misses;
   std::size_t found = 0;
   for (auto _ : state) {
      for (int key : probe) found += c.find(key) != c.end();
      benchmark::DoNotOptimize(found);
   }
   ba_bench::set_time_per_op(state, static_cast<double>(probe.size()));
}

// The insert and erase rows: the inserts or erases alone timed, by the stopwatch (PauseTiming
// reads the process's CPU time through a system call: a pause and resume took 0.7 us here,
// 1-3% of what an erase row at 1000 elements times).
template <class Container>
void changes(benchmark::State &state, const keys &k, what w)
{
   if (uses_bound<Container>) bound_region::start_over();   // (faulted in before the timing)
   double timed = 0;
   for (auto _ : state) {
      if (uses_bound<Container>) bound_region::start_over();
      auto c = std::make_unique<Container>();
      if (w == what::erase) fill(*c, k.insert_order);
      const auto t0 = ba_bench::stopwatch_clock::now();
      if (w == what::erase) {
         for (int key : k.erase_order) c->erase(key);
      } else {
         if (w == what::reserve_insert) reserve(*c, k.insert_order.size(), 0);
         fill(*c, k.insert_order);
      }
      benchmark::DoNotOptimize(c.get());
      timed += ba_bench::seconds_since(t0);
   }
   ba_bench::set_timed_part_per_op(state, timed, static_cast<double>(k.insert_order.size()));
}

template <class Container>
void bm(benchmark::State &state, std::size_t n, what w)
{
   const keys &k = keys_of(n);
   if (w == what::lookup_hit || w == what::lookup_miss)
      lookups<Container>(state, k, w);
   else
      changes<Container>(state, k, w);
   state.SetLabel("time per element");
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
   register_all<zero_cost_bound>("zero_cost_bound");
   return ba_bench::run_benchmarks(argc, argv);
}
