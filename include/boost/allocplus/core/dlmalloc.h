/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The C core: a heap in the design of Doug Lea's malloc 2.8 (boundary-tagged chunks, exact-size
 * small bins, bitwise-trie tree bins for large chunks, a designated victim, a top chunk, segments
 * obtained with mmap, direct mmap for huge blocks, trimming with hysteresis), written for this
 * project and extended with what containers need: allocation_command (expand forward/backward,
 * shrink in place, limit/preferred/received sizes), burst allocation, independent heaps,
 * statistics, a footprint limit and a full heap check.
 *
 * How to use it
 *  - From C++: include this header. The implementation is header-only (inline functions and
 *    constant-initialized inline state in a versioned inline namespace); every public name is also
 *    declared in the global namespace, so `ba_malloc(16)` works as it does in C.
 *  - From C (C11): include this header everywhere, and in exactly one translation unit
 *    `#define BOOST_ALLOCPLUS_CORE_IMPLEMENTATION` before including it; that unit compiles the
 *    extern "C" implementation once. A C++ program that defines BOOST_ALLOCPLUS_CORE_EXTERN_C uses
 *    that compiled implementation instead of the header-only one.
 *
 * Conventions
 *  - Every block is aligned to BA_MALLOC_ALIGNMENT (16 on 64-bit targets).
 *  - ba_malloc(0) returns a unique block of the minimum size (never null unless memory is
 *    exhausted); ba_realloc(p, 0) shrinks p to that minimum size and returns it (it does not free).
 *  - Functions that fail return null (or 0); nothing here throws or calls abort, except the misuse
 *    reports of the heap (a free of a pointer the heap did not hand out), which call the
 *    diagnostic handler.
 *  - Every heap has its own lock unless it was created without one; the default heap always has
 *    one. A heap without a lock must be used by one thread at a time. Threads made by a raw
 *    clone(CLONE_VM) without the thread library are not supported (as with glibc's malloc): the
 *    lock is skipped while the thread library reports one thread.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DLMALLOC_H
#define BOOST_ALLOCPLUS_CORE_DLMALLOC_H

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus) && !defined(BOOST_ALLOCPLUS_CORE_EXTERN_C)
#  define BOOST_ALLOCPLUS_CORE_HEADER_ONLY 1
#endif

/* The checking level (doc/checked_builds.md). 0 (the default when NDEBUG is defined): the checks
 * that cost a few loads, as glibc's. 1 (the default otherwise): adds constant-time checks only,
 * those that cost a comparison or two (container preconditions, a leak count when a pool dies, the
 * pools' check that a pointer freed is aligned and inside the span of their blocks), so that a
 * debug build stays near a release build's speed; the heap's own paths are level 0's. 2 (asked
 * for): adds the expensive checks, those that search or walk something (a heap's segments and huge
 * blocks, a thread cache's bin, a node pool's tree of blocks) or keep state per node (the adaptive
 * pools' in-use byte) on every free, and sends every free through the slow path that makes them,
 * and Valgrind's client requests where <valgrind/memcheck.h> exists (at any level with BOOST_ALLOCPLUS_VALGRIND=1:
 * they cost more than the allocation of a small block itself). No level
 * changes a layout the core shares: units of any level share one heap and each other's blocks.
 * `#if BOOST_ALLOCPLUS_CHECKED` means level 1 or more; BOOST_ALLOCPLUS_CHECKED_EXPENSIVE, level 2. */
#if !defined(BOOST_ALLOCPLUS_CHECKED)
#  if defined(NDEBUG)
#    define BOOST_ALLOCPLUS_CHECKED 0
#  else
#    define BOOST_ALLOCPLUS_CHECKED 1
#  endif
#endif
#if BOOST_ALLOCPLUS_CHECKED >= 2
#  define BOOST_ALLOCPLUS_CHECKED_EXPENSIVE 1
#else
#  define BOOST_ALLOCPLUS_CHECKED_EXPENSIVE 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#  define BOOST_ALLOCPLUS_CORE_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define BOOST_ALLOCPLUS_CORE_ASAN 1
#  endif
#endif
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   /* The heap reads and writes its own headers inside memory it keeps poisoned. */
#  define BOOST_ALLOCPLUS_CORE_NO_ASAN __attribute__((no_sanitize_address))
#else
#  define BOOST_ALLOCPLUS_CORE_NO_ASAN
#endif

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   /* Types and state live in a versioned inline namespace, so two versions of the header-only core
    * in one program cannot collide. The functions sit one level deeper, in a namespace named for
    * the checking mode, so that checked and unchecked units (whose inline functions differ) do not
    * break the one-definition rule while they share the types and the heap. */
