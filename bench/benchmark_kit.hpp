// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// What every benchmark program of bench/ shares: registration under the naming convention, the
// `time_per_op` counter the runner compares, a fixed-seed generator, page touching and memory
// footprint readings. See bench/README.md.
#ifndef BOOST_ALLOCPLUS_BENCH_BENCHMARK_KIT_HPP
#define BOOST_ALLOCPLUS_BENCH_BENCHMARK_KIT_HPP

#include <benchmark/benchmark.h>

#include <dlfcn.h>
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace ba_bench {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;
constexpr std::size_t kPage = 4096;

//! Registers `fn` as the benchmark `name`, which must be <table>/<row>/<allocator>: allocators
//! whose names start with `ba_` are ours; `glibc_malloc` (plain malloc/free) and `std_allocator`
//! are the baselines bench/run.py also runs under LD_PRELOAD of the peer mallocs. Real time is
//! measured (the runner compares wall-clock time; Google Benchmark then appends "/real_time" to
//! the name, which the runner strips).
template <class F>
benchmark::internal::Benchmark *register_benchmark(const std::string &name, F &&fn)
{
   return benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(fn))->UseRealTime();
}

//! The main of a benchmark program, after its benchmarks are registered.
inline int run_benchmarks(int argc, char **argv)
{
   benchmark::Initialize(&argc, argv);
   if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
   benchmark::RunSpecifiedBenchmarks();
   benchmark::Shutdown();
   return 0;
}

