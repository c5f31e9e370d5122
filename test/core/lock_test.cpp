// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The kinds of lock a heap has, under threads (this test runs under ThreadSanitizer): the
// process-shared lock between the threads of one process, the plain lock of a created heap and
// of the default heap, and a heap without a lock handed from thread to thread.
#define BOOST_TEST_MODULE core_lock
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "test_scale.hpp"

#include <atomic>
#include <cstring>
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

} // namespace

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
