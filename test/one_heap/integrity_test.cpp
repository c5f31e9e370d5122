// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The integrity checks every build makes (built twice: checked, and with the checks at their
// release level). Each misuse below is what an overrun, a write after free or a double free does
// to the heap's own records; each must be reported (the program stops with a message) or refused,
// and never make the heap hand out a block that overlaps a live one or an address the writer
// chose. The misuse runs in a child process; the parent checks how the child ended.
#define BOOST_TEST_MODULE one_heap_integrity
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/core/dlmalloc.h>

#include "child_process.hpp"

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string address_text(const void *p)
{
   char text[32];
   std::snprintf(text, sizeof text, "%p", p);
   return text;
}

// The child wrote `exploited` when the heap handed out what it must not; a report is the default
// handler's line and an abort.
void check_reported(const child_outcome &out, const char *what)
{
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.err.find("exploited") == std::string::npos);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus core heap") != std::string::npos);
   BOOST_TEST(out.err.find(what) != std::string::npos);
}

bool overlap(const void *a, std::size_t an, const void *b, std::size_t bn)
{
   auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
   return x < y + bn && y < x + an;
}

// The words of the chunk a block belongs to, as an overrun or a write after free reaches them:
// word -2 is the previous chunk's size (its last word while it is in use), -1 this chunk's size
// and flags, 0 the first word of the payload (a free block's link). The misuse is the point of
// these tests: ASan, told by the heap that the words belong to no live block, must let it happen.
__attribute__((no_sanitize("address"))) std::uintptr_t peek(void *block, std::ptrdiff_t word)
{
   return static_cast<std::uintptr_t *>(block)[word];
}
__attribute__((no_sanitize("address"))) void poke(void *block, std::ptrdiff_t word, std::uintptr_t value)
{
   static_cast<std::uintptr_t *>(block)[word] = value;
}
void poke(void *block, std::ptrdiff_t word, const void *value) { poke(block, word, reinterpret_cast<std::uintptr_t>(value)); }
// The link a quick-listed block's first word holds to `next`, as the heap protects it.
std::uintptr_t protected_link(const void *block, const void *next)
{
   return (reinterpret_cast<std::uintptr_t>(block) >> 12) ^ reinterpret_cast<std::uintptr_t>(next);
}
constexpr std::uintptr_t previous_in_use = 1;

