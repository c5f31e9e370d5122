// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The C core against glibc malloc: the benchmark tables of issue 2.
//
// Every benchmark is named <table>/<row>/<allocator>. Allocators whose names start with `ba_` are
// ours; `glibc_malloc` calls plain malloc/free/realloc and is the baseline, which bench/run.py
// also runs under LD_PRELOAD of jemalloc, tcmalloc and mimalloc. Run the suite through
// bench/run.py: it starts every benchmark in its own process, so no allocator inherits a heap
// warmed (or an option set) by another one. See bench/README.md.
//
// Time: every benchmark reports the counter `time_per_op` (benchmark_kit.hpp): seconds of real
// (wall-clock) time per operation, where each table defines its operation (a malloc/free pair,
// one growth sequence, one node of a burst, one expansion) and says it in the label. The runner
// compares that counter; real_time per iteration is kept in the JSON too.
//
// NDEBUG is defined, so the core is the unchecked build (BOOST_ALLOCPLUS_CHECKED=0).

#include <boost/allocplus/core/dlmalloc.h>

#include "benchmark_kit.hpp"

#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using namespace ba_bench;

//! ours: the C core's default heap.
struct ba_api {
   static void *allocate(std::size_t n) { return ba_malloc(n); }
   static void deallocate(void *p) { ba_free(p); }
   static void *reallocate(void *p, std::size_t n) { return ba_realloc(p, n); }
};

//! The baseline: whatever `malloc` the process resolves (glibc, or a peer under LD_PRELOAD).
struct libc_api {
   static void *allocate(std::size_t n) { return std::malloc(n); }
   static void deallocate(void *p) { std::free(p); }
   static void *reallocate(void *p, std::size_t n) { return std::realloc(p, n); }
};

// ------------------------------------------------------------------------------------------------
// core_churn/{lifo,fifo,random}: malloc/free pairs of random sizes 16..1024 with 1000 live blocks.
// One operation = one malloc/free pair.
//   lifo:   allocate 1000 blocks, free them newest first (a stack that fills and empties);
//   fifo:   allocate 1000 blocks, free them oldest first;
//   random: 1000 live blocks (allocated before timing); free a random one, allocate in its place.
// ------------------------------------------------------------------------------------------------

constexpr std::size_t kChurnLive = 1000;
constexpr std::size_t kChurnTable = 4096; // pre-generated sizes and slots (power of two)

enum class churn_order { lifo, fifo, random };

struct churn_tables {
   std::vector<std::size_t> sizes = std::vector<std::size_t>(kChurnTable);
   std::vector<std::size_t> slots = std::vector<std::size_t>(kChurnTable);
   churn_tables()
   {
      fixed_seed_rng r(20240601);
      for (auto &s : sizes) s = r.between(16, 1024);
      for (auto &s : slots) s = r.between(0, kChurnLive - 1);
   }
};

const churn_tables &churn_data()
{
   static const churn_tables t;
   return t;
}

template <class Api>
void *churn_allocate(std::size_t size)
{
   void *p = Api::allocate(size);
   *static_cast<std::size_t *>(p) = size; // a program writes what it allocates
   benchmark::DoNotOptimize(p);
   return p;
}

template <class Api, churn_order Order>
void bm_churn(benchmark::State &state)
{
   const churn_tables &t = churn_data();
   std::vector<void *> live(kChurnLive, nullptr);
   std::size_t k = 0; // walks the size table, 1000 a round: each round sees other sizes
   if (Order == churn_order::random)
      for (auto &p : live) p = churn_allocate<Api>(t.sizes[k++ & (kChurnTable - 1)]);
   std::size_t j = 0;
   for (auto _ : state) {
      if (Order == churn_order::random) {
         for (std::size_t i = 0; i < kChurnLive; ++i) {
            void *&slot = live[t.slots[j++ & (kChurnTable - 1)]];
            Api::deallocate(slot);
            slot = churn_allocate<Api>(t.sizes[k++ & (kChurnTable - 1)]);
         }
      } else {
         for (std::size_t i = 0; i < kChurnLive; ++i)
            live[i] = churn_allocate<Api>(t.sizes[k++ & (kChurnTable - 1)]);
         if (Order == churn_order::lifo)
            for (std::size_t i = kChurnLive; i-- > 0;) Api::deallocate(live[i]);
         else
            for (std::size_t i = 0; i < kChurnLive; ++i) Api::deallocate(live[i]);
      }
   }
   if (Order == churn_order::random)
      for (auto p : live) Api::deallocate(p);
   state.SetLabel("time per malloc/free pair");
   set_time_per_op(state, static_cast<double>(kChurnLive));
}

