// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Thread stress of the C core: 8 threads mix every operation (malloc, calloc, free, realloc,
// memalign, allocation_command with every kind of expansion and shrink, bursts and multidealloc)
// and hand blocks to each other through a shared mailbox, so blocks are freed, reallocated and
// expanded by threads other than the one that allocated them. Every block carries a pattern that
// is verified before it is touched. Runs on the default heap, on one locked heap shared by all
// threads, on per-thread locked heaps (with blocks crossing threads, freed to their own heap) and on
// per-thread heaps without a lock (no block crosses). A monitor thread reads statistics, checks and
// trims the heaps while they are busy. Built for TSan in CI (label `thread`).

#define BOOST_TEST_MODULE allocplus core thread stress
#include "core/core_test_kit.hpp"
#include "core/test_scale.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace allocplus_test;

namespace {

constexpr unsigned thread_count = 8;

struct block {
   unsigned char *p = nullptr;
   std::size_t size = 0;
   std::uint32_t seed = 0;
   ba_heap *heap = nullptr;   // null: the default heap through the shorthands
};

// --- the heap a block belongs to ------------------------------------------------------------------
void *h_malloc(ba_heap *h, std::size_t n) { return h ? ba_heap_malloc(h, n) : ba_malloc(n); }
void h_free(ba_heap *h, void *p) { h ? ba_heap_free(h, p) : ba_free(p); }
void *h_calloc(ba_heap *h, std::size_t n, std::size_t s) { return h ? ba_heap_calloc(h, n, s) : ba_calloc(n, s); }
void *h_realloc(ba_heap *h, void *p, std::size_t n) { return h ? ba_heap_realloc(h, p, n) : ba_realloc(p, n); }
void *h_memalign(ba_heap *h, std::size_t a, std::size_t n) { return h ? ba_heap_memalign(h, a, n) : ba_memalign(a, n); }
ba_command_ret h_command(ba_heap *h, unsigned c, std::size_t s, std::size_t l, std::size_t p, std::size_t *r, void *reuse)
{
   return h ? ba_heap_allocation_command(h, c, s, 0, l, p, r, reuse) : ba_allocation_command(c, s, 0, l, p, r, reuse);
}
int h_nodes(ba_heap *h, std::size_t n, std::size_t s, std::size_t c, ba_chain *ch)
{
   return h ? ba_heap_multialloc_nodes(h, n, s, c, ch) : ba_multialloc_nodes(n, s, c, ch);
}
int h_arrays(ba_heap *h, std::size_t n, const std::size_t *l, std::size_t s, std::size_t c, ba_chain *ch)
{
   return h ? ba_heap_multialloc_arrays(h, n, l, s, c, ch) : ba_multialloc_arrays(n, l, s, c, ch);
}
void h_multidealloc(ba_heap *h, ba_chain *ch) { h ? ba_heap_multidealloc(h, ch) : ba_multidealloc(ch); }

// --- shared state ---------------------------------------------------------------------------------

//! Where threads leave blocks for others to take.
class mailbox {
public:
   //! Returns: false when the mailbox is full (then the caller keeps or frees the block), which
   //! bounds the live set: a heap check under the lock walks every block.
   bool put(const block &b)
   {
      std::lock_guard<std::mutex> g(m_);
      if (blocks_.size() >= 2048) return false;
      blocks_.push_back(b);
      return true;
   }
   bool take(block &b, std::size_t pick)
   {
      std::lock_guard<std::mutex> g(m_);
      if (blocks_.empty()) return false;
      std::size_t i = pick % blocks_.size();
      b = blocks_[i];
      blocks_[i] = blocks_.back();
      blocks_.pop_back();
      return true;
   }
   std::vector<block> drain()
   {
      std::lock_guard<std::mutex> g(m_);
      std::vector<block> v;
      v.swap(blocks_);
      return v;
   }
private:
   std::mutex m_;
   std::vector<block> blocks_;
};

struct shared_state {
   mailbox box;
   std::atomic<bool> stop{false};
   std::atomic<unsigned> errors{0};
   std::mutex message_mutex;
   std::string first_error;