struct heap_fixture {
   ba_heap *h = ba_create_heap(0, 1);
   ~heap_fixture() { ba_destroy_heap(h); }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(integrity, heap_fixture)

// A block that merged with its free neighbours, freed again: its header is inside a free chunk.
BOOST_AUTO_TEST_CASE(double_free_of_a_coalesced_block_is_reported)
{
   void *a = ba_heap_malloc(h, 2000), *b = ba_heap_malloc(h, 2000), *c = ba_heap_malloc(h, 2000);
   void *g = ba_heap_malloc(h, 2000);
   child_outcome out = run_in_child([&] {
      ba_heap_free(h, a);
      ba_heap_free(h, c);
      ba_heap_free(h, b);   // b merges with a and c
      void *x = ba_heap_malloc(h, 100);
      ba_heap_free(h, b);   // the misuse
      void *y = ba_heap_malloc(h, 5000), *z = ba_heap_malloc(h, 5000);
      if (overlap(y, 5000, x, 100) || overlap(z, 5000, x, 100)) std::fputs("exploited\n", stderr);
   });
   check_reported(out, "double free");
   BOOST_TEST(out.err.find("at " + address_text(b)) != std::string::npos);
   (void)g;
}

// The last word of an in-use block is the next chunk's previous-size word: an owner that writes
// it and one bit past it (clearing "previous in use") makes the next chunk's free merge backward
// over live blocks, into the designated victim, unless the tag is checked against that chunk.
BOOST_AUTO_TEST_CASE(forged_previous_size_is_reported)
{
   void *big = ba_heap_malloc(h, 4000), *pin = ba_heap_malloc(h, 64);
   ba_heap_free(h, big);
   void *small = ba_heap_malloc(h, 1000);   // the rest of big (3008 bytes) becomes the designated victim
   // Too large for the designated victim: cut from the top, after it.
   void *live = ba_heap_malloc(h, 5000), *victim_block = ba_heap_malloc(h, 4000);
   void *guard = ba_heap_malloc(h, 64);
   (void)pin; (void)guard;
   child_outcome out = run_in_child([&] {
      // From `live`: its last word, then one bit of the next header. The forged size points back
      // to the designated victim, over `pin` and `live`.
      char *victim_space = static_cast<char *>(small) + 1008;   // its chunk, less 16 bytes
      std::size_t distance = static_cast<std::size_t>(static_cast<char *>(victim_block) - victim_space);
      poke(victim_block, -2, distance);
      poke(victim_block, -1, peek(victim_block, -1) & ~previous_in_use);
      ba_heap_free(h, victim_block);
      for (int i = 0; i < 6; ++i) {
         void *x = ba_heap_malloc(h, 2000);
         if (x && overlap(x, 2000, live, 5000)) std::fputs("exploited\n", stderr);
      }
   });
   check_reported(out, "boundary tag");
}

// An 8-byte write after free into a quick-listed block plants an address in its link; the link
// is protected, so the planted address decodes to garbage and is reported, or the heap crashes
// on it, but is never handed out.
BOOST_AUTO_TEST_CASE(planted_quick_list_link_is_never_handed_out)
{
   alignas(16) static char target[64];
   void *a = ba_heap_malloc(h, 32), *guard = ba_heap_malloc(h, 32);
   (void)guard;
   child_outcome out = run_in_child([&] {
      ba_heap_free(h, a);
      poke(a, 0, target + 16);   // the write after free
      void *first = ba_heap_malloc(h, 32);
      void *second = ba_heap_malloc(h, 32);
      if (overlap(first, 32, target, sizeof target) || overlap(second, 32, target, sizeof target))
         std::fputs("exploited\n", stderr);
      std::_Exit(3);   // no report at all: the planted link was not followed either
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.err.find("exploited") == std::string::npos);
   BOOST_TEST((out.signal == SIGABRT || out.signal == SIGSEGV || out.signal == SIGBUS || out.exit_code == 3));
}

// A writer who knows the key still cannot make a pop hand out memory that is not a quick chunk of
// that size: the chunk a link names is checked.
BOOST_AUTO_TEST_CASE(forged_quick_list_link_to_a_fake_chunk_is_reported)
{
   alignas(16) static std::size_t fake[8];
   void *a = ba_heap_malloc(h, 32), *b = ba_heap_malloc(h, 32), *guard = ba_heap_malloc(h, 32);
   (void)guard;
   child_outcome out = run_in_child([&] {
      ba_heap_free(h, b);
      ba_heap_free(h, a);   // the list: a, then b
      void *planted = &fake[2];
      fake[1] = 0x30 | 3;   // a size, in use, but not flagged as held in a quick list
      poke(a, 0, protected_link(a, planted));
      void *first = ba_heap_malloc(h, 32), *second = ba_heap_malloc(h, 32);
      if (first == planted || second == planted) std::fputs("exploited\n", stderr);
   });
   check_reported(out, "corrupted quick list");
}

// The count of a quick list, not its last link, says where the list ends: a forged last link
// (even to a perfect fake) is never followed, and the count never wraps.
BOOST_AUTO_TEST_CASE(forged_last_quick_link_is_not_followed)
{
   alignas(16) static std::size_t fake[8];
   void *a = ba_heap_malloc(h, 32), *guard = ba_heap_malloc(h, 32);
   (void)guard;
   child_outcome out = run_in_child([&] {
      ba_heap_free(h, a);
      void *planted = &fake[2];
      fake[1] = 0x30 | 2 | 4 | 1;   // a perfect quick chunk of 48 bytes
      poke(a, 0, protected_link(a, planted));
      void *first = ba_heap_malloc(h, 32), *second = ba_heap_malloc(h, 32);
      if (first != a || second == planted) std::fputs("exploited\n", stderr);
      ba_heap_free(h, second);
      ba_heap_free(h, first);
      for (int i = 0; i < 4; ++i)
         if (ba_heap_malloc(h, 32) == planted) std::fputs("exploited\n", stderr);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.exited);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.err.find("exploited") == std::string::npos);
}

// A small bin's links, overwritten after free: the unlink reports instead of writing through them.
BOOST_AUTO_TEST_CASE(overwritten_bin_link_is_reported)
{
   void *held[8];
   for (void *&p : held) {
      p = ba_heap_malloc(h, 600);
      ba_heap_malloc(h, 32);   // a pin after each: nothing merges
   }
   void *a = ba_heap_malloc(h, 600), *pin = ba_heap_malloc(h, 32), *b = ba_heap_malloc(h, 600);
   void *pin2 = ba_heap_malloc(h, 32);
   (void)pin; (void)pin2;
   alignas(16) static void *target[4];
   child_outcome out = run_in_child([&] {
      for (void *p : held) ba_heap_free(h, p);   // the quick list of 608-byte chunks is full
      ba_heap_free(h, a);   // so a and b go to a small bin
      ba_heap_free(h, b);
      poke(a, 0, &target[0]);   // fd
      poke(a, 1, &target[0]);   // bk
      for (int i = 0; i < 10; ++i) ba_heap_malloc(h, 600);
      for (void *t : target)
         if (t) std::fputs("exploited\n", stderr);
   });
   check_reported(out, "corrupted free list");
}

// A tree bin's child link, overwritten after free: the unlink would write through it.
BOOST_AUTO_TEST_CASE(overwritten_tree_link_is_reported)
{
   void *a = ba_heap_malloc(h, 3000), *pin = ba_heap_malloc(h, 32), *b = ba_heap_malloc(h, 3000);
   void *pin2 = ba_heap_malloc(h, 32);
   (void)pin; (void)pin2;
   alignas(16) static void *target[8];
   child_outcome out = run_in_child([&] {
      ba_heap_free(h, a);   // the node of its tree bin
      ba_heap_free(h, b);   // the same size: in a's ring
      // a's tree fields, payload words 0..4: fd, bk, child[0], child[1], parent.
      poke(a, 2, &target[0]);
      void *x = ba_heap_malloc(h, 3000);
      (void)x;
      for (void *t : target)
         if (t) std::fputs("exploited\n", stderr);
   });
   check_reported(out, "corrupted free list");
}

// A block of another heap freed here, whether that heap lies below or above this one: outside this
// heap's range, reported, not kept for reuse.
BOOST_AUTO_TEST_CASE(free_of_another_heaps_block_is_reported)
{
   ba_heap *other = ba_create_heap(0, 1);
   alignas(16) char stack_buffer[16384];   // the stack lies above the mappings
   ba_heap *on_stack = ba_create_heap_over(stack_buffer, sizeof stack_buffer, 1);
   void *mine = ba_heap_malloc(h, 32);
   void *theirs[] = {ba_heap_malloc(other, 32), ba_heap_malloc(on_stack, 32)};
   bool above = false, below = false;
   for (void *p : theirs) {
      (p > mine ? above : below) = true;
      child_outcome out = run_in_child([&] { ba_heap_free(h, p); });
      check_reported(out, "this heap");
   }
   BOOST_TEST((above && below), "the other heaps lie on both sides of this one");
   ba_destroy_heap(on_stack);
   ba_destroy_heap(other);
}

// Memory held in quick lists is given back to the bins before an allocation fails, whatever its
// size: here a request above the mmap threshold under a footprint limit.
BOOST_AUTO_TEST_CASE(quick_lists_are_flushed_before_out_of_memory)
{
   const std::size_t count = 12000;   // 48-byte chunks: 576 000 bytes
   static void *blocks[count];
   for (void *&p : blocks) p = ba_heap_malloc(h, 32);
   void *guard = ba_heap_malloc(h, 64);
   ba_heap_stats before;
   ba_heap_stats_get(h, &before);
   ba_heap_set_footprint_limit(h, before.system_bytes);
   // Eight blocks spread over the range go to the quick list first; the others merge around them
   // into pieces of 72 000 bytes: no 400 000 bytes in one piece until the quick list is flushed.
   const std::size_t step = count / 9;
   for (std::size_t i = 1; i <= 8; ++i) ba_heap_free(h, blocks[i * step]);
   for (std::size_t i = 0; i < count; ++i)
      if (i % step != 0 || i == 0 || i > 8 * step) ba_heap_free(h, blocks[i]);
   void *big = ba_heap_malloc(h, 400000);
   BOOST_TEST(big != nullptr);
   ba_check_report report{};
   BOOST_TEST(ba_heap_check(h, &report), (report.what ? report.what : ""));
   ba_heap_free(h, big);
   ba_heap_free(h, guard);
}

// A node of a burst freed by ba_multidealloc, freed again: the run merged into one free chunk
// and its inner headers are forgotten.
BOOST_AUTO_TEST_CASE(double_free_of_a_burst_node_is_reported)
{
   ba_chain chain;
   ba_chain_init(&chain);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 3, 48, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain));
   void *first = chain.first;
   void *middle = ba_chain_next(first);
   void *guard = ba_heap_malloc(h, 64);
   (void)guard;
   child_outcome out = run_in_child([&] {
      ba_chain c = chain;
      ba_heap_multidealloc(h, &c);
      void *x = ba_heap_malloc(h, 48);
      ba_heap_free(h, middle);   // the misuse
      void *y = ba_heap_malloc(h, 150);
      if (overlap(x, 48, y, 150)) std::fputs("exploited\n", stderr);
   });
   check_reported(out, "heap");
   BOOST_TEST(out.err.find("at " + address_text(middle)) != std::string::npos);
}