#  if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
#    define BOOST_ALLOCPLUS_CORE_MODE checked_expensive
#  elif BOOST_ALLOCPLUS_CHECKED
#    define BOOST_ALLOCPLUS_CORE_MODE checked
#  else
#    define BOOST_ALLOCPLUS_CORE_MODE unchecked
#  endif
#  define BOOST_ALLOCPLUS_CORE_BEGIN_DECLS namespace boost { namespace allocplus { inline namespace core_abi_v1 {
#  define BOOST_ALLOCPLUS_CORE_END_DECLS }}}
#  define BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS BOOST_ALLOCPLUS_CORE_BEGIN_DECLS inline namespace BOOST_ALLOCPLUS_CORE_MODE {
#  define BOOST_ALLOCPLUS_CORE_END_FUNCS } BOOST_ALLOCPLUS_CORE_END_DECLS
#  define BOOST_ALLOCPLUS_CORE_API inline BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BOOST_ALLOCPLUS_CORE_HELPER inline
#elif defined(__cplusplus)
#  define BOOST_ALLOCPLUS_CORE_BEGIN_DECLS extern "C" {
#  define BOOST_ALLOCPLUS_CORE_END_DECLS }
#  define BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS extern "C" {
#  define BOOST_ALLOCPLUS_CORE_END_FUNCS }
#  define BOOST_ALLOCPLUS_CORE_API BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BOOST_ALLOCPLUS_CORE_HELPER static inline
#else
#  define BOOST_ALLOCPLUS_CORE_BEGIN_DECLS
#  define BOOST_ALLOCPLUS_CORE_END_DECLS
#  define BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS
#  define BOOST_ALLOCPLUS_CORE_END_FUNCS
#  define BOOST_ALLOCPLUS_CORE_API BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BOOST_ALLOCPLUS_CORE_HELPER static inline
#endif

/* Commands of ba_allocation_command: Boost.Container's values, so one command reaches either
 * library. Combine with |. */
#define BA_ALLOCATE_NEW           1u
#define BA_EXPAND_FWD             2u
#define BA_EXPAND_BWD             4u
#define BA_SHRINK_IN_PLACE        8u
#define BA_NOTHROW_ALLOCATION    16u
#define BA_ZERO_MEMORY           32u
#define BA_TRY_SHRINK_IN_PLACE   64u

/* Values of the contiguous_elements argument of the burst functions. */
#define BA_MULTIALLOC_DEFAULT_CONTIGUOUS ((size_t)0)      /* runs of up to 4096 bytes */
#define BA_MULTIALLOC_ALL_CONTIGUOUS     ((size_t)-1)     /* everything in one run */

/* Heap options for ba_heap_set_option. */
#define BA_OPTION_TRIM_THRESHOLD   1  /* free top bytes kept before trimming (SIZE_MAX: never trim) */
#define BA_OPTION_DECAY_MS         6  /* milliseconds the free top beyond the trim threshold stays
                                       * unused before it goes back (default 1000; 0: at once) */
#define BA_OPTION_MMAP_THRESHOLD   2  /* requests at or above are mapped directly (SIZE_MAX: never) */
#define BA_OPTION_RELEASE_RATE     3  /* frees between two scans for unused segments (0: never) */
#define BA_OPTION_THREAD_CACHE     5  /* default heap: bytes each thread may cache (0: no caches);
                                       * applies to the caches of threads that make theirs after */
#define BA_OPTION_HUGE_RESERVE     4  /* address space reserved after each huge block, so that it can
                                       * expand in place (default: the block's size, at least 64 MiB,
                                       * at most 4 GiB) */

#define BA_MALLOC_ALIGNMENT (2 * sizeof(void *))
/* The bytes the core keeps beside each block it hands out (its header). A block of
 * k * A - BA_CHUNK_OVERHEAD bytes aligned to A (a power of two) ends where the header of the next
 * one begins: blocks so sized, taken one after the other, sit end to end, each aligned to A. */