// ------------------------------------------------------------------------------------------------
// The churn of a threaded program. A real program has threads, and a heap's lock (ours, glibc's
// arenas) behaves differently once a second thread exists, whether it allocates or not.
//   core_churn_idle_thread/<order>: core_churn with one more thread alive, blocked on a condition
//     variable for the whole benchmark (the process is no longer single-threaded).
//   core_churn_two_threads/<order>: core_churn while a second thread runs the random churn on
//     blocks of its own, with the same allocator, all along; the time is the measuring thread's.
//   core_producer_consumer/1000_blocks: one thread allocates blocks of 16..1024 bytes, writes
//     them and hands them through a ring of 1024 slots to a second thread, which frees them (a
//     block freed by a thread other than the one that allocated it). One operation = one block.
// ------------------------------------------------------------------------------------------------


//! The work of a second thread (ba_bench::busy_thread): the random churn over Api on 1000 blocks
//! of its own, on other sizes than the measuring thread's.
template <class Api>
class churn_worker {
public:
   churn_worker() : live_(kChurnLive, nullptr)
   {
      for (auto &p : live_) p = churn_allocate<Api>(t_.sizes[k_++ & (kChurnTable - 1)]);
   }
   churn_worker(const churn_worker &) = delete;
   churn_worker &operator=(const churn_worker &) = delete;
   ~churn_worker()
   {
      for (auto p : live_) Api::deallocate(p);
   }
   void step()
   {
      for (std::size_t i = 0; i < kChurnLive; ++i) {
         void *&slot = live_[t_.slots[j_++ & (kChurnTable - 1)]];
         Api::deallocate(slot);
         slot = churn_allocate<Api>(t_.sizes[k_++ & (kChurnTable - 1)]);
      }
   }

private:
   const churn_tables &t_ = churn_data();
   std::vector<void *> live_;
   std::size_t k_ = kChurnTable / 2, j_ = kChurnTable / 4;
};

template <class Api>
using churning_thread = ba_bench::busy_thread<churn_worker<Api>>;

//! core_churn with Company (a thread object) alive around it.
template <class Api, churn_order Order, class Company>
void bm_churn_in_company(benchmark::State &state)
{
   Company company;
   bm_churn<Api, Order>(state);
}

//! A single-producer, single-consumer ring of block pointers.
class handoff_ring {
public:
   bool push(void *p)
   {
      const std::size_t tail = tail_.load(std::memory_order_relaxed);
      if (tail - head_.load(std::memory_order_acquire) == kSlots) return false;
      slots_[tail & (kSlots - 1)] = p;
      tail_.store(tail + 1, std::memory_order_release);
      return true;
   }
   bool pop(void *&p)
   {
      const std::size_t head = head_.load(std::memory_order_relaxed);
      if (head == tail_.load(std::memory_order_acquire)) return false;
      p = slots_[head & (kSlots - 1)];
      head_.store(head + 1, std::memory_order_release);
      return true;
   }

private:
   static constexpr std::size_t kSlots = 1024;
   std::array<void *, kSlots> slots_{};
   alignas(64) std::atomic<std::size_t> head_{0}; // the consumer's
   alignas(64) std::atomic<std::size_t> tail_{0}; // the producer's
};

//! Spins briefly, then yields: on two cores the other side may be descheduled.
inline void back_off(unsigned &spins)
{
   if (++spins < 64) return;
   spins = 0;
   std::this_thread::yield();
}

