// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The checking levels tell apart what they catch (doc/checked_builds.md). Built at level 1 and at
// level 2 (test/one_heap/tests.cmake). Each misuse runs in a child process:
// - the misuses a constant-time check finds (a double free, a pointer from outside the heap, an
//   overwritten header, a pool's node of two words or more freed twice, a pointer far from a
//   pool's blocks) stop the program at both levels;
// - the misuses only the expensive checks find (a node freed twice while it waits in a thread's
//   bin: a walk of the bin; a node of one word freed twice after another: the lookup of every
//   pointer in the pool's blocks, or the adaptive pools' byte per node; a pointer inside a node,
//   aligned as the nodes are) stop it at level 2 and run to their end unreported at level 1, so
//   that a check sorted into the wrong level fails here.
#define BOOST_TEST_MODULE one_heap_checked_levels
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/node_allocator.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>
#include <boost/allocplus/private_node_allocator.hpp>

#include "stopped_child.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if !BOOST_ALLOCPLUS_CHECKED
#  error "tests.cmake builds this file with BOOST_ALLOCPLUS_CHECKED set to 1 and to 2"
#endif

namespace {

#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
// The child ran its misuse to the end unreported (it leaves at once: what it broke is not used).
// (Under ASan level 1 already stops the double frees, which are poisoned nodes.)
[[maybe_unused]] void check_unreported(const child_outcome &out)
{
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exited);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.err.empty());
}
#endif

// Level 2 must stop the child with `what`; level 1 must let it run unreported.
template <class Body>
void check_only_expensive_level_catches(Body body, const char *what, const void *address)
{
   const child_outcome out = run_in_child([&] {
      body();
      std::_Exit(0);
   });
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   check_stopped(out, what, address);
#else
   (void)what;
   (void)address;
   check_unreported(out);
#endif
}

// Overwrites the size word of the header before mem (a buffer overrun from the block before), as
// a program would: the header is memory the heap keeps poisoned under ASan.
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
__attribute__((no_sanitize_address))
#endif
void overwrite_header(void *mem)
{
   std::uintptr_t *head = static_cast<std::uintptr_t *>(mem) - 1;
   *static_cast<volatile std::uintptr_t *>(head) = 0;
}

template <class T>
using pool_allocator = boost::allocplus::private_node_allocator<T>;

struct two_words {
   std::uintptr_t a, b;
};

} // namespace

BOOST_AUTO_TEST_CASE(both_levels_stop_a_double_free)
{
   void *p = ba_malloc(64);
   const child_outcome out = run_in_child([p] { ba_free(p); ba_free(p); });
   check_stopped(out, "double free", p);
   ba_free(p);
}

BOOST_AUTO_TEST_CASE(both_levels_stop_a_pointer_from_outside_the_heap)
{
   static std::uintptr_t outside[8];   // static storage, far from the heap's segments
   const child_outcome out = run_in_child([] { ba_free(&outside[4]); });
   check_stopped(out, "free of a pointer", &outside[4]);
}

BOOST_AUTO_TEST_CASE(both_levels_stop_a_free_after_its_header_was_overwritten)
{
   void *p = ba_malloc(200);
   void *guard = ba_malloc(16);
   const child_outcome out = run_in_child([p] {
      overwrite_header(p);
      ba_free(p);
   });
   // (Level 2 reads the cleared in-use bit as a double free; level 1, as no in-use block.)
   check_stopped(out, "allocplus core heap ", p);
   ba_free(p);
   ba_free(guard);
}

BOOST_AUTO_TEST_CASE(both_levels_stop_a_marked_node_freed_twice)
{
   pool_allocator<two_words> a;
   two_words *p = a.allocate(1), *q = a.allocate(1);
   const child_outcome out = run_in_child([&] {
      a.deallocate(p, 1);
      a.deallocate(q, 1);
      a.deallocate(p, 1);
   });
   check_stopped(out, "ba::private_node_allocator: double free of a node", p);
   a.deallocate(p, 1);
   a.deallocate(q, 1);
}

