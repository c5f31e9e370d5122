// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 000, chapter 3 (issue 21): the adaptive pools in the list test of chapter 2, with the
// seed's eight allocators next to Boost.Container's pools and std::allocator, and the seed's
// memory tables, in one program so that bench/run.py puts them in the same tables.
//
//   seed000_adaptive_pool_insert/<iterations>x<elements>/<allocator>
//   seed000_adaptive_pool_erase/<iterations>x<elements>/<allocator>
//      chapter 2's list test (bench/list/seed000_list_test.hpp: ranges of the seed's MyInt
//      inserted at the end of a list, then erased range by range), at its four range sizes.
//      Operation: one element inserted / erased.
//   seed000_adaptive_pool_insert_aged/200000x10/<allocator>, ..._erase_aged/...
//      ranges of 10 (the row with the most allocator calls per element) on a heap aged first over
//      the same allocator (bench/aged_heap.hpp; not the private pools: aging moves nodes between
//      containers, which a pool per container does not allow)
//   seed000_adaptive_pool_insert_idle_thread/200000x10/<allocator>, ..._erase_idle_thread/...
//      the same on a fresh heap with one more thread alive, blocked (every lock is taken for real)
//   seed000_adaptive_pool_insert_two_threads/200000x10/<allocator>, ..._erase_two_threads/...
//      the same while a second thread runs the whole test, over and over, on a list of its own
//      over the same allocator (a private pool: a pool of its own)
//      (The version-1 rows of these three tables run with --full only: bench/tables.json.)
//   seed000_adaptive_pool_memory/1M_nodes/<allocator>
//   seed000_adaptive_pool_memory_aged/1M_nodes/<allocator>
//      the memory tables: a list<int> of 1,000,000 nodes (24 bytes each) built by push_back and
//      destroyed, once (one iteration), on a fresh heap / on a heap aged first over the same
//      allocator (bench/aged_heap.hpp). Each reading is a difference from the one taken just
//      before the list is built. Counters:
//        bytes_per_node        while the list lives, what the allocator holds for it per node:
//                              our pools' statistics().bytes_held; otherwise the in-use bytes
//                              of the heap under the allocator (chunk headers included): ours'
//                              ba_stats, glibc's mallinfo2 (uordblks + hblkhd), Boost.Container's
//                              dlmalloc_in_use_memory()
//        overhead_pct          100 * (bytes_per_node - 24) / 24
//        core_bytes_per_node   the same read from the heap under the allocator (for our pools:
//                              ba_stats in_use_bytes, the blocks with the core's own headers)
//        system_bytes_per_node what that heap took from the system (ba_stats system_bytes, glibc's
//                              arena + hblkhd, dlmalloc_footprint()): alignment slop included
//        held_after_mib        after the list died (and ba_thread_cache_flush()): what the
//                              allocator still holds (our pools: bytes_held; otherwise the heap's
//                              in-use bytes) — the seed's "in-use memory after deallocating"
//        system_after_mib      what the heap still has from the system then, untrimmed
//        system_after_delay_mib the same after a quiet second and a tenth: our core has given back
//                              what stayed unused for its decay delay (1 s; read after
//                              ba_collect(), since nothing calls the heap while the program
//                              sleeps); glibc and Boost.Container's dlmalloc have no delay, so
//                              theirs is the untrimmed figure again, measured
//        system_after_trim_mib the same after the heap trims (ba_trim(0), malloc_trim(0),
//                              boost::container::dlmalloc_trim(0))
//      After the list dies, our adaptive pools' check() walks every block invariant (a broken one
//      stops the benchmark with an error). Under LD_PRELOAD of a peer malloc (std_allocator+jemalloc, ...) glibc's readings describe
//      nothing: those rows have only their time.
//
// Allocators, all with 256 nodes per block:
//   `std_allocator`               std::allocator (the timed test: ba::list over it, node by node)
//   `ba_allocator_v1` / `_v2`     ba::allocator<T, 1 | 2> (the seed's AllocatorPlusV1 / V2)
//   `ba_adaptive_pool_align_v1` / `_v2`  ba::adaptive_pool<T, 256, 2, 0, 1 | 2>: one aligned
//                                 block, no sub-blocks (AdPoolAlignOnlyV1 / V2)
//   `ba_adaptive_pool_2pct_v1` / `_v2`   ba::adaptive_pool<T, 256, 2, 2, 1 | 2>: sub-blocks, at
//                                 most 2% overhead (AdPool2PercentV1 / V2)
//   `ba_node_allocator_v1` / `_v2`       ba::node_allocator<T, 256, 1 | 2>: simple segregated
//                                 storage (SimpleSegregatedStorageV1 / V2)
//   `ba_private_adaptive_pool_align_v2`  ba::private_adaptive_pool<T, 256, 2, 0, 2>, and
//   `ba_private_node_allocator_v2`       ba::private_node_allocator<T, 256, 2>: a pool per list
//                                 (the timed test only)
//   `boost_adaptive_pool_v1` / `_v2`     boost::container::adaptive_pool<T, 256, 2, 2, 1 | 2>
//   `boost_node_allocator_v1` / `_v2`    boost::container::node_allocator<T, 256, 1 | 2>
// Ours and std::allocator run in ba::list (chapter 2's list), Boost.Container's in
// boost::container::list: its version-2 bursts are its own multiallocation chains, which only its
// containers speak. The memory tables use std::list<int> for ours and std::allocator and
// boost::container::list<int> for Boost.Container's (whose version 2 sends allocate(1), all
// std::list calls, to dlmalloc instead of the pool; boost::container::list calls allocate_one).

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/node_allocator.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>
#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/container/adaptive_pool.hpp>
#include <boost/container/detail/dlmalloc.hpp>
#include <boost/container/list.hpp>
#include <boost/container/node_allocator.hpp>

