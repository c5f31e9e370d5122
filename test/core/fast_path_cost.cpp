// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The core's fast paths, each run many times in a steady state for callgrind to count
// (fast_path_cost.py runs this program and checks the counts). Built as users ship the core:
// GCC -O2, NDEBUG, a non-PIE executable, header-only.
//
// Each measured call is one call of a function named cost_path_* (kept out of line and out of
// every interprocedural optimization): callgrind collects only inside those
// (--collect-atstart=no --toggle-collect=cost_path_*), so a count is exactly what the library
// runs for the call, from the function's first instruction to its return. The calls that put the
// heap back into the state the next measured call needs are made inline, uncounted. After each
// phase the program dumps callgrind's counts under the name "<path> <calls>", which the script
// divides. Outside valgrind the client requests do nothing and the program checks the same.
//
// Each phase checks that its path is the one taken, as far as the public interface shows it:
// the addresses, the heap's statistics, and the neighbours that decide the path (a freed block
// that is not the last before the top goes to a quick list; one that is merges into it). The
// script adds what only callgrind sees: a short path calls nothing, where every other path calls
// the general one.
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/core/dlmalloc.h>

#include <valgrind/callgrind.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if !defined(NDEBUG) || BOOST_ALLOCPLUS_CHECKED
#  error "the fast paths are measured as users ship them: build with -DNDEBUG"
#endif
#if !defined(__OPTIMIZE__) || defined(__PIE__) || defined(__PIC__)
#  error "the fast paths are measured in an optimized (-O2), non-PIE executable"
#endif

namespace ba = boost::allocplus;

namespace {

// A small block: 32 bytes asked, a 48-byte chunk (a list or map node's size).
constexpr std::size_t block_bytes = 32;
struct block {
   unsigned char bytes[block_bytes];
};

// Calls per phase. The counts do not depend on them (every call runs the same instructions);
// they only have to be many.
constexpr int quick_calls = 10000;
constexpr int top_blocks = 1000;   // 48 KB: the top a new heap has (192 KiB) holds them all, so
constexpr int top_rounds = 4;      // it never grows during a phase (top_paths checks)

} // namespace

// The measured calls. noipa: GCC neither inlines them into the driver nor folds two with the same
// code into one. The library is compiled in them as at any call site: GCC keeps ba_malloc and
// ba_free out of line and jumps to them; ba::allocator<T>::allocate, whose size it knows, it
// inlines whole (hence its shorter count).
extern "C" {
__attribute__((noipa)) void *cost_path_ba_malloc(std::size_t n) { return ba_malloc(n); }
__attribute__((noipa)) void cost_path_ba_free(void *p) { ba_free(p); }
__attribute__((noipa)) block *cost_path_allocator_allocate() { return ba::allocator<block>().allocate(1); }
__attribute__((noipa)) void cost_path_allocator_deallocate(block *p) { ba::allocator<block>().deallocate(p, 1); }
}