#define BA_CHUNK_OVERHEAD sizeof(size_t)

/* The `locked` argument of ba_create_heap_over for a heap in memory shared by processes
 * (MAP_SHARED, shm_open): its lock works across processes and is never skipped. */
#define BA_HEAP_PROCESS_SHARED 2

BOOST_ALLOCPLUS_CORE_BEGIN_DECLS

/* An independent heap (an "mspace"). The default heap is one of them. */
typedef struct ba_heap ba_heap;

/* The result of ba_allocation_command: the block (null on failure) and whether it is reuse_ptr
 * expanded or shrunk in place (for a backward expansion `first` is the new, lower start). */
typedef struct ba_command_ret {
   void *first;
   int   second;
} ba_command_ret;

/* An intrusive singly-linked chain of blocks: the first word of each block points to the next
 * block (null after the last). A chain is empty when `first` is null. */
typedef struct ba_chain {
   void  *first;
   void  *last;
   size_t size;
} ba_chain;

/* Statistics of one heap. */
typedef struct ba_heap_stats {
   size_t system_bytes;      /* committed bytes obtained from the system (segments + huge blocks) */
   size_t peak_system_bytes; /* the most system_bytes ever was */
   size_t in_use_bytes;      /* bytes of chunks handed out, headers included */
   size_t peak_in_use_bytes; /* the most in_use_bytes ever was */
   size_t in_use_chunks;     /* blocks handed out and not yet freed */
   size_t free_chunks;       /* free chunks in bins (top and designated victim included) */
   size_t free_bytes;        /* bytes in those free chunks */
   size_t top_bytes;         /* bytes in the top chunk */
   size_t segments;          /* segments in the heap */
   size_t huge_blocks;       /* directly mapped blocks */
   size_t huge_bytes;        /* committed bytes of directly mapped blocks */
   size_t footprint_limit;   /* the limit on system_bytes (SIZE_MAX: none) */
   size_t cached_bytes;      /* default heap: bytes of the blocks freed into the threads' caches,
                              * which in_use_* leave out (the caches' records are not the heap's) */
   size_t cached_blocks;     /* the blocks freed into the threads' caches */
} ba_heap_stats;

/* What ba_check found: the first broken invariant, or what == null. */
typedef struct ba_check_report {
   const char *what;   /* a sentence naming the invariant, or null when the heap is sound */
   const void *where;  /* the chunk or bin at fault */
} ba_check_report;

/* Called with a misuse a heap found (see ba_set_diagnostic_handler). */
/* A clock for the decay delay (ba_heap_set_clock): milliseconds from any fixed start. */
typedef uint64_t (*ba_clock_fn)(void);
typedef void (*ba_diagnostic_handler)(const char *message, const void *address, const ba_heap *heap);

BOOST_ALLOCPLUS_CORE_END_DECLS
BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* ---------------------------------------------------------------------------------------------
 * The default heap.
 * ------------------------------------------------------------------------------------------- */

/* Returns: a block of at least n bytes, or null if memory is exhausted (or n is near SIZE_MAX). */
BOOST_ALLOCPLUS_CORE_API void *ba_malloc(size_t n);
/* Effects: frees p (null is ignored). p must come from the default heap. A block of up to 1000
 * bytes is kept (up to 8 a size) for the next request of its size and coalesces with its
 * neighbours when the heap would otherwise grow or trim (see doc/core.md, "quick lists"). */
BOOST_ALLOCPLUS_CORE_API void  ba_free(void *p);
/* Returns: a zeroed block of n * size bytes, or null if that product overflows or memory is out. */
BOOST_ALLOCPLUS_CORE_API void *ba_calloc(size_t n, size_t size);
/* Returns: p resized to n bytes (in place when possible, else moved with its contents), or null
 * with p untouched when memory is exhausted. ba_realloc(NULL, n) is ba_malloc(n). */
BOOST_ALLOCPLUS_CORE_API void *ba_realloc(void *p, size_t n);
/* Returns: a block of n bytes aligned to `alignment`, or null if alignment is not a power of two
 * or memory is exhausted. */
BOOST_ALLOCPLUS_CORE_API void *ba_memalign(size_t alignment, size_t n);
/* Returns: the bytes usable in the block p (at least what was asked for); 0 for null. */
BOOST_ALLOCPLUS_CORE_API size_t ba_usable_size(const void *p);