//! Sets the counter `time_per_op` of a benchmark that times whole iterations: seconds of real
//! time per operation (the table's label says what one operation is). It is a rate (operations
//! per second) inverted; Google Benchmark divides rates by the measured time, which is real time
//! because register_benchmark asks for it. The console shows it as e.g. "18.2ns".
inline void set_time_per_op(benchmark::State &state, double ops_per_iteration)
{
   state.counters["time_per_op"] = benchmark::Counter(ops_per_iteration,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

//! Sets `time_per_op` of a benchmark that times only part of each iteration itself (with
//! stopwatch_clock): `timed_seconds` is the sum over all iterations. Google Benchmark still
//! chooses the number of iterations from the real time of whole iterations; manual time
//! (UseManualTime) would let an untimed part that is slow next to a fast timed part run for
//! minutes.
inline void set_timed_part_per_op(benchmark::State &state, double timed_seconds,
   double ops_per_iteration)
{
   state.counters["time_per_op"] = benchmark::Counter(timed_seconds / ops_per_iteration,
      benchmark::Counter::kAvgIterations);
}

using stopwatch_clock = std::chrono::steady_clock;

//! Seconds since t0 (a reading costs ~20 ns through the vDSO: time parts of microseconds or more).
inline double seconds_since(stopwatch_clock::time_point t0)
{
   return std::chrono::duration<double>(stopwatch_clock::now() - t0).count();
}

//! A stateless allocator whose memory comes from Source's static functions: take(count, size)
//! returns room for count objects of size bytes, give(p, count, size) takes it back. For the
//! bounds some tables show beside the allocators (what any allocator, or any pool, could do at
//! best there), which are not allocators to use.
template <class T, class Source>
struct static_source_allocator {
   using value_type = T;
   static_source_allocator() = default;
   template <class U>
   static_source_allocator(const static_source_allocator<U, Source> &) noexcept
   {
   }
   T *allocate(std::size_t n) { return static_cast<T *>(Source::take(n, sizeof(T))); }
   void deallocate(T *p, std::size_t n) noexcept { Source::give(p, n, sizeof(T)); }
   template <class U>
   bool operator==(const static_source_allocator<U, Source> &) const noexcept
   {
      return true;
   }
   template <class U>
   bool operator!=(const static_source_allocator<U, Source> &) const noexcept
   {
      return false;
   }
};

//! A fixed-seed generator (splitmix64), so every allocator and every standard library sees the
//! same sizes and orders; std::uniform_int_distribution differs between libstdc++ and libc++.
class fixed_seed_rng {
public:
   explicit fixed_seed_rng(std::uint64_t seed) : state_(seed) {}
   std::uint64_t next()
   {
      std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
   }
   //! Uniform in [lo, hi] (the modulo bias is irrelevant here).
   std::size_t between(std::size_t lo, std::size_t hi)
   {
      return lo + static_cast<std::size_t>(next() % (hi - lo + 1));
   }

private:
   std::uint64_t state_;
};

//! Writes one byte per page of [from, to) of p, as a program filling a block would fault it in.
inline void touch_pages(void *p, std::size_t from, std::size_t to)
{
   unsigned char *bytes = static_cast<unsigned char *>(p);
   for (std::size_t i = from; i < to; i += kPage) bytes[i] = static_cast<unsigned char>(i);
   if (to > from) bytes[to - 1] = 1;
   benchmark::ClobberMemory();
}

//! True when `malloc` is glibc's own (not interposed by LD_PRELOAD), so mallinfo2 describes it.
inline bool malloc_is_glibc()
{
   Dl_info info;
   void *(*fn)(std::size_t) = &std::malloc;
   if (!dladdr(reinterpret_cast<void *>(fn), &info) || !info.dli_fname) return false;
   return std::strstr(info.dli_fname, "libc.so") != nullptr;
}

//! Bytes glibc malloc has from the system: main arena plus directly mapped blocks (0 where
//! mallinfo2, glibc 2.33, is missing).
inline std::size_t glibc_system_bytes()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
   struct mallinfo2 mi = mallinfo2();
   return mi.arena + mi.hblkhd;
#else
   return 0;
#endif
}

//! A field of /proc/self/status in bytes (VmRSS, VmHWM), or 0 when unavailable.
inline std::size_t proc_status_bytes(const char *field)
{
   std::FILE *f = std::fopen("/proc/self/status", "r");
   if (!f) return 0;
   char line[256];
   std::size_t len = std::strlen(field), kib = 0;
   while (std::fgets(line, sizeof line, f)) {
      if (std::strncmp(line, field, len) == 0 && line[len] == ':') {
         kib = std::strtoull(line + len + 1, nullptr, 10);
         break;
      }
   }
   std::fclose(f);
   return kib * kKiB;
}

//! The RSS when the benchmark `id` (any number unique in the program) started its first run in
//! this process; read VmHWM at the end for its peak. Google Benchmark calls a benchmark's
//! function several times (to choose the iteration count) and memory an allocator kept from an
//! earlier call must count as growth, so only the first call resets VmHWM (Linux 4.0 and later)
//! and takes the baseline.
inline std::size_t rss_at_benchmark_start(int id)
{
   static int current = -1;
   static std::size_t baseline = 0;
   if (current != id) {
      current = id;
      if (std::FILE *f = std::fopen("/proc/self/clear_refs", "w")) {
         std::fputs("5", f);
         std::fclose(f);
      }
      baseline = proc_status_bytes("VmRSS");
   }
   return baseline;
}

//! What else the process does while a benchmark is timed: nothing, keeps one more thread alive
//! (which makes every lock of the process a real one), or has a second thread at work on the
//! same allocator.
enum class company { none, idle_thread, second_worker };

//! The companies a threaded table runs with, and the suffix of each one's table name.
inline constexpr std::pair<company, const char *> companies[] = {
   {company::none, ""}, {company::idle_thread, "_idle_thread"}, {company::second_worker, "_two_threads"}};

//! A thread that exists and does nothing until the object dies.
class idle_thread {
public:
   idle_thread()
      : thread_([this] {
           std::unique_lock<std::mutex> lock(mutex_);
           wake_.wait(lock, [this] { return stop_; });
        })
   {
   }
   idle_thread(const idle_thread &) = delete;
   idle_thread &operator=(const idle_thread &) = delete;
   ~idle_thread()
   {
      {
         std::lock_guard<std::mutex> lock(mutex_);
         stop_ = true;
      }
      wake_.notify_one();
      thread_.join();
   }

private:
   std::mutex mutex_;
   std::condition_variable wake_;
   bool stop_ = false;
   std::thread thread_; // last: starts once the members it uses exist
};

//! A second thread at work while the object lives: it makes a Worker from `args` (in the thread,
//! so that the worker's own blocks are that thread's), and the constructor returns once it has
//! one; it then calls the worker's step() until the object dies, and destroys the worker there.
template <class Worker>
class busy_thread {
public:
   template <class... Args>
   explicit busy_thread(Args... args)
      : thread_([this, args...] {
           Worker worker(args...);
           started_.store(true, std::memory_order_release);
           while (!stop_.load(std::memory_order_relaxed)) worker.step();
        })
   {
      while (!started_.load(std::memory_order_acquire)) std::this_thread::yield();
   }
   busy_thread(const busy_thread &) = delete;
   busy_thread &operator=(const busy_thread &) = delete;
   ~busy_thread()
   {
      stop_.store(true, std::memory_order_relaxed);
      thread_.join();
   }

private:
   std::atomic<bool> started_{false};
   std::atomic<bool> stop_{false};
   std::thread thread_; // last: starts once the flags exist
};

} // namespace ba_bench

#endif
