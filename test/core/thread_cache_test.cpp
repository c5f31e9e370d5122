// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The per-thread caches in front of the default heap (core/detail/thread_cache.h), seen through
// the public API only: what ba_stats says the caches hold (cached_blocks, cached_bytes, the in-use
// figures that leave them out), what ba_check finds, which pointer comes back, what the diagnostic
// handler is told. Blocks cross threads (a free goes to the freeing thread's cache), threads come
// and go by the thousand (a cache is given back at thread exit), a threaded program forks (the
// child takes back the caches of the threads it does not have), and the slow path of an
// allocation that finds no memory flushes the caches. Built for TSan in CI (label `thread`).
//
// The geometry some cases rely on is the documented default (thread_cache.h): a cap of 1 MiB
// per thread, shared equally by the 64 sizes of chunks 32..1040, two magazines a bin, at most 32
// blocks a magazine (a bin of 32-byte chunks holds 64 blocks), 8 magazines a size in the depot.

#define BOOST_TEST_MODULE allocplus core thread cache
#include "core/core_test_kit.hpp"
#include "core/test_scale.hpp"
#include "one_heap/child_process.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#if defined(ALLOCPLUS_TEST_ASAN)
#  include <sanitizer/asan_interface.h>
#endif

using namespace allocplus_test;

namespace {

// BA_OPTION_THREAD_CACHE's default (BA_DETAIL_CACHE_DEFAULT_CAP).
constexpr std::size_t default_cap = 1 * MiB;
// The 64 sizes of cached chunks share the cap; the depot keeps 8 magazines of half a bin a size:
// at most 4 caps. A bound on what the caches may hold when only the main thread runs.
constexpr std::size_t main_and_depot_bound = 6 * default_cap;

ba_heap_stats stats() { return stats_of(ba_default_heap()); }

// --- synchronisation ----------------------------------------------------------------------------

//! Threads wait at it until `count` have arrived (used once).
class rendezvous {
public:
   explicit rendezvous(unsigned count) : left_(count) {}
   void arrive_and_wait()
   {
      std::unique_lock<std::mutex> g(m_);
      if (--left_ == 0) cv_.notify_all();
      else cv_.wait(g, [&] { return left_ == 0; });
   }
private:
   std::mutex m_;
   std::condition_variable cv_;
   unsigned left_;
};

//! Threads park on it (counted) until the main thread opens it.
class parking {
public:
   void park()
   {
      std::unique_lock<std::mutex> g(m_);
      ++parked_;
      cv_.notify_all();
      cv_.wait(g, [&] { return open_; });
   }
   void wait_for(unsigned n)
   {
      std::unique_lock<std::mutex> g(m_);
      cv_.wait(g, [&] { return parked_ >= n; });
   }
   void open()
   {
      std::lock_guard<std::mutex> g(m_);
      open_ = true;
      cv_.notify_all();
   }
private:
   std::mutex m_;
   std::condition_variable cv_;
   unsigned parked_ = 0;
   bool open_ = false;
};

//! What the worker threads found wrong (Boost.Test's assertions are for the main thread only).
class failures {
public:
   void note(const std::string &what)
   {
      std::lock_guard<std::mutex> g(m_);
      if (count_++ < 10) text_ += what + "\n";
   }
   unsigned count() const { std::lock_guard<std::mutex> g(m_); return count_; }
   std::string text() const { std::lock_guard<std::mutex> g(m_); return text_; }
private:
   mutable std::mutex m_;
   unsigned count_ = 0;
   std::string text_;
};

// --- blocks -------------------------------------------------------------------------------------

struct block {
   unsigned char *p = nullptr;
   std::size_t n = 0;
   std::uint32_t seed = 0;
};

//! Every block handed out and not yet freed, as address ranges: a block handed out while another
//! one covering its bytes is live is a block handed out twice.
class live_ranges {
public:
   //! Returns: false when [p, p + n) meets a live block.
   bool insert(const void *p, std::size_t n)
   {
      auto a = reinterpret_cast<std::uintptr_t>(p), e = a + n;
      std::lock_guard<std::mutex> g(m_);
      auto next = ranges_.lower_bound(a);
      if (next != ranges_.end() && next->first < e) return false;
      if (next != ranges_.begin() && std::prev(next)->second > a) return false;
      ranges_.emplace(a, e);
      return true;
   }
   //! Before the block is freed: once freed it may be handed out again at once.
   void erase(const void *p)
   {
      std::lock_guard<std::mutex> g(m_);
      ranges_.erase(reinterpret_cast<std::uintptr_t>(p));
   }
private:
   std::mutex m_;
   std::map<std::uintptr_t, std::uintptr_t> ranges_;
};

//! Where one thread leaves blocks for another to free.
class mailbox {
public:
   bool put(const block &b)
   {
      std::lock_guard<std::mutex> g(m_);
      if (blocks_.size() >= 1024) return false;
      blocks_.push_back(b);
      return true;
   }
   bool take(block &b)
   {
      std::lock_guard<std::mutex> g(m_);
      if (blocks_.empty()) return false;
      b = blocks_.back();
      blocks_.pop_back();
      return true;
   }
private:
   std::mutex m_;
   std::vector<block> blocks_;
};

//! A block of n bytes from ba_malloc, filled with the pattern of `seed`.
block make_block(std::size_t n, std::uint32_t seed)
{
   block b;
   b.p = static_cast<unsigned char *>(ba_malloc(n));
   b.n = n;
   b.seed = seed;
   if (b.p) fill(b.p, n, seed);
   return b;
}

std::string describe(const char *what, const block &b)
{
   return std::string(what) + " (block " + std::to_string(reinterpret_cast<std::uintptr_t>(b.p)) + " of " +
          std::to_string(b.n) + " bytes, seed " + std::to_string(b.seed) + ")";
}

//! The request sizes whose chunks are the 64 cached sizes 32..1040 (a request of n bytes takes a
//! chunk of n + 8 rounded up to 16).
std::vector<std::size_t> one_request_per_cached_size()
{
   std::vector<std::size_t> sizes;
   for (std::size_t chunk = 32; chunk <= 1040; chunk += 16) sizes.push_back(chunk - 8);
   return sizes;
}

//! The blocks of chunk `chunk` a bin of a cache with the default cap holds (thread_cache.h,
//! ba_detail_cache_limits): an equal share of the cap in two magazines of at most 32 blocks.
unsigned bin_limit(std::size_t chunk)
{
   std::size_t batch = default_cap / 64 / (2 * chunk);
   return static_cast<unsigned>(2 * std::min<std::size_t>(batch, 32));
}

// --- diagnostics, in a child process -------------------------------------------------------------

//! Writes the report to stderr (the pipe of run_in_child) and ends the child: a handler must not
//! return into the heap.
void report_and_exit(const char *message, const void *, const ba_heap *)
{
   std::string s = std::string("report: ") + (message ? message : "(null)") + "\n";
   ssize_t w = write(STDERR_FILENO, s.data(), s.size());
   (void)w;
   _exit(42);
}

//! In a child: says what went wrong on stderr and exits with `code`.
[[noreturn]] void child_fails(int code, const std::string &what)
{
   std::string s = what + "\n";
   ssize_t w = write(STDERR_FILENO, s.data(), s.size());
   (void)w;
   _exit(code);
}

} // namespace