template <class Api>
void bm_producer_consumer(benchmark::State &state)
{
   const churn_tables &t = churn_data();
   handoff_ring ring;
   std::atomic<bool> done{false};
   std::thread consumer([&] {
      void *p = nullptr;
      unsigned spins = 0;
      for (;;) {
         if (ring.pop(p)) {
            Api::deallocate(p);
            spins = 0;
         } else if (done.load(std::memory_order_acquire)) {
            if (!ring.pop(p)) break;
            Api::deallocate(p);
         } else {
            back_off(spins);
         }
      }
   });
   std::size_t k = 0;
   for (auto _ : state) {
      for (std::size_t i = 0; i < kChurnLive; ++i) {
         void *p = churn_allocate<Api>(t.sizes[k++ & (kChurnTable - 1)]);
         unsigned spins = 0;
         while (!ring.push(p)) back_off(spins);
      }
   }
   done.store(true, std::memory_order_release);
   consumer.join();
   state.SetLabel("time per block allocated in one thread and freed in another");
   set_time_per_op(state, static_cast<double>(kChurnLive));
}

// ------------------------------------------------------------------------------------------------
// core_realloc_growth/<row>: one block grown from 16 B to 64 MiB by steps of x1.5, the gained
// bytes faulted in (one write per page) after each step, then freed. One operation = one whole
// sequence. Counter `moves`: times the block moved, per sequence.
//   rows: x1.5 (the block alone in the heap); x1.5_with_neighbours (a 64-byte block is allocated
//         after every step and kept until the end, so the block is rarely last in its segment).
//   allocators: ba_realloc, glibc_malloc (realloc), and ba_expand_fwd: allocation_command
//         (expand_fwd | allocate_new) that uses the received size as the new capacity, and
//         copies the used bytes itself when it gets a new block.
// ------------------------------------------------------------------------------------------------

constexpr std::size_t kGrowthFirst = 16;
constexpr std::size_t kGrowthLast = 64 * kMiB;

std::size_t growth_next(std::size_t n)
{
   std::size_t next = (n + n / 2 + 15) & ~std::size_t(15);
   return std::min(next, kGrowthLast);
}

enum class growth_method { realloc_fn, expand_fwd };

template <class Api, growth_method Method>
void bm_realloc_growth(benchmark::State &state, bool with_neighbours)
{
   std::vector<void *> neighbours;
   neighbours.reserve(64);
   double moves = 0;
   for (auto _ : state) {
      std::size_t used = kGrowthFirst;
      std::size_t capacity = kGrowthFirst;
      void *p = Api::allocate(kGrowthFirst);
      touch_pages(p, 0, used);
      while (used < kGrowthLast) {
         std::size_t n = growth_next(used);
         if (n > capacity) {
            void *q = nullptr;
            if (Method == growth_method::realloc_fn) {
               q = Api::reallocate(p, n);
               capacity = n;
            } else {
               std::size_t received = 0;
               ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 0, n,
                  n, &received, p);
               q = r.first;
               if (q && !r.second) {
                  std::memcpy(q, p, used);
                  ba_free(p);
               }
               capacity = received;
            }
            if (!q) {
               Api::deallocate(p);
               for (void *b : neighbours) Api::deallocate(b);
               state.SkipWithError("out of memory");
               return;
            }
            if (q != p) moves += 1;
            p = q;
         }
         touch_pages(p, used, n);
         used = n;
         if (with_neighbours) neighbours.push_back(Api::allocate(64));
      }
      Api::deallocate(p);
      for (void *b : neighbours) Api::deallocate(b);
      neighbours.clear();
   }
   state.counters["moves"] = benchmark::Counter(moves, benchmark::Counter::kAvgIterations);
   state.SetLabel("time per growth 16 B -> 64 MiB");
   set_time_per_op(state, 1.0);
}