/* Allocates, expands or shrinks a block of objects of size sizeof_object and alignment
 * alignof_object (0 means BA_MALLOC_ALIGNMENT).
 *
 * Effects: with BA_SHRINK_IN_PLACE (or BA_TRY_SHRINK_IN_PLACE, which only reports), shrinks
 *   reuse_ptr to the fewest objects not below preferred_objects; it succeeds if the block then holds
 *   at most limit_objects objects (limit is the maximum, preferred the minimum). Otherwise (and then
 *   limit_objects <= preferred_objects is required) tries, in order: to expand reuse_ptr to
 *   preferred_objects (forward with BA_EXPAND_FWD, backward with BA_EXPAND_BWD), to allocate a new
 *   block of preferred_objects (BA_ALLOCATE_NEW), to expand to limit_objects, and to allocate a
 *   new block of limit_objects. A backward expansion moves the start down by a multiple of
 *   lcm(sizeof_object, alignment), so the old objects stay where they were at whole-object offsets
 *   from the new start; their bytes are not moved. BA_ZERO_MEMORY zeroes the bytes the block gains.
 *   *received_objects is set to the objects the block can hold on success; on failure of an
 *   expansion or shrink, to the objects reuse_ptr holds. On the default heap, in a process with
 *   threads (doc/core.md, "Thread caches"), a command with BA_ALLOCATE_NEW (no zeroing, no shrink)
 *   whose preferred objects fit in 1032 bytes gets a new block from the calling thread's cache at
 *   once, without trying to expand reuse_ptr.
 * Returns: {block, 1} when reuse_ptr was expanded or shrunk, {block, 0} for a new block, {null, 0}
 *   on failure or bad arguments (sizeof_object 0, limit > preferred, alignment not a power of 2).
 * Complexity: constant, unless a tree bin is searched (logarithmic in the bin's size). */
BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_allocation_command(unsigned command, size_t sizeof_object,
   size_t alignof_object, size_t limit_objects, size_t preferred_objects, size_t *received_objects,
   void *reuse_ptr);

/* Allocates n blocks of elem_size bytes in runs of up to contiguous_elements adjacent blocks
 * (BA_MULTIALLOC_DEFAULT_CONTIGUOUS: runs of up to 4096 bytes) and appends them to *chain.
 * Each block can be freed on its own.
 * Returns: 1 on success; 0 when memory is exhausted, with *chain and the heap as they were. */
BOOST_ALLOCPLUS_CORE_API int ba_multialloc_nodes(size_t n, size_t elem_size, size_t contiguous_elements,
   ba_chain *chain);
/* The same for n arrays of lengths[i] * sizeof_element bytes each. */
BOOST_ALLOCPLUS_CORE_API int ba_multialloc_arrays(size_t n, const size_t *lengths, size_t sizeof_element,
   size_t contiguous_elements, ba_chain *chain);
/* Effects: frees every block of *chain under one lock, merging runs of blocks that are adjacent in
 * memory into one free; leaves *chain empty. The blocks may come from any allocation function of
 * the default heap. */
BOOST_ALLOCPLUS_CORE_API void ba_multidealloc(ba_chain *chain);

/* Effects: returns every free page the default heap can give back to the system (top beyond pad
 * bytes and whole free segments). Returns: the bytes released. */
BOOST_ALLOCPLUS_CORE_API size_t ba_trim(size_t pad);
/* Effects: gives back what of the default heap's free top has stayed unused for the decay delay
 * (BA_OPTION_DECAY_MS), as the heap's own slow paths do now and then; for a program that has
 * gone quiet. Returns: the bytes released. */
BOOST_ALLOCPLUS_CORE_API size_t ba_collect(void);
/* Effects: starts a thread that calls ba_collect every half decay delay (at least every 10 ms),
 * for a program that goes idle after freeing; does nothing if it runs already. The child of a
 * fork has none. Returns: 0, or pthread_create's error. */
BOOST_ALLOCPLUS_CORE_API int ba_collector_start(void);
/* Effects: stops the thread ba_collector_start started, if any, and waits for it. */
BOOST_ALLOCPLUS_CORE_API void ba_collector_stop(void);
/* The default heap, for the ba_heap_* functions. */
BOOST_ALLOCPLUS_CORE_API ba_heap *ba_default_heap(void);