BOOST_AUTO_TEST_SUITE(core_thread_cache)

// -------------------------------------------------------------------------------------------------
// 1. One thread: a freed block waits in the cache for the next request of its size.
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_block_freed_then_allocated_comes_back_from_the_cache)
{
   constexpr std::size_t n = 200;   // a chunk of 208 bytes
   void *p = ba_malloc(n);
   BOOST_REQUIRE(p);
   fill(p, n, 1);
   ba_heap_stats before = stats();
   ba_free(p);
   ba_heap_stats cached = stats();
   BOOST_TEST(cached.cached_blocks == before.cached_blocks + 1);
   BOOST_TEST(cached.cached_bytes == before.cached_bytes + 208);
   // The in-use figures leave the cached block out; the heap did not change.
   BOOST_TEST(cached.in_use_bytes == before.in_use_bytes - 208);
   BOOST_TEST(cached.in_use_chunks == before.in_use_chunks - 1);
   BOOST_TEST(cached.system_bytes == before.system_bytes);
   BOOST_TEST(cached.free_chunks == before.free_chunks, "the block went to the cache, not to the heap's bins");
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());

   void *q = ba_malloc(n);
   BOOST_TEST(q == p, "the cache hands the last block of the size freed back first");
   ba_heap_stats again = stats();
   BOOST_TEST(again.cached_blocks == before.cached_blocks);
   BOOST_TEST(again.cached_bytes == before.cached_bytes);
   BOOST_TEST(again.in_use_bytes == before.in_use_bytes);
   BOOST_TEST(again.in_use_chunks == before.in_use_chunks);
   ba_free(q);
}