// ------------------------------------------------------------------------------------------------
// core_burst/<row>: 1000 nodes of 32 or 64 bytes. One operation = one node. Each iteration times
// (with steady_clock, ~20 ns a reading against microseconds a burst) only the half its row is
// about, so the other half costs nothing.
//   alloc_1000x<S>B: ba_multialloc_nodes (default contiguous runs) | ba_malloc loop |
//                    glibc_malloc loop; freed untimed (multidealloc, ba_free loop, free loop).
//   free_1000x<S>B:  ba_multidealloc | ba_free loop (both of a burst from ba_multialloc_nodes,
//                    so they free the same heap layout) | glibc_malloc (free loop of a malloc
//                    loop); allocated untimed.
// ------------------------------------------------------------------------------------------------

constexpr std::size_t kBurstNodes = 1000;

enum class burst_kind { multi, loop };

template <class Api, burst_kind Kind>
void bm_burst_alloc(benchmark::State &state, std::size_t size)
{
   std::vector<void *> nodes(kBurstNodes);
   double timed = 0;
   for (auto _ : state) {
      if (Kind == burst_kind::multi) {
         ba_chain chain;
         ba_chain_init(&chain);
         auto t0 = stopwatch_clock::now();
         int ok = ba_multialloc_nodes(kBurstNodes, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain);
         benchmark::DoNotOptimize(chain.first);
         timed += seconds_since(t0);
         if (!ok) {
            state.SkipWithError("out of memory");
            break;
         }
         ba_multidealloc(&chain);
      } else {
         auto t0 = stopwatch_clock::now();
         for (auto &p : nodes) {
            p = Api::allocate(size);
            benchmark::DoNotOptimize(p);
         }
         timed += seconds_since(t0);
         for (void *p : nodes) Api::deallocate(p);
      }
   }
   state.SetLabel("time per node, bursts of 1000 allocated");
   set_timed_part_per_op(state, timed, static_cast<double>(kBurstNodes));
}

template <class Api, burst_kind Kind, bool FromMultialloc>
void bm_burst_free(benchmark::State &state, std::size_t size)
{
   std::vector<void *> nodes(kBurstNodes);
   double timed = 0;
   for (auto _ : state) {
      ba_chain chain;
      ba_chain_init(&chain);
      if (FromMultialloc) {
         if (!ba_multialloc_nodes(kBurstNodes, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain)) {
            state.SkipWithError("out of memory");
            break;
         }
      } else {
         for (auto &p : nodes) p = Api::allocate(size);
      }
      auto t0 = stopwatch_clock::now();
      if (Kind == burst_kind::multi) {
         ba_multidealloc(&chain);
      } else if (FromMultialloc) {
         // Walk the chain while freeing, as a list's destructor would.
         for (void *p = chain.first; p;) {
            void *next = ba_chain_next(p);
            Api::deallocate(p);
            p = next;
         }
      } else {
         for (void *p : nodes) Api::deallocate(p);
      }
      timed += seconds_since(t0);
   }
   state.SetLabel("time per node, bursts of 1000 freed");
   set_timed_part_per_op(state, timed, static_cast<double>(kBurstNodes));
}

// ------------------------------------------------------------------------------------------------
// core_same_megabytes/<row>: 64 blocks of 16 KiB..1 MiB (sizes from a fixed table, shifted every
// cycle) are allocated, faulted in (one write per page) and freed in a shuffled order, again and
// again. One operation = one malloc/free pair. Counters:
//   peak_system_bytes: the allocator's own figure: ours from ba_stats (peak of system_bytes);
//       glibc from mallinfo2 (arena + hblkhd, highest value seen with all 64 blocks live);
//       absent for LD_PRELOAD peers, which mallinfo2 does not describe.
//   rss_growth_bytes: the process's peak RSS during the benchmark (VmHWM, reset when it starts)
//       minus its RSS when it started, for every allocator.
// Rows:
//   default: every allocator as it comes.
//   trim_disabled: nothing is given back: ours trim threshold, mmap threshold = SIZE_MAX and
//       release rate 0; glibc M_TRIM_THRESHOLD = INT_MAX and M_MMAP_THRESHOLD = 32 MiB (the
//       largest it accepts). mallopt does not reach LD_PRELOAD peers: their row is their default.
//       These options stay set for the rest of the process, so these benchmarks are registered
//       last (bench/run.py gives every benchmark its own process anyway).
// ------------------------------------------------------------------------------------------------