#include "heap_reading.hpp"
#include "list/seed000_list_test.hpp"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using ba_bench::heap_age;
using ba_bench::seed000_list::ba_list_t;
using ba_bench::seed000_list::boost_list_t;
using ba_bench::seed000_list::config;
using ba_bench::seed000_list::row;
using ba_bench::seed000_list::rows;
using ba_bench::seed000_list::std_list_t;

// --- the allocators ---------------------------------------------------------------------------------

template <class T>
using std_alloc = std::allocator<T>;
template <class T>
using ba_allocator_v1 = ba::allocator<T, 1>;
template <class T>
using ba_allocator_v2 = ba::allocator<T, 2>;
template <class T>
using ba_adaptive_pool_align_v1 = ba::adaptive_pool<T, 256, 2, ba::adaptive_pool_only_alignment, 1>;
template <class T>
using ba_adaptive_pool_align_v2 = ba::adaptive_pool<T, 256, 2, ba::adaptive_pool_only_alignment, 2>;
template <class T>
using ba_adaptive_pool_2pct_v1 = ba::adaptive_pool<T, 256, 2, 2, 1>;
template <class T>
using ba_adaptive_pool_2pct_v2 = ba::adaptive_pool<T, 256, 2, 2, 2>;
template <class T>
using ba_node_allocator_v1 = ba::node_allocator<T, 256, 1>;
template <class T>
using ba_node_allocator_v2 = ba::node_allocator<T, 256, 2>;
template <class T>
using ba_private_adaptive_pool_align_v2 = ba::private_adaptive_pool<T, 256, 2, ba::adaptive_pool_only_alignment, 2>;
template <class T>
using ba_private_node_allocator_v2 = ba::private_node_allocator<T, 256, 2>;
template <class T>
using boost_adaptive_pool_v1 = bc::adaptive_pool<T, 256, 2, 2, 1>;
template <class T>
using boost_adaptive_pool_v2 = bc::adaptive_pool<T, 256, 2, 2, 2>;
template <class T>
using boost_node_allocator_v1 = bc::node_allocator<T, 256, 1>;
template <class T>
using boost_node_allocator_v2 = bc::node_allocator<T, 256, 2>;

// --- the memory tables ------------------------------------------------------------------------------

constexpr std::size_t kNodes = 1000000;
constexpr double kNodeBytes = 24; // a list<int> node: two links and the int, padded

using ba_bench::heap_kind;
using ba_bench::heap_reading;
using ba_bench::read_heap;

// A quiet spell longer than our core's decay delay; then the call a quiet program would make.
void wait_out_the_decay_delay(heap_kind heap)
{
   std::this_thread::sleep_for(std::chrono::milliseconds(1100));
   if (heap == heap_kind::ba_core) ba_collect();
}

void trim_heap(heap_kind heap)
{
   switch (heap) {
   case heap_kind::glibc: malloc_trim(0); break;
   case heap_kind::ba_core: ba_trim(0); break;
   case heap_kind::boost_dlmalloc: bc::dlmalloc_trim(0); break;
   }
}

