// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 002: node churn of std::list<int> and std::set<int> over pool allocators, in one program so
// that bench/run.py puts them in the same tables.
//
//   seed002_list_churn/1M/<alloc>   one std::list<int>: push_back 1M integers, erase every 3rd
//                                   element, push_back 1M, erase every 7th, push_back 1M, destroy.
//                                   Operation: one node allocated or freed (about 5.2M a round).
//   seed002_set_churn/1M/<alloc>    the same with std::set<int> and insert (the integers repeat:
//                                   far fewer nodes are made).
//   seed002_*_churn_idle_thread/1M/<alloc>  the same with one more thread alive, blocked for the
//                                   whole benchmark (a shared pool's lock is no longer skipped).
//   seed002_*_churn_two_threads/1M/<alloc>  two threads at work, each on a container of its own
//                                   at the same time (shared pools are shared by both). Operation:
//                                   one node allocated or freed, by either thread (wall time over
//                                   the nodes of both).
//   seed002_*_churn_steady/1M/<alloc>, seed002_*_churn_two_threads_steady/1M/<alloc>
//                                   the same (one thread; two at work), timed in the second
//                                   round: a first round, untimed, runs before (the same
//                                   threads, the same allocators). A program churns for longer
//                                   than once: the second round finds the pools and heaps as the
//                                   first left them (their free lists in the order of its
//                                   frees, their memory already the process's), where the first
//                                   finds them fresh.
//   seed002_*_churn_aged/1M/<alloc>  the same on a heap (and pools) aged as a program's: before
//                                   the first call, once a process, a std::map, a
//                                   std::unordered_map and a std::list of strings are built and a
//                                   sixteenth of them kept over the allocator the row measures
//                                   (bench/aged_heap.hpp); over the core's ba::allocator for the
//                                   pool per container, whose nodes aging cannot move between
//                                   containers, and over std::allocator for the std::pmr and
//                                   foonathan pools, which draw on the global heap. A shared pool
//                                   also ages over Google Benchmark's calls of the row: its free
//                                   list is the order of the frees before.
//   seed002_refcount/5M/<alloc>     the smart-pointer memory test: 5M doubles, each in a block of
//                                   its own with its reference count in another (a
//                                   counted_double: two allocations of 8 bytes), held in a vector,
//                                   then destroyed. Operation: one counted double made and
//                                   destroyed; counter `peak_mib`: the growth of the resident
//                                   memory at its peak (the payloads, the counts and the vector of
//                                   pointers alone: 153 MiB).
//
// Allocators: `std_allocator`; `ba_node_allocator` (ba::node_allocator<T>: one pool per node size,
// per-thread bins); `ba_private_node` (ba::private_node_allocator<T>: a pool per container);
// `boost_node_allocator_v1` / `_v2` and `boost_adaptive_pool_v1` / `_v2`
// (boost::container's shared pools: version 2 sends allocate(1) to dlmalloc, version 1 to the
// pool); `boost_fast_pool` (Boost.Pool's fast_pool_allocator); `pmr_unsync_pool` and
// `pmr_sync_pool` (std::pmr's pool resources, one per container); `foonathan_memory_pool`
// (foonathan::memory::memory_pool through its std_allocator, one pool per container).

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/node_allocator.hpp>
#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/container/adaptive_pool.hpp>
#include <boost/container/node_allocator.hpp>
#include <boost/pool/pool_alloc.hpp>

#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
#  include <foonathan/memory/container.hpp>
#  include <foonathan/memory/memory_pool.hpp>
#endif

#include "aged_heap.hpp"
#include "benchmark_kit.hpp"
#include "node_churn.hpp"

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory_resource>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;
#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
namespace fm = foonathan::memory;
#endif

constexpr int kCount = 1000000;


template <class Container, class Add>
std::size_t churn(Container &c, Add add)
{
   return ba_bench::node_churn(c, add, kCount, true);
}

using ba_bench::company;

// One round of the churn: on a container of this thread's and, with a second worker, on one of
// its own in another thread at the same time. Returns: the nodes made and freed by both.
template <class MakeContainer, class Add>
std::size_t churn_round(MakeContainer &make, Add add, company others)
{
   std::size_t second_operations = 0;
   std::thread second;
   if (others == company::second_worker)
      second = std::thread([&] {
         auto c = make();
         second_operations = churn(*c, add);
      });
   auto c = make();
   std::size_t operations = churn(*c, add);
   benchmark::DoNotOptimize(c.get());
   c.reset();
   if (second.joinable()) second.join();
   return operations + second_operations;
}