   void error(const std::string &what)
   {
      if (errors.fetch_add(1) == 0) {
         std::lock_guard<std::mutex> g(message_mutex);
         first_error = what;
      }
   }
};

// --- one thread's work ------------------------------------------------------------------------

class worker {
public:
   worker(shared_state &shared, ba_heap *heap, bool cross, unsigned id, std::size_t steps)
      : shared_(shared), heap_(heap), cross_(cross), id_(id), steps_(steps), rng_(0x5EED0000u + id),
        live_(128)
   {}

   void run()
   {
      for (std::size_t step = 0; step < steps_ && !shared_.stop.load(std::memory_order_relaxed); ++step) {
         one_step();
         if (shared_.errors.load(std::memory_order_relaxed)) break;
      }
      // Leave some blocks to be freed by whoever drains the mailbox, free the rest here.
      for (block &b : live_)
         if (b.p) {
            if (!(cross_ && rand(0, 1) && shared_.box.put(b))) release(b);
            b = block();
         }
   }

   std::uint32_t seed_base() const { return id_ << 24; }

private:
   shared_state &shared_;
   ba_heap *heap_;
   bool cross_;
   unsigned id_;
   std::size_t steps_;
   std::mt19937_64 rng_;
   std::vector<block> live_;
   std::uint32_t next_seed_ = 1;

   std::size_t rand(std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_); }

   bool verify(const block &b, const char *when)
   {
      std::size_t at = first_mismatch(b.p, b.size, b.seed);
      if (at == b.size) return true;
      std::ostringstream os;
      os << "thread " << id_ << ": block " << static_cast<const void *>(b.p) << " (" << b.size
         << " bytes) changed at offset " << at << " " << when;
      shared_.error(os.str());
      return false;
   }

   void adopt(block &b, void *p, std::size_t size, ba_heap *h)
   {
      if (reinterpret_cast<std::uintptr_t>(p) % 16 || ba_usable_size(p) < size)
         shared_.error("block misaligned or smaller than asked");
      b.p = static_cast<unsigned char *>(p);
      b.size = size;
      b.seed = seed_base() | (next_seed_++ & 0xFFFFFF);
      b.heap = h;
      fill(b.p, size, b.seed);
   }

   void release(block &b)
   {
      verify(b, "before free");
      h_free(b.heap, b.p);
      b = block();
   }

   std::size_t random_size()
   {
      std::size_t r = rand(0, 99);
      if (r < 80) return rand(0, 256);
      if (r < 98) return rand(257, 4096);
      return rand(4097, 64 * KiB);
   }

   block &slot() { return live_[rand(0, live_.size() - 1)]; }
   block &empty_slot()
   {
      block &b = slot();
      if (b.p) {
         // Hand it to another thread, or free it here.
         if (cross_ && rand(0, 2) == 0 && verify(b, "before handing over") && shared_.box.put(b)) b = block();
         else release(b);
      }
      return b;
   }

