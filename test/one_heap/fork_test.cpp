// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// fork while other threads allocate: the child must find every heap unlocked and sound
// (pthread_atfork handlers), where without them it would deadlock on a lock held by a thread
// that does not exist in it.
#define BOOST_TEST_MODULE one_heap_fork
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_CASE(fork_in_a_multithreaded_program_leaves_heaps_usable)
{
   ba_heap *shared = ba_create_heap(0, 1);
   std::atomic<bool> stop{false};
   std::vector<std::thread> workers;
   for (int t = 0; t < 4; ++t) {
      workers.emplace_back([&stop, shared, t] {
         std::vector<void *> mine;
         for (unsigned i = 0; !stop.load(std::memory_order_relaxed); ++i) {
            ba_heap *h = (i + t) % 2 ? shared : ba_default_heap();
            void *p = ba_heap_malloc(h, 16 + (i * 37) % 3000);
            std::memset(p, t, 16);
            ba_heap_free(h, p);
            if (i % 64 == 0) {
               void *q = ba_realloc(nullptr, 100);
               q = ba_realloc(q, 20000);
               ba_free(q);
            }
         }
      });
   }
   for (int round = 0; round < 40; ++round) {
      child_outcome out = run_in_child([shared] {
         for (int i = 0; i < 1000; ++i) {
            void *a = ba_malloc(64 + i), *b = ba_heap_malloc(shared, 64 + i);
            if (!a || !b) std::_Exit(3);
            ba_free(a);
            ba_heap_free(shared, b);
         }
#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
         // A thread in the child: locks are taken for real from here on. (Not under ASan: GCC 12's
         // libasan does not guard its own allocator across fork, and creating a thread allocates
         // there, so the child can hang on a lock another parent thread held.)
         std::thread([shared] { ba_heap_free(shared, ba_heap_malloc(shared, 10)); }).join();
#endif
         if (!ba_check(nullptr) || !ba_heap_check(shared, nullptr)) std::_Exit(4);
      }, 30);
      BOOST_TEST_INFO("round " << round << ", child stderr: " << out.err);
      BOOST_TEST(!out.timed_out);
      BOOST_TEST(out.exit_code == 0);
   }
   stop = true;
   for (std::thread &w : workers) w.join();
   BOOST_TEST(ba_check(nullptr) == 1);
   BOOST_TEST(ba_heap_check(shared, nullptr) == 1);
   ba_destroy_heap(shared);
}