// rounds_before: rounds run untimed first (the steady rows: 1).
template <class MakeContainer, class Add>
void bm_churn(benchmark::State &state, MakeContainer make, Add add, company others, int rounds_before = 0)
{
   std::unique_ptr<ba_bench::idle_thread> idle;
   if (others == company::idle_thread) idle = std::make_unique<ba_bench::idle_thread>();
   for (int i = 0; i < rounds_before; ++i) churn_round(make, add, others);
   std::size_t operations = 0;
   for (auto _ : state) operations = churn_round(make, add, others);
   state.SetLabel("time per node allocated or freed");
   ba_bench::set_time_per_op(state, static_cast<double>(operations));
}

// --- the smart-pointer memory test -------------------------------------------------------------

constexpr std::size_t kCounted = 5000000;

//! A shared double with its count allocated apart (the seed's smart pointer: two pointers), both
//! from the allocators the benchmark installs.
template <template <class> class Alloc>
class counted_double {
public:
   static inline Alloc<double> *values = nullptr;
   static inline Alloc<long> *counts = nullptr;

   explicit counted_double(double v) : value_(values->allocate(1)), count_(counts->allocate(1))
   {
      *value_ = v;
      *count_ = 1;
   }
   counted_double(const counted_double &) = delete;
   counted_double(counted_double &&x) noexcept
      : value_(std::exchange(x.value_, nullptr)), count_(std::exchange(x.count_, nullptr))
   {
   }
   ~counted_double()
   {
      if (count_ && --*count_ == 0) {
         values->deallocate(value_, 1);
         counts->deallocate(count_, 1);
      }
   }
   double get() const { return *value_; }

private:
   double *value_;
   long *count_;
};

template <template <class> class Alloc, class MakeAllocs>
void bm_refcount(benchmark::State &state, MakeAllocs make)
{
   const std::size_t baseline = ba_bench::rss_at_benchmark_start(1);
   double sum = 0;
   for (auto _ : state) {
      auto allocs = make();
      counted_double<Alloc>::values = &allocs->first;
      counted_double<Alloc>::counts = &allocs->second;
      std::vector<counted_double<Alloc>> v;
      v.reserve(kCounted);
      for (std::size_t i = 0; i < kCounted; ++i) v.emplace_back(static_cast<double>(i));
      sum += v[kCounted / 2].get();
   }
   benchmark::DoNotOptimize(sum);
   const std::size_t peak = ba_bench::proc_status_bytes("VmHWM");
   state.counters["peak_mib"] = static_cast<double>(peak > baseline ? peak - baseline : 0) / ba_bench::kMiB;
   state.SetLabel("time per counted double made and destroyed");
   ba_bench::set_time_per_op(state, static_cast<double>(kCounted));
}

template <template <class> class Alloc>
void register_refcount(const std::string &alloc)
{
   ba_bench::register_benchmark("seed002_refcount/5M/" + alloc, [](benchmark::State &s) {
      bm_refcount<Alloc>(s, [] { return std::make_unique<std::pair<Alloc<double>, Alloc<long>>>(); });
   });
}

// (pmr: both allocators over one pool resource, made with them.)
template <class T>
using pmr_alloc = std::pmr::polymorphic_allocator<T>;
void register_pmr_refcount()
{
   ba_bench::register_benchmark("seed002_refcount/5M/pmr_unsync_pool", [](benchmark::State &s) {
      struct allocs {
         std::pmr::unsynchronized_pool_resource resource;
         pmr_alloc<double> first{&resource};
         pmr_alloc<long> second{&resource};
      };
      bm_refcount<pmr_alloc>(s, [] { return std::make_unique<allocs>(); });
   });
}

const auto push = [](auto &c, int i) { c.push_back(i); };
const auto insert = [](auto &c, int i) { c.insert(i); };

// Each allocator: how to make a list and a set over it (a pool per container where it has one).
template <template <class> class Alloc, template <class> class AgedOver = Alloc>
struct plain {
   //! The allocator whose heap the aged rows age (bench/aged_heap.hpp).
   template <class T>
   using aged_over = AgedOver<T>;
   static auto list() { return std::make_unique<std::list<int, Alloc<int>>>(); }
   static auto set() { return std::make_unique<std::set<int, std::less<int>, Alloc<int>>>(); }
};

template <class Resource>
struct pmr_pool {
   template <class T>
   using aged_over = std::allocator<T>;   // the resource's upstream: the global heap
   template <class C>
   struct holder {
      Resource resource;
      C c{&resource};
      // (The container is declared after its resource: destroyed first.)
      auto begin() { return c.begin(); }
      auto end() { return c.end(); }
      auto erase(typename C::iterator it) { return c.erase(it); }
      std::size_t size() const { return c.size(); }
      void push_back(int i) { c.push_back(i); }
      void insert(int i) { c.insert(i); }
   };
   static auto list() { return std::make_unique<holder<std::pmr::list<int>>>(); }
   static auto set() { return std::make_unique<holder<std::pmr::set<int>>>(); }
};