/* Effects: gives the blocks the calling thread's cache holds, and the full magazines shared
 * between the threads, back to the default heap (so that ba_trim can return them). A thread's
 * cache is given back when the thread exits, by ba_trim, and before an allocation reports that
 * memory is exhausted. Complexity: linear in the blocks given back. */
BOOST_ALLOCPLUS_CORE_API void ba_thread_cache_flush(void);

/* ---------------------------------------------------------------------------------------------
 * Independent heaps. Every block must be freed to the heap that allocated it.
 * ------------------------------------------------------------------------------------------- */

/* Returns: a new heap whose memory comes from mmap, reserving address space in segments of
 * `capacity` bytes (0: a default; less when the system refuses that much), with a lock if
 * `locked` is 1; null if the system refuses, or with errno EINVAL if `locked` is
 * BA_HEAP_PROCESS_SHARED (this memory is private to the process). */
BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap(size_t capacity, int locked);
/* Returns: a new heap that lives entirely in [base, base + size) and never asks the system for
 * memory; null if the buffer is too small (under 4 KiB) to hold the heap.
 * `locked`: 0 (no lock: one thread at a time), 1 (a lock between the threads of this process) or
 * BA_HEAP_PROCESS_SHARED (a lock between processes: for a buffer in shared memory, mapped at the
 * same address in each of them, as after fork; a process that ends while it holds the lock is
 * reported to the diagnostic handler by the next one that waits for it). A buffer in shared
 * memory without BA_HEAP_PROCESS_SHARED is refused: null with errno EINVAL (found once, at
 * creation, in /proc/self/maps).
 * The core keeps no pointer to the heap: a heap over a buffer may be abandoned without
 * ba_destroy_heap (under ASan, destroy it before the buffer is reused: that unpoisons it). fork
 * does not lock it: in a program with other threads, the child may use it only if no other thread
 * could be using it at the fork (a process-shared heap needs nothing: parent and child share it).
 * Complexity: linear in the number of the process's mappings (one read of /proc/self/maps). */
BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap_over(void *base, size_t size, int locked);
/* Effects: releases every segment and huge block of h to the system (nothing for a heap over a
 * buffer). Returns: the bytes released. Must not be called on the default heap. */
BOOST_ALLOCPLUS_CORE_API size_t ba_destroy_heap(ba_heap *h);

BOOST_ALLOCPLUS_CORE_API void  *ba_heap_malloc(ba_heap *h, size_t n);
BOOST_ALLOCPLUS_CORE_API void   ba_heap_free(ba_heap *h, void *p);
BOOST_ALLOCPLUS_CORE_API void  *ba_heap_calloc(ba_heap *h, size_t n, size_t size);
BOOST_ALLOCPLUS_CORE_API void  *ba_heap_realloc(ba_heap *h, void *p, size_t n);
BOOST_ALLOCPLUS_CORE_API void  *ba_heap_memalign(ba_heap *h, size_t alignment, size_t n);
BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_heap_allocation_command(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr);
BOOST_ALLOCPLUS_CORE_API int    ba_heap_multialloc_nodes(ba_heap *h, size_t n, size_t elem_size,
   size_t contiguous_elements, ba_chain *chain);
BOOST_ALLOCPLUS_CORE_API int    ba_heap_multialloc_arrays(ba_heap *h, size_t n, const size_t *lengths,
   size_t sizeof_element, size_t contiguous_elements, ba_chain *chain);
BOOST_ALLOCPLUS_CORE_API void   ba_heap_multidealloc(ba_heap *h, ba_chain *chain);
BOOST_ALLOCPLUS_CORE_API size_t ba_heap_trim(ba_heap *h, size_t pad);
/* ba_collect for heap h. */
BOOST_ALLOCPLUS_CORE_API size_t ba_heap_collect(ba_heap *h);
/* Effects: h reads the time (milliseconds, for the decay delay) from now_ms (null: the monotonic
 * clock); a decay in progress starts over. For tests and simulations. Returns: the previous one. */
BOOST_ALLOCPLUS_CORE_API ba_clock_fn ba_heap_set_clock(ba_heap *h, ba_clock_fn now_ms);

/* Effects: sets an option (BA_OPTION_*). Returns: 1, or 0 for an unknown option. Setting the
 * trim or mmap threshold stops the heap from adjusting it by itself. */
