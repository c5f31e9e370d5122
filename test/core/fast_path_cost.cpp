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
// Two kinds of paths. The default heap's per-thread caches (thread_cache.h), which ba_malloc,
// ba_free and ba::allocator reach first: a small block freed goes into the calling thread's bin,
// and the next request of its size takes it back, without the heap's lock (phases *_cache). And
// the heap's own paths, behind the caches, which every independent heap runs too: a block from
// its quick list, or cut from its top, and freed back there (phases heap_*, measured through
// ba_heap_malloc(h, n) and ba_heap_free(h, p) with h the default heap, asked of ba_default_heap
// once, outside the measured calls).
//
// Each phase checks that its path is the one taken, as far as the public interface shows it:
// the addresses, the heap's statistics, and the neighbours that decide the path (a block freed
// into a cache is counted in cached_blocks and leaves the heap's free chunks and top alone; a
// block freed to the heap that is not the last before the top goes to a quick list; one that is
// merges into it). The script adds what only callgrind sees: a cache's fast path calls nothing,
// and the heap's short paths none of its out-of-line detail functions, where every other path
// calls a general one.
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
constexpr int pair_calls = 10000;  // the cache and quick phases: a free and a malloc of one block
constexpr int top_blocks = 1000;   // 48 KB: the top a new heap has (192 KiB) holds them all, so
constexpr int top_rounds = 4;      // it never grows during a phase (top_paths checks)

} // namespace

// The measured calls. noipa: GCC neither inlines them into the driver nor folds two with the same
// code into one. The library is compiled in them as at any call site: GCC may keep a C function
// out of line and jump to it; ba::allocator<T>::allocate, whose size it knows, it inlines whole.
// The heap's functions take the heap as every caller of an independent heap has it, in hand.
extern "C" {
__attribute__((noipa)) void *cost_path_ba_malloc(std::size_t n) { return ba_malloc(n); }
__attribute__((noipa)) void cost_path_ba_free(void *p) { ba_free(p); }
__attribute__((noipa)) block *cost_path_allocator_allocate() { return ba::allocator<block>().allocate(1); }
__attribute__((noipa)) void cost_path_allocator_deallocate(block *p) { ba::allocator<block>().deallocate(p, 1); }
__attribute__((noipa)) void *cost_path_heap_malloc(ba_heap *h, std::size_t n) { return ba_heap_malloc(h, n); }
__attribute__((noipa)) void cost_path_heap_free(ba_heap *h, void *p) { ba_heap_free(h, p); }
}

