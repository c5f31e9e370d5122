// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The kinds of lock a heap has, under threads (this test runs under ThreadSanitizer): the
// process-shared lock between the threads of one process, the plain lock of a created heap and
// of the default heap, and a heap without a lock handed from thread to thread; and that a thread
// waiting for a plain lock held long sleeps rather than spins, and is woken.
#define BOOST_TEST_MODULE core_lock
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "test_scale.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// Four threads allocate, fill, check and free blocks of h. Returns: whether every block kept its
// owner's pattern.
bool churn_from_threads(ba_heap *h, int rounds)
{
   std::vector<std::thread> threads;
   std::atomic<bool> ok{true};
   for (int t = 0; t < 4; ++t)
      threads.emplace_back([h, t, rounds, &ok] {
         unsigned char *live[32] = {};
         for (int i = 0; i < rounds; ++i) {
            int k = (i * 7 + t) % 32;
            std::size_t n = 16 + static_cast<std::size_t>((i * 131 + t) % 700);
            if (live[k]) {
               if (live[k][0] != t || live[k][15] != t) ok = false;
               ba_heap_free(h, live[k]);
            }
            live[k] = static_cast<unsigned char *>(ba_heap_malloc(h, n));
            if (!live[k]) { ok = false; break; }
            std::memset(live[k], t, 16);
         }
         for (unsigned char *p : live) ba_heap_free(h, p);
      });
   for (std::thread &t : threads) t.join();
   return ok;
}

// Seconds of CPU time the calling thread has used.
double thread_cpu_seconds()
{
   timespec t;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
   return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
   return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

// A waiter that spun and yielded would use a whole core (nothing else runs on it); one that sleeps
// on the futex uses its short spin and two system calls. The test holds the lock with the core's
// own functions, as the heap's slow paths do around a long operation (a trim, a system call).
BOOST_AUTO_TEST_CASE(waiter_for_a_lock_held_long_sleeps)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   std::atomic<bool> locked{false};
   double waited = 0, cpu = 0;
   std::thread waiter([&] {
      while (!locked) std::this_thread::yield();
      auto start = std::chrono::steady_clock::now();
      double cpu_start = thread_cpu_seconds();
      ba_heap_free(h, ba_heap_malloc(h, 64));
      cpu = thread_cpu_seconds() - cpu_start;
      waited = seconds_since(start);
   });
   // The waiter exists now, so the lock is not skipped as in a single-threaded process.
   boost::allocplus::ba_detail_lock(h);
   locked = true;
   std::this_thread::sleep_for(std::chrono::milliseconds(200));
   boost::allocplus::ba_detail_unlock(h);
   waiter.join();
   BOOST_TEST_MESSAGE("waited " << waited << " s, using " << cpu << " s of CPU");
   BOOST_TEST(waited >= 0.15);          // it did wait for the holder
   BOOST_TEST(cpu < 0.1 * waited);      // and slept meanwhile (the spinlock it replaced: 28% to 100%)
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_destroy_heap(h);
}

// Eight threads churn one heap while the main thread takes its lock for a millisecond at a time,
// a hundred times: they go to sleep on the lock and must all be woken each time (a lost wake-up
// leaves a thread asleep), and the heap's blocks stay their owners' (the lock serializes).
BOOST_AUTO_TEST_CASE(sleepers_are_all_woken_and_serialized)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   std::atomic<bool> stop{false}, ok{true};
   std::atomic<int> finished{0};
   std::vector<std::thread> threads;
   for (int t = 0; t < 8; ++t)
      threads.emplace_back([h, t, &stop, &finished, &ok] {
         unsigned char *live[16] = {};
         for (int i = 0; !stop; ++i) {
            int k = (i * 5 + t) % 16;
            if (live[k]) {
               if (live[k][0] != t || live[k][31] != t) ok = false;
               ba_heap_free(h, live[k]);
            }
            live[k] = static_cast<unsigned char *>(ba_heap_malloc(h, 32 + static_cast<std::size_t>((i * 37 + t) % 900)));
            if (!live[k]) { ok = false; break; }
            std::memset(live[k], t, 32);
         }
         for (unsigned char *p : live) ba_heap_free(h, p);
         ++finished;
      });
   for (int hold = 0; hold < 100; ++hold) {
      boost::allocplus::ba_detail_lock(h);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      boost::allocplus::ba_detail_unlock(h);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
   }
   stop = true;
   auto start = std::chrono::steady_clock::now();
   while (finished < 8 && seconds_since(start) < 60) std::this_thread::sleep_for(std::chrono::milliseconds(1));
   if (finished < 8) {
      for (std::thread &t : threads) t.detach();   // asleep for ever: the heap stays theirs
      BOOST_FAIL("threads left asleep on the heap's lock for 60 s");
   }
   for (std::thread &t : threads) t.join();
   BOOST_TEST(ok);
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   BOOST_TEST(s.in_use_chunks == 0u);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_CASE(process_shared_lock_serializes_threads)
{
   static unsigned char buffer[4 << 20];
   ba_heap *h = ba_create_heap_over(buffer, sizeof buffer, BA_HEAP_PROCESS_SHARED);
   BOOST_REQUIRE(h);
   BOOST_TEST(churn_from_threads(h, static_cast<int>(allocplus_test::scaled(20000, 500))));
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   BOOST_TEST(s.in_use_chunks == 0u);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_CASE(plain_lock_serializes_threads)
{
   ba_heap *h = ba_create_heap(0, 1);
   BOOST_REQUIRE(h);
   BOOST_TEST(churn_from_threads(h, static_cast<int>(allocplus_test::scaled(20000, 500))));
   BOOST_TEST(churn_from_threads(ba_default_heap(), static_cast<int>(allocplus_test::scaled(20000, 500))));
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   BOOST_TEST(ba_check(nullptr) == 1);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_CASE(heap_without_a_lock_handed_between_threads)
{
   ba_heap *h = ba_create_heap(0, 0);
   BOOST_REQUIRE(h);
   std::mutex m;   // the owner serializes
   std::vector<std::thread> threads;
   for (int t = 0; t < 4; ++t)
      threads.emplace_back([h, &m] {
         for (int i = 0; i < 2000; ++i) {
            std::lock_guard<std::mutex> g(m);
            ba_heap_free(h, ba_heap_malloc(h, 32 + i % 500));
         }
      });
   for (std::thread &t : threads) t.join();
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_destroy_heap(h);
}