// A block followed by blocks of the thread's cache (a magazine lies in address order) does not grow
// into them (they are in use to the heap): a realloc moves it, and the statistics and the caches
// stay sound, whether the realloc succeeds or fails (then the block is as it was).
BOOST_AUTO_TEST_CASE(realloc_next_to_the_threads_cached_blocks_keeps_the_statistics)
{
   ba_thread_cache_flush();
   void *p = ba_malloc(256);   // the first block of a magazine carved now; the rest is cached
   BOOST_REQUIRE(p != nullptr);
   std::memset(p, 0x5a, 256);
   ba_heap_stats before = stats();
   BOOST_REQUIRE(before.cached_blocks > 0u);
   void *q = ba_realloc(p, 288);
   BOOST_REQUIRE(q != nullptr);
   for (std::size_t i = 0; i < 256; ++i) BOOST_REQUIRE(static_cast<unsigned char *>(q)[i] == 0x5a);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
   BOOST_TEST(stats().cached_blocks >= before.cached_blocks, "the cached blocks stay cached");

   // A realloc the footprint limit refuses: the block keeps its size and contents.
   const std::size_t usable = ba_usable_size(q);
   ba_heap_stats now = stats();
   const std::size_t previous = ba_heap_set_footprint_limit(ba_default_heap(), now.system_bytes);
   void *r = ba_realloc(q, 4 * MiB);
   ba_heap_set_footprint_limit(ba_default_heap(), previous);
   BOOST_TEST(r == nullptr);
   BOOST_TEST(ba_usable_size(q) == usable);
   for (std::size_t i = 0; i < 256; ++i) BOOST_REQUIRE(static_cast<unsigned char *>(q)[i] == 0x5a);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
   ba_free(q);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

BOOST_AUTO_TEST_CASE(check_passes_with_a_block_of_every_cached_size_in_the_cache)
{
   ba_thread_cache_flush();
   std::vector<block> blocks;
   std::uint32_t seed = 100;
   for (std::size_t n : one_request_per_cached_size()) {
      blocks.push_back(make_block(n, seed++));
      BOOST_REQUIRE(blocks.back().p);
   }
   ba_heap_stats before = stats();
   std::size_t bytes = 0;
   for (const block &b : blocks) {
      BOOST_TEST(holds_pattern(b.p, b.n, b.seed));
      ba_free(b.p);
      bytes += b.n + 8;
   }
   ba_heap_stats after = stats();
   BOOST_TEST(after.cached_blocks == before.cached_blocks + blocks.size());
   BOOST_TEST(after.cached_bytes == before.cached_bytes + bytes);
   BOOST_TEST(after.in_use_bytes == before.in_use_bytes - bytes);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
   ba_thread_cache_flush();
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// -------------------------------------------------------------------------------------------------
// 2. Blocks freed by another thread than the one that allocated them.
// -------------------------------------------------------------------------------------------------

namespace {

// Each thread allocates blocks of 1..2000 bytes and mails them to the next thread, and frees the
// blocks the previous thread mailed to it: every free in a thread's loop is of a block another
// thread allocated. Returns what went wrong.
void exchange_blocks(unsigned thread_count, std::size_t steps, failures &failed)
{
   std::vector<mailbox> boxes(thread_count);
   live_ranges live;
   rendezvous done(thread_count);
   auto take_and_free = [&](unsigned t, block &b) {
      if (!holds_pattern(b.p, b.n, b.seed)) failed.note(describe("a block changed while live", b) +
                                                        " in thread " + std::to_string(t));
      live.erase(b.p);
      ba_free(b.p);
   };
   auto body = [&](unsigned t) {
      std::mt19937 rng(7919u * (t + 1) + thread_count);
      std::uint32_t seed = (t + 1) << 24;
      for (std::size_t i = 0; i < steps; ++i) {
         block b;
         if (rng() % 2) {
            b = make_block(1 + rng() % 2000, ++seed);
            if (!b.p) { failed.note("ba_malloc failed"); continue; }
            if (!live.insert(b.p, b.n)) failed.note(describe("a block was handed out twice", b));
            if (!boxes[(t + 1) % thread_count].put(b)) take_and_free(t, b);   // the box is full
         } else if (boxes[t].take(b)) {
            take_and_free(t, b);
         }
      }
      done.arrive_and_wait();   // nobody mails any more: each empties its own box
      block b;
      while (boxes[t].take(b)) take_and_free(t, b);
   };
   std::vector<std::thread> threads;
   for (unsigned t = 0; t < thread_count; ++t) threads.emplace_back(body, t);
   for (std::thread &t : threads) t.join();
}

} // namespace

BOOST_AUTO_TEST_CASE(blocks_freed_by_other_threads_are_never_handed_out_twice)
{
   for (unsigned thread_count : {2u, 4u, 8u, 16u}) {
      BOOST_TEST_CONTEXT("threads: " << thread_count)
      {
         ba_thread_cache_flush();
         ba_heap_stats before = stats();
         failures failed;
         exchange_blocks(thread_count, scaled(40000, 2000) / thread_count, failed);
         BOOST_TEST(failed.count() == 0u, failed.text());
         ALLOCPLUS_CHECK_HEAP(ba_default_heap());
         // The threads' caches went back when they exited; the depot goes back now.
         ba_thread_cache_flush();
         ba_heap_stats after = stats();
         BOOST_TEST(after.in_use_bytes == before.in_use_bytes);
         BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
         BOOST_TEST(after.cached_blocks == 0u, "only the main thread runs, and it flushed");
         ALLOCPLUS_CHECK_HEAP(ba_default_heap());
      }
   }
}

// -------------------------------------------------------------------------------------------------
// 3. A thousand short-lived threads: their caches go back when they exit.
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(short_lived_threads_leave_neither_cached_nor_system_memory_behind)
{
   constexpr unsigned thread_count = 1000, wave = 8, handed = 4;
   const std::size_t blocks_per_thread = scaled(300, 100);
   ba_thread_cache_flush();
   ba_heap_stats start = stats();
   failures failed;
   std::mutex handed_mutex;
   std::vector<block> handed_blocks;
   std::size_t system_after_first_wave = 0, cached_while_first_wave_lives = 0;

   auto body = [&](unsigned k, parking *park) {
      std::mt19937 rng(k + 1);
      std::vector<block> mine;
      for (std::size_t i = 0; i < blocks_per_thread; ++i) {
         mine.push_back(make_block(1 + rng() % 1000, static_cast<std::uint32_t>(k * 1000 + i)));
         if (!mine.back().p) { failed.note("ba_malloc failed"); mine.pop_back(); }
      }
      std::shuffle(mine.begin(), mine.end(), rng);
      // The last `handed` blocks live on in the main thread; the others go to this thread's cache.
      for (std::size_t i = 0; i < mine.size(); ++i) {
         if (!holds_pattern(mine[i].p, mine[i].n, mine[i].seed)) failed.note(describe("a block changed", mine[i]));
         if (i + handed >= mine.size()) {
            std::lock_guard<std::mutex> g(handed_mutex);
            handed_blocks.push_back(mine[i]);
         } else {
            ba_free(mine[i].p);
         }
      }
      if (park) park->park();
   };

   for (unsigned first = 0; first < thread_count; first += wave) {
      parking park;
      bool first_wave = first == 0;
      std::vector<std::thread> threads;
      for (unsigned k = first; k < first + wave; ++k) threads.emplace_back(body, k, first_wave ? &park : nullptr);
      if (first_wave) {
         // Every thread of the wave has freed its blocks and waits: their caches hold them.
         park.wait_for(wave);
         cached_while_first_wave_lives = stats().cached_bytes;
         park.open();
      }
      for (std::thread &t : threads) t.join();
      // The blocks of threads that have exited, freed by the main thread.
      for (const block &b : handed_blocks) {
         BOOST_TEST(holds_pattern(b.p, b.n, b.seed), describe("a block of a dead thread changed", b));
         ba_free(b.p);
      }
      handed_blocks.clear();
      if (first_wave) system_after_first_wave = stats().system_bytes;
   }
   BOOST_TEST(failed.count() == 0u, failed.text());

   ba_heap_stats end = stats();
   BOOST_TEST_MESSAGE("cached bytes: " << start.cached_bytes << " at the start, "
                      << cached_while_first_wave_lives << " while the first wave lived, "
                      << end.cached_bytes << " after " << thread_count << " threads; system bytes: "
                      << start.system_bytes << ", " << system_after_first_wave << " after the first wave, "
                      << end.system_bytes << " at the end");
   // The test means something only if exiting threads had something cached: at least 16 KiB
   // each (a thread frees ~300 blocks of ~500 bytes; its bins keep some 4 KiB of every size).
   BOOST_TEST(cached_while_first_wave_lives >= start.cached_bytes + wave * 16 * KiB);
   // Had the exiting threads left their caches behind, 1000 of them would hold some 16 MiB or more.
   BOOST_TEST(end.cached_bytes <= main_and_depot_bound);
   std::size_t first_growth = system_after_first_wave > start.system_bytes
                                 ? system_after_first_wave - start.system_bytes : 0;
   BOOST_TEST(end.system_bytes <= start.system_bytes + 4 * first_growth + 2 * MiB);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
   ba_thread_cache_flush();
   ba_heap_stats flushed = stats();
   BOOST_TEST(flushed.in_use_bytes == start.in_use_bytes);
   BOOST_TEST(flushed.in_use_chunks == start.in_use_chunks);
   BOOST_TEST(flushed.cached_blocks == 0u);
}

// A write after free into a block another thread caches: ba_check cannot see it (it walks the
// calling thread's cache only), ba_check_quiescent, called while that thread waits, reports it.
BOOST_AUTO_TEST_CASE(check_quiescent_finds_a_write_after_free_in_another_threads_cache)
{
   void *freed = nullptr;
   void *guard = nullptr;
   rendezvous cached(2), checked(2);
   std::thread owner([&] {
      freed = ba_malloc(200);
      guard = ba_malloc(200);   // so that the block does not end at the top (cached only with threads)
      ba_free(freed);           // into this thread's cache
      cached.arrive_and_wait();
      checked.arrive_and_wait();   // quiescent meanwhile; at exit its cache goes back, checked
   });
   cached.arrive_and_wait();
   BOOST_REQUIRE(freed != nullptr);
   BOOST_REQUIRE(guard != nullptr);
   unsigned char *word = static_cast<unsigned char *>(freed) + sizeof(void *);   // the block's mark
#if defined(ALLOCPLUS_TEST_ASAN)
   ASAN_UNPOISON_MEMORY_REGION(word, sizeof(std::uintptr_t));
#endif
   std::uintptr_t saved;
   std::memcpy(&saved, word, sizeof saved);
   const std::uintptr_t garbage = 12345;   // a use after free writes an int
   std::memcpy(word, &garbage, sizeof garbage);
   ba_check_report own = {nullptr, nullptr}, every = {nullptr, nullptr};
   int own_ok = ba_check(&own);
   int every_ok = ba_check_quiescent(&every);
   std::memcpy(word, &saved, sizeof saved);
#if defined(ALLOCPLUS_TEST_ASAN)
   ASAN_POISON_MEMORY_REGION(word, sizeof(std::uintptr_t));
#endif
   BOOST_TEST(own_ok == 1, (own.what ? own.what : ""));
   BOOST_TEST(every_ok == 0);
   BOOST_TEST(every.where == freed);
   if (every.what) BOOST_TEST(std::string(every.what).find("thread cache") != std::string::npos, every.what);
   BOOST_TEST(ba_check_quiescent(nullptr) == 1);   // repaired
   checked.arrive_and_wait();
   owner.join();
   ba_free(guard);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// -------------------------------------------------------------------------------------------------
// 4. A double free of a cached block is reported (in a child: the handler ends it).
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(double_free_of_a_block_in_the_threads_bin_is_reported)
{
   child_outcome o = run_in_child([] {
      ba_set_diagnostic_handler(report_and_exit);
      void *p = ba_malloc(40);
      void *guard = ba_malloc(40);
      if (!p || !guard) child_fails(2, "ba_malloc failed");
      ba_heap_stats before = stats();
      ba_free(p);
      if (stats().cached_blocks != before.cached_blocks + 1) child_fails(3, "the block was not cached");
      ba_free(p);
      child_fails(4, "the second free returned");
   });
   BOOST_TEST(o.exit_code == 42, "child exit " << o.exit_code << ", signal " << o.signal << ": " << o.err);
   BOOST_TEST(o.err.find("double free") != std::string::npos, o.err);
}

BOOST_AUTO_TEST_CASE(double_free_of_a_block_spilled_to_the_depot_is_reported)
{
   child_outcome o = run_in_child([] {
      ba_set_diagnostic_handler(report_and_exit);
      // 32-byte chunks: a bin holds 64, a free that finds it full moves the older 32 to the depot.
      const unsigned limit = bin_limit(32);
      std::vector<void *> others;
      void *p = ba_malloc(24);
      for (unsigned i = 0; i < limit; ++i) others.push_back(ba_malloc(24));
      void *guard = ba_malloc(24);   // so that the last of the others does not end at the top (not cached)
      if (!p || !guard || std::find(others.begin(), others.end(), nullptr) != others.end()) child_fails(2, "ba_malloc failed");
      ba_thread_cache_flush();   // an empty bin, an empty depot
      if (stats().cached_blocks != 0) child_fails(3, "the flush left blocks cached");
      // p is the oldest: the bin fills with p and limit - 1 others, the last free spills the
      // older half, p with it, to the depot.
      ba_free(p);
      for (void *q : others) ba_free(q);
      ba_heap_stats spilled = stats();
      if (spilled.cached_blocks != limit + 1)
         child_fails(5, "expected " + std::to_string(limit + 1) + " blocks in the bin and the depot, found " +
                        std::to_string(spilled.cached_blocks));
      ba_free(p);
      child_fails(4, "the second free returned");
   });
   BOOST_TEST(o.exit_code == 42, "child exit " << o.exit_code << ", signal " << o.signal << ": " << o.err);
   BOOST_TEST(o.err.find("double free") != std::string::npos, o.err);
}

// A forged link in a full bin, to a fake block outside the heap that copies a cached block's
// header and mark (a read after free finds both) and links on to the block the forged link
// named (the list one block longer, whole), is reported at the free that spills the bin, before
// anything is written: whether the fake lies in the half the bin keeps (its links are followed
// to the last block it keeps, whose link is cut), is that last block, or lies in the magazine
// that goes (every block of which the burst free rewrites).
namespace {

__attribute__((no_sanitize("address"))) std::uintptr_t peek_word(void *block, std::ptrdiff_t word)
{
   return static_cast<std::uintptr_t *>(block)[word];
}
__attribute__((no_sanitize("address"))) void poke_word(void *block, std::ptrdiff_t word, std::uintptr_t value)
{
   static_cast<std::uintptr_t *>(block)[word] = value;
}
//! A list's link from `block` to `next`, as free_list.h protects it.
std::uintptr_t protected_link(const void *block, const void *next)
{
   return (reinterpret_cast<std::uintptr_t>(block) >> 12) ^ reinterpret_cast<std::uintptr_t>(next);
}

alignas(64) std::uintptr_t spill_fake[8];

//! In a child: fills the bin of 32-byte chunks, forges the link of the block `depth` blocks deep
//! in it (0: the newest), and frees one more block. Exits through the handler (42) when the
//! forgery is reported with the fake untouched, 43 when reported after a write to the fake.
void spill_a_bin_with_a_forged_link(unsigned depth)
{
   ba_set_diagnostic_handler([](const char *message, const void *, const ba_heap *) {
      const bool untouched = spill_fake[2] == spill_fake[4] && spill_fake[3] != 0;
      std::string s = std::string("report: ") + (message ? message : "(null)") + "\n";
      ssize_t w = write(STDERR_FILENO, s.data(), s.size());
      (void)w;
      _exit(untouched ? 42 : 43);
   });
   const unsigned limit = bin_limit(32);
   std::vector<void *> blocks;
   for (unsigned i = 0; i <= limit; ++i) blocks.push_back(ba_malloc(24));
   void *guard = ba_malloc(24);   // so that the last block does not end at the top (not cached)
   if (!guard || std::find(blocks.begin(), blocks.end(), nullptr) != blocks.end()) child_fails(2, "ba_malloc failed");
   ba_thread_cache_flush();   // an empty bin, an empty depot
   for (unsigned i = 0; i < limit; ++i) ba_free(blocks[i]);   // the bin full: blocks[limit - 1] newest
   if (stats().cached_blocks != limit) child_fails(3, "the bin does not hold the blocks freed");
   void *forged = blocks[limit - 1 - depth];
   spill_fake[1] = 0x20 | 3;                     // a cached 32-byte chunk's header
   spill_fake[3] = peek_word(forged, 1);         // the caches' mark, as the block carries it
   const std::uintptr_t next = peek_word(forged, 0) ^ protected_link(forged, nullptr);   // the block it named
   spill_fake[2] = protected_link(&spill_fake[2], reinterpret_cast<void *>(next));   // the fake links on to it
   spill_fake[4] = spill_fake[2];                // (a copy, to tell a write to the fake's link)
   poke_word(forged, 0, protected_link(forged, &spill_fake[2]));
   ba_free(blocks[limit]);   // the bin is full: this free spills it
   child_fails(4, "the spill did not report the forged link");
}

} // namespace

BOOST_AUTO_TEST_CASE(forged_link_in_a_full_bin_is_reported_at_the_spill_before_anything_is_written)
{
   const unsigned limit = bin_limit(32);
   // The fake after the newest block; as the last block the bin keeps; as the first of the
   // magazine that goes; after the oldest but one.
   for (unsigned depth : {0u, limit / 2 - 2, limit / 2 - 1, limit - 2}) {
      BOOST_TEST_CONTEXT("the forged link " << depth << " blocks deep in a bin of " << limit)
      {
         child_outcome o = run_in_child([depth] { spill_a_bin_with_a_forged_link(depth); });
         BOOST_TEST(o.exit_code == 42, "child exit " << o.exit_code << ", signal " << o.signal << ": " << o.err);
         BOOST_TEST(o.err.find("thread cache") != std::string::npos, o.err);
      }
   }
}

// -------------------------------------------------------------------------------------------------
// 5. fork from a threaded program.
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(fork_child_takes_back_the_caches_of_the_threads_it_does_not_have)
{
   constexpr unsigned thread_count = 4;
   ba_thread_cache_flush();
   // The main thread's own cache: blocks of one size.
   std::vector<void *> own;
   for (int i = 0; i < 10; ++i) own.push_back(ba_malloc(100));
   for (void *p : own) ba_free(p);
   const std::size_t main_cached = stats().cached_blocks;
   BOOST_REQUIRE(main_cached >= 10u);

   // Each thread frees a block of every cached size (never more than a bin holds: nothing goes to
   // the depot, which the child keeps) and parks.
   parking park;
   std::vector<std::thread> threads;
   for (unsigned t = 0; t < thread_count; ++t)
      threads.emplace_back([&park] {
         std::vector<void *> mine;
         for (std::size_t n : one_request_per_cached_size()) mine.push_back(ba_malloc(n));
         for (void *p : mine) ba_free(p);
         park.park();
      });
   park.wait_for(thread_count);
   ba_heap_stats parent = stats();
   BOOST_TEST(parent.cached_blocks >= main_cached + thread_count * one_request_per_cached_size().size(),
              "the parked threads hold blocks in their caches");

   child_outcome o = run_in_child([&] {
      ba_heap_stats child = stats();
      if (child.cached_blocks > main_cached)
         child_fails(10, "cached_blocks in the child: " + std::to_string(child.cached_blocks) +
                         ", the forking thread had " + std::to_string(main_cached));
      // What the threads cached is free in the child: in use is what it was to the parent.
      if (child.in_use_bytes != parent.in_use_bytes || child.in_use_chunks != parent.in_use_chunks)
         child_fails(11, "in use in the child " + std::to_string(child.in_use_bytes) + " bytes, " +
                         std::to_string(child.in_use_chunks) + " chunks; in the parent " +
                         std::to_string(parent.in_use_bytes) + ", " + std::to_string(parent.in_use_chunks));
      ba_check_report r = {nullptr, nullptr};
      if (ba_check(&r) != 1) child_fails(12, std::string("ba_check: ") + (r.what ? r.what : "?"));
      std::vector<block> blocks;
      for (std::uint32_t i = 0; i < 2000; ++i) {
         blocks.push_back(make_block(1 + (i * 37) % 1500, i));
         if (!blocks.back().p) child_fails(13, "ba_malloc failed");
      }
      for (const block &b : blocks) {
         if (!holds_pattern(b.p, b.n, b.seed)) child_fails(14, describe("a block changed", b));
         ba_free(b.p);
      }
      if (ba_check(&r) != 1) child_fails(15, std::string("ba_check after use: ") + (r.what ? r.what : "?"));
   });
   park.open();
   for (std::thread &t : threads) t.join();
   BOOST_TEST(o.exited);
   BOOST_TEST(o.exit_code == 0, "child exit " << o.exit_code << ", signal " << o.signal << ": " << o.err);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// -------------------------------------------------------------------------------------------------
// 6. ba_thread_cache_flush and ba_trim give back the calling thread's cache and the depot.
// -------------------------------------------------------------------------------------------------

namespace {

// Fills the main thread's cache and the depot: ten blocks of every cached size, freed (more than
// a bin of the large sizes holds: some go to the depot).
void fill_the_caches()
{
   std::vector<void *> blocks;
   for (std::size_t n : one_request_per_cached_size())
      for (int i = 0; i < 10; ++i) blocks.push_back(ba_malloc(n));
   for (void *p : blocks) ba_free(p);
}

} // namespace

BOOST_AUTO_TEST_CASE(flush_gives_back_the_threads_cache_and_the_depot)
{
   fill_the_caches();
   ba_heap_stats full = stats();
   BOOST_TEST(full.cached_blocks >= 630u);
   ba_thread_cache_flush();
   ba_heap_stats flushed = stats();
   BOOST_TEST(flushed.cached_blocks == 0u);
   BOOST_TEST(flushed.cached_bytes < 2 * KiB, "what is left is the cache's record");
   BOOST_TEST(flushed.in_use_bytes == full.in_use_bytes);
   BOOST_TEST(flushed.in_use_chunks == full.in_use_chunks);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// A bin is a stack: blocks freed going up in memory lie in it going down, and go back to the heap
// as a chain reversed (going up, so that the heap merges each run of neighbours in one step);
// blocks freed going down go back as they lie. Either way every block is given back once.
BOOST_AUTO_TEST_CASE(blocks_freed_going_up_or_down_in_memory_all_go_back_to_the_heap)
{
   ba_thread_cache_flush();
   const ba_heap_stats before = stats();
   for (bool up : {true, false}) {
      BOOST_TEST_CONTEXT((up ? "freed going up" : "freed going down")) {
         std::vector<void *> blocks(5000);
         for (void *&b : blocks) {
            b = ba_malloc(24);
            BOOST_REQUIRE(b);
         }
         std::sort(blocks.begin(), blocks.end());
         if (!up) std::reverse(blocks.begin(), blocks.end());
         for (void *b : blocks) ba_free(b);   // many bins' worth: spilled, to the depot and the heap
         ALLOCPLUS_CHECK_HEAP(ba_default_heap());
         ba_thread_cache_flush();
         const ba_heap_stats after = stats();
         BOOST_TEST(after.cached_blocks == 0u);
         BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
         BOOST_TEST(after.in_use_bytes == before.in_use_bytes);
         ALLOCPLUS_CHECK_HEAP(ba_default_heap());
      }
   }
}

BOOST_AUTO_TEST_CASE(trim_gives_back_the_threads_cache_and_the_depot)
{
   fill_the_caches();
   ba_heap_stats full = stats();
   BOOST_TEST(full.cached_blocks >= 630u);
   ba_trim(0);
   ba_heap_stats trimmed = stats();
   BOOST_TEST(trimmed.cached_blocks == 0u);
   BOOST_TEST(trimmed.cached_bytes < 2 * KiB);
   BOOST_TEST(trimmed.in_use_bytes == full.in_use_bytes);
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// -------------------------------------------------------------------------------------------------
// 7. BA_OPTION_THREAD_CACHE = 0: threads started after go without a cache.
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_thread_started_with_the_option_at_zero_has_no_cache)
{
   ba_thread_cache_flush();
   BOOST_REQUIRE(stats().cached_blocks == 0u);
   // Caches of `cap` bytes: returns the most blocks ba_stats showed cached while a thread made at
   // that setting allocated and freed blocks of every size, alone.
   auto most_cached_in_a_new_thread = [](std::size_t cap) {
      BOOST_REQUIRE(ba_heap_set_option(ba_default_heap(), BA_OPTION_THREAD_CACHE, cap) == 1);
      std::size_t most = 0;
      std::thread t([&most] {
         for (int round = 0; round < 3; ++round) {
            std::vector<void *> blocks;
            for (std::size_t n : one_request_per_cached_size())
               for (int i = 0; i < 3; ++i) blocks.push_back(ba_malloc(n));
            for (void *p : blocks) ba_free(p);
            most = std::max(most, stats().cached_blocks);
         }
      });
      t.join();
      return most;
   };
   std::size_t without = most_cached_in_a_new_thread(0);
   // Back to the default (an option once set stays set: the default's value restores it).
   std::size_t with = most_cached_in_a_new_thread(default_cap);
   BOOST_TEST(without == 0u, "the thread's frees went straight to the heap");
   BOOST_TEST(with > 0u, "with the default restored a new thread caches again");
   ba_thread_cache_flush();
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

BOOST_AUTO_TEST_CASE(the_option_is_refused_for_another_heap_and_changes_nothing)
{
   ba_heap *other = ba_create_heap(0, 1);
   BOOST_REQUIRE(other != nullptr);
   BOOST_TEST(ba_heap_set_option(other, BA_OPTION_THREAD_CACHE, 0) == 0);
   ba_destroy_heap(other);
   std::size_t cached_by_one_free = 0;
   std::thread t([&cached_by_one_free] {
      void *p = ba_malloc(40);
      void *guard = ba_malloc(40);   // so that p does not end at the top
      const std::size_t before = stats().cached_blocks;
      ba_free(p);
      cached_by_one_free = stats().cached_blocks - before;
      ba_free(guard);
   });
   t.join();
   BOOST_TEST(cached_by_one_free == 1u, "a thread made after still caches");
   ba_thread_cache_flush();
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

// -------------------------------------------------------------------------------------------------
// 8. An allocation that finds no memory flushes the calling thread's cache and the depot first
//    (any allocation of the default heap: ba_malloc, ba_heap_malloc, calloc, memalign, commands).
// -------------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_allocation_short_of_memory_takes_back_what_the_caches_hold)
{
   ba_heap *h = ba_default_heap();
   constexpr std::size_t large = 64 * KiB;
   // Each way to allocate from the default heap: each takes the caches back before it gives up.
   const std::pair<const char *, void *(*)()> allocations[] = {
      {"ba_malloc", [] { return ba_malloc(large); }},
      {"ba_heap_malloc", [] { return ba_heap_malloc(ba_default_heap(), large); }},
      {"ba_calloc", [] { return ba_calloc(1, large); }},
      {"ba_memalign", [] { return ba_memalign(4096, large); }},
      {"ba_allocation_command", [] {
          std::size_t received = 0;
          return ba_allocation_command(BA_ALLOCATE_NEW, 1, 0, large, large, &received, nullptr).first;
       }},
   };
   for (const auto &allocation : allocations) {
      BOOST_TEST_CONTEXT(allocation.first)
      {
         ba_thread_cache_flush();
         ba_trim(0);
         const std::size_t previous_limit = ba_heap_set_footprint_limit(h, stats().system_bytes);
         // Takes every free byte the heap has without growing.
         std::vector<void *> hogs;
         for (std::size_t n = large; n >= 16; n /= 2)
            for (void *p; (p = ba_heap_malloc(h, n)) != nullptr;) hogs.push_back(p);
         for (void *p; (p = ba_heap_malloc(h, 1)) != nullptr;) hogs.push_back(p);
         // Room for the caches: what a bin holds of every size (no spill, nothing goes back).
         ba_heap_set_footprint_limit(h, stats().system_bytes + 2 * default_cap);
         std::vector<void *> small;
         for (std::size_t n : one_request_per_cached_size())
            for (unsigned i = 0; i < bin_limit(n + 8); ++i) {
               void *p = ba_malloc(n);
               BOOST_REQUIRE(p);
               small.push_back(p);
            }
         for (void *p : small) ba_free(p);
         // The heap grew by more than the caches took: the rest of the top goes too, in one block
         // (no allocation fails on the way), and the heap may not grow any more.
         ba_heap_set_footprint_limit(h, stats().system_bytes);
         const std::size_t top = stats().top_bytes;
         if (top > 256)
            if (void *rest = ba_heap_malloc(h, top - 256)) hogs.push_back(rest);
         ba_heap_stats cached = stats();
         BOOST_TEST_MESSAGE("cached: " << cached.cached_blocks << " blocks, " << cached.cached_bytes
                            << " bytes; free " << cached.free_bytes << " in " << cached.free_chunks << " chunks");
         BOOST_TEST(cached.cached_bytes >= 3 * large);
         BOOST_TEST(cached.free_bytes < large, "the precondition: only cached memory can hold the block");
         void *p = allocation.second();
         BOOST_TEST(p != nullptr, "failed with " << cached.cached_bytes << " bytes cached");
         ba_heap_stats after = stats();
         BOOST_TEST(after.cached_blocks == 0u);
         BOOST_TEST(after.system_bytes <= cached.system_bytes);
         ALLOCPLUS_CHECK_HEAP(h);
         ba_free(p);
         for (void *q : hogs) ba_heap_free(h, q);
         ba_heap_set_footprint_limit(h, previous_limit);
         ba_trim(0);
         ALLOCPLUS_CHECK_HEAP(h);
      }
   }
}

// -------------------------------------------------------------------------------------------------
// 8. Growing blocks in a process with threads: each thread serves its small growing blocks (new
//    blocks of allocation_command, frees of blocks at the top) from its cache, without the heap's
//    lock (a thread that holds it makes nobody wait); large blocks still grow in place.
// -------------------------------------------------------------------------------------------------

namespace {

using clock_type = std::chrono::steady_clock;

//! Holds the default heap's lock from a thread of its own (as a thread inside a long heap
//! operation does) from its construction to release().
class lock_holder {
public:
   lock_holder()
      : thread_([this] {
           boost::allocplus::ba_detail_lock(ba_default_heap());
           held_ = true;
           while (!release_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
           boost::allocplus::ba_detail_unlock(ba_default_heap());
        })
   {
      while (!held_) std::this_thread::yield();
   }
   lock_holder(const lock_holder &) = delete;
   lock_holder &operator=(const lock_holder &) = delete;
   void release()
   {
      release_ = true;
      if (thread_.joinable()) thread_.join();
   }
   ~lock_holder() { release(); }

private:
   std::atomic<bool> held_{false}, release_{false};
   std::thread thread_;   // last: starts once the flags exist
};

//! Whether block p of the default heap ends where its top begins (a free of it merges into the top).
bool ends_at_top(const void *p)
{
   const auto *chunk = boost::allocplus::ba_detail_mem2chunk(p);
   return reinterpret_cast<std::uintptr_t>(chunk) + boost::allocplus::ba_detail_chunksize(chunk)
          == boost::allocplus::ba_detail_top_hint(ba_default_heap());
}

} // namespace

BOOST_AUTO_TEST_CASE(a_thread_that_finds_the_lock_held_grows_its_blocks_from_its_cache_without_waiting)
{
   // The worker prepares in its own thread (its cache), then works while another thread holds the
   // default heap's lock. Its calls come from its cache: none waits for the lock.
   std::atomic<int> stage{0};   // 1: prepared; 2: the lock is held; 3: done under it; 4: released
   std::atomic<bool> failed{false};
   std::string what;
   void *at_top = nullptr, *reused = nullptr;
   std::thread worker([&] {
      auto fail = [&](const char *why) {
         if (!failed.exchange(true)) what = why;
      };
      // Bins of the two sizes the commands ask for (chunks of 48 and 96 bytes), filled by one
      // carve each; the blocks handed out first lie below the rest of their magazine.
      ba_free(ba_malloc(40));
      ba_free(ba_malloc(88));
      // A block that ends at the top: in a process of one thread its free would merge into the
      // top, under the lock; here it goes to the thread's cache.
      std::vector<void *> below;
      while (!at_top && below.size() < 100000) {
         void *p = ba_heap_malloc(ba_default_heap(), 40);
         if (!p) break;
         if (ends_at_top(p)) at_top = p;
         else below.push_back(p);
      }
      if (!at_top) fail("no block of the heap ends at the top");
      stage = 1;
      while (stage != 2) std::this_thread::yield();
      std::size_t received = 0;
      ba_command_ret first = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 10, 10,
                                                   &received, nullptr);
      if (!first.first || first.second || received < 10) fail("the first buffer of a vector: no block");
      else std::memset(first.first, 1, received * sizeof(int));
      ba_command_ret grown = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 20, 20,
                                                   &received, first.first);
      if (!grown.first || grown.second || received < 20) fail("the growth of a vector: no new block");
      else std::memset(grown.first, 2, received * sizeof(int));
      // (A block grown in place is freed once.)
      auto free_all = [&] {
         if (!grown.second) ba_free(first.first);
         ba_free(grown.first);
         if (at_top) ba_free(at_top);
      };
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      free_all();   // (checked builds check every free under the lock: there they would wait)
#endif
      stage = 3;
      while (stage != 4) std::this_thread::yield();
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      free_all();
#endif
      // The block at the top went to the cache, not into the top: the next block of its size.
      reused = ba_malloc(40);
      ba_free(reused);
      for (void *p : below) ba_heap_free(ba_default_heap(), p);
      ba_thread_cache_flush();
   });
   while (stage != 1) std::this_thread::yield();
   bool in_time;
   {
      lock_holder holder;
      stage = 2;
      const auto start = clock_type::now();
      while (stage != 3 && clock_type::now() - start < std::chrono::seconds(10))
         std::this_thread::sleep_for(std::chrono::milliseconds(1));
      in_time = stage == 3;
      holder.release();   // a worker that waits for the lock goes on now
   }
   while (stage != 3) std::this_thread::yield();
   stage = 4;
   worker.join();
   BOOST_TEST(in_time, "the worker's calls waited for the lock for 10 s");
   BOOST_TEST(!failed, what);
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   BOOST_TEST(reused == at_top, "the block at the top freed in a process with threads went to the thread's cache");
#endif
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

BOOST_AUTO_TEST_CASE(with_an_idle_second_thread_a_small_growing_block_comes_from_the_cache_a_large_one_grows_in_place)
{
   ba_thread_cache_flush();
   std::atomic<bool> stop{false};
   std::thread idle([&] {
      while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
   });
   // Small vectors: every growth takes a new block of the thread's cache (no lock, no growth in
   // place), as large as its chunk.
   unsigned small_in_place = 0, short_blocks = 0;
   for (int v = 0; v < 2000; ++v) {
      std::size_t received = 0;
      ba_command_ret r = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 4, 4, &received,
                                               nullptr);
      BOOST_REQUIRE(r.first);
      ba_command_ret g = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 16, 16,
                                               &received, r.first);
      BOOST_REQUIRE(g.first);
      if (g.second) ++small_in_place;
      else ba_free(r.first);
      if (received * sizeof(int) != ba_usable_size(g.first)) ++short_blocks;
      ba_free(g.first);
   }
   // Large ones (over the caches' 1032 bytes) still grow in place under the lock: the first
   // buffer is placed where it can grow (the top, or the designated victim, with room for four
   // times the block after it).
   unsigned large_in_place = 0;
   for (int v = 0; v < 200; ++v) {
      std::size_t received = 0;
      ba_command_ret r = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 1024, 1024,
                                               &received, nullptr);
      BOOST_REQUIRE(r.first);
      ba_command_ret g = ba_allocation_command(BA_ALLOCATE_NEW | BA_EXPAND_FWD, sizeof(int), 0, 2048, 2048,
                                               &received, r.first);
      BOOST_REQUIRE(g.first);
      if (g.second) ++large_in_place;
      else ba_free(r.first);
      ba_free(g.first);
   }
   stop = true;
   idle.join();
   BOOST_TEST(small_in_place == 0u, small_in_place << " small growths in place");
   BOOST_TEST(short_blocks == 0u, short_blocks << " blocks from the cache reported fewer objects than they hold");
   BOOST_TEST(large_in_place >= 190u, large_in_place << " of 200 large growths in place");
   ALLOCPLUS_CHECK_HEAP(ba_default_heap());
}

BOOST_AUTO_TEST_SUITE_END()