BOOST_AUTO_TEST_CASE(both_levels_stop_a_pointer_the_pool_never_handed_out)
{
   pool_allocator<two_words> a;
   two_words *p = a.allocate(1);
   static two_words other{};
   check_stopped(run_in_child([&] { a.deallocate(&other, 1); }),
                 "ba::private_node_allocator: a pointer that did not come from this pool is freed", &other);
   a.deallocate(p, 1);
}

// A node of one word has no room for the pool's mark, and p is not the node freed last: only
// level 2 finds it (the node pools: the lookup of every pointer in the pool's blocks; the
// adaptive pools: their byte per node, a cache line more a free at level 1). (keep stays in use:
// in a pool with none in use, any free is reported at every level.)
template <class Allocator>
void check_one_word_node_freed_twice_after_another(const char *what)
{
   Allocator a;
   std::uint64_t *keep = a.allocate(1), *p = a.allocate(1), *q = a.allocate(1);
   const auto misuse = [&] {
      a.deallocate(p, 1);
      a.deallocate(q, 1);
      a.deallocate(p, 1);
   };
#if defined(BOOST_ALLOCPLUS_CORE_ASAN) && !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // Under ASan a node given back is looked at, at constant cost: a free node is poisoned.
   check_stopped(run_in_child(misuse), what, p);
#else
   check_only_expensive_level_catches(misuse, what, p);
#endif
   a.deallocate(p, 1);
   a.deallocate(q, 1);
   a.deallocate(keep, 1);
}

BOOST_AUTO_TEST_CASE(only_level_2_stops_a_one_word_node_freed_twice_after_another)
{
   check_one_word_node_freed_twice_after_another<pool_allocator<std::uint64_t>>(
      "ba::private_node_allocator: double free of a node");
}

BOOST_AUTO_TEST_CASE(only_level_2_stops_a_one_word_adaptive_node_freed_twice_after_another)
{
   check_one_word_node_freed_twice_after_another<boost::allocplus::private_adaptive_pool<std::uint64_t>>(
      "ba::private_adaptive_pool: double free of a node");
}

BOOST_AUTO_TEST_CASE(only_level_2_stops_a_pointer_inside_an_adaptive_node)
{
   boost::allocplus::private_adaptive_pool<two_words> a;
   // Two neighbours in use (a new pool hands its nodes out in address order): the words a free
   // writes through `inside` are theirs, not a free node's (which ASan would see poisoned).
   two_words *p = a.allocate(1), *next = a.allocate(1);
   BOOST_TEST_REQUIRE(next == p + 1);
   // Aligned as the nodes are, inside the pool's blocks and its block's header the pool's: what
   // tells it from a node is where it lies among the nodes (level 2's lookup of every pointer in
   // the pool's blocks).
   auto *inside = reinterpret_cast<two_words *>(reinterpret_cast<char *>(p) + sizeof(std::uintptr_t));
   check_only_expensive_level_catches([&] { a.deallocate(inside, 1); },
                                      "ba::private_adaptive_pool: a pointer that did not come from this pool is freed", inside);
   a.deallocate(p, 1);
   a.deallocate(next, 1);
}

BOOST_AUTO_TEST_CASE(only_level_2_stops_a_node_freed_twice_while_it_waits_in_a_threads_bin)
{
   boost::allocplus::node_allocator<std::uint64_t> a;
   std::uint64_t *p = a.allocate(1), *q = a.allocate(1);
   const auto misuse = [&] {
      a.deallocate(p, 1);
      a.deallocate(q, 1);
      a.deallocate(p, 1);   // not the node freed last: only a walk of the bin finds it
      // The bin now hands p out twice (what level 2 prevents); taken out, nothing is left to report.
      (void)a.allocate(1);
      (void)a.allocate(1);
      (void)a.allocate(1);
   };
#if defined(BOOST_ALLOCPLUS_CORE_ASAN) && !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // Under ASan a node going into a thread's bin is looked at, at constant cost: a free node is
   // poisoned, whatever its size (a node of one word has no room for the pool's mark).
   check_stopped(run_in_child(misuse), "ba::node_allocator: double free of a node", p);
#else
   check_only_expensive_level_catches(misuse, "ba::node_allocator: double free of a node (held in a thread's bin)", p);
#endif
   a.deallocate(p, 1);
   a.deallocate(q, 1);
}