namespace {

// Three ways in: the C functions and ba::allocator<block> (allocate(1), deallocate), both through
// the calling thread's cache; and the default heap's own functions, behind the cache. measured_*
// are the counted calls; the others are the same calls, inline, uncounted.
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
ba_heap *default_heap;   // ba_default_heap(), asked once in main
struct heap_api {
   static void *measured_allocate() { return cost_path_heap_malloc(default_heap, block_bytes); }
   static void measured_deallocate(void *p) { cost_path_heap_free(default_heap, p); }
   static void *allocate() { return ba_heap_malloc(default_heap, block_bytes); }
   static void deallocate(void *p) { ba_heap_free(default_heap, p); }
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

// True when the heap's figures (its top, free chunks, chunks in use, what it got from the system)
// and the caches' are as they were.
bool same_heap(const ba_heap_stats &a, const ba_heap_stats &b)
{
   return a.top_bytes == b.top_bytes && a.free_chunks == b.free_chunks && a.system_bytes == b.system_bytes
          && a.in_use_chunks == b.in_use_chunks && a.cached_blocks == b.cached_blocks;
}

// One small block freed into the calling thread's cache and allocated again from it. The cache
// is warm (main made it, and carved a magazine of the block's size: its bin holds blocks), and
// the bin neither fills nor empties: every free pushes the block, every malloc pops it (the bin
// is last in, first out). The heap is not reached: its top, its free chunks (a block freed to the
// heap would go to a quick list or the top, counted there) stay; only cached_blocks and the
// chunks in use (the caches' blocks taken out) move, by one.
template <class Api>
void cache_paths(const char *malloc_phase, const char *free_phase)
{
   void *const held = Api::allocate();
   const ba_heap_stats before = stats();
   expect(before.cached_blocks != 0, malloc_phase, "the thread's cache is not warm: its bin is empty");

   Api::deallocate(held);
   const ba_heap_stats holding = stats();
   expect(holding.cached_blocks == before.cached_blocks + 1 && holding.in_use_chunks == before.in_use_chunks - 1
          && holding.top_bytes == before.top_bytes && holding.free_chunks == before.free_chunks
          && holding.system_bytes == before.system_bytes,
          free_phase, "the freed block did not go into the thread's cache");
   expect(Api::allocate() == held, malloc_phase, "the malloc after a free did not return the freed block");
   expect(same_heap(stats(), before), malloc_phase, "the malloc did not take the block from the thread's cache");

   auto round = [&](bool measure_malloc, bool measure_free, const char *phase) {
      for (int i = 0; i != pair_calls; ++i) {
         if (measure_free) Api::measured_deallocate(held);
         else Api::deallocate(held);
         void *again = measure_malloc ? Api::measured_allocate() : Api::allocate();
         if (again != held) fail(phase, "the malloc after a free did not return the freed block");
      }
      expect(same_heap(stats(), before), phase, "the heap or the cache changed over the free/malloc pairs");
   };

   round(true, true, malloc_phase);   // warm-up, unmeasured
   CALLGRIND_ZERO_STATS;
   round(true, false, malloc_phase);
   dump(malloc_phase, pair_calls);
   round(false, true, free_phase);
   dump(free_phase, pair_calls);

   Api::deallocate(held);   // back into the cache, where main's warm-up left it
}

// Blocks cut one after the other from the top, and freed back into it last first: a heap that
// grows and shrinks at its end. The bins, the designated victim and the quick lists are empty
// throughout (nothing else is freed to the heap: the cache's blocks are in use to it), so every
// malloc is cut from the top; every free is of the block right before the top, whose previous
// block is in use, and far below the trim threshold.
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
      expect(same_heap(stats(), before), phase, "the freed blocks did not all merge into the top");
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
      for (int i = 0; i != pair_calls; ++i) {
         if (measure_free) Api::measured_deallocate(held);
         else Api::deallocate(held);
         void *again = measure_malloc ? Api::measured_allocate() : Api::allocate();
         if (again != held) fail(phase, "the malloc after a free did not return the freed block");
      }
      expect(same_heap(stats(), before), phase, "the heap changed over the free/malloc pairs");
   };

   // Held between the free and the malloc, the block counts as free and leaves the top alone.
   Api::deallocate(held);
   const ba_heap_stats holding = stats();
   expect(holding.free_chunks == before.free_chunks + 1 && holding.top_bytes == before.top_bytes
          && holding.in_use_chunks == before.in_use_chunks - 1 && holding.cached_blocks == before.cached_blocks,
          free_phase, "the freed block did not stay apart from the top");
   expect(Api::allocate() == held, malloc_phase, "the malloc after a free did not return the freed block");

   round(true, true, malloc_phase);   // warm-up, unmeasured
   CALLGRIND_ZERO_STATS;
   round(true, false, malloc_phase);
   dump(malloc_phase, pair_calls);
   round(false, true, free_phase);
   dump(free_phase, pair_calls);

   // The guard first: then the block too is before the top, and both merge into it.
   Api::deallocate(guard);
   Api::deallocate(held);
}

} // namespace

int main()
{
   default_heap = ba_default_heap();
   // The thread's first small malloc makes its cache and carves a magazine of the block's size
   // from the top; the free puts the block back in the bin. Then the heap is its top, the cache's
   // record and the magazine, and each phase leaves it so.
   ba_free(ba_malloc(block_bytes));
   const ba_heap_stats start = stats();

   cache_paths<c_api>("malloc_cache", "free_cache");
   cache_paths<allocator_api>("allocate_cache", "deallocate_cache");
   top_paths<heap_api>("heap_malloc_top", "heap_free_top");
   quick_paths<heap_api>("heap_malloc_quick", "heap_free_quick");

   expect(same_heap(stats(), start), "end", "the heap was not left as it started");
   ba_check_report report;
   if (!ba_check(&report)) fail("end", report.what);
   return 0;
}
