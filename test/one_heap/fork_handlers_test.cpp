// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Other libraries' pthread_atfork handlers may use the heaps whatever the order of registration:
// a handler registered before the core's (here by a constructor that runs before anything uses
// the core) runs its prepare after the core's, and its parent and child handlers before the
// core's, all while the core holds the heaps' locks for the fork. The thread that forks may use
// the heaps then, allocate, free, create and destroy heaps, in a program with other threads and
// in a single-threaded one. Each case runs in a child process, so that a deadlock is a failure
// (the child is killed) rather than a hung test.
#define BOOST_TEST_MODULE one_heap_fork_handlers
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <atomic>
#include <cstring>
#include <thread>

#include <pthread.h>

namespace {

enum handler_action { do_nothing, allocate, create_heap };
std::atomic<int> action{do_nothing};
std::atomic<int> handler_runs{0};

// What each of the early handlers does, in the parent and in the child.
void use_the_heaps()
{
   switch (action.load()) {
   case allocate: {
      void *p = ba_malloc(100);
      if (!p) std::_Exit(10);
      std::memset(p, 1, 100);
      void *q = ba_realloc(p, 5000);
      if (!q) std::_Exit(11);
      ba_free(q);
      ++handler_runs;
      break;
   }
   case create_heap: {
      ba_heap *h = ba_create_heap(0, 1);
      if (!h) std::_Exit(12);
      void *p = ba_heap_malloc(h, 100);
      if (!p) std::_Exit(13);
      ba_heap_free(h, p);
      ba_destroy_heap(h);
      ba_free(ba_malloc(10));
      ++handler_runs;
      break;
   }
   default:
      break;
   }
}

// Registered before main, before the core is first used (which is when it registers its own).
__attribute__((constructor(101))) void register_early_handlers()
{
   pthread_atfork(use_the_heaps, use_the_heaps, use_the_heaps);
}

// Forks (from a child of the test, see above) with `what` in the early handlers, `threads` other
// threads allocating meanwhile; the grandchild allocates and checks the heap.
void fork_with_handlers(handler_action what, int threads)
{
   child_outcome out = run_in_child([what, threads] {
      ba_free(ba_malloc(1));   // the core registers its fork handlers now, after the early ones
      std::atomic<bool> stop{false};
      std::thread workers[2];
      for (int t = 0; t < threads; ++t)
         workers[t] = std::thread([&stop] {
            while (!stop.load(std::memory_order_relaxed)) ba_free(ba_malloc(64));
         });
      action = what;
      child_outcome inner = run_in_child([] {
         if (handler_runs.load() != 2) std::_Exit(20);   // prepare, then child
         ba_free(ba_malloc(1000));
         if (!ba_check(nullptr)) std::_Exit(21);
      }, 20);
      action = do_nothing;
      stop = true;
      for (int t = 0; t < threads; ++t) workers[t].join();
      if (inner.timed_out) std::_Exit(22);
      if (inner.exit_code != 0) std::_Exit(30 + inner.exit_code % 64);
      if (handler_runs.load() != 2) std::_Exit(23);     // prepare, then parent
      if (!ba_check(nullptr)) std::_Exit(24);
   }, 30);
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(!out.timed_out);
   BOOST_TEST(out.exit_code == 0);
}

} // namespace

BOOST_AUTO_TEST_CASE(early_handler_allocates_during_fork_with_other_threads)
{
   fork_with_handlers(allocate, 2);
}

BOOST_AUTO_TEST_CASE(early_handler_allocates_during_fork_single_threaded)
{
   fork_with_handlers(allocate, 0);
}

BOOST_AUTO_TEST_CASE(early_handler_creates_a_heap_during_fork_single_threaded)
{
   fork_with_handlers(create_heap, 0);
}

BOOST_AUTO_TEST_CASE(early_handler_creates_a_heap_during_fork_with_other_threads)
{
   fork_with_handlers(create_heap, 2);
}
