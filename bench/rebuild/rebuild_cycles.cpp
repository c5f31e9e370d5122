// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Rebuild cycles: a program that builds a large container, destroys it and builds it again (a
// cache rebuilt, a frame's scene graph, a request's parse tree) meets what a fresh benchmark never
// shows: whether the heap gave the memory back in between, and pays page faults for it again.
//
//   rebuild_list/1M_nodes/<allocator>
//      one benchmark iteration: 10 cycles, each pushing 1M ints into an empty list and destroying
//      it. Operation: one element of one cycle (the iteration's time / 10M).
//   rebuild_map/1M_elements/<allocator>
//      the same with a map<int, int> of 1M elements inserted in a fixed pseudo-random order.
//
// Allocators: `std_allocator` (std::list / std::map over std::allocator: glibc's malloc, and the
// peers under LD_PRELOAD), `ba_allocator_v2` (ba::list / std::map over ba::allocator<T, 2>),
// `boost_allocator_v2` (boost::container::list / std::map over boost::container::allocator<T, 2>).
//
// Each benchmark runs one iteration (10 cycles) in its process: bench/run.py's rounds repeat it.
// Counters: `faults_first_cycle` and `faults_later_cycles` (minor page faults of the first cycle,
// and the mean over cycles 2-10), `faults_10_cycles_over_one` (all ten cycles' faults / the first
// cycle's: 1 when the memory of the first cycle is reused by the others, 10 when every cycle
// faults its memory in again), `ns_first_cycle` and `ns_later_cycles` (per element; the later:
// the median of cycles 2-10).

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/container/allocator.hpp>
#include <boost/container/list.hpp>

#include "benchmark_kit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

constexpr std::size_t kCycles = 10;
constexpr std::size_t kElements = 1000000;

long minor_faults()
{
   struct rusage usage;
   getrusage(RUSAGE_SELF, &usage);
   return usage.ru_minflt;
}

double median(std::vector<double> v)
{
   std::sort(v.begin(), v.end());
   return v.empty() ? 0.0 : v[v.size() / 2];
}

//! The keys of the map, in a fixed pseudo-random order.
const std::vector<int> &map_keys()
{
   static const std::vector<int> keys = [] {
      std::vector<int> k(kElements);
      ba_bench::fixed_seed_rng r(20261124);
      for (std::size_t i = 0; i != kElements; ++i) k[i] = static_cast<int>(i);
      for (std::size_t i = kElements - 1; i > 0; --i) std::swap(k[i], k[r.between(0, i)]);
      return k;
   }();
   return keys;
}

template <class List>
void build_list()
{
   List l;
   for (std::size_t i = 0; i != kElements; ++i) l.push_back(static_cast<int>(i));
   benchmark::DoNotOptimize(&l.back());
}

template <class Map>
void build_map()
{
   Map m;
   for (int key : map_keys()) m.emplace(key, key);
   benchmark::DoNotOptimize(&*m.begin());
}

//! Runs `cycle` kCycles times a benchmark iteration; the first iteration's cycles are counted.
void rebuild_benchmark(benchmark::State &state, void (*cycle)())
{
   std::vector<double> ns, faults;
   bool first = true;
   for (auto _ : state) {
      for (std::size_t c = 0; c != kCycles; ++c) {
         const long faults_before = minor_faults();
         const auto t0 = ba_bench::stopwatch_clock::now();
         cycle();
         if (first) {
            ns.push_back(ba_bench::seconds_since(t0) * 1e9 / static_cast<double>(kElements));
            faults.push_back(static_cast<double>(minor_faults() - faults_before));
         }
      }
      first = false;
   }
   double total_faults = 0;
   for (double f : faults) total_faults += f;
   state.counters["faults_first_cycle"] = faults.front();
   state.counters["faults_later_cycles"] = (total_faults - faults.front()) / static_cast<double>(kCycles - 1);
   state.counters["faults_10_cycles_over_one"] = faults.front() > 0 ? total_faults / faults.front() : 0;
   state.counters["ns_first_cycle"] = ns.front();
   state.counters["ns_later_cycles"] = median(std::vector<double>(ns.begin() + 1, ns.end()));
   ba_bench::set_time_per_op(state, static_cast<double>(kCycles * kElements));
   state.SetLabel("time per element, over 10 cycles of build and destroy");
}

template <class T>
using map_over = std::map<int, int, std::less<int>, T>;
using pair_type = std::pair<const int, int>;

} // namespace

int main(int argc, char **argv)
{
   map_keys();   // before any benchmark: not part of the first cycle's faults
   ba_bench::register_benchmark("rebuild_list/1M_nodes/std_allocator", [](benchmark::State &s) {
      rebuild_benchmark(s, build_list<std::list<int>>);
   })->Iterations(1);
   ba_bench::register_benchmark("rebuild_list/1M_nodes/ba_allocator_v2", [](benchmark::State &s) {
      rebuild_benchmark(s, build_list<ba::list<int, ba::allocator<int, 2>>>);
   })->Iterations(1);
   ba_bench::register_benchmark("rebuild_list/1M_nodes/boost_allocator_v2", [](benchmark::State &s) {
      rebuild_benchmark(s, build_list<bc::list<int, bc::allocator<int, 2>>>);
   })->Iterations(1);
   ba_bench::register_benchmark("rebuild_map/1M_elements/std_allocator", [](benchmark::State &s) {
      rebuild_benchmark(s, build_map<map_over<std::allocator<pair_type>>>);
   })->Iterations(1);
   ba_bench::register_benchmark("rebuild_map/1M_elements/ba_allocator_v2", [](benchmark::State &s) {
      rebuild_benchmark(s, build_map<map_over<ba::allocator<pair_type, 2>>>);
   })->Iterations(1);
   ba_bench::register_benchmark("rebuild_map/1M_elements/boost_allocator_v2", [](benchmark::State &s) {
      rebuild_benchmark(s, build_map<map_over<bc::allocator<pair_type, 2>>>);
   })->Iterations(1);
   return ba_bench::run_benchmarks(argc, argv);
}
