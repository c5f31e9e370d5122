// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Under an address-space limit (ulimit -v, RLIMIT_AS) the heaps still start and grow: a
// reservation the system refuses is retried smaller, down to what the request needs. Each case
// runs in a child process, whose limit is its address space at the start plus a margin smaller
// than the default reservations (1 GiB for the default heap, 64 MiB for a created heap, 64 MiB
// after a huge block). Not under sanitizers, whose runtimes need terabytes of address space.
#define BOOST_TEST_MODULE core_address_space
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "../one_heap/child_process.hpp"

#include <cstdio>
#include <cstring>

#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define ALLOCPLUS_TEST_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define ALLOCPLUS_TEST_SANITIZED 1
#  endif
#endif

namespace {

constexpr std::size_t mib = std::size_t(1) << 20;

// The address space this process maps now (the first field of /proc/self/statm, in pages).
std::size_t mapped_bytes()
{
   unsigned long pages = 0;
   if (std::FILE *f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
      std::fclose(f);
   }
   return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Limits this process to what it maps now plus `margin` bytes.
void limit_address_space(std::size_t margin)
{
   rlimit r;
   r.rlim_cur = r.rlim_max = mapped_bytes() + margin;
   if (setrlimit(RLIMIT_AS, &r) != 0) std::_Exit(2);
}

template <class Body>
void expect_child_succeeds(Body body)
{
#if defined(ALLOCPLUS_TEST_SANITIZED)
   (void)body;
   BOOST_TEST_MESSAGE("skipped under a sanitizer");
#else
   child_outcome out = run_in_child(body, 60);
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
#endif
}

} // namespace

BOOST_AUTO_TEST_CASE(default_heap_starts_under_a_600_mib_limit)
{
   expect_child_succeeds([] {
      limit_address_space(600 * mib);
      void *small = ba_malloc(16);
      if (!small) std::_Exit(3);
      // Grows within what it could reserve, and a new segment when that is full.
      void *blocks[40];
      for (void *&b : blocks)
         if (!(b = ba_malloc(200 * 1024))) std::_Exit(4);
      void *big = ba_malloc(100 * mib);
      if (!big) std::_Exit(5);
      std::memset(big, 1, 100 * mib);
      ba_free(big);
      for (void *b : blocks) ba_free(b);
      ba_free(small);
      if (!ba_check(nullptr)) std::_Exit(6);
   });
}

BOOST_AUTO_TEST_CASE(created_heap_starts_under_a_limit_below_its_segment_size)
{
   expect_child_succeeds([] {
      ba_free(ba_malloc(16));   // the default heap first, so that only the created heap is limited
      limit_address_space(40 * mib);
      ba_heap *h = ba_create_heap(0, 1);
      if (!h) std::_Exit(3);
      void *p = ba_heap_malloc(h, 1000);
      if (!p) std::_Exit(4);
      ba_heap_free(h, p);
      // A second segment, again smaller than the default.
      ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, ~std::size_t(0));
      void *q = ba_heap_malloc(h, 20 * mib);
      if (!q) std::_Exit(5);
      std::memset(q, 1, 20 * mib);
      ba_heap_free(h, q);
      if (!ba_heap_check(h, nullptr)) std::_Exit(6);
      ba_destroy_heap(h);
   });
}

BOOST_AUTO_TEST_CASE(huge_block_keeps_some_room_to_grow_under_a_limit)
{
   expect_child_succeeds([] {
      ba_heap *h = ba_create_heap(0, 1);
      if (!h) std::_Exit(3);
      limit_address_space(48 * mib);
      // 8 MiB asked, 64 MiB of room to grow by default: the room shrinks to what fits, and the
      // block still expands in place into it when no more address space can be had at all.
      char *p = static_cast<char *>(ba_heap_malloc(h, 8 * mib));
      if (!p) std::_Exit(4);
      limit_address_space(0);
      std::size_t received = 0;
      ba_command_ret r = ba_heap_allocation_command(h, BA_EXPAND_FWD, 1, 1, 12 * mib, 12 * mib,
                                                    &received, p);
      if (r.first != p || !r.second || received < 12 * mib) std::_Exit(5);
      std::memset(p, 1, received);
      ba_heap_free(h, p);
      if (!ba_heap_check(h, nullptr)) std::_Exit(6);
      ba_destroy_heap(h);
   });
}