//! A type of the size and alignment of a list<int> node: our shared pools are keyed by both, so
//! Alloc<list_node_like>::statistics() reads the pool the list's nodes come from.
struct list_node_like {
   void *prev;
   void *next;
   int value;
};
static_assert(sizeof(list_node_like) == 24, "a list<int> node is 24 bytes on this platform");

//! Whether A has our adaptive pools' static check() (the invariant walk).
template <class A, class = void>
struct has_check : std::false_type {};
template <class A>
struct has_check<A, std::void_t<decltype(A::check())>> : std::true_type {};

//! A list<int> over Alloc for the memory tables, the heap under it, and (Pool) whether Alloc has
//! our pools' static statistics().
template <template <class, class> class List, template <class> class Alloc, heap_kind Heap, bool Pool>
struct memory_config {
   template <class T>
   using alloc = Alloc<T>;
   using list = List<int, Alloc<int>>;
   static constexpr heap_kind heap = Heap;
   static constexpr bool pool = Pool;

   //! Our pool's statistics for the list's node size (zeros when Alloc is not one of our pools).
   static ba::node_pool_statistics pool_statistics()
   {
      if constexpr (Pool) {
         ba_thread_cache_flush();
         return Alloc<list_node_like>::statistics();
      } else {
         return {};
      }
   }

   //! Null, or the first invariant of our adaptive pool (the list's nodes') found broken.
   static const char *pool_check()
   {
      if constexpr (has_check<Alloc<list_node_like>>::value) return Alloc<list_node_like>::check();
      else return nullptr;
   }
};

constexpr double kMiB = static_cast<double>(ba_bench::kMiB);

template <class Config>
void memory_benchmark(benchmark::State &state, heap_age age)
{
   const ba_bench::heap_of_age<Config::template alloc> aged(age);
   const bool readable = Config::heap != heap_kind::glibc || ba_bench::malloc_is_glibc();
   double seconds = 0;
   for (auto _ : state) {
      const heap_reading before = read_heap(Config::heap);
      const ba::node_pool_statistics pool_before = Config::pool_statistics();

      const auto t0 = ba_bench::stopwatch_clock::now();
      auto l = std::make_unique<typename Config::list>();
      for (std::size_t i = 0; i != kNodes; ++i) l->push_back(static_cast<int>(i));
      seconds += ba_bench::seconds_since(t0);
      benchmark::DoNotOptimize(&l->back());

      const heap_reading alive = read_heap(Config::heap);
      const ba::node_pool_statistics pool_alive = Config::pool_statistics();

      const auto t1 = ba_bench::stopwatch_clock::now();
      l.reset();
      seconds += ba_bench::seconds_since(t1);

      const heap_reading after = read_heap(Config::heap);
      const ba::node_pool_statistics pool_after = Config::pool_statistics();
      wait_out_the_decay_delay(Config::heap);
      const heap_reading after_delay = read_heap(Config::heap);
      trim_heap(Config::heap);
      const heap_reading trimmed = read_heap(Config::heap);

      if (Config::pool && pool_alive.nodes_in_use - pool_before.nodes_in_use != kNodes) {
         state.SkipWithError("the pool read is not the one of the list's nodes");
         break;
      }
      if (const char *broken = Config::pool_check()) {
         state.SkipWithError((std::string("the adaptive pool is broken: ") + broken).c_str());
         break;
      }
      if (!readable) continue;
      const double n = static_cast<double>(kNodes);
      const double core_bytes = (alive.in_use - before.in_use) / n;
      const double bytes = Config::pool
         ? (static_cast<double>(pool_alive.bytes_held) - static_cast<double>(pool_before.bytes_held)) / n
         : core_bytes;
      const double held_after = Config::pool
         ? static_cast<double>(pool_after.bytes_held) - static_cast<double>(pool_before.bytes_held)
         : after.in_use - before.in_use;
      state.counters["bytes_per_node"] = bytes;
      state.counters["overhead_pct"] = 100 * (bytes - kNodeBytes) / kNodeBytes;
      state.counters["core_bytes_per_node"] = core_bytes;
      state.counters["system_bytes_per_node"] = (alive.system - before.system) / n;
      state.counters["held_after_mib"] = std::max(0.0, held_after) / kMiB;
      state.counters["system_after_mib"] = std::max(0.0, after.system - before.system) / kMiB;
      state.counters["system_after_delay_mib"] = std::max(0.0, after_delay.system - before.system) / kMiB;
      state.counters["system_after_trim_mib"] = std::max(0.0, trimmed.system - before.system) / kMiB;
   }
   ba_bench::set_timed_part_per_op(state, seconds, 2.0 * static_cast<double>(kNodes));
   state.SetLabel("time per node allocated or freed");
}