BOOST_ALLOCPLUS_CORE_API int    ba_heap_set_option(ba_heap *h, int option, size_t value);
/* Effects: system_bytes may not exceed `bytes` from now on (SIZE_MAX: no limit); allocations that
 * would need more fail as out of memory. Returns: the previous limit. */
BOOST_ALLOCPLUS_CORE_API size_t ba_heap_set_footprint_limit(ba_heap *h, size_t bytes);
/* Effects: fills *stats (walking the heap for the free-chunk figures). */
BOOST_ALLOCPLUS_CORE_API void   ba_heap_stats_get(ba_heap *h, ba_heap_stats *stats);
/* Effects: walks every segment, chunk, bin and huge block of h and verifies every invariant; for
 * the default heap, the calling thread's cache and the depot of cached blocks as well (another
 * thread's cache changes without a lock: ba_check_quiescent walks those).
 * Returns: 1 when the heap is sound; 0 with *report (if not null) naming the first broken one.
 * Complexity: linear in the heap's chunks and cached blocks. */
BOOST_ALLOCPLUS_CORE_API int    ba_heap_check(ba_heap *h, ba_check_report *report);

/* Shorthands for the default heap. */
BOOST_ALLOCPLUS_CORE_API void   ba_stats(ba_heap_stats *stats);
BOOST_ALLOCPLUS_CORE_API int    ba_check(ba_check_report *report);
/* Effects: as ba_check, and walks every other thread's cache too.
 * Requires: no other thread calls the default heap (ba_malloc, ba_free, ba::allocator...) during
 * the call: they are quiescent (joined, or waiting on something this thread controls).
 * Returns: as ba_check. */
BOOST_ALLOCPLUS_CORE_API int    ba_check_quiescent(ba_check_report *report);

/* Effects: a misuse found by a heap (a free of a pointer it did not hand out, a corrupted chunk)
 * is reported to `handler` (null: the default, which prints the message and aborts). The handler
 * must not return into the heap; if it does, the heap aborts. Returns: the previous handler. */
BOOST_ALLOCPLUS_CORE_API ba_diagnostic_handler ba_set_diagnostic_handler(ba_diagnostic_handler handler);

BOOST_ALLOCPLUS_CORE_END_FUNCS
BOOST_ALLOCPLUS_CORE_BEGIN_DECLS

/* ---------------------------------------------------------------------------------------------
 * Chain helpers. A node is any block of at least one pointer; its first word is the link.
 * ------------------------------------------------------------------------------------------- */

BOOST_ALLOCPLUS_CORE_HELPER void ba_chain_init(ba_chain *c) { c->first = 0; c->last = 0; c->size = 0; }
BOOST_ALLOCPLUS_CORE_HELPER int  ba_chain_empty(const ba_chain *c) { return c->first == 0; }
/* Returns: the node after `node` in its chain, or null after the last. */
BOOST_ALLOCPLUS_CORE_HELPER void *ba_chain_next(const void *node) { return *(void *const *)node; }
BOOST_ALLOCPLUS_CORE_HELPER void ba_chain_push_back(ba_chain *c, void *node)
{
   *(void **)node = 0;
   if (c->last) *(void **)c->last = node; else c->first = node;
   c->last = node;
   ++c->size;
}
BOOST_ALLOCPLUS_CORE_HELPER void ba_chain_push_front(ba_chain *c, void *node)
{
   *(void **)node = c->first;
   if (!c->first) c->last = node;
   c->first = node;
   ++c->size;
}
/* Precondition: !ba_chain_empty(c). Returns: the first node, unlinked. */
BOOST_ALLOCPLUS_CORE_HELPER void *ba_chain_pop_front(ba_chain *c)
{
   void *node = c->first;
   c->first = *(void **)node;
   if (!c->first) c->last = 0;
   --c->size;
   return node;
}
/* Effects: moves every node of *from to the end of *to; *from becomes empty. */
BOOST_ALLOCPLUS_CORE_HELPER void ba_chain_splice_back(ba_chain *to, ba_chain *from)
{
   if (!from->first) return;
   if (to->last) *(void **)to->last = from->first; else to->first = from->first;
   to->last = from->last;
   to->size += from->size;
   from->first = from->last = 0;
   from->size = 0;
}