   void one_step()
   {
      switch (rand(0, 11)) {
      case 0: case 1: {
         block &b = empty_slot();
         std::size_t n = random_size();
         if (void *p = h_malloc(heap_, n)) adopt(b, p, n, heap_); else shared_.error("malloc failed");
         break;
      }
      case 2: {
         block &b = empty_slot();
         std::size_t n = random_size();
         void *p = h_calloc(heap_, 1, n);
         if (!p) { shared_.error("calloc failed"); break; }
         if (!all_zero(p, n)) shared_.error("calloc: not zeroed");
         adopt(b, p, n, heap_);
         break;
      }
      case 3: {
         block &b = empty_slot();
         std::size_t a = std::size_t(1) << rand(4, 12), n = random_size();
         void *p = h_memalign(heap_, a, n);
         if (!p) { shared_.error("memalign failed"); break; }
         if (reinterpret_cast<std::uintptr_t>(p) % a) shared_.error("memalign: misaligned");
         adopt(b, p, n, heap_);
         break;
      }
      case 4: case 5: {   // take a block another thread left, and free it or keep it
         if (!cross_) break;
         block got;
         if (!shared_.box.take(got, rand(0, 1 << 20))) break;
         if (!verify(got, "taken from the mailbox")) break;
         if (rand(0, 1)) release(got);
         else {
            block &b = empty_slot();
            b = got;
         }
         break;
      }
      case 6: {   // realloc (of a block maybe allocated by another thread)
         block &b = slot();
         if (!b.p || !verify(b, "before realloc")) break;
         std::size_t n = random_size();
         void *p = h_realloc(b.heap, b.p, n);
         if (!p) { shared_.error("realloc failed"); break; }
         block moved{static_cast<unsigned char *>(p), std::min(b.size, n), b.seed, b.heap};
         verify(moved, "after realloc");
         adopt(b, p, n, b.heap);
         break;
      }
      case 7: case 8: {   // allocation_command: expand forward/backward or anew
         block &b = slot();
         if (!b.p) break;
         if (!verify(b, "before allocation_command")) break;
         static const std::size_t sizes[] = {1, 3, 8, 12, 16, 24, 40, 64};
         std::size_t s = sizes[rand(0, 7)];
         std::size_t holds = ba_usable_size(b.p) / s;
         std::size_t pref = holds + 1 + rand(0, holds + 32);
         if (pref * s > 64 * KiB) pref = std::max<std::size_t>(holds, 64 * KiB / s);
         std::size_t limit = rand(1, pref);
         static const unsigned cmds[] = {BA_EXPAND_FWD, BA_EXPAND_BWD, BA_EXPAND_FWD | BA_EXPAND_BWD,
                                         BA_EXPAND_FWD | BA_EXPAND_BWD | BA_ALLOCATE_NEW, BA_EXPAND_FWD | BA_ALLOCATE_NEW};
         unsigned cmd = cmds[rand(0, 4)] | (rand(0, 4) == 0 ? BA_ZERO_MEMORY : 0u);
         std::size_t rec = 0;
         ba_command_ret r = h_command(b.heap, cmd, s, limit, pref, &rec, b.p);
         if (!r.first) {
            if (cmd & BA_ALLOCATE_NEW) shared_.error("allocation_command (new) failed");
            else if (rec != holds) shared_.error("failed expansion: received is not what the block holds");
            verify(b, "after failed allocation_command");
            break;
         }
         if (rec < limit || rec * s > ba_usable_size(r.first)) shared_.error("allocation_command: bad received");
         if (r.second) {
            unsigned char *np = static_cast<unsigned char *>(r.first);
            if (np != b.p && ((b.p - np) % static_cast<std::ptrdiff_t>(std::lcm(s, std::size_t(16))) != 0))
               shared_.error("backward expansion: distance not a multiple of lcm(sizeof, 16)");
            // The old objects stay where they were. The slack after the last whole object is
            // not an object: zero_memory may zero it, and under ASan it may be poisoned.
            block objects = b;
            objects.size = std::min(b.size, holds * s);
            verify(objects, "after in-place expansion");
            adopt(b, np, rec * s, b.heap);
         } else {
            std::size_t keep = std::min(b.size, rec * s);
            std::memcpy(r.first, b.p, keep);
            ba_heap *h = b.heap;
            release(b);
            adopt(b, r.first, rec * s, h);
         }
         break;
      }
      case 9: {   // shrink or try-shrink
         block &b = slot();
         if (!b.p) break;
         if (!verify(b, "before shrink")) break;
         std::size_t holds = ba_usable_size(b.p);
         std::size_t minimum = rand(0, holds), maximum = rand(minimum, holds);
         unsigned cmd = rand(0, 3) ? BA_SHRINK_IN_PLACE : BA_TRY_SHRINK_IN_PLACE;
         std::size_t rec = 0;
         ba_command_ret r = h_command(b.heap, cmd, 1, maximum, minimum, &rec, b.p);
         if (r.first) {
            if (r.first != b.p || !r.second || rec < minimum || rec > maximum) shared_.error("shrink: bad result");
            if (cmd == BA_SHRINK_IN_PLACE) b.size = std::min(b.size, rec);
         } else if (rec != holds) {
            shared_.error("failed shrink: received is not what the block holds");
         }
         verify(b, "after shrink");
         break;
      }
      case 10: {   // a burst, nodes or arrays; the nodes go their separate ways
         ba_chain c;
         ba_chain_init(&c);
         std::size_t n = rand(0, 32), size = rand(1, 200);
         std::size_t contiguous = rand(0, 1) ? BA_MULTIALLOC_DEFAULT_CONTIGUOUS : BA_MULTIALLOC_ALL_CONTIGUOUS;
         std::vector<std::size_t> lengths(n);
         for (std::size_t &l : lengths) l = rand(0, 40);
         bool arrays = rand(0, 1) != 0;
         int ok = arrays ? h_arrays(heap_, n, lengths.data(), 4, contiguous, &c) : h_nodes(heap_, n, size, contiguous, &c);
         if (!ok || c.size != n) { shared_.error("burst failed"); break; }
         for (std::size_t i = 0; i < n; ++i) {
            void *x = ba_chain_pop_front(&c);
            block &b = empty_slot();
            adopt(b, x, std::max(arrays ? lengths[i] * 4 : size, sizeof(void *)), heap_);
         }
         break;
      }
      case 11: {   // multidealloc of some of this thread's blocks of one heap
         ba_chain c;
         ba_chain_init(&c);
         ba_heap *h = nullptr;
         bool first = true;
         for (int i = 0; i < 16; ++i) {
            block &b = slot();
            // A chain node is a block of at least one pointer (under ASan a smaller request
            // keeps the rest of its chunk poisoned).
            if (!b.p || (!first && b.heap != h) || ba_usable_size(b.p) < sizeof(void *)) continue;
            if (!verify(b, "before multidealloc")) continue;
            h = b.heap;
            first = false;
            ba_chain_push_back(&c, b.p);
            b = block();
         }
         if (!first) h_multidealloc(h, &c);
         if (!ba_chain_empty(&c)) shared_.error("multidealloc left nodes");
         break;
      }
      }
   }
};

