// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Death tests of the checked build: each misuse runs in a child process, which must stop with
// a message that names the heap, the misuse and the address.
#define BOOST_TEST_MODULE one_heap_diagnostics
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if !BOOST_ALLOCPLUS_CHECKED
#  error "the diagnostics tests need a checked build"
#endif

namespace {

std::string address_text(const void *p)
{
   char text[32];
   std::snprintf(text, sizeof text, "%p", p);
   return text;
}

// The default handler's report: "allocplus core heap <heap>: <what> at <address>", then abort.
void check_report(const child_outcome &out, const char *what, const void *address)
{
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus core heap " + address_text(ba_default_heap())) != std::string::npos);
   BOOST_TEST(out.err.find(what) != std::string::npos);
   BOOST_TEST(out.err.find("at " + address_text(address)) != std::string::npos);
}

} // namespace

BOOST_AUTO_TEST_CASE(double_free_stops_with_a_message)
{
   void *p = ba_malloc(64);   // allocated before the fork: the same address in the child
   child_outcome out = run_in_child([p] { ba_free(p); ba_free(p); });
   check_report(out, "double free", p);
   ba_free(p);
}

BOOST_AUTO_TEST_CASE(double_free_of_a_merged_block_stops_with_a_message)
{
   void *a = ba_malloc(64), *b = ba_malloc(64), *guard = ba_malloc(64);
   child_outcome out = run_in_child([a, b] { ba_free(a); ba_free(b); ba_free(b); });   // b merged into a
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus core heap") != std::string::npos);
   BOOST_TEST(out.err.find("at " + address_text(b)) != std::string::npos);
   ba_free(a); ba_free(b); ba_free(guard);
}

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
   BOOST_TEST(out.err.find("handler: double free") != std::string::npos);
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
