// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A heap over memory shared by processes (MAP_SHARED, shm_open): created with
// BA_HEAP_PROCESS_SHARED its lock works across processes and is never skipped, so a parent and a
// child that allocate and free at the same time leave it sound; created without it over such
// memory it is refused, since its lock would be skipped in single-threaded processes.
#define BOOST_TEST_MODULE one_heap_shared_heap
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

#include <csignal>

#include <sys/mman.h>
#include <sys/wait.h>

#if !defined(BA_HEAP_PROCESS_SHARED)
#  define BA_HEAP_PROCESS_SHARED 1   // (before the flag existed: an ordinary lock)
#endif

namespace {

constexpr std::size_t region_bytes = std::size_t(8) << 20;

struct shared_region {
   void *base = mmap(nullptr, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
   ~shared_region() { if (base != MAP_FAILED) munmap(base, region_bytes); }
};

// Allocates and frees blocks of varied sizes, each filled with a pattern of its owner that is
// checked before it is freed: a block handed to two processes at once shows as a broken pattern.
// Returns: 0, or the step at which something went wrong.
int churn(ba_heap *h, unsigned seed, int steps)
{
   constexpr int slots = 64;
   unsigned char *live[slots] = {};
   std::size_t sizes[slots] = {};
   unsigned x = seed;
   for (int step = 1; step <= steps; ++step) {
      x = x * 1103515245u + 12345u;
      int i = static_cast<int>((x >> 8) % slots);
      if (live[i]) {
         for (std::size_t k = 0; k < sizes[i]; ++k)
            if (live[i][k] != static_cast<unsigned char>(seed + i)) return step;
         ba_heap_free(h, live[i]);
         live[i] = nullptr;
      } else {
         sizes[i] = 16 + (x >> 16) % 3000;
         live[i] = static_cast<unsigned char *>(ba_heap_malloc(h, sizes[i]));
         if (!live[i]) return step;
         std::memset(live[i], static_cast<unsigned char>(seed + i), sizes[i]);
      }
   }
   for (int i = 0; i < slots; ++i) ba_heap_free(h, live[i]);
   return 0;
}

} // namespace

BOOST_AUTO_TEST_CASE(parent_and_child_allocate_at_once_from_a_process_shared_heap)
{
   shared_region region;
   BOOST_REQUIRE(region.base != MAP_FAILED);
   ba_heap *h = ba_create_heap_over(region.base, region_bytes, BA_HEAP_PROCESS_SHARED);
   BOOST_REQUIRE(h);
   // Two single-threaded processes at once: the lock must not be skipped in either.
   pid_t pid = fork();
   BOOST_REQUIRE(pid >= 0);
   if (pid == 0) _exit(churn(h, 7, 300000) ? 3 : 0);
   int failed = churn(h, 99, 300000);
   int status = 0;
   waitpid(pid, &status, 0);
   BOOST_TEST(failed == 0);
   BOOST_TEST(WIFEXITED(status));
   BOOST_TEST(WEXITSTATUS(status) == 0);
   ba_check_report report{};
   BOOST_TEST(ba_heap_check(h, &report) == 1, (report.what ? report.what : ""));
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   BOOST_TEST(s.in_use_chunks == 0u);
   ba_destroy_heap(h);
}

BOOST_AUTO_TEST_CASE(a_heap_over_shared_memory_needs_the_process_shared_flag)
{
   shared_region region;
   BOOST_REQUIRE(region.base != MAP_FAILED);
   for (int locked = 0; locked < 2; ++locked) {
      errno = 0;
      ba_heap *h = ba_create_heap_over(region.base, region_bytes, locked);
      BOOST_TEST(!h);
      BOOST_TEST(errno == EINVAL);
      if (h) ba_destroy_heap(h);
   }
   // Private memory is accepted with an ordinary lock.
   char *private_part = static_cast<char *>(mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE,
                                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
   BOOST_REQUIRE(private_part != MAP_FAILED);
   ba_heap *h = ba_create_heap_over(private_part, 1 << 20, 1);
   BOOST_TEST(h);
   if (h) ba_destroy_heap(h);
   munmap(private_part, 1 << 20);
}

// A process killed while it holds the lock (in the middle of a call) is reported to the
// diagnostic handler by the next process that waits for the lock, instead of a hang. The kill
// lands at a random point, inside the lock or not: attempts go on until one lands inside.
BOOST_AUTO_TEST_CASE(a_process_that_ends_holding_the_lock_is_reported)
{
   child_outcome out = run_in_child([] {
      ba_set_diagnostic_handler([](const char *message, const void *, const ba_heap *) {
         std::_Exit(std::strstr(message, "held by a process that ended") ? 0 : 7);
      });
      for (int attempt = 0; attempt < 100; ++attempt) {
         shared_region region;
         if (region.base == MAP_FAILED) std::_Exit(3);
         ba_heap *h = ba_create_heap_over(region.base, region_bytes, BA_HEAP_PROCESS_SHARED);
         if (!h) std::_Exit(4);
         pid_t pid = fork();
         if (pid == 0)   // zeroing 1 MiB under the lock: most kills land inside it
            for (;;) ba_heap_free(h, ba_heap_calloc(h, 1, 1 << 20));
         usleep(2000 + attempt % 7 * 300);
         kill(pid, SIGKILL);
         // Not reaped yet: a zombie has ended too.
         ba_heap_free(h, ba_heap_malloc(h, 64));   // reported here if the child held the lock
         waitpid(pid, nullptr, 0);
         ba_destroy_heap(h);   // before the region goes (under ASan: unpoisons it)
      }
      std::_Exit(8);   // never killed inside the lock in 100 attempts
   }, 120);
   BOOST_TEST(!out.timed_out);
   BOOST_TEST(out.exit_code == 0, "exit " << out.exit_code << ", signal " << out.signal << ", stderr: " << out.err);
}