#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
struct foonathan_pool {
   template <class T>
   using aged_over = std::allocator<T>;   // its blocks come from the global heap
   template <class C, std::size_t NodeSize>
   struct holder {
      fm::memory_pool<> pool{NodeSize, 4096 * NodeSize};
      C c{pool};
      auto begin() { return c.begin(); }
      auto end() { return c.end(); }
      auto erase(typename C::iterator it) { return c.erase(it); }
      std::size_t size() const { return c.size(); }
      void push_back(int i) { c.push_back(i); }
      void insert(int i) { c.insert(i); }
   };
   static auto list()
   {
      return std::make_unique<holder<fm::list<int, fm::memory_pool<>>, fm::list_node_size<int>::value>>();
   }
   static auto set()
   {
      return std::make_unique<holder<fm::set<int, fm::memory_pool<>>, fm::set_node_size<int>::value>>();
   }
};
#endif

template <class T>
using std_alloc = std::allocator<T>;
template <class T>
using ba_private = ba::private_node_allocator<T>;
template <class T>
using ba_node = ba::node_allocator<T>;
template <class T>
using ba_core = ba::allocator<T>;
template <class T>
using boost_node_v1 = bc::node_allocator<T, 256, 1>;
template <class T>
using boost_node_v2 = bc::node_allocator<T, 256, 2>;
template <class T>
using boost_adaptive_v1 = bc::adaptive_pool<T, 256, 2, 5, 1>;
template <class T>
using boost_adaptive_v2 = bc::adaptive_pool<T, 256, 2, 5, 2>;
template <class T>
using boost_fast_pool = boost::fast_pool_allocator<T>;

template <class Maker>
void register_rows(const std::string &alloc)
{
   ba_bench::register_benchmark("seed002_list_churn_aged/1M/" + alloc, [](benchmark::State &s) {
      ba_bench::heap_of_age<Maker::template aged_over> aged(ba_bench::heap_age::aged);
      bm_churn(s, [] { return Maker::list(); }, push, company::none);
   });
   ba_bench::register_benchmark("seed002_set_churn_aged/1M/" + alloc, [](benchmark::State &s) {
      ba_bench::heap_of_age<Maker::template aged_over> aged(ba_bench::heap_age::aged);
      bm_churn(s, [] { return Maker::set(); }, insert, company::none);
   });
   for (const company others : {company::none, company::second_worker}) {
      const std::string suffix = others == company::none ? "_steady" : "_two_threads_steady";
      ba_bench::register_benchmark("seed002_list_churn" + suffix + "/1M/" + alloc, [others](benchmark::State &s) {
         bm_churn(s, [] { return Maker::list(); }, push, others, 1);
      });
      ba_bench::register_benchmark("seed002_set_churn" + suffix + "/1M/" + alloc, [others](benchmark::State &s) {
         bm_churn(s, [] { return Maker::set(); }, insert, others, 1);
      });
   }
   for (const auto &[others, suffix] : ba_bench::companies) {
      ba_bench::register_benchmark("seed002_list_churn" + std::string(suffix) + "/1M/" + alloc,
                                   [others = others](benchmark::State &s) {
                                      bm_churn(s, [] { return Maker::list(); }, push, others);
                                   });
      ba_bench::register_benchmark("seed002_set_churn" + std::string(suffix) + "/1M/" + alloc,
                                   [others = others](benchmark::State &s) {
                                      bm_churn(s, [] { return Maker::set(); }, insert, others);
                                   });
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_rows<plain<std_alloc>>("std_allocator");
   register_rows<plain<ba_node>>("ba_node_allocator");
   register_rows<plain<ba_private, ba_core>>("ba_private_node");
   register_rows<plain<boost_node_v1>>("boost_node_allocator_v1");
   register_rows<plain<boost_node_v2>>("boost_node_allocator_v2");
   register_rows<plain<boost_adaptive_v1>>("boost_adaptive_pool_v1");
   register_rows<plain<boost_adaptive_v2>>("boost_adaptive_pool_v2");
   register_rows<plain<boost_fast_pool>>("boost_fast_pool");
   register_rows<pmr_pool<std::pmr::unsynchronized_pool_resource>>("pmr_unsync_pool");
   register_rows<pmr_pool<std::pmr::synchronized_pool_resource>>("pmr_sync_pool");
#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
   register_rows<foonathan_pool>("foonathan_memory_pool");
#endif
   register_refcount<std_alloc>("std_allocator");
   register_refcount<ba_node>("ba_node_allocator");
   register_refcount<ba_private>("ba_private_node");
   register_refcount<boost_node_v1>("boost_node_allocator_v1");
   register_refcount<boost_fast_pool>("boost_fast_pool");
   register_pmr_refcount();
   return ba_bench::run_benchmarks(argc, argv);
}