// --- registration -------------------------------------------------------------------------------

//! The timed tests of one allocator: every row on a fresh heap in a process of one thread; and
//! the row with the most allocator calls per element (ranges of 10) on an aged heap (a shared
//! allocator's: bench/aged_heap.hpp moves nodes between containers, which a pool per container
//! does not allow), with an idle second thread alive, and with a second thread running the same
//! test over the same allocator.
template <class Timed>
void add_list_tests(const char *name, bool shared = true)
{
   using ba_bench::company;
   using ba_bench::seed000_list::register_list_test;
   for (const row &r : rows) register_list_test<Timed>("seed000_adaptive_pool", r, name);
   const row ranges_of_10{200000, 10};
   if (shared) register_list_test<Timed>("seed000_adaptive_pool", ranges_of_10, name, heap_age::aged);
   register_list_test<Timed>("seed000_adaptive_pool", ranges_of_10, name, heap_age::fresh, company::idle_thread);
   register_list_test<Timed>("seed000_adaptive_pool", ranges_of_10, name, heap_age::fresh, company::second_worker);
}

//! One allocator: its timed-test list (ba::list, or Boost.Container's list for its allocators)
//! and its memory-table list, over the heap its memory is read from.
template <template <class> class Alloc, heap_kind Heap, bool Pool, bool Boost = false>
void add(const char *name)
{
   using timed = std::conditional_t<Boost, config<boost_list_t, Alloc, false>, config<ba_list_t, Alloc, false>>;
   using memory = std::conditional_t<Boost, memory_config<boost_list_t, Alloc, Heap, Pool>,
                                     memory_config<std_list_t, Alloc, Heap, Pool>>;
   add_list_tests<timed>(name);
   ba_bench::register_benchmark(std::string("seed000_adaptive_pool_memory/1M_nodes/") + name,
                                [](benchmark::State &s) { memory_benchmark<memory>(s, heap_age::fresh); })
      ->Iterations(1);
   ba_bench::register_benchmark(std::string("seed000_adaptive_pool_memory_aged/1M_nodes/") + name,
                                [](benchmark::State &s) { memory_benchmark<memory>(s, heap_age::aged); })
      ->Iterations(1);
}

//! The timed tests alone, for a private pool (one per list: the memory tables read the shared
//! pools' statistics).
template <template <class> class Alloc>
void add_timed(const char *name)
{
   add_list_tests<config<ba_list_t, Alloc, false>>(name, false);
}

} // namespace

int main(int argc, char **argv)
{
   add<std_alloc, heap_kind::glibc, false>("std_allocator");
   add<ba_allocator_v1, heap_kind::ba_core, false>("ba_allocator_v1");
   add<ba_allocator_v2, heap_kind::ba_core, false>("ba_allocator_v2");
   add<ba_adaptive_pool_align_v1, heap_kind::ba_core, true>("ba_adaptive_pool_align_v1");
   add<ba_adaptive_pool_align_v2, heap_kind::ba_core, true>("ba_adaptive_pool_align_v2");
   add<ba_adaptive_pool_2pct_v1, heap_kind::ba_core, true>("ba_adaptive_pool_2pct_v1");
   add<ba_adaptive_pool_2pct_v2, heap_kind::ba_core, true>("ba_adaptive_pool_2pct_v2");
   add<ba_node_allocator_v1, heap_kind::ba_core, true>("ba_node_allocator_v1");
   add<ba_node_allocator_v2, heap_kind::ba_core, true>("ba_node_allocator_v2");
   add_timed<ba_private_adaptive_pool_align_v2>("ba_private_adaptive_pool_align_v2");
   add_timed<ba_private_node_allocator_v2>("ba_private_node_allocator_v2");
   add<boost_adaptive_pool_v1, heap_kind::boost_dlmalloc, false, true>("boost_adaptive_pool_v1");
   add<boost_adaptive_pool_v2, heap_kind::boost_dlmalloc, false, true>("boost_adaptive_pool_v2");
   add<boost_node_allocator_v1, heap_kind::boost_dlmalloc, false, true>("boost_node_allocator_v1");
   add<boost_node_allocator_v2, heap_kind::boost_dlmalloc, false, true>("boost_node_allocator_v2");
   return ba_bench::run_benchmarks(argc, argv);
}
