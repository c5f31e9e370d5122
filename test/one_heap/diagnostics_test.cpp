// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Death tests: each misuse runs in a child process, which must stop with a message that names the
// heap, the misuse and the address. Built at each checking level (test/one_heap/tests.cmake):
// release (BOOST_ALLOCPLUS_CHECKED=0), the default checked level (1) and the expensive one (2).
// Levels 0 and 1 report what the core's constant-cost checks catch; the misuses only level 2
// finds (a pointer from elsewhere, which the constant-cost checks cannot tell from a block without
// reading memory the heap does not own) are tested at level 2 only.
#define BOOST_TEST_MODULE one_heap_diagnostics
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "stopped_child.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if !defined(BOOST_ALLOCPLUS_CHECKED)
#  error "tests.cmake builds this file with BOOST_ALLOCPLUS_CHECKED set to 0, 1 and 2"
#endif

namespace {

// The default handler's report: "allocplus core heap <heap>: <what> at <address>", then abort.
void check_report(const child_outcome &out, const char *what, const void *address)
{
   check_stopped(out, what, address);
   BOOST_TEST(out.err.find("allocplus core heap " + address_text(ba_default_heap())) != std::string::npos);
}

} // namespace

BOOST_AUTO_TEST_CASE(double_free_stops_with_a_message)
{
   void *p = ba_malloc(64);   // allocated before the fork: the same address in the child
   child_outcome out = run_in_child([p] { ba_free(p); ba_free(p); });
   check_report(out, "double free", p);
   ba_free(p);
}

namespace {

// The blocks of issue 17's first defect, in a heap of their own so that no block freed earlier
// serves the 100-byte request: 2000 bytes is above the quick lists' sizes, so a freed block
// coalesces at once; g keeps c from merging into the top.
struct merged_blocks {
   ba_heap *heap = ba_create_heap(0, 0);
   void *a = ba_heap_malloc(heap, 2000), *b = ba_heap_malloc(heap, 2000), *c = ba_heap_malloc(heap, 2000),
        *g = ba_heap_malloc(heap, 2000);
   ~merged_blocks() { ba_destroy_heap(heap); }

   // Frees a and c, then b, which merges with both into one free chunk; a new 100-byte block is
   // cut from that chunk's start. Returns it.
   void *merge_then_reuse() const
   {
      ba_heap_free(heap, a);
      ba_heap_free(heap, c);
      ba_heap_free(heap, b);
      return ba_heap_malloc(heap, 100);
   }
};

bool overlap(const void *p, std::size_t n, const void *q, std::size_t m)
{
   const char *x = static_cast<const char *>(p), *y = static_cast<const char *>(q);
   return x < y + m && y < x + n;
}

void exit_on_report(const char *, const void *, const ba_heap *) { std::_Exit(7); }

} // namespace