enum class heap_mode { default_heap, one_shared_heap, per_thread_locked, per_thread_unlocked };

const char *name(heap_mode m)
{
   switch (m) {
   case heap_mode::default_heap: return "default heap";
   case heap_mode::one_shared_heap: return "one shared heap";
   case heap_mode::per_thread_locked: return "per-thread locked heaps";
   case heap_mode::per_thread_unlocked: return "per-thread unlocked heaps";
   }
   return "?";
}

std::size_t in_use_chunks(ba_heap *h)
{
   ba_heap_stats s;
   if (h) ba_heap_stats_get(h, &s); else ba_stats(&s);
   return s.in_use_chunks;
}

void stress(heap_mode mode)
{
   const std::size_t steps = scaled(100000, 2000);
   const auto time_cap = std::chrono::seconds(under_tsan ? 120 : 30);
   BOOST_TEST_MESSAGE(name(mode) << ": " << thread_count << " threads x " << steps << " steps");
   shared_state shared;
   std::vector<ba_heap *> heaps;   // the heaps of this run (none for the default heap)
   std::vector<ba_heap *> thread_heap(thread_count, nullptr);
   switch (mode) {
   case heap_mode::default_heap: break;
   case heap_mode::one_shared_heap:
      heaps.push_back(ba_create_heap(0, 1));
      std::fill(thread_heap.begin(), thread_heap.end(), heaps[0]);
      break;
   case heap_mode::per_thread_locked:
   case heap_mode::per_thread_unlocked:
      for (unsigned i = 0; i < thread_count; ++i) {
         heaps.push_back(ba_create_heap(0, mode == heap_mode::per_thread_locked));
         thread_heap[i] = heaps.back();
      }
      break;
   }
   for (ba_heap *h : heaps) BOOST_REQUIRE(h);
   const bool cross = mode != heap_mode::per_thread_unlocked;   // an unlocked heap stays in its thread
   std::vector<ba_heap *> checked = heaps;
   if (mode == heap_mode::default_heap) checked.push_back(nullptr);
   std::vector<std::size_t> chunks_before;
   for (ba_heap *h : checked) chunks_before.push_back(in_use_chunks(h));

   // The monitor reads statistics, checks and trims the locked heaps while the workers run.
   std::atomic<bool> workers_done{false};
   std::thread monitor([&] {
      unsigned round = 0;
      while (!workers_done.load()) {
         for (ba_heap *h : checked) {
            if (mode == heap_mode::per_thread_unlocked) continue;
            ba_heap_stats s;
            if (h) ba_heap_stats_get(h, &s); else ba_stats(&s);
            if (s.peak_in_use_bytes < s.in_use_bytes || s.peak_system_bytes < s.system_bytes)
               shared.error("stats: a peak below the current figure");
            ba_check_report r = {nullptr, nullptr};
            if ((h ? ba_heap_check(h, &r) : ba_check(&r)) != 1)
               shared.error(std::string("heap check while busy: ") + (r.what ? r.what : "?"));
            if (++round % 8 == 0) { if (h) ba_heap_trim(h, 0); else ba_trim(0); }
         }
         std::this_thread::sleep_for(std::chrono::milliseconds(under_tsan ? 50 : 10));
      }
   });

   auto start = std::chrono::steady_clock::now();
   std::vector<std::thread> threads;
   for (unsigned i = 0; i < thread_count; ++i)
      threads.emplace_back([&, i] { worker(shared, thread_heap[i], cross, i, steps).run(); });
   std::thread timer([&] {
      while (!workers_done.load()) {
         if (std::chrono::steady_clock::now() - start > time_cap) { shared.stop = true; break; }
         std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
   });
   for (std::thread &t : threads) t.join();
   workers_done = true;
   monitor.join();
   timer.join();
   BOOST_TEST_MESSAGE(name(mode) << ": " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                                 << " s" << (shared.stop ? " (stopped by the time cap)" : ""));

   // Free what was left in the mailbox (blocks of every thread, freed here: yet another thread).
   for (block &b : shared.box.drain()) {
      if (first_mismatch(b.p, b.size, b.seed) != b.size) shared.error("a block left in the mailbox changed");
      h_free(b.heap, b.p);
   }
   BOOST_TEST(shared.errors.load() == 0u, shared.errors.load() << " errors, the first: " << shared.first_error);
   for (std::size_t i = 0; i < checked.size(); ++i) {
      BOOST_TEST(in_use_chunks(checked[i]) == chunks_before[i], "every block was freed");
      ba_check_report r = {nullptr, nullptr};
      int ok = checked[i] ? ba_heap_check(checked[i], &r) : ba_check(&r);
      BOOST_TEST(ok == 1, "heap check: " << (r.what ? r.what : "?"));
   }
   BOOST_TEST(ba_check(nullptr) == 1);
   for (ba_heap *h : heaps) ba_destroy_heap(h);
}

} // namespace

BOOST_AUTO_TEST_CASE(threads_share_the_default_heap) { stress(heap_mode::default_heap); }
BOOST_AUTO_TEST_CASE(threads_share_one_locked_heap) { stress(heap_mode::one_shared_heap); }
BOOST_AUTO_TEST_CASE(threads_free_blocks_of_each_others_locked_heaps) { stress(heap_mode::per_thread_locked); }
BOOST_AUTO_TEST_CASE(threads_each_use_an_unlocked_heap_of_their_own) { stress(heap_mode::per_thread_unlocked); }