// A block that grew backward has a new start; a free of its old start is reported.
BOOST_AUTO_TEST_CASE(free_of_the_old_start_of_a_block_grown_backward_is_reported)
{
   void *before = ba_heap_malloc(h, 400), *p = ba_heap_malloc(h, 100), *guard = ba_heap_malloc(h, 32);
   (void)guard;
   ba_heap_free(h, before);   // 416 bytes: a small bin, free before p
   std::size_t received = 0;
   ba_command_ret r = ba_heap_allocation_command(h, BA_EXPAND_BWD, 1, 1, 300, 300, &received, p);
   BOOST_REQUIRE(r.first != nullptr);
   BOOST_REQUIRE(r.second == 1);
   BOOST_REQUIRE(r.first < p);
   child_outcome out = run_in_child([&] { ba_heap_free(h, p); });
   check_reported(out, "heap");
   BOOST_TEST(out.err.find("at " + address_text(p)) != std::string::npos);
   ba_heap_free(h, r.first);
}

BOOST_AUTO_TEST_SUITE_END()

// A handler may leave a usage error by longjmp: the heap is intact, and ba_multidealloc leaves the
// chain holding the block it reported and those after it, the ones before freed and counted.
namespace {
std::jmp_buf escape;
const char *reported;
const void *reported_at;
void escape_handler(const char *what, const void *address, const ba_heap *)
{
   reported = what;
   reported_at = address;
   std::longjmp(escape, 1);
}
} // namespace