BOOST_ALLOCPLUS_CORE_END_DECLS

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
/* The C names, also in the global namespace for C++ code. */
using boost::allocplus::core_abi_v1::ba_heap;
using boost::allocplus::core_abi_v1::ba_command_ret;
using boost::allocplus::core_abi_v1::ba_chain;
using boost::allocplus::core_abi_v1::ba_heap_stats;
using boost::allocplus::core_abi_v1::ba_check_report;
using boost::allocplus::core_abi_v1::ba_diagnostic_handler;
using boost::allocplus::core_abi_v1::ba_malloc;
using boost::allocplus::core_abi_v1::ba_free;
using boost::allocplus::core_abi_v1::ba_calloc;
using boost::allocplus::core_abi_v1::ba_realloc;
using boost::allocplus::core_abi_v1::ba_memalign;
using boost::allocplus::core_abi_v1::ba_usable_size;
using boost::allocplus::core_abi_v1::ba_allocation_command;
using boost::allocplus::core_abi_v1::ba_multialloc_nodes;
using boost::allocplus::core_abi_v1::ba_multialloc_arrays;
using boost::allocplus::core_abi_v1::ba_multidealloc;
using boost::allocplus::core_abi_v1::ba_trim;
using boost::allocplus::core_abi_v1::ba_collect;
using boost::allocplus::core_abi_v1::ba_collector_start;
using boost::allocplus::core_abi_v1::ba_collector_stop;
using boost::allocplus::core_abi_v1::ba_default_heap;
using boost::allocplus::core_abi_v1::ba_thread_cache_flush;
using boost::allocplus::core_abi_v1::ba_create_heap;
using boost::allocplus::core_abi_v1::ba_create_heap_over;
using boost::allocplus::core_abi_v1::ba_destroy_heap;
using boost::allocplus::core_abi_v1::ba_heap_malloc;
using boost::allocplus::core_abi_v1::ba_heap_free;
using boost::allocplus::core_abi_v1::ba_heap_calloc;
using boost::allocplus::core_abi_v1::ba_heap_realloc;
using boost::allocplus::core_abi_v1::ba_heap_memalign;
using boost::allocplus::core_abi_v1::ba_heap_allocation_command;
using boost::allocplus::core_abi_v1::ba_heap_multialloc_nodes;
using boost::allocplus::core_abi_v1::ba_heap_multialloc_arrays;
using boost::allocplus::core_abi_v1::ba_heap_multidealloc;
using boost::allocplus::core_abi_v1::ba_heap_trim;
using boost::allocplus::core_abi_v1::ba_heap_collect;
using boost::allocplus::core_abi_v1::ba_heap_set_clock;
using boost::allocplus::core_abi_v1::ba_clock_fn;
using boost::allocplus::core_abi_v1::ba_heap_set_option;
using boost::allocplus::core_abi_v1::ba_heap_set_footprint_limit;
using boost::allocplus::core_abi_v1::ba_heap_stats_get;
using boost::allocplus::core_abi_v1::ba_heap_check;
using boost::allocplus::core_abi_v1::ba_stats;
using boost::allocplus::core_abi_v1::ba_check;
using boost::allocplus::core_abi_v1::ba_check_quiescent;
using boost::allocplus::core_abi_v1::ba_set_diagnostic_handler;
using boost::allocplus::core_abi_v1::ba_chain_init;
using boost::allocplus::core_abi_v1::ba_chain_empty;
using boost::allocplus::core_abi_v1::ba_chain_next;
using boost::allocplus::core_abi_v1::ba_chain_push_back;
using boost::allocplus::core_abi_v1::ba_chain_push_front;
using boost::allocplus::core_abi_v1::ba_chain_pop_front;
using boost::allocplus::core_abi_v1::ba_chain_splice_back;
#endif

/* The implementation, where this unit needs it. BOOST_ALLOCPLUS_CORE_DETAIL_DECLARATIONS_ONLY
 * leaves it out: it is only for the test that compiles each file of the implementation alone. */
#if (defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY) || defined(BOOST_ALLOCPLUS_CORE_IMPLEMENTATION)) \
    && !defined(BOOST_ALLOCPLUS_CORE_DETAIL_DECLARATIONS_ONLY)
#  include <boost/allocplus/core/detail/dlmalloc_impl.h>
#endif

#endif /* BOOST_ALLOCPLUS_CORE_DLMALLOC_H */