constexpr std::size_t kMegaBlocks = 64;
constexpr std::size_t kMegaTable = 256;

struct mega_tables {
   std::vector<std::size_t> sizes = std::vector<std::size_t>(kMegaTable);
   std::vector<std::size_t> free_order = std::vector<std::size_t>(kMegaBlocks);
   mega_tables()
   {
      fixed_seed_rng r(77);
      for (auto &s : sizes) s = r.between(16 * kKiB, 1 * kMiB);
      for (std::size_t i = 0; i < kMegaBlocks; ++i) free_order[i] = i;
      for (std::size_t i = kMegaBlocks - 1; i > 0; --i)
         std::swap(free_order[i], free_order[r.between(0, i)]);
   }
};

template <class Api>
void bm_same_megabytes(benchmark::State &state, bool trim_disabled)
{
   constexpr bool ours = std::is_same<Api, ba_api>::value;
   const bool glibc = !ours && malloc_is_glibc();
   if (trim_disabled) {
      if (ours) {
         ba_heap_set_option(ba_default_heap(), BA_OPTION_TRIM_THRESHOLD, SIZE_MAX);
         ba_heap_set_option(ba_default_heap(), BA_OPTION_MMAP_THRESHOLD, SIZE_MAX);
         ba_heap_set_option(ba_default_heap(), BA_OPTION_RELEASE_RATE, 0);
      } else {
         mallopt(M_TRIM_THRESHOLD, INT_MAX);
         mallopt(M_MMAP_THRESHOLD, static_cast<int>(32 * kMiB));
      }
   }
   static const mega_tables t;
   const std::size_t rss_start = rss_at_benchmark_start((ours ? 2 : 0) + (trim_disabled ? 1 : 0));
   std::size_t glibc_peak = 0;
   void *blocks[kMegaBlocks];
   std::size_t shift = 0;
   for (auto _ : state) {
      for (std::size_t i = 0; i < kMegaBlocks; ++i) {
         std::size_t n = t.sizes[(shift + i) % kMegaTable];
         blocks[i] = Api::allocate(n);
         if (!blocks[i]) {
            state.SkipWithError("out of memory");
            return;
         }
         touch_pages(blocks[i], 0, n);
      }
      if (glibc) glibc_peak = std::max(glibc_peak, glibc_system_bytes());
      for (std::size_t i = 0; i < kMegaBlocks; ++i) Api::deallocate(blocks[t.free_order[i]]);
      shift += 7;
   }
   if (ours) {
      ba_heap_stats s;
      ba_stats(&s);
      state.counters["peak_system_bytes"] = static_cast<double>(s.peak_system_bytes);
   } else if (glibc) {
      state.counters["peak_system_bytes"] = static_cast<double>(glibc_peak);
   }
   const std::size_t hwm = proc_status_bytes("VmHWM");
   state.counters["rss_growth_bytes"] = static_cast<double>(hwm > rss_start ? hwm - rss_start : 0);
   state.SetLabel("time per malloc/free pair, 64 blocks of 16 KiB..1 MiB");
   set_time_per_op(state, static_cast<double>(kMegaBlocks));
}

// ------------------------------------------------------------------------------------------------
// core_huge_expand/256MiB_to_512MiB: a 256 MiB block (a few pages touched) expanded to 512 MiB.
// One operation = one expansion; only the expansion is timed (allocating, touching and freeing
// the block are not). Counter `in_place`: the fraction of expansions that kept the block where
// it was (1 = always).
//   ba_expand_fwd: ba_allocation_command(BA_EXPAND_FWD, 1, 0, 512 MiB, 512 MiB) (no fallback);
//   ba_realloc, glibc_malloc (realloc): in place when the pointer is unchanged.
// ------------------------------------------------------------------------------------------------

constexpr std::size_t kHugeFrom = 256 * kMiB;
constexpr std::size_t kHugeTo = 512 * kMiB;