BOOST_AUTO_TEST_CASE(usage_error_in_multidealloc_leaves_a_stated_chain)
{
   ba_heap *h = ba_create_heap(0, 1);
   void *a = ba_heap_malloc(h, 64), *b = ba_heap_malloc(h, 64), *c = ba_heap_malloc(h, 64);
   void *foreign = std::malloc(64);
   ba_chain chain;
   ba_chain_init(&chain);
   ba_chain_push_back(&chain, a);
   ba_chain_push_back(&chain, foreign);
   ba_chain_push_back(&chain, b);
   ba_heap_stats before;
   ba_heap_stats_get(h, &before);
   ba_diagnostic_handler previous = ba_set_diagnostic_handler(escape_handler);
   if (setjmp(escape) == 0) {
      ba_heap_multidealloc(h, &chain);
      BOOST_FAIL("the foreign block was not reported");
   }
   ba_set_diagnostic_handler(previous);
   BOOST_TEST(reported_at == foreign);
   BOOST_TEST(chain.first == foreign);
   BOOST_TEST(chain.size == 2u);
   ba_heap_stats after;
   ba_heap_stats_get(h, &after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks - 1);
   ba_check_report report{};
   BOOST_TEST(ba_heap_check(h, &report), (report.what ? report.what : ""));
   ba_heap_free(h, b);
   ba_heap_free(h, c);
   std::free(foreign);
   ba_destroy_heap(h);
}

