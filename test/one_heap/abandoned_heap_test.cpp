// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A heap over a buffer of yours may be abandoned without ba_destroy_heap (the buffer then simply
// goes away: a stack frame returns, the memory is reused): the core keeps no pointer into it, so
// heaps created or destroyed later and fork never touch that memory again.
#define BOOST_TEST_MODULE one_heap_abandoned_heap
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)   // GCC's and Clang's ASan alike (dlmalloc.h)
#  include <sanitizer/asan_interface.h>
#endif

namespace {

alignas(64) unsigned char buffer[64 * 1024];
constexpr unsigned char reused = 0xA5;

// What the program does with the buffer once the heap is abandoned: it is memory like any other.
void reuse_buffer()
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   __asan_unpoison_memory_region(buffer, sizeof buffer);   // as the end of a stack frame would
#endif
   std::memset(buffer, reused, sizeof buffer);
}

bool buffer_untouched()
{
   return std::all_of(buffer, buffer + sizeof buffer, [](unsigned char c) { return c == reused; });
}

} // namespace

BOOST_AUTO_TEST_CASE(an_abandoned_heap_over_a_buffer_is_never_written_again)
{
   for (int locked = 0; locked < 2; ++locked) {
      BOOST_TEST_INFO("locked " << locked);
      ba_heap *h = ba_create_heap_over(buffer, sizeof buffer, locked);
      BOOST_REQUIRE(h);
      BOOST_REQUIRE(ba_heap_malloc(h, 100));
      reuse_buffer();   // abandoned: no ba_destroy_heap

      ba_heap *created = ba_create_heap(0, 1);
      alignas(64) static unsigned char other[16 * 1024];
      ba_heap *over = ba_create_heap_over(other, sizeof other, 1);
      BOOST_REQUIRE(created);
      BOOST_REQUIRE(over);
      BOOST_TEST(buffer_untouched());
      ba_destroy_heap(over);
      ba_destroy_heap(created);
      BOOST_TEST(buffer_untouched());
   }
}

BOOST_AUTO_TEST_CASE(fork_after_a_heap_over_a_buffer_was_abandoned)
{
   // In a child, so that a crash in the fork handlers (which also run in the parent) is reported
   // as this test's failure.
   child_outcome out = run_in_child([] {
      ba_heap *h = ba_create_heap_over(buffer, sizeof buffer, 1);
      if (!h || !ba_heap_malloc(h, 100)) std::_Exit(3);
      reuse_buffer();
      // Another thread, so that the fork handlers take the locks of the heaps they know.
      std::thread([] { ba_free(ba_malloc(10)); }).join();
      std::thread idle([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
      child_outcome inner = run_in_child([] {
         if (!ba_check(nullptr)) std::_Exit(4);
         ba_free(ba_malloc(100));
      }, 20);
      idle.join();
      if (inner.exit_code != 0) std::_Exit(5);
      if (!buffer_untouched()) std::_Exit(6);
   }, 30);
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(!out.timed_out);
   BOOST_TEST(out.exit_code == 0);
}