// b's header lies inside the merged free chunk and still reads as in use: a second free of b must be
// reported all the same (in release builds too). Fails until the core checks it (issue 17, defect 1).
BOOST_AUTO_TEST_CASE(double_free_of_a_merged_block_stops_with_a_message)
{
   merged_blocks m;
   BOOST_TEST_REQUIRE((m.a && m.b && m.c && m.g));
   child_outcome out = run_in_child([&m] {
      (void)m.merge_then_reuse();
      ba_heap_free(m.heap, m.b);   // b again: it has merged with a and c
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus core heap " + address_text(m.heap)) != std::string::npos);
   BOOST_TEST(out.err.find("at " + address_text(m.b)) != std::string::npos);
}

// The scenario to its end, as a program that ignores nothing but whose handler ends it: if
// the second free of b went unreported, two 5000-byte blocks taken afterwards must still not overlap
// the 100-byte block nor each other. The child exits 7 when the free is reported, 0 when it was not
// and the blocks are distinct, 3 when they overlap (the heap handed out a block still in use).
BOOST_AUTO_TEST_CASE(missed_double_free_of_a_merged_block_never_hands_out_a_block_in_use)
{
   merged_blocks m;
   BOOST_TEST_REQUIRE((m.a && m.b && m.c && m.g));
   child_outcome out = run_in_child([&m] {
      ba_set_diagnostic_handler(exit_on_report);
      void *small = m.merge_then_reuse();
      ba_heap_free(m.heap, m.b);
      void *x = ba_heap_malloc(m.heap, 5000), *y = ba_heap_malloc(m.heap, 5000);
      if (!small || !x || !y) std::_Exit(4);
      std::_Exit(overlap(x, 5000, small, 100) || overlap(y, 5000, small, 100) || overlap(x, 5000, y, 5000) ? 3 : 0);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exited);
   BOOST_TEST((out.exit_code == 7 || out.exit_code == 0), "child exit code " << out.exit_code << " (3: overlapping blocks)");
}

// Only level 2 finds the segment of a pointer before it reads near it; the constant-cost checks
// cannot tell a foreign pointer from a block without reading memory the heap does not own.
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
BOOST_AUTO_TEST_CASE(pointer_from_malloc_stops_with_a_message)
{
   void *foreign = std::malloc(64);
   child_outcome out = run_in_child([foreign] { ba_free(foreign); });
   check_report(out, "did not come from this heap", foreign);
   std::free(foreign);
}

BOOST_AUTO_TEST_CASE(pointer_from_another_heap_stops_with_a_message)
{
   ba_heap *other = ba_create_heap(0, 1);
   void *p = ba_heap_malloc(other, 64);
   child_outcome out = run_in_child([p] { ba_free(p); });
   check_report(out, "did not come from this heap", p);
   ba_heap_free(other, p);
   ba_destroy_heap(other);
}
#endif

BOOST_AUTO_TEST_CASE(pointer_into_a_block_stops_with_a_message)
{
   char *p = static_cast<char *>(ba_malloc(256));
   std::memset(p, 0, 256);
   child_outcome out = run_in_child([p] { ba_free(p + 32); });
   check_report(out, "pointer into a block", p + 32);
   ba_free(p);
}

BOOST_AUTO_TEST_CASE(misaligned_pointer_stops_with_a_message)
{
   char *p = static_cast<char *>(ba_malloc(256));
   child_outcome out = run_in_child([p] { ba_free(p + 1); });
   check_report(out, "did not come from this heap", p + 1);
   ba_free(p);
}

namespace {
void exiting_handler(const char *message, const void *address, const ba_heap *heap)
{
   std::fprintf(stderr, "handler: %s | %p | %p\n", message, address, static_cast<const void *>(heap));
   std::fflush(stderr);
   std::_Exit(7);
}
void returning_handler(const char *, const void *, const ba_heap *) {}
} // namespace

BOOST_AUTO_TEST_CASE(replaced_handler_receives_message_address_and_heap)
{
   void *p = ba_malloc(64);
   child_outcome out = run_in_child([p] {
      ba_set_diagnostic_handler(exiting_handler);
      ba_free(p);
      ba_free(p);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 7);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   BOOST_TEST(out.err.find("handler: double free") != std::string::npos);
#else
   // The constant-cost checks' message names the misuses its checks cannot tell apart, a double free among them.
   BOOST_TEST(out.err.find("handler: ") != std::string::npos);
   BOOST_TEST(out.err.find("double free") != std::string::npos);
#endif
   BOOST_TEST(out.err.find(address_text(p) + " | " + address_text(ba_default_heap())) != std::string::npos);
   ba_free(p);
}

BOOST_AUTO_TEST_CASE(handler_that_returns_still_stops_the_program)
{
   void *p = ba_malloc(64);
   child_outcome out = run_in_child([p] {
      ba_set_diagnostic_handler(returning_handler);
      ba_free(p);
      ba_free(p);
   });
   BOOST_TEST(out.signal == SIGABRT);
   ba_free(p);
}

BOOST_AUTO_TEST_CASE(set_handler_returns_the_previous_one)
{
   ba_diagnostic_handler before = ba_set_diagnostic_handler(exiting_handler);
   BOOST_TEST(ba_set_diagnostic_handler(before) == &exiting_handler);
}