namespace {

// One interface, two ways in: the C functions, and ba::allocator<block> (allocate(1),
// deallocate). measured_* are the counted calls; the others are the same calls, inline, uncounted.
struct c_api {
   static void *measured_allocate() { return cost_path_ba_malloc(block_bytes); }
   static void measured_deallocate(void *p) { cost_path_ba_free(p); }
   static void *allocate() { return ba_malloc(block_bytes); }
   static void deallocate(void *p) { ba_free(p); }
};
struct allocator_api {
   static void *measured_allocate() { return cost_path_allocator_allocate(); }
   static void measured_deallocate(void *p) { cost_path_allocator_deallocate(static_cast<block *>(p)); }
   static void *allocate() { return ba::allocator<block>().allocate(1); }
   static void deallocate(void *p) { ba::allocator<block>().deallocate(static_cast<block *>(p), 1); }
};

[[noreturn]] void fail(const char *phase, const char *what)
{
   std::fprintf(stderr, "fast_path_cost: %s: %s\n", phase, what);
   std::exit(1);
}

void expect(bool ok, const char *phase, const char *what)
{
   if (!ok) fail(phase, what);
}

ba_heap_stats stats()
{
   ba_heap_stats s;
   ba_stats(&s);
   return s;
}

// Dumps what callgrind counted since the last dump under "<phase> <calls>" (the script's key).
void dump(const char *phase, int calls)
{
   char name[128];
   std::snprintf(name, sizeof name, "%s %d", phase, calls);
   CALLGRIND_DUMP_STATS_AT(name);
   std::printf("%-22s %6d calls, the path checked\n", phase, calls);
}

std::uintptr_t address(const void *p) { return reinterpret_cast<std::uintptr_t>(p); }

// Blocks cut one after the other from the top, and freed back into it last first: a heap that
// grows and shrinks at its end. The bins, the designated victim and the quick lists are empty
// throughout (nothing else is freed), so every malloc is cut from the top; every free is of the
// block right before the top, whose previous block is in use, and far below the trim threshold.
template <class Api>
void top_paths(const char *malloc_phase, const char *free_phase)
{
   std::vector<void *> blocks(top_blocks), first(top_blocks);
   void *const guard = Api::allocate();   // the first block's in-use neighbour below
   const ba_heap_stats before = stats();
   expect(before.top_bytes > top_blocks * 64u + 4096u, malloc_phase, "the top is too small for a phase");

   // One round: every block cut from the top, the blocks adjacent, at the same addresses as in
   // the first round, and the top smaller by exactly their chunks, which it gets back after.
   auto round = [&](bool measure_malloc, bool measure_free, const char *phase) {
      for (int i = 0; i != top_blocks; ++i)
         blocks[i] = measure_malloc ? Api::measured_allocate() : Api::allocate();
      const ba_heap_stats grown = stats();
      const std::uintptr_t stride = address(blocks[1]) - address(blocks[0]);
      expect(address(blocks[0]) > address(guard) && stride >= block_bytes && stride < 2 * block_bytes, phase,
             "the first blocks were not cut from the top one after the other");
      for (int i = 1; i != top_blocks; ++i)
         expect(address(blocks[i]) - address(blocks[i - 1]) == stride, phase, "a block was not cut from the top");
      expect(before.top_bytes - grown.top_bytes == top_blocks * stride && grown.system_bytes == before.system_bytes,
             phase, "the top did not give exactly the blocks' chunks");
      if (first[0] == nullptr) first = blocks;
      expect(blocks == first, phase, "the blocks moved between rounds: not a steady state");
      for (int i = top_blocks; i-- != 0;) {
         if (measure_free) Api::measured_deallocate(blocks[i]);
         else Api::deallocate(blocks[i]);
      }
      const ba_heap_stats after = stats();
      expect(after.top_bytes == before.top_bytes && after.free_chunks == before.free_chunks
             && after.system_bytes == before.system_bytes,
             phase, "the freed blocks did not all merge into the top");
   };

   round(true, true, malloc_phase);   // once unmeasured: the first calls of a process (lazy setup)
   CALLGRIND_ZERO_STATS;
   for (int r = 0; r != top_rounds; ++r) round(true, false, malloc_phase);
   dump(malloc_phase, top_rounds * top_blocks);
   for (int r = 0; r != top_rounds; ++r) round(false, true, free_phase);
   dump(free_phase, top_rounds * top_blocks);
   Api::deallocate(guard);
}

// One small block freed and allocated again, with an in-use block right after it so that it is
// not before the top: the free puts it in its quick list (empty before), the malloc takes it back.
template <class Api>
void quick_paths(const char *malloc_phase, const char *free_phase)
{
   void *const held = Api::allocate();
   void *const guard = Api::allocate();
   const std::uintptr_t stride = address(guard) - address(held);
   expect(stride >= block_bytes && stride < 2 * block_bytes, malloc_phase, "the block's neighbour is not right after it");
   const ba_heap_stats before = stats();

   // A free then a malloc of the same size: the malloc returns the freed block (the last freed
   // block of its size), the heap's top and statistics as they were.
   auto round = [&](bool measure_malloc, bool measure_free, const char *phase) {
      for (int i = 0; i != quick_calls; ++i) {
         if (measure_free) Api::measured_deallocate(held);
         else Api::deallocate(held);
         void *again = measure_malloc ? Api::measured_allocate() : Api::allocate();
         if (again != held) fail(phase, "the malloc after a free did not return the freed block");
      }
      const ba_heap_stats after = stats();
      expect(after.top_bytes == before.top_bytes && after.free_chunks == before.free_chunks
             && after.in_use_chunks == before.in_use_chunks && after.system_bytes == before.system_bytes,
             phase, "the heap changed over the free/malloc pairs");
   };

   // Held between the free and the malloc, the block counts as free and leaves the top alone.
   Api::deallocate(held);
   const ba_heap_stats holding = stats();
   expect(holding.free_chunks == before.free_chunks + 1 && holding.top_bytes == before.top_bytes
          && holding.in_use_chunks == before.in_use_chunks - 1,
          free_phase, "the freed block did not stay apart from the top");
   expect(Api::allocate() == held, malloc_phase, "the malloc after a free did not return the freed block");

   round(true, true, malloc_phase);   // warm-up, unmeasured
   CALLGRIND_ZERO_STATS;
   round(true, false, malloc_phase);
   dump(malloc_phase, quick_calls);
   round(false, true, free_phase);
   dump(free_phase, quick_calls);

   // The guard first: then the block too is before the top, and both merge into it.
   Api::deallocate(guard);
   Api::deallocate(held);
}

} // namespace

int main()
{
   // The heap starts empty but for its top, and each phase leaves it so.
   ba_free(ba_malloc(1));
   const ba_heap_stats start = stats();

   top_paths<c_api>("malloc_top", "free_top");
   quick_paths<c_api>("malloc_quick", "free_quick");
   top_paths<allocator_api>("allocate_top", "deallocate_top");
   quick_paths<allocator_api>("allocate_quick", "deallocate_quick");

   const ba_heap_stats end = stats();
   expect(end.in_use_chunks == start.in_use_chunks && end.top_bytes == start.top_bytes, "end",
          "the heap was not left as it started");
   ba_check_report report;
   if (!ba_check(&report)) fail("end", report.what);
   return 0;
}