//! Touches the first, a middle and the last page of [from, to): enough to see the mapping is
//! real, few enough to keep an iteration in microseconds.
void touch_few(void *p, std::size_t from, std::size_t to)
{
   unsigned char *b = static_cast<unsigned char *>(p);
   b[from] = 1;
   b[from + (to - from) / 2] = 2;
   b[to - 1] = 3;
   benchmark::ClobberMemory();
}

enum class huge_method { expand_fwd, realloc_fn };

template <class Api, huge_method Method>
void bm_huge_expand(benchmark::State &state)
{
   double in_place = 0, timed = 0;
   for (auto _ : state) {
      void *p = Api::allocate(kHugeFrom);
      if (!p) {
         state.SkipWithError("out of memory");
         break;
      }
      touch_few(p, 0, kHugeFrom);
      void *q = nullptr;
      bool expanded = false;
      auto t0 = stopwatch_clock::now();
      if (Method == huge_method::expand_fwd) {
         std::size_t received = 0;
         ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD, 1, 0, kHugeTo, kHugeTo,
            &received, p);
         expanded = r.first != nullptr && r.second == 1 && r.first == p;
         q = r.first ? r.first : p;
      } else {
         q = Api::reallocate(p, kHugeTo);
         expanded = q == p;
         if (!q) q = p;
      }
      timed += seconds_since(t0);
      if (expanded) in_place += 1;
      if (expanded || q != p) touch_few(q, kHugeFrom, kHugeTo); // the block did grow
      Api::deallocate(q);
   }
   state.counters["in_place"] = benchmark::Counter(in_place, benchmark::Counter::kAvgIterations);
   state.SetLabel("time per expansion 256 MiB -> 512 MiB");
   set_timed_part_per_op(state, timed, 1.0);
}

// ------------------------------------------------------------------------------------------------
// Registration: the order of --benchmark_list_tests, which is the order of the runner's tables.
// ------------------------------------------------------------------------------------------------