// A corruption report marks the heap: a handler that leaves by longjmp leaves a heap that refuses
// every later call (and fails its check) but may be destroyed.
BOOST_AUTO_TEST_CASE(a_corrupted_heap_refuses_later_calls)
{
   ba_heap *h = ba_create_heap(0, 1);
   void *a = ba_heap_malloc(h, 32), *b = ba_heap_malloc(h, 32), *guard = ba_heap_malloc(h, 32);
   (void)guard;
   ba_heap_free(h, b);
   ba_heap_free(h, a);
   alignas(16) static std::size_t fake[8];
   fake[1] = 0x30 | 3;
   poke(a, 0, protected_link(a, &fake[2]));
   reported = nullptr;
   ba_diagnostic_handler previous = ba_set_diagnostic_handler(escape_handler);
   if (setjmp(escape) == 0) {
      ba_heap_malloc(h, 32);
      ba_heap_malloc(h, 32);
   }
   BOOST_TEST(reported != nullptr);
   BOOST_TEST(std::strstr(reported, "corrupted quick list") != nullptr);
   reported = nullptr;
   if (setjmp(escape) == 0) ba_heap_malloc(h, 32);
   BOOST_TEST((reported && std::strstr(reported, "reported corruption before")));
   reported = nullptr;
   if (setjmp(escape) == 0) ba_heap_free(h, guard);
   BOOST_TEST((reported && std::strstr(reported, "reported corruption before")));
   ba_set_diagnostic_handler(previous);
   BOOST_TEST(!ba_heap_check(h, nullptr));
   ba_destroy_heap(h);
}

// The per-thread caches of the default heap (ba_malloc, ba_free) keep their blocks in lists linked
// as the quick lists are. A forged link, even to a fake that copies a cached block's header and
// the mark of a cached block (a read after free finds both), is reported when the list is given
// back to the heap, before anything is written through it.
BOOST_AUTO_TEST_CASE(forged_link_in_a_thread_cache_is_reported_before_anything_is_written)
{
   alignas(64) static std::uintptr_t fake[8];
   child_outcome out = run_in_child([] {
      ba_thread_cache_flush();
      void *a = ba_malloc(24), *b = ba_malloc(24), *guard = ba_malloc(24);
      (void)guard;
      ba_free(b);
      ba_free(a);   // the bin: a, then b
      fake[1] = 0x20 | 3;         // a cached 32-byte chunk's header
      fake[3] = peek(b, 1);       // the caches' mark, as b carries it
      fake[2] = 0x1111;
      poke(a, 0, protected_link(a, &fake[2]));
      ba_set_diagnostic_handler([](const char *what, const void *, const ba_heap *) {
         if (fake[2] != 0x1111 || fake[3] == 0) std::fputs("exploited\n", stderr);
         std::fprintf(stderr, "allocplus core heap: %s\n", what);
         std::abort();
      });
      ba_thread_cache_flush();   // gives the bin back to the heap
   });
   check_reported(out, "thread cache");
}

// A block in the calling thread's cache is in use to the heap but marked: freeing it again
// straight to the heap, or reallocating it, is reported as the double free it is, not done (the
// block would be both cached and free, and handed out twice).
BOOST_AUTO_TEST_CASE(a_cached_block_freed_or_reallocated_through_the_heap_is_reported)
{
   for (int realloc_it = 0; realloc_it < 2; ++realloc_it) {
      BOOST_TEST_CONTEXT((realloc_it ? "ba_realloc" : "ba_heap_free"))
      {
         child_outcome out = run_in_child([realloc_it] {
            void *p = ba_malloc(24), *guard = ba_malloc(24);
            (void)guard;
            ba_free(p);   // into the thread's cache
            if (realloc_it) {
               void *q = ba_realloc(p, 100);
               if (q) std::fputs("exploited\n", stderr);
            } else {
               ba_heap_free(ba_default_heap(), p);
               void *a = ba_heap_malloc(ba_default_heap(), 24), *b = ba_malloc(24);
               if (a == b) std::fputs("exploited\n", stderr);
            }
         });
         check_reported(out, "double free");
      }
   }
}