void register_all()
{
   register_benchmark("core_churn/lifo/ba_malloc", bm_churn<ba_api, churn_order::lifo>);
   register_benchmark("core_churn/lifo/glibc_malloc", bm_churn<libc_api, churn_order::lifo>);
   register_benchmark("core_churn/fifo/ba_malloc", bm_churn<ba_api, churn_order::fifo>);
   register_benchmark("core_churn/fifo/glibc_malloc", bm_churn<libc_api, churn_order::fifo>);
   register_benchmark("core_churn/random/ba_malloc", bm_churn<ba_api, churn_order::random>);
   register_benchmark("core_churn/random/glibc_malloc", bm_churn<libc_api, churn_order::random>);
   register_benchmark("core_churn_idle_thread/lifo/ba_malloc",
      bm_churn_in_company<ba_api, churn_order::lifo, ba_bench::idle_thread>);
   register_benchmark("core_churn_idle_thread/lifo/glibc_malloc",
      bm_churn_in_company<libc_api, churn_order::lifo, ba_bench::idle_thread>);
   register_benchmark("core_churn_idle_thread/fifo/ba_malloc",
      bm_churn_in_company<ba_api, churn_order::fifo, ba_bench::idle_thread>);
   register_benchmark("core_churn_idle_thread/fifo/glibc_malloc",
      bm_churn_in_company<libc_api, churn_order::fifo, ba_bench::idle_thread>);
   register_benchmark("core_churn_idle_thread/random/ba_malloc",
      bm_churn_in_company<ba_api, churn_order::random, ba_bench::idle_thread>);
   register_benchmark("core_churn_idle_thread/random/glibc_malloc",
      bm_churn_in_company<libc_api, churn_order::random, ba_bench::idle_thread>);
   register_benchmark("core_churn_two_threads/lifo/ba_malloc",
      bm_churn_in_company<ba_api, churn_order::lifo, churning_thread<ba_api>>);
   register_benchmark("core_churn_two_threads/lifo/glibc_malloc",
      bm_churn_in_company<libc_api, churn_order::lifo, churning_thread<libc_api>>);
   register_benchmark("core_churn_two_threads/random/ba_malloc",
      bm_churn_in_company<ba_api, churn_order::random, churning_thread<ba_api>>);
   register_benchmark("core_churn_two_threads/random/glibc_malloc",
      bm_churn_in_company<libc_api, churn_order::random, churning_thread<libc_api>>);
   register_benchmark("core_producer_consumer/1000_blocks/ba_malloc", bm_producer_consumer<ba_api>);
   register_benchmark("core_producer_consumer/1000_blocks/glibc_malloc", bm_producer_consumer<libc_api>);

   for (bool neighbours : {false, true}) {
      const std::string row = std::string("core_realloc_growth/")
         + (neighbours ? "x1.5_with_neighbours/" : "x1.5/");
      register_benchmark(row + "ba_realloc", [neighbours](benchmark::State &s) {
         bm_realloc_growth<ba_api, growth_method::realloc_fn>(s, neighbours);
      });
      register_benchmark(row + "ba_expand_fwd", [neighbours](benchmark::State &s) {
         bm_realloc_growth<ba_api, growth_method::expand_fwd>(s, neighbours);
      });
      register_benchmark(row + "glibc_malloc", [neighbours](benchmark::State &s) {
         bm_realloc_growth<libc_api, growth_method::realloc_fn>(s, neighbours);
      });
   }

   for (std::size_t size : {std::size_t(32), std::size_t(64)}) {
      const std::string sz = std::to_string(size) + "B/";
      register_benchmark("core_burst/alloc_1000x" + sz + "ba_multialloc_nodes", [size](benchmark::State &s) {
         bm_burst_alloc<ba_api, burst_kind::multi>(s, size);
      });
      register_benchmark("core_burst/alloc_1000x" + sz + "ba_malloc", [size](benchmark::State &s) {
         bm_burst_alloc<ba_api, burst_kind::loop>(s, size);
      });
      register_benchmark("core_burst/alloc_1000x" + sz + "glibc_malloc", [size](benchmark::State &s) {
         bm_burst_alloc<libc_api, burst_kind::loop>(s, size);
      });
   }
   for (std::size_t size : {std::size_t(32), std::size_t(64)}) {
      const std::string sz = std::to_string(size) + "B/";
      register_benchmark("core_burst/free_1000x" + sz + "ba_multidealloc", [size](benchmark::State &s) {
         bm_burst_free<ba_api, burst_kind::multi, true>(s, size);
      });
      register_benchmark("core_burst/free_1000x" + sz + "ba_free", [size](benchmark::State &s) {
         bm_burst_free<ba_api, burst_kind::loop, true>(s, size);
      });
      register_benchmark("core_burst/free_1000x" + sz + "glibc_malloc", [size](benchmark::State &s) {
         bm_burst_free<libc_api, burst_kind::loop, false>(s, size);
      });
   }

   register_benchmark("core_huge_expand/256MiB_to_512MiB/ba_expand_fwd",
      bm_huge_expand<ba_api, huge_method::expand_fwd>);
   register_benchmark("core_huge_expand/256MiB_to_512MiB/ba_realloc",
      bm_huge_expand<ba_api, huge_method::realloc_fn>);
   register_benchmark("core_huge_expand/256MiB_to_512MiB/glibc_malloc",
      bm_huge_expand<libc_api, huge_method::realloc_fn>);

   // Last: trim_disabled changes process-wide options (see the table's comment).
   for (bool trim_disabled : {false, true}) {
      const std::string row = std::string("core_same_megabytes/")
         + (trim_disabled ? "trim_disabled/" : "default/");
      register_benchmark(row + "ba_malloc", [trim_disabled](benchmark::State &s) {
         bm_same_megabytes<ba_api>(s, trim_disabled);
      });
      register_benchmark(row + "glibc_malloc", [trim_disabled](benchmark::State &s) {
         bm_same_megabytes<libc_api>(s, trim_disabled);
      });
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_all();
   return ba_bench::run_benchmarks(argc, argv);
}
