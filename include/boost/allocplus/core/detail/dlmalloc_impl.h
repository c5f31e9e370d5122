/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The implementation of <boost/allocplus/core/dlmalloc.h>. Included by that header only: in C++
 * (header-only) every function is inline and the state is inline variables; in C the one
 * translation unit that defines BOOST_ALLOCPLUS_CORE_IMPLEMENTATION compiles it.
 *
 * Layout (dlmalloc 2.8): a chunk is {prev_foot, head, payload...}. `head` holds the chunk size and
 * two bits: PINUSE (the previous chunk is in use) and CINUSE (this chunk is in use). A free chunk
 * repeats its size in the prev_foot of the next chunk (the boundary tag), so frees coalesce in
 * constant time. An in-use chunk costs one word: its payload runs over the next chunk's prev_foot.
 * Huge chunks (mapped directly) have both bits clear and keep in prev_foot their offset from the
 * mapping's base, where a huge_header sits.
 *
 * Memory comes from segments: address-space reservations committed from the bottom up. The
 * chunks of a segment end with a 16-byte fence (an in-use chunk that is never freed); the top
 * chunk, the free space of the newest segment, lies just below the fence and grows by committing
 * more of the reservation.
 *
 * Locking: the public functions take the heap's lock (when it has one) and do the accounting of
 * statistics; the ba_detail_ functions below never lock and never account.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#  include <sys/single_threaded.h>
#  define BA_DETAIL_HAVE_SINGLE_THREADED 1
#endif

/* Strict C11 hides the BSD/Linux names; their values are the Linux ABI's. */
#ifndef MAP_ANONYMOUS
#  define MAP_ANONYMOUS 0x20
#endif
#ifndef MAP_NORESERVE
#  define MAP_NORESERVE 0x4000
#endif
#if !defined(MAP_FIXED_NOREPLACE) && defined(__linux__)
#  define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The state has default visibility: one heap per process even across shared libraries built
 * with hidden visibility. */
/* BA_DETAIL_OUT_OF_LINE_FN: a function kept out of its callers (C rejects noinline with inline). */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
#  define BA_DETAIL_FN inline BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_OUT_OF_LINE_FN inline __attribute__((noinline)) BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_STATE __attribute__((visibility("default"))) inline
#else
#  define BA_DETAIL_FN static inline BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_OUT_OF_LINE_FN static __attribute__((noinline)) BOOST_ALLOCPLUS_CORE_NO_ASAN
   /* Weak, so that it merges with the C++ units' inline definition of the same object. */
#  define BA_DETAIL_STATE __attribute__((visibility("default"), weak))
#endif

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#endif
/* Valgrind client requests: on in checked builds where the header exists, or when asked. */
#if !defined(BOOST_ALLOCPLUS_VALGRIND) && BOOST_ALLOCPLUS_CHECKED && defined(__has_include)
#  if __has_include(<valgrind/memcheck.h>)
#    define BOOST_ALLOCPLUS_VALGRIND 1
#  endif
#endif
#if defined(BOOST_ALLOCPLUS_VALGRIND) && BOOST_ALLOCPLUS_VALGRIND
#  include <valgrind/memcheck.h>
#  define BA_DETAIL_VALGRIND 1
#endif

#define BA_DETAIL_LIKELY(x)   __builtin_expect(!!(x), 1)
#define BA_DETAIL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the few steps of a hot path that the compiler would otherwise keep as calls (measured on
 * the growth of small vectors). */
#define BA_DETAIL_ALWAYS_INLINE __attribute__((always_inline))
/* What the C++ side calls on its hot paths and must not pay a call for: ba_detail_inline_command,
 * the allocation command with its short paths (our own containers' growth and every container's
 * shrink; see detail/core_allocator_base.hpp), and ba_detail_default (every call on the default
 * heap). In header-only builds these are forced into their callers. The C API functions
 * (ba_allocation_command, ba_heap_allocation_command) are ordinary functions around the command,
 * each with its own copy of the body; the general path stays one call away (ba_detail_command). */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY) && !defined(BOOST_ALLOCPLUS_CORE_ASAN)
   /* (Not under ASan: the core is built uninstrumented there, and GCC will not force such a
    * function into an instrumented caller.) */
#  define BA_DETAIL_INLINE_INTO_CALLERS BA_DETAIL_ALWAYS_INLINE
#else
#  define BA_DETAIL_INLINE_INTO_CALLERS
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define BA_DETAIL_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define BA_DETAIL_SANITIZED 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__)
#  define BA_DETAIL_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define BA_DETAIL_TSAN 1
#  endif
#endif

BOOST_ALLOCPLUS_CORE_BEGIN_DECLS

/* ---------------------------------------------------------------------------------------------
 * Geometry
 * ------------------------------------------------------------------------------------------- */

#define BA_DETAIL_WORD            sizeof(size_t)
#define BA_DETAIL_ALIGN           ((size_t)BA_MALLOC_ALIGNMENT)
#define BA_DETAIL_ALIGN_MASK      (BA_DETAIL_ALIGN - 1)
#define BA_DETAIL_PINUSE          ((size_t)1)
#define BA_DETAIL_CINUSE          ((size_t)2)
#define BA_DETAIL_INUSE_BITS      ((size_t)3)
#define BA_DETAIL_QUICK           ((size_t)4)  /* an in-use chunk held in a quick list */
#define BA_DETAIL_FLAG_BITS       ((size_t)7)
#define BA_DETAIL_CHUNK_OVERHEAD  BA_DETAIL_WORD       /* an in-use chunk's head */
#define BA_DETAIL_HUGE_OVERHEAD   (2 * BA_DETAIL_WORD) /* a huge chunk has no next prev_foot to use */
#define BA_DETAIL_MIN_CHUNK       ((size_t)(4 * sizeof(void *)))
#define BA_DETAIL_FENCE_SIZE      (2 * BA_DETAIL_WORD)
#define BA_DETAIL_MIN_REQUEST     (BA_DETAIL_MIN_CHUNK - BA_DETAIL_CHUNK_OVERHEAD - 1)
/* Far above anything the system can give; keeps every size computation below from overflowing. */
#define BA_DETAIL_MAX_REQUEST     ((~(size_t)0) >> 2)

/* 64 exact-size small bins (chunks of 32..1008 bytes on 64-bit targets, every size a request up
 * to 1000 bytes can have): the sizes of list, map and shared_ptr nodes never reach a tree bin. */
#define BA_DETAIL_NSMALLBINS      64u
#define BA_DETAIL_NTREEBINS       32u
#define BA_DETAIL_SMALLBIN_SHIFT  (sizeof(void *) == 8 ? 4u : 3u)
#define BA_DETAIL_TREEBIN_SHIFT   (BA_DETAIL_SMALLBIN_SHIFT + 6u)
#define BA_DETAIL_MIN_LARGE_SIZE  ((size_t)1 << BA_DETAIL_TREEBIN_SHIFT)
#define BA_DETAIL_MAX_SMALL_SIZE  (BA_DETAIL_MIN_LARGE_SIZE - 1)
#define BA_DETAIL_MAX_SMALL_REQUEST (BA_DETAIL_MAX_SMALL_SIZE - BA_DETAIL_ALIGN_MASK - BA_DETAIL_CHUNK_OVERHEAD)
#define BA_DETAIL_SIZE_BITS       (sizeof(size_t) * 8u)
/* Freed small chunks each quick list holds before frees coalesce again (glibc's tcache holds 7 a
 * size): enough for random-size churn to find most sizes there, little memory kept from reuse. */
#define BA_DETAIL_QUICK_LIMIT     8u

/* Defaults. Numbers from dlmalloc and glibc unless said otherwise. */
#define BA_DETAIL_COMMIT_GRANULE       ((size_t)64 << 10)
#define BA_DETAIL_TOP_PAD              ((size_t)128 << 10)
#define BA_DETAIL_TRIM_THRESHOLD       ((size_t)2 << 20)
#define BA_DETAIL_MMAP_THRESHOLD       ((size_t)256 << 10)
#define BA_DETAIL_MMAP_THRESHOLD_MAX   ((size_t)32 << 20)  /* the dynamic threshold stops here */
#define BA_DETAIL_TRIM_THRESHOLD_MAX   ((size_t)64 << 20)  /* and the trim threshold's here */
#define BA_DETAIL_RELEASE_RATE         ((size_t)4095)
/* Address space reserved per segment: the default heap's is large so it rarely needs a second
 * segment; a created heap's is smaller since programs may create many. */
#define BA_DETAIL_DEFAULT_SEGMENT      ((size_t)1 << 30)
#define BA_DETAIL_CREATED_SEGMENT      ((size_t)64 << 20)
/* Address space kept after a huge block so that expand_fwd can grow it in place: at least as much
 * as the block (so it can double) and at least 64 MiB, at most the huge reserve option. Sanitizer
 * runtimes dislike terabytes of reservations, hence the smaller cap there. */
#define BA_DETAIL_HUGE_EXTRA_MIN       ((size_t)64 << 20)
#if defined(BA_DETAIL_SANITIZED)
#  define BA_DETAIL_HUGE_RESERVE       ((size_t)1 << 30)
#else
#  define BA_DETAIL_HUGE_RESERVE       ((size_t)4 << 30)
#endif
#define BA_DETAIL_BURST_RUN_BYTES      ((size_t)4096)
#define BA_DETAIL_MIN_BUFFER           ((size_t)4096)

/* ---------------------------------------------------------------------------------------------
 * Structures
 * ------------------------------------------------------------------------------------------- */

typedef struct ba_detail_chunk {
   size_t prev_foot;                /* size of the previous chunk, if it is free */
   size_t head;                     /* size of this chunk | PINUSE | CINUSE */
   struct ba_detail_chunk *fd;      /* free chunks only: bin ring links */
   struct ba_detail_chunk *bk;
} ba_detail_chunk;

/* A free chunk of a tree bin. Chunks of one size form a ring; one of them (with parent != 0) is
 * the node of the bitwise trie of its bin. The chunk comes first so that the two pointer types
 * convert into each other. */
typedef struct ba_detail_tree_chunk {
   ba_detail_chunk c;
   struct ba_detail_tree_chunk *child[2];
   struct ba_detail_tree_chunk *parent;
   unsigned index;
} ba_detail_tree_chunk;

/* A segment: one address-space reservation [base, base + reserved) committed up to
 * base + committed. This record sits at base; the chunks start at chunks_begin. */
typedef struct ba_detail_segment {
   char *base;
   size_t reserved;
   size_t committed;
   char *chunks_begin;
   struct ba_detail_segment *next;
   unsigned flags;
} ba_detail_segment;

#define BA_DETAIL_SEGMENT_EXTERNAL   1u  /* a caller's buffer: never committed, trimmed or unmapped */
#define BA_DETAIL_SEGMENT_PERMANENT  2u  /* holds the heap record itself: released with the heap */

/* The record at the base of every huge block's mapping. */
typedef struct ba_detail_huge_header {
   struct ba_detail_huge_header *next;
   struct ba_detail_huge_header *prev;
   size_t reserved;
   size_t committed;
   size_t chunk_offset;             /* where the chunk starts (after alignment padding) */
   ba_heap *heap;
   size_t magic;                    /* heap address ^ BA_DETAIL_HUGE_MAGIC: frees check it */
} ba_detail_huge_header;

#define BA_DETAIL_HUGE_MAGIC ((size_t)0x5ba1ab1e5ba1ab1eull)

#define BA_DETAIL_HEAP_READY        1u
#define BA_DETAIL_HEAP_USER_TRIM    2u  /* the trim threshold was set: do not adjust it */
#define BA_DETAIL_HEAP_USER_MMAP    4u  /* the mmap threshold was set: do not adjust it */
#define BA_DETAIL_HEAP_NO_SYSTEM    8u  /* lives in a caller's buffer: no mmap at all */
#define BA_DETAIL_HEAP_EMBEDDED    16u  /* the record lives in its own first segment */
#define BA_DETAIL_HEAP_USER_RESERVE 32u /* the huge reserve was set: reserve exactly that */

struct ba_heap {
   int lock_word;
   int use_lock;
   unsigned flags;
   uint64_t smallmap;               /* bit i: small bin i is not empty */
   unsigned treemap;                /* bit i: tree bin i is not empty */
   size_t dvsize;
   size_t topsize;
   ba_detail_chunk *dv;             /* the designated victim: last split remainder */
   ba_detail_chunk *top;
   char *least_addr;
   ba_detail_segment *segments;     /* newest first */
   ba_detail_segment *top_segment;
   ba_detail_huge_header *huge;
   size_t segment_reserve;
   size_t trim_threshold;
   size_t trim_check;               /* trim_threshold, or SIZE_MAX after a trim found nothing */
   /* The top was trimmed on its own since the heap last grew. Not a flag: flags is read without
    * the lock (whether the heap is ready), so it is written only before the heap is shared. */
   int trimmed_since_growth;
   size_t mmap_threshold;
   size_t release_rate;
   size_t release_countdown;
   size_t huge_reserve;
   size_t top_pad;
   size_t footprint;
   size_t max_footprint;
   size_t footprint_limit;
   size_t in_use_bytes;
   size_t peak_in_use_bytes;
   size_t in_use_chunks;
   size_t huge_blocks;
   size_t huge_bytes;
   ba_heap *registry_next;          /* every heap, for fork */
   ba_heap *registry_prev;
   ba_detail_chunk smallbins[BA_DETAIL_NSMALLBINS];  /* ring heads; valid while the map bit is set */
   /* Quick lists: freed small chunks of one exact size each, linked through their first payload
    * word, left in use (flag QUICK) so that nothing coalesces with them until they are flushed.
    * A free and the next malloc of a size then touch one chunk instead of its neighbours and
    * two bin lists (ptmalloc's fast bins; glibc's tcache does the same per thread). */
   ba_detail_chunk *quick[BA_DETAIL_NSMALLBINS];
   unsigned char quick_count[BA_DETAIL_NSMALLBINS];
   size_t quick_chunks;
   ba_detail_tree_chunk *treebins[BA_DETAIL_NTREEBINS];
};

/* ---------------------------------------------------------------------------------------------
 * Process-wide state (constant-initialized: zero)
 * ------------------------------------------------------------------------------------------- */

typedef struct ba_detail_state {
   ba_heap default_heap;
   int registry_lock;
   ba_heap *registry;               /* every heap, for fork */
   size_t page_size;                /* 0 until the first heap is set up */
   ba_diagnostic_handler handler;
   int fork_locked;                 /* the fork handlers took the heaps' locks */
} ba_detail_state;

/* One object with C linkage and a versioned name: the C implementation and every C++ unit (and
 * every shared library, whatever its visibility) resolve it to one heap. */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
extern "C" {
BA_DETAIL_STATE ba_detail_state ba_core_v1_state;
}
#else
BA_DETAIL_STATE ba_detail_state ba_core_v1_state;
#endif

#define ba_detail_default_heap_storage (ba_core_v1_state.default_heap)
#define ba_detail_registry_lock        (ba_core_v1_state.registry_lock)
#define ba_detail_registry             (ba_core_v1_state.registry)
#define ba_detail_page_size            (ba_core_v1_state.page_size)
#define ba_detail_handler              (ba_core_v1_state.handler)
#define ba_detail_fork_locked          (ba_core_v1_state.fork_locked)

BOOST_ALLOCPLUS_CORE_END_DECLS
BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* ---------------------------------------------------------------------------------------------
 * Chunk operations
 * ------------------------------------------------------------------------------------------- */

typedef ba_detail_chunk ba_detail_ch;
typedef ba_detail_tree_chunk ba_detail_tch;

BA_DETAIL_FN size_t ba_detail_chunksize(const ba_detail_ch *p) { return p->head & ~BA_DETAIL_FLAG_BITS; }
BA_DETAIL_FN int ba_detail_cinuse(const ba_detail_ch *p) { return (p->head & BA_DETAIL_CINUSE) != 0; }
BA_DETAIL_FN int ba_detail_pinuse(const ba_detail_ch *p) { return (p->head & BA_DETAIL_PINUSE) != 0; }
BA_DETAIL_FN int ba_detail_is_huge(const ba_detail_ch *p) { return (p->head & BA_DETAIL_INUSE_BITS) == 0; }
BA_DETAIL_FN ba_detail_ch *ba_detail_plus(const void *p, size_t s) { return (ba_detail_ch *)((char *)p + s); }
BA_DETAIL_FN ba_detail_ch *ba_detail_minus(const void *p, size_t s) { return (ba_detail_ch *)((char *)p - s); }
BA_DETAIL_FN void *ba_detail_chunk2mem(const ba_detail_ch *p) { return (char *)p + 2 * BA_DETAIL_WORD; }
BA_DETAIL_FN ba_detail_ch *ba_detail_mem2chunk(const void *m) { return (ba_detail_ch *)((char *)m - 2 * BA_DETAIL_WORD); }
BA_DETAIL_FN size_t ba_detail_overhead(const ba_detail_ch *p)
{ return ba_detail_is_huge(p) ? BA_DETAIL_HUGE_OVERHEAD : BA_DETAIL_CHUNK_OVERHEAD; }
BA_DETAIL_FN size_t ba_detail_usable(const ba_detail_ch *p) { return ba_detail_chunksize(p) - ba_detail_overhead(p); }

BA_DETAIL_FN size_t ba_detail_pad_request(size_t n)
{ return (n + BA_DETAIL_CHUNK_OVERHEAD + BA_DETAIL_ALIGN_MASK) & ~BA_DETAIL_ALIGN_MASK; }
/* Precondition: n < BA_DETAIL_MAX_REQUEST. */
BA_DETAIL_FN size_t ba_detail_request2size(size_t n)
{ return n < BA_DETAIL_MIN_REQUEST ? BA_DETAIL_MIN_CHUNK : ba_detail_pad_request(n); }
BA_DETAIL_FN size_t ba_detail_round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }
BA_DETAIL_FN int ba_detail_is_pow2(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

/* The head of an in-use block is read without the lock (ba_usable_size) while the heap flips its
 * PINUSE bit under the lock when the chunk before it is freed or allocated: both sides use relaxed
 * atomics, which are plain moves on common targets. */
BA_DETAIL_FN size_t ba_detail_load_head(const ba_detail_ch *p) { return __atomic_load_n(&p->head, __ATOMIC_RELAXED); }
BA_DETAIL_FN void ba_detail_set_pinuse_of(ba_detail_ch *p)
{ __atomic_store_n(&p->head, ba_detail_load_head(p) | BA_DETAIL_PINUSE, __ATOMIC_RELAXED); }
BA_DETAIL_FN void ba_detail_clear_pinuse_of(ba_detail_ch *p)
{ __atomic_store_n(&p->head, ba_detail_load_head(p) & ~BA_DETAIL_PINUSE, __ATOMIC_RELAXED); }

BA_DETAIL_FN void ba_detail_set_foot(ba_detail_ch *p, size_t s) { ba_detail_plus(p, s)->prev_foot = s; }
BA_DETAIL_FN void ba_detail_set_free_chunk(ba_detail_ch *p, size_t s)
{ p->head = s | BA_DETAIL_PINUSE; ba_detail_set_foot(p, s); }
BA_DETAIL_FN void ba_detail_set_free_with_pinuse(ba_detail_ch *p, size_t s, ba_detail_ch *next)
{ ba_detail_clear_pinuse_of(next); ba_detail_set_free_chunk(p, s); }
/* Marks p in use with size s, keeping its PINUSE bit, and tells the next chunk. */
BA_DETAIL_FN void ba_detail_set_inuse(ba_detail_ch *p, size_t s)
{
   p->head = (p->head & BA_DETAIL_PINUSE) | s | BA_DETAIL_CINUSE;
   ba_detail_set_pinuse_of(ba_detail_plus(p, s));
}
BA_DETAIL_FN void ba_detail_set_inuse_and_pinuse(ba_detail_ch *p, size_t s)
{
   p->head = s | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE;
   ba_detail_set_pinuse_of(ba_detail_plus(p, s));
}
BA_DETAIL_FN void ba_detail_set_size_and_pinuse_of_inuse(ba_detail_ch *p, size_t s)
{ p->head = s | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE; }

/* ---------------------------------------------------------------------------------------------
 * Instrumentation. Under ASan every byte the heap owns is poisoned except the requested bytes of
 * the blocks it handed out, so an overrun or a use after free of a block is reported as it is for
 * malloc's. Under valgrind, blocks are announced as malloc-like, so leaks are reported.
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN void ba_detail_poison(const void *p, size_t n)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   __asan_poison_memory_region(p, n);
#else
   (void)p; (void)n;
#endif
}
BA_DETAIL_FN void ba_detail_unpoison(const void *p, size_t n)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   __asan_unpoison_memory_region(p, n);
#else
   (void)p; (void)n;
#endif
}
/* A block of `usable` bytes at mem is handed out for `bytes` bytes. */
BA_DETAIL_FN void ba_detail_block_born(void *mem, size_t usable, size_t bytes)
{
   ba_detail_poison(mem, usable);
   ba_detail_unpoison(mem, bytes);
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MALLOCLIKE_BLOCK(mem, bytes, 0, 0);
#endif
}
/* A block kept its contents while it moved from old_mem to mem or changed size. */
BA_DETAIL_FN void ba_detail_block_moved(void *old_mem, void *mem, size_t usable, size_t bytes)
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_FREELIKE_BLOCK(old_mem, 0);
#else
   (void)old_mem;
#endif
   ba_detail_block_born(mem, usable, bytes);
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MAKE_MEM_DEFINED(mem, bytes);
#endif
}
/* A block is given back; the heap may then write its links into it. */
BA_DETAIL_FN void ba_detail_block_died(void *mem, size_t usable)
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_FREELIKE_BLOCK(mem, 0);
   VALGRIND_MAKE_MEM_UNDEFINED(mem, usable);
#endif
   ba_detail_poison(mem, usable);
}
/* Returns: the bytes of the block at mem its owner may use: all of them, or under ASan the ones
 * not poisoned (what it asked for). */
BA_DETAIL_FN size_t ba_detail_exposed(const void *mem, size_t usable)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   const char *bad = (const char *)__asan_region_is_poisoned((void *)(uintptr_t)mem, usable);
   return bad ? (size_t)(bad - (const char *)mem) : usable;
#else
   (void)mem;
   return usable;
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Usage errors
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN void ba_detail_unlock(ba_heap *h);

/* Reports a misuse and never returns. The lock is released first so that a handler that leaves
 * by longjmp or exit leaves a usable heap behind. */
BA_DETAIL_FN void ba_detail_usage_error(ba_heap *h, const char *what, const void *address)
{
   ba_diagnostic_handler handler = __atomic_load_n(&ba_detail_handler, __ATOMIC_ACQUIRE);
   ba_detail_unlock(h);
   if (handler) {
      handler(what, address, h);
   } else {
      fprintf(stderr, "allocplus core heap %p: %s at %p\n", (const void *)h, what, address);
      fflush(stderr);
   }
   abort();
}

/* ---------------------------------------------------------------------------------------------
 * Bins
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN int ba_detail_is_small(size_t s) { return (s >> BA_DETAIL_SMALLBIN_SHIFT) < BA_DETAIL_NSMALLBINS; }
BA_DETAIL_FN unsigned ba_detail_small_index(size_t s) { return (unsigned)(s >> BA_DETAIL_SMALLBIN_SHIFT); }
BA_DETAIL_FN size_t ba_detail_small_index2size(unsigned i) { return (size_t)i << BA_DETAIL_SMALLBIN_SHIFT; }
BA_DETAIL_FN unsigned ba_detail_least_bit(unsigned x) { return x & (0u - x); }
BA_DETAIL_FN unsigned ba_detail_left_bits(unsigned x) { return (x << 1) | (0u - (x << 1)); }
BA_DETAIL_FN unsigned ba_detail_bit2idx(unsigned x) { return (unsigned)__builtin_ctz(x); }
BA_DETAIL_FN uint64_t ba_detail_small_bit(unsigned i) { return (uint64_t)1 << i; }
BA_DETAIL_FN uint64_t ba_detail_left_bits64(uint64_t x) { return (x << 1) | ((uint64_t)0 - (x << 1)); }
BA_DETAIL_FN unsigned ba_detail_lowest_index64(uint64_t x) { return (unsigned)__builtin_ctzll((unsigned long long)x); }

BA_DETAIL_FN unsigned ba_detail_tree_index(size_t s)
{
   size_t x = s >> BA_DETAIL_TREEBIN_SHIFT;
   if (x == 0) return 0;
   if (x > 0xFFFF) return BA_DETAIL_NTREEBINS - 1;
   {
      unsigned k = (unsigned)(BA_DETAIL_SIZE_BITS - 1) - (unsigned)__builtin_clzl((unsigned long)x);
      return (k << 1) + (unsigned)((s >> (k + (BA_DETAIL_TREEBIN_SHIFT - 1))) & 1);
   }
}
/* The smallest size of tree bin i. */
BA_DETAIL_FN size_t ba_detail_tree_min_size(unsigned i)
{
   return ((size_t)1 << ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT))
        | ((size_t)(i & 1) << ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT - 1));
}
/* The shift that brings the first bit that tells children apart in bin i to the top. */
BA_DETAIL_FN unsigned ba_detail_tree_leftshift(unsigned i)
{
   return i == BA_DETAIL_NTREEBINS - 1 ? 0
        : (unsigned)(BA_DETAIL_SIZE_BITS - 1) - ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT - 2);
}
BA_DETAIL_FN ba_detail_tch *ba_detail_leftmost_child(const ba_detail_tch *t)
{ return t->child[0] ? t->child[0] : t->child[1]; }

BA_DETAIL_FN void ba_detail_insert_small(ba_heap *h, ba_detail_ch *p, size_t s)
{
   unsigned i = ba_detail_small_index(s);
   ba_detail_ch *b = &h->smallbins[i];
   ba_detail_ch *f = b;
   if (!(h->smallmap & ba_detail_small_bit(i))) h->smallmap |= ba_detail_small_bit(i);
   else f = b->fd;
   b->fd = p;
   f->bk = p;
   p->fd = f;
   p->bk = b;
}

BA_DETAIL_FN void ba_detail_unlink_small(ba_heap *h, ba_detail_ch *p, size_t s)
{
   ba_detail_ch *f = p->fd, *b = p->bk;
   unsigned i = ba_detail_small_index(s);
   if (BA_DETAIL_UNLIKELY(f->bk != p || b->fd != p))
      ba_detail_usage_error(h, "corrupted free list (a write after free or an overrun?)", p);
   if (f == b) h->smallmap &= ~ba_detail_small_bit(i);
   else { f->bk = b; b->fd = f; }
}

BA_DETAIL_FN void ba_detail_unlink_first_small(ba_heap *h, ba_detail_ch *b, ba_detail_ch *p, unsigned i)
{
   ba_detail_ch *f = p->fd;
   if (BA_DETAIL_UNLIKELY(f->bk != p))
      ba_detail_usage_error(h, "corrupted free list (a write after free or an overrun?)", p);
   if (b == f) h->smallmap &= ~ba_detail_small_bit(i);
   else { b->fd = f; f->bk = b; }
}

BA_DETAIL_FN void ba_detail_insert_large(ba_heap *h, ba_detail_tch *x, size_t s)
{
   unsigned i = ba_detail_tree_index(s);
   ba_detail_tch **slot = &h->treebins[i];
   x->index = i;
   x->child[0] = x->child[1] = 0;
   if (!(h->treemap & (1u << i))) {
      h->treemap |= 1u << i;
      *slot = x;
      x->parent = (ba_detail_tch *)(void *)slot;   /* a root's parent is its bin slot */
      x->c.fd = x->c.bk = &x->c;
      return;
   }
   {
      ba_detail_tch *t = *slot;
      size_t k = s << ba_detail_tree_leftshift(i);
      for (;;) {
         if (ba_detail_chunksize(&t->c) != s) {
            ba_detail_tch **c = &t->child[(k >> (BA_DETAIL_SIZE_BITS - 1)) & 1];
            k <<= 1;
            if (*c) { t = *c; continue; }
            *c = x;
            x->parent = t;
            x->c.fd = x->c.bk = &x->c;
         } else {
            ba_detail_ch *f = t->c.fd;
            t->c.fd = f->bk = &x->c;
            x->c.fd = f;
            x->c.bk = &t->c;
            x->parent = 0;
         }
         return;
      }
   }
}

BA_DETAIL_FN void ba_detail_unlink_large(ba_heap *h, ba_detail_tch *x)
{
   ba_detail_tch *xp = x->parent;
   ba_detail_tch *r;
   if (x->c.bk != &x->c) {
      ba_detail_ch *f = x->c.fd;
      r = (ba_detail_tch *)(void *)x->c.bk;
      if (BA_DETAIL_UNLIKELY(f->bk != &x->c || r->c.fd != &x->c))
         ba_detail_usage_error(h, "corrupted free list (a write after free or an overrun?)", x);
      f->bk = &r->c;
      r->c.fd = f;
   } else {
      ba_detail_tch **rp;
      if ((r = *(rp = &x->child[1])) != 0 || (r = *(rp = &x->child[0])) != 0) {
         ba_detail_tch **cp;
         while (*(cp = &r->child[1]) != 0 || *(cp = &r->child[0]) != 0) r = *(rp = cp);
         *rp = 0;
      }
   }
   if (xp != 0) {
      ba_detail_tch **slot = &h->treebins[x->index];
      if (x == *slot) {
         if ((*slot = r) == 0) h->treemap &= ~(1u << x->index);
      } else if (xp->child[0] == x) {
         xp->child[0] = r;
      } else {
         xp->child[1] = r;
      }
      if (r != 0) {
         ba_detail_tch *c0, *c1;
         r->parent = xp;
         if ((c0 = x->child[0]) != 0) { r->child[0] = c0; c0->parent = r; }
         if ((c1 = x->child[1]) != 0) { r->child[1] = c1; c1->parent = r; }
      }
   }
}

BA_DETAIL_FN void ba_detail_insert_chunk(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (ba_detail_is_small(s)) ba_detail_insert_small(h, p, s);
   else ba_detail_insert_large(h, (ba_detail_tch *)(void *)p, s);
}

BA_DETAIL_FN void ba_detail_unlink_chunk(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (ba_detail_is_small(s)) ba_detail_unlink_small(h, p, s);
   else ba_detail_unlink_large(h, (ba_detail_tch *)(void *)p);
}

/* Makes p (size s) the designated victim; the previous one goes to its bin. */
BA_DETAIL_FN void ba_detail_replace_dv(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (h->dvsize != 0) ba_detail_insert_chunk(h, h->dv, h->dvsize);
   h->dvsize = s;
   h->dv = p;
}

/* Frees chunk p of size psize into the heap, coalescing with free neighbours. p's head need not
 * be consistent except for its PINUSE bit. */
/* The free chunk p of psize bytes, right before the top, becomes the start of the top. */
BA_DETAIL_FN void ba_detail_merge_into_top(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   h->topsize += psize;
   h->top = p;
   p->head = h->topsize | BA_DETAIL_PINUSE;
}

BA_DETAIL_FN void ba_detail_dispose_chunk(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   ba_detail_ch *next = ba_detail_plus(p, psize);
   if (!ba_detail_pinuse(p)) {
      size_t prevsize = p->prev_foot;
      ba_detail_ch *prev = ba_detail_minus(p, prevsize);
      psize += prevsize;
      p = prev;
      if (p != h->dv) {
         ba_detail_unlink_chunk(h, p, prevsize);
      } else if ((next->head & BA_DETAIL_INUSE_BITS) == BA_DETAIL_INUSE_BITS) {
         h->dvsize = psize;
         ba_detail_set_free_with_pinuse(p, psize, next);
         return;
      }
   }
   if (!ba_detail_cinuse(next)) {
      if (next == h->top) {
         ba_detail_merge_into_top(h, p, psize);
         if (p == h->dv) { h->dv = 0; h->dvsize = 0; }
         return;
      }
      if (next == h->dv) {
         size_t dsize = h->dvsize += psize;
         h->dv = p;
         ba_detail_set_free_chunk(p, dsize);
         return;
      }
      {
         size_t nsize = ba_detail_chunksize(next);
         psize += nsize;
         ba_detail_unlink_chunk(h, next, nsize);
         ba_detail_set_free_chunk(p, psize);
         if (p == h->dv) { h->dvsize = psize; return; }
      }
   } else {
      ba_detail_set_free_with_pinuse(p, psize, next);
   }
   ba_detail_insert_chunk(h, p, psize);
}

/* ---------------------------------------------------------------------------------------------
 * Quick lists (see struct ba_heap)
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN ba_detail_ch **ba_detail_quick_link(ba_detail_ch *p) { return (ba_detail_ch **)ba_detail_chunk2mem(p); }

/* Holds freed small chunk p (size psize) in its quick list. Returns 0 when the list is full. */
BA_DETAIL_FN int ba_detail_quick_push(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   unsigned i = ba_detail_small_index(psize);
   if (h->quick_count[i] >= BA_DETAIL_QUICK_LIMIT) return 0;
   *ba_detail_quick_link(p) = h->quick[i];
   /* The chunk's last word (the next chunk's prev_foot) names its size, as a free chunk's does:
    * backward expansion of the next chunk finds it so (ba_detail_quick_release_before). */
   ba_detail_plus(p, psize)->prev_foot = psize;
   h->quick[i] = p;
   ++h->quick_count[i];
   ++h->quick_chunks;
   p->head |= BA_DETAIL_QUICK;
   return 1;
}

/* Returns: the chunk freed last into quick list i, now in use again, or null. */
BA_DETAIL_FN ba_detail_ch *ba_detail_quick_pop(ba_heap *h, unsigned i)
{
   ba_detail_ch *p = h->quick[i];
   if (p) {
      h->quick[i] = *ba_detail_quick_link(p);
      --h->quick_count[i];
      --h->quick_chunks;
      p->head &= ~BA_DETAIL_QUICK;
   }
   return p;
}

/* Takes the quick chunk `*link` points to out of quick list i; it stays in use (QUICK set) for
 * the caller to free or reuse. */
BA_DETAIL_FN void ba_detail_quick_unlink(ba_heap *h, ba_detail_ch **link, unsigned i)
{
   *link = *ba_detail_quick_link(*link);
   --h->quick_count[i];
   --h->quick_chunks;
}

/* Frees the quick chunk `*link` points to, in quick list i, into the bins (coalescing). */
BA_DETAIL_FN void ba_detail_quick_release_at(ba_heap *h, ba_detail_ch **link, unsigned i)
{
   ba_detail_ch *p = *link;
   ba_detail_quick_unlink(h, link, i);
   ba_detail_dispose_chunk(h, p, ba_detail_chunksize(p));
}

/* Frees quick chunk p into the bins (coalescing), wherever it is in its list. */
BA_DETAIL_FN void ba_detail_quick_release(ba_heap *h, ba_detail_ch *p)
{
   unsigned i = ba_detail_small_index(ba_detail_chunksize(p));
   ba_detail_ch **link = &h->quick[i];
   while (*link != p) link = ba_detail_quick_link(*link);
   ba_detail_quick_release_at(h, link, i);
}

/* If the chunk before in-use chunk p is a quick chunk, returns the link in its quick list that
 * points to it (and the list in *list); else null. The word before p's head is that chunk's size
 * (written by quick_push) or its owner's data: it is believed only if the quick list of that
 * size holds the chunk it points to, found without reading memory the word names. */
BA_DETAIL_FN ba_detail_ch **ba_detail_quick_find_before(ba_heap *h, ba_detail_ch *p, unsigned *list)
{
#if defined(BA_DETAIL_TSAN)
   /* The word may be the owner's, written by another thread: ThreadSanitizer would rightly call
    * the read a race. Backward expansion into quick chunks is left out of TSan builds. */
   (void)h; (void)p; (void)list;
   return 0;
#else
   size_t f;
   ba_detail_ch **link, *prev;
#  if defined(BA_DETAIL_VALGRIND)
   /* Memcheck would report the read of the owner's word, perhaps never written, as undefined. */
   if (RUNNING_ON_VALGRIND) return 0;
#  endif
   f = p->prev_foot;
   if ((f & BA_DETAIL_ALIGN_MASK) != 0 || f < BA_DETAIL_MIN_CHUNK || f > BA_DETAIL_MAX_SMALL_SIZE || h->quick_chunks == 0)
      return 0;
   prev = ba_detail_minus(p, f);
   *list = ba_detail_small_index(f);
   for (link = &h->quick[*list]; *link; link = ba_detail_quick_link(*link))
      if (*link == prev) return link;
   return 0;
#endif
}

/* Whether a quick chunk may lie right before in-use chunk p, where a backward expansion would take
 * it. Where quick_find_before is blind (ThreadSanitizer, Valgrind) any quick chunk may be the one:
 * a malloc that finds no room frees them all into the bins, and the chunk before p may be among
 * them (the command's short path must then leave the block to the general one). */
BA_DETAIL_FN int ba_detail_quick_may_precede(ba_heap *h, ba_detail_ch *p)
{
   unsigned list;
#if defined(BA_DETAIL_TSAN)
   (void)p; (void)list;
   return h->quick_chunks != 0;
#else
#  if defined(BA_DETAIL_VALGRIND)
   if (RUNNING_ON_VALGRIND) return h->quick_chunks != 0;
#  endif
   return ba_detail_quick_find_before(h, p, &list) != 0;
#endif
}

/* Frees every quick chunk into the bins: before the heap grows, trims or releases a segment, so
 * that memory held for reuse never makes the heap larger or an allocation fail. */
BA_DETAIL_FN void ba_detail_quick_flush(ba_heap *h)
{
   unsigned i;
   ba_detail_ch *p;
   if (h->quick_chunks == 0) return;
   for (i = 0; i < BA_DETAIL_NSMALLBINS; ++i)
      while ((p = ba_detail_quick_pop(h, i)) != 0) ba_detail_dispose_chunk(h, p, ba_detail_small_index2size(i));
}

/* ---------------------------------------------------------------------------------------------
 * Locks: a test-and-test-and-set spinlock. The uncontended path is one atomic exchange; under
 * contention it spins briefly, then yields (the holder may be descheduled on few cores).
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN void ba_detail_spin_lock_slow(int *word)
{
   unsigned spins = 0;
   for (;;) {
      if (!__atomic_load_n(word, __ATOMIC_RELAXED) && !__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))
         return;
      if (++spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
         __builtin_ia32_pause();
#endif
      } else {
         spins = 0;
         sched_yield();
      }
   }
}
BA_DETAIL_FN void ba_detail_spin_lock(int *word)
{
   if (BA_DETAIL_UNLIKELY(__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))) ba_detail_spin_lock_slow(word);
}
BA_DETAIL_FN void ba_detail_spin_unlock(int *word) { __atomic_store_n(word, 0, __ATOMIC_RELEASE); }

/* While the process has one thread (glibc tells, as it does for its own locks), no other thread
 * can hold or want the lock, and only this thread could create one, which it does not do while
 * inside the heap: the atomic exchange, the largest cost of a small malloc, is skipped. */
BA_DETAIL_FN int ba_detail_single_threaded(void)
{
#if defined(BA_DETAIL_HAVE_SINGLE_THREADED)
   return __libc_single_threaded != 0;
#else
   return 0;
#endif
}
/* Returns: whether h is now locked (or needs no lock), without waiting; 0 when another thread
 * holds the lock. */
BA_DETAIL_FN int ba_detail_try_lock(ba_heap *h)
{
   return !h->use_lock || ba_detail_single_threaded() || !__atomic_exchange_n(&h->lock_word, 1, __ATOMIC_ACQUIRE);
}
BA_DETAIL_FN void ba_detail_lock(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(!ba_detail_try_lock(h))) ba_detail_spin_lock_slow(&h->lock_word);
}
/* Clearing a lock that was skipped is harmless (no other thread exists to hold it), and cheaper
 * than asking again whether it was taken. */
BA_DETAIL_FN void ba_detail_unlock(ba_heap *h)
{
   if (h->use_lock) ba_detail_spin_unlock(&h->lock_word);
}

/* ---------------------------------------------------------------------------------------------
 * The registry of heaps, for fork: the child must not inherit a lock held by a thread that does
 * not exist in it, so every heap is locked around fork.
 * ------------------------------------------------------------------------------------------- */

/* The heaps' locks are taken only when other threads exist, and the decision is recorded: the
 * child is single-threaded again, so the lock functions' own test would disagree there. */
BA_DETAIL_FN void ba_detail_fork_prepare(void)
{
   ba_heap *h;
   ba_detail_spin_lock(&ba_detail_registry_lock);
   ba_detail_fork_locked = !ba_detail_single_threaded();
   if (ba_detail_fork_locked)
      for (h = ba_detail_registry; h; h = h->registry_next)
         if (h->use_lock) ba_detail_spin_lock(&h->lock_word);
}
BA_DETAIL_FN void ba_detail_fork_release(void)
{
   ba_heap *h;
   if (ba_detail_fork_locked)
      for (h = ba_detail_registry; h; h = h->registry_next)
         if (h->use_lock) ba_detail_spin_unlock(&h->lock_word);
   ba_detail_fork_locked = 0;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

/* Precondition: the registry lock is held. */
BA_DETAIL_FN void ba_detail_global_init_locked(void)
{
   if (ba_detail_page_size != 0) return;
   {
      long page = sysconf(_SC_PAGESIZE);
      size_t size = page > 0 ? (size_t)page : (size_t)4096;
      pthread_atfork(ba_detail_fork_prepare, ba_detail_fork_release, ba_detail_fork_release);
      __atomic_store_n(&ba_detail_page_size, size, __ATOMIC_RELEASE);
   }
}

BA_DETAIL_FN void ba_detail_register(ba_heap *h)
{
   ba_detail_spin_lock(&ba_detail_registry_lock);
   ba_detail_global_init_locked();
   h->registry_prev = 0;
   h->registry_next = ba_detail_registry;
   if (ba_detail_registry) ba_detail_registry->registry_prev = h;
   ba_detail_registry = h;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN void ba_detail_unregister(ba_heap *h)
{
   ba_detail_spin_lock(&ba_detail_registry_lock);
   if (h->registry_prev) h->registry_prev->registry_next = h->registry_next;
   else ba_detail_registry = h->registry_next;
   if (h->registry_next) h->registry_next->registry_prev = h->registry_prev;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN size_t ba_detail_page(void) { return __atomic_load_n(&ba_detail_page_size, __ATOMIC_ACQUIRE); }

/* Sets up the fields of an empty heap; the bins need nothing (the bitmaps say they are empty). */
BA_DETAIL_FN void ba_detail_heap_init(ba_heap *h, size_t segment_reserve, int locked, unsigned flags)
{
   memset(h, 0, sizeof *h);
   h->use_lock = locked != 0;
   h->flags = flags;
   h->segment_reserve = segment_reserve;
   h->trim_threshold = h->trim_check = BA_DETAIL_TRIM_THRESHOLD;
   h->mmap_threshold = (flags & BA_DETAIL_HEAP_NO_SYSTEM) ? ~(size_t)0 : BA_DETAIL_MMAP_THRESHOLD;
   h->release_rate = h->release_countdown = BA_DETAIL_RELEASE_RATE;
   h->huge_reserve = BA_DETAIL_HUGE_RESERVE;
   h->top_pad = BA_DETAIL_TOP_PAD;
   h->footprint_limit = ~(size_t)0;
   h->least_addr = (char *)~(uintptr_t)0;
}

/* Sets a flag of a heap that may be shared: flags is read without the lock (whether the heap
 * is ready), so writes after the heap is published are atomic. */
BA_DETAIL_FN void ba_detail_set_flag(ba_heap *h, unsigned flag)
{
   __atomic_fetch_or(&h->flags, flag, __ATOMIC_RELAXED);
}

/* Out of line, so that ba_detail_default (every call on the default heap asks it) is two
 * instructions inline rather than a call (counted: 3% of the instructions of 10 push_backs into
 * a vector). */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_init_default(void)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_spin_lock(&ba_detail_registry_lock);
   if (!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & BA_DETAIL_HEAP_READY)) {
      ba_detail_global_init_locked();
      ba_detail_heap_init(h, BA_DETAIL_DEFAULT_SEGMENT, 1, 0);
      h->registry_next = ba_detail_registry;
      if (ba_detail_registry) ba_detail_registry->registry_prev = h;
      ba_detail_registry = h;
      __atomic_store_n(&h->flags, BA_DETAIL_HEAP_READY, __ATOMIC_RELEASE);
   }
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN BA_DETAIL_INLINE_INTO_CALLERS ba_heap *ba_detail_default(void)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   if (BA_DETAIL_UNLIKELY(!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & BA_DETAIL_HEAP_READY)))
      ba_detail_init_default();
   return h;
}

/* ---------------------------------------------------------------------------------------------
 * Address space: reserve (PROT_NONE, no swap charged), commit, decommit, release.
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN char *ba_detail_reserve(size_t bytes)
{
   void *p = mmap(0, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   return p == MAP_FAILED ? (char *)0 : (char *)p;
}
BA_DETAIL_FN int ba_detail_commit(char *at, size_t bytes)
{
   return mprotect(at, bytes, PROT_READ | PROT_WRITE) == 0;
}
/* Gives the pages back and keeps the address range reserved. */
BA_DETAIL_FN void ba_detail_decommit(char *at, size_t bytes)
{
   ba_detail_unpoison(at, bytes);
   void *p = mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
   (void)p;
}
BA_DETAIL_FN void ba_detail_release(char *at, size_t bytes)
{
   ba_detail_unpoison(at, bytes);
   munmap(at, bytes);
}

/* Returns: whether the footprint may grow by `bytes`. */
BA_DETAIL_FN int ba_detail_footprint_allows(const ba_heap *h, size_t bytes)
{
   return bytes <= h->footprint_limit && h->footprint <= h->footprint_limit - bytes;
}
BA_DETAIL_FN void ba_detail_footprint_add(ba_heap *h, size_t bytes)
{
   h->footprint += bytes;
   if (h->footprint > h->max_footprint) h->max_footprint = h->footprint;
}

/* ---------------------------------------------------------------------------------------------
 * Segments and the top chunk
 * ------------------------------------------------------------------------------------------- */

#define BA_DETAIL_SEGMENT_HEADER ba_detail_round_up(sizeof(ba_detail_segment), BA_DETAIL_ALIGN)
#define BA_DETAIL_HEAP_HEADER    ba_detail_round_up(sizeof(ba_heap), BA_DETAIL_ALIGN)

BA_DETAIL_FN ba_detail_ch *ba_detail_fence(const ba_detail_segment *s)
{ return (ba_detail_ch *)(s->base + s->committed - BA_DETAIL_FENCE_SIZE); }

BA_DETAIL_FN void ba_detail_write_fence(const ba_detail_segment *s)
{
   /* PINUSE clear: the chunk below is the top or a free chunk when it matters, and is set
    * whenever the chunk below becomes in use. */
   ba_detail_fence(s)->head = BA_DETAIL_FENCE_SIZE | BA_DETAIL_CINUSE;
}

/* Makes [s->chunks_begin, fence) the top chunk. */
BA_DETAIL_FN void ba_detail_top_from_segment(ba_heap *h, ba_detail_segment *s)
{
   ba_detail_ch *top = (ba_detail_ch *)(void *)s->chunks_begin;
   h->top = top;
   h->topsize = (size_t)((char *)ba_detail_fence(s) - s->chunks_begin);
   h->top_segment = s;
   top->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_write_fence(s);
   if (s->chunks_begin < h->least_addr) h->least_addr = s->chunks_begin;
}

/* Writes the record of a segment at base, with the heap record after it when `embed` is set. */
BA_DETAIL_FN ba_detail_segment *ba_detail_place_segment(char *base, size_t reserved, size_t committed,
   unsigned flags, size_t embed)
{
   ba_detail_segment *s = (ba_detail_segment *)(void *)base;
   s->base = base;
   s->reserved = reserved;
   s->committed = committed;
   s->chunks_begin = base + BA_DETAIL_SEGMENT_HEADER + embed;
   s->next = 0;
   s->flags = flags;
   return s;
}

/* The heap has just grown. If it trimmed its top on its own since it last grew, the memory it
 * gave back was wanted again: the trim threshold doubles (up to BA_DETAIL_TRIM_THRESHOLD_MAX,
 * and never when the user set it). A program that frees and rebuilds the same megabytes in a
 * loop (a large container destroyed and built again) then stops paying a page fault per page
 * for them after a round or two; the hysteresis is counted in trims, so it is deterministic.
 * glibc raises its threshold for a like reason, when a mapped block is freed. */
BA_DETAIL_FN void ba_detail_grown(ba_heap *h)
{
   if (h->trimmed_since_growth && !(h->flags & BA_DETAIL_HEAP_USER_TRIM)
       && h->trim_threshold < BA_DETAIL_TRIM_THRESHOLD_MAX)
      h->trim_threshold *= 2;
   h->trimmed_since_growth = 0;
   h->trim_check = h->trim_threshold;
}

/* Grows the top chunk by committing more of the top segment, so that it holds at least `bytes`
 * (a chunk of that size plus the minimum top). Returns 1 on success. */
BA_DETAIL_FN int ba_detail_grow_top(ba_heap *h, size_t bytes)
{
   ba_detail_segment *s = h->top_segment;
   size_t page = ba_detail_page(), want, need;
   if (!s || (s->flags & BA_DETAIL_SEGMENT_EXTERNAL)) return 0;
   if (bytes > BA_DETAIL_MAX_REQUEST) return 0;
   need = bytes + BA_DETAIL_MIN_CHUNK;
   if (need <= h->topsize) return 1;
   need = ba_detail_round_up(need - h->topsize, page);
   if (need > s->reserved - s->committed) return 0;
   want = ba_detail_round_up(need + h->top_pad, BA_DETAIL_COMMIT_GRANULE);
   if (want > s->reserved - s->committed) want = s->reserved - s->committed;
   if (!ba_detail_footprint_allows(h, want)) want = need;
   if (!ba_detail_footprint_allows(h, want)) return 0;
   if (!ba_detail_commit(s->base + s->committed, want)) return 0;
   ba_detail_poison(s->base + s->committed, want);
   s->committed += want;
   ba_detail_footprint_add(h, want);
   h->topsize += want;
   h->top->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_write_fence(s);
   ba_detail_grown(h);
   return 1;
}

/* Starts a new segment large enough for a chunk of nb bytes and moves the top there; the old top
 * becomes an ordinary free chunk. Returns 1 on success. */
BA_DETAIL_FN int ba_detail_new_segment(ba_heap *h, size_t nb)
{
   size_t page = ba_detail_page();
   size_t overhead = BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_FENCE_SIZE + BA_DETAIL_MIN_CHUNK;
   size_t reserve, commit, need;
   char *base;
   ba_detail_segment *s;
   if (nb > BA_DETAIL_MAX_REQUEST) return 0;
   need = ba_detail_round_up(nb + overhead, page);
   reserve = need > h->segment_reserve ? need : h->segment_reserve;
   commit = ba_detail_round_up(need + h->top_pad, BA_DETAIL_COMMIT_GRANULE);
   if (commit > reserve) commit = reserve;
   if (!ba_detail_footprint_allows(h, commit)) commit = need;
   if (!ba_detail_footprint_allows(h, commit)) return 0;
   base = ba_detail_reserve(reserve);
   if (!base) return 0;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve); return 0; }
   ba_detail_poison(base, commit);
   ba_detail_footprint_add(h, commit);
   s = ba_detail_place_segment(base, reserve, commit, 0, 0);
   s->next = h->segments;
   h->segments = s;
   if (h->top) {
      /* The top always has PINUSE set (a free chunk below it would have merged). */
      ba_detail_ch *old = h->top;
      size_t oldsize = h->topsize;
      ba_detail_set_free_chunk(old, oldsize);
      ba_detail_insert_chunk(h, old, oldsize);
   }
   ba_detail_top_from_segment(h, s);
   ba_detail_grown(h);
   return 1;
}

/* Unmaps every segment other than the top one that is a single free chunk. Returns the bytes. */
BA_DETAIL_FN size_t ba_detail_release_unused_segments(ba_heap *h)
{
   size_t released = 0;
   ba_detail_segment **link = &h->segments;
   ba_detail_quick_flush(h);
   while (*link) {
      ba_detail_segment *s = *link;
      ba_detail_ch *first = (ba_detail_ch *)(void *)s->chunks_begin;
      size_t span = (size_t)((char *)ba_detail_fence(s) - s->chunks_begin);
      if (s != h->top_segment && !(s->flags & (BA_DETAIL_SEGMENT_EXTERNAL | BA_DETAIL_SEGMENT_PERMANENT))
          && !ba_detail_cinuse(first) && ba_detail_chunksize(first) == span) {
         if (first == h->dv) { h->dv = 0; h->dvsize = 0; }
         else ba_detail_unlink_chunk(h, first, span);
         *link = s->next;
         released += s->committed;
         h->footprint -= s->committed;
         ba_detail_release(s->base, s->reserved);
         continue;
      }
      link = &s->next;
   }
   return released;
}

/* Gives back the top beyond pad bytes (by whole pages) and unused segments. Returns the bytes. */
BA_DETAIL_FN size_t ba_detail_sys_trim(ba_heap *h, size_t pad)
{
   size_t released = 0;
   ba_detail_segment *s;
   ba_detail_quick_flush(h);
   s = h->top_segment;
   if (s && !(s->flags & BA_DETAIL_SEGMENT_EXTERNAL) && pad < BA_DETAIL_MAX_REQUEST) {
      size_t page = ba_detail_page();
      char *keep = (char *)h->top + BA_DETAIL_MIN_CHUNK + pad + BA_DETAIL_FENCE_SIZE;
      size_t keep_off = ba_detail_round_up((size_t)(keep - s->base), page);
      if (keep_off < s->committed) {
         size_t drop = s->committed - keep_off;
         ba_detail_decommit(s->base + keep_off, drop);
         s->committed = keep_off;
         h->footprint -= drop;
         h->topsize -= drop;
         h->top->head = h->topsize | BA_DETAIL_PINUSE;
         ba_detail_write_fence(s);
         released += drop;
      }
   }
   released += ba_detail_release_unused_segments(h);
   return released;
}

/* ---------------------------------------------------------------------------------------------
 * Huge blocks: mapped directly, with reserved address space after them for growth in place.
 * ------------------------------------------------------------------------------------------- */

#define BA_DETAIL_HUGE_HEADER ba_detail_round_up(sizeof(ba_detail_huge_header), BA_DETAIL_ALIGN)

BA_DETAIL_FN ba_detail_huge_header *ba_detail_huge_of(const ba_detail_ch *p)
{ return (ba_detail_huge_header *)(void *)((char *)p - p->prev_foot); }

/* Returns: the mem of a new huge chunk of at least nb bytes (nb counts the one-word overhead of
 * an ordinary chunk) aligned to `alignment`, or null. */
BA_DETAIL_FN void *ba_detail_huge_alloc(ba_heap *h, size_t nb, size_t alignment)
{
   size_t page = ba_detail_page();
   size_t lead = BA_DETAIL_HUGE_HEADER + 2 * BA_DETAIL_WORD;   /* from base to the first mem */
   size_t slack = alignment > BA_DETAIL_ALIGN ? alignment : 0;
   size_t commit, extra, reserve;
   char *base, *mem;
   ba_detail_huge_header *hh;
   ba_detail_ch *p;
   if (h->flags & BA_DETAIL_HEAP_NO_SYSTEM) return 0;
   if (nb > BA_DETAIL_MAX_REQUEST || slack > BA_DETAIL_MAX_REQUEST) return 0;
   commit = ba_detail_round_up(lead + nb + BA_DETAIL_WORD + slack, page);
   if (!ba_detail_footprint_allows(h, commit)) return 0;
   extra = commit > BA_DETAIL_HUGE_EXTRA_MIN ? commit : BA_DETAIL_HUGE_EXTRA_MIN;
   if (extra > h->huge_reserve || (h->flags & BA_DETAIL_HEAP_USER_RESERVE))
      extra = ba_detail_round_up(h->huge_reserve, page);
   reserve = commit + extra;
   base = ba_detail_reserve(reserve);
   if (!base && extra) { reserve = commit; base = ba_detail_reserve(reserve); }
   if (!base) return 0;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve); return 0; }
   ba_detail_poison(base, commit);
   mem = (char *)ba_detail_round_up((size_t)(uintptr_t)(base + lead), alignment > BA_DETAIL_ALIGN ? alignment : BA_DETAIL_ALIGN);
   p = ba_detail_mem2chunk(mem);
   p->prev_foot = (size_t)((char *)p - base);
   p->head = (size_t)(base + commit - (char *)p);
   hh = (ba_detail_huge_header *)(void *)base;
   hh->reserved = reserve;
   hh->committed = commit;
   hh->chunk_offset = p->prev_foot;
   hh->heap = h;
   hh->magic = (size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC;
   hh->prev = 0;
   hh->next = h->huge;
   if (h->huge) h->huge->prev = hh;
   h->huge = hh;
   ba_detail_footprint_add(h, commit);
   h->huge_blocks += 1;
   h->huge_bytes += commit;
   return mem;
}

BA_DETAIL_FN int ba_detail_huge_valid(const ba_heap *h, const ba_detail_ch *p)
{
   const ba_detail_huge_header *hh = ba_detail_huge_of(p);
   return p->prev_foot >= BA_DETAIL_HUGE_HEADER && ((uintptr_t)hh & (ba_detail_page() - 1)) == 0
       && hh->heap == h && hh->magic == ((size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC);
}

BA_DETAIL_FN void ba_detail_huge_free(ba_heap *h, ba_detail_ch *p)
{
   ba_detail_huge_header *hh = ba_detail_huge_of(p);
   size_t size = ba_detail_chunksize(p);
   if (hh->prev) hh->prev->next = hh->next; else h->huge = hh->next;
   if (hh->next) hh->next->prev = hh->prev;
   h->footprint -= hh->committed;
   h->huge_blocks -= 1;
   h->huge_bytes -= hh->committed;
   hh->magic = 0;
   /* The dynamic threshold (as glibc's): a program that frees a block of this size is likely to
    * ask for it again, so such sizes stop being mapped one by one. */
   if (!(h->flags & BA_DETAIL_HEAP_USER_MMAP) && size > h->mmap_threshold && size <= BA_DETAIL_MMAP_THRESHOLD_MAX) {
      h->mmap_threshold = size;
      if (!(h->flags & BA_DETAIL_HEAP_USER_TRIM)) h->trim_threshold = h->trim_check = 2 * size;
   }
   ba_detail_release((char *)hh, hh->reserved);
}

/* Resizes huge chunk p in place so that it holds nb bytes (as counted for ordinary chunks):
 * commits more of its reservation, extends the reservation when the addresses after it are free,
 * or gives back whole pages. Returns 1 on success. */
BA_DETAIL_FN int ba_detail_huge_resize(ba_heap *h, ba_detail_ch *p, size_t nb)
{
   ba_detail_huge_header *hh = ba_detail_huge_of(p);
   char *base = (char *)hh;
   size_t page = ba_detail_page(), off = p->prev_foot, commit;
   if (nb > BA_DETAIL_MAX_REQUEST) return 0;
   commit = ba_detail_round_up(off + nb + BA_DETAIL_WORD, page);
   if (commit > hh->committed) {
      size_t grow = commit - hh->committed;
      if (!ba_detail_footprint_allows(h, grow)) return 0;
      if (commit > hh->reserved) {
#if defined(MAP_FIXED_NOREPLACE)
         size_t more = commit - hh->reserved;
         void *q = mmap(base + hh->reserved, more, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
         if (q == MAP_FAILED) return 0;
         if (q != base + hh->reserved) { munmap(q, more); return 0; }  /* an old kernel: no NOREPLACE */
         hh->reserved = commit;
#else
         return 0;
#endif
      }
      if (!ba_detail_commit(base + hh->committed, grow)) return 0;
      ba_detail_poison(base + hh->committed, grow);
      ba_detail_footprint_add(h, grow);
      h->huge_bytes += grow;
   } else if (commit < hh->committed) {
      size_t drop = hh->committed - commit;
      ba_detail_decommit(base + commit, drop);
      h->footprint -= drop;
      h->huge_bytes -= drop;
   }
   hh->committed = commit;
   p->head = commit - off;
   return 1;
}

/* Whether the top can give a chunk of nb bytes and still keep a minimum chunk (the top never
 * vanishes). */
BA_DETAIL_FN int ba_detail_top_holds(const ba_heap *h, size_t nb) { return nb + BA_DETAIL_MIN_CHUNK <= h->topsize; }

/* Returns: the mem of a chunk of nb bytes cut from the start of the top (which holds it). */
BA_DETAIL_FN void *ba_detail_split_top(ba_heap *h, size_t nb)
{
   ba_detail_ch *p = h->top;
   ba_detail_ch *r = h->top = ba_detail_plus(p, nb);
   h->topsize -= nb;
   r->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_set_size_and_pinuse_of_inuse(p, nb);
   return ba_detail_chunk2mem(p);
}

/* Finds memory for a chunk of nb bytes when the bins and the top have none: a huge block, more
 * of the top segment, or a new segment. allow_huge is 0 for burst runs (split afterwards). */
BA_DETAIL_FN void *ba_detail_sys_alloc(ba_heap *h, size_t nb, int allow_huge)
{
   if (allow_huge && nb >= h->mmap_threshold) {
      void *mem = ba_detail_huge_alloc(h, nb, BA_DETAIL_ALIGN);
      if (mem) return mem;
   }
   if (h->flags & BA_DETAIL_HEAP_NO_SYSTEM) return 0;
   if (!ba_detail_grow_top(h, nb) && !ba_detail_new_segment(h, nb)) return 0;
   return ba_detail_split_top(h, nb);
}

/* ---------------------------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------------------------- */

/* Splits victim v (unlinked, size nb + rsize) into an in-use chunk of nb and a remainder that
 * becomes the designated victim (or a binned chunk when to_dv is 0). */
BA_DETAIL_FN void *ba_detail_carve(ba_heap *h, ba_detail_ch *v, size_t nb, size_t rsize, int to_dv)
{
   if (rsize < BA_DETAIL_MIN_CHUNK) {
      ba_detail_set_inuse_and_pinuse(v, rsize + nb);
   } else {
      ba_detail_ch *r = ba_detail_plus(v, nb);
      ba_detail_set_size_and_pinuse_of_inuse(v, nb);
      ba_detail_set_free_chunk(r, rsize);
      if (to_dv) ba_detail_replace_dv(h, r, rsize);
      else ba_detail_insert_chunk(h, r, rsize);
   }
   return ba_detail_chunk2mem(v);
}

/* A small request from the smallest tree chunk (best fit among the smallest bin). */
BA_DETAIL_FN void *ba_detail_tmalloc_small(ba_heap *h, size_t nb)
{
   unsigned i = ba_detail_bit2idx(ba_detail_least_bit(h->treemap));
   ba_detail_tch *t = h->treebins[i], *v = t;
   size_t rsize = ba_detail_chunksize(&t->c) - nb;
   while ((t = ba_detail_leftmost_child(t)) != 0) {
      size_t trem = ba_detail_chunksize(&t->c) - nb;
      if (trem < rsize) { rsize = trem; v = t; }
   }
   ba_detail_unlink_large(h, v);
   return ba_detail_carve(h, &v->c, nb, rsize, 1);
}

/* A large request: the best fit in the tree bins, if better than the designated victim. */
BA_DETAIL_FN void *ba_detail_tmalloc_large(ba_heap *h, size_t nb)
{
   ba_detail_tch *v = 0, *t;
   size_t rsize = (size_t)0 - nb;   /* unsigned negation: larger than any fit */
   unsigned idx = ba_detail_tree_index(nb);
   if ((t = h->treebins[idx]) != 0) {
      /* Walk down the trie along nb's bits, remembering the deepest right subtree not taken. */
      size_t sizebits = nb << ba_detail_tree_leftshift(idx);
      ba_detail_tch *rst = 0;
      for (;;) {
         ba_detail_tch *rt;
         size_t trem = ba_detail_chunksize(&t->c) - nb;
         if (trem < rsize) {
            v = t;
            if ((rsize = trem) == 0) break;
         }
         rt = t->child[1];
         t = t->child[(sizebits >> (BA_DETAIL_SIZE_BITS - 1)) & 1];
         if (rt != 0 && rt != t) rst = rt;
         if (t == 0) { t = rst; break; }
         sizebits <<= 1;
      }
   }
   if (t == 0 && v == 0) {
      unsigned leftbits = ba_detail_left_bits(1u << idx) & h->treemap;
      if (leftbits != 0) t = h->treebins[ba_detail_bit2idx(ba_detail_least_bit(leftbits))];
   }
   while (t != 0) {
      size_t trem = ba_detail_chunksize(&t->c) - nb;
      if (trem < rsize) { rsize = trem; v = t; }
      t = ba_detail_leftmost_child(t);
   }
   if (v != 0 && rsize < h->dvsize - nb) {
      ba_detail_unlink_large(h, v);
      return ba_detail_carve(h, &v->c, nb, rsize, 0);
   }
   return 0;
}

BA_DETAIL_FN void *ba_detail_malloc_chunk(ba_heap *h, size_t nb, int allow_huge);

/* ba_detail_malloc_chunk past its two short paths (no quick chunk, and a bin, the designated
 * victim or the system serves the request): the same choices in the same order. */
BA_DETAIL_OUT_OF_LINE_FN void *ba_detail_malloc_from_bins(ba_heap *h, size_t nb, int allow_huge)
{
   void *mem;
   if (nb <= BA_DETAIL_MAX_SMALL_SIZE) {
      unsigned idx = ba_detail_small_index(nb);
      uint64_t smallbits = h->smallmap >> idx;
      if ((smallbits & 3u) != 0) {
         /* An exact fit, or one 16 bytes larger (too small a remainder to split off). */
         ba_detail_ch *b, *p;
         idx += (unsigned)(~smallbits & 1u);
         b = &h->smallbins[idx];
         p = b->fd;
         ba_detail_unlink_first_small(h, b, p, idx);
         ba_detail_set_inuse_and_pinuse(p, ba_detail_small_index2size(idx));
         return ba_detail_chunk2mem(p);
      }
      if (nb > h->dvsize) {
         if (smallbits != 0) {
            uint64_t leftbits = (smallbits << idx) & ba_detail_left_bits64(ba_detail_small_bit(idx));
            unsigned i = ba_detail_lowest_index64(leftbits);
            ba_detail_ch *b = &h->smallbins[i], *p = b->fd;
            ba_detail_unlink_first_small(h, b, p, i);
            return ba_detail_carve(h, p, nb, ba_detail_small_index2size(i) - nb, 1);
         }
         if (h->treemap != 0 && (mem = ba_detail_tmalloc_small(h, nb)) != 0) return mem;
      }
   } else if (h->treemap != 0 && (mem = ba_detail_tmalloc_large(h, nb)) != 0) {
      return mem;
   }
   if (nb <= h->dvsize) {
      size_t rsize = h->dvsize - nb;
      ba_detail_ch *p = h->dv;
      if (rsize >= BA_DETAIL_MIN_CHUNK) {
         ba_detail_ch *r = h->dv = ba_detail_plus(p, nb);
         h->dvsize = rsize;
         ba_detail_set_free_chunk(r, rsize);
         ba_detail_set_size_and_pinuse_of_inuse(p, nb);
      } else {
         size_t dvs = h->dvsize;
         h->dvsize = 0;
         h->dv = 0;
         ba_detail_set_inuse_and_pinuse(p, dvs);
      }
      return ba_detail_chunk2mem(p);
   }
   if (ba_detail_top_holds(h, nb)) return ba_detail_split_top(h, nb);
   /* Before the heap grows, what the quick lists hold may coalesce into a fit. */
   if (h->quick_chunks != 0 && !(allow_huge && nb >= h->mmap_threshold)) {
      ba_detail_quick_flush(h);
      return ba_detail_malloc_chunk(h, nb, allow_huge);
   }
   return ba_detail_sys_alloc(h, nb, allow_huge);
}

/* Returns: the mem of an in-use chunk of at least nb bytes (nb a padded request size), or null.
 * The two commonest answers (a quick chunk; the top, when no bin and no designated victim could
 * serve: a heap that mostly grows, a vector's first buffer) need no registers saved and no call;
 * everything else is one jump away, in ba_detail_malloc_from_bins. */
BA_DETAIL_FN void *ba_detail_malloc_chunk(ba_heap *h, size_t nb, int allow_huge)
{
   if (nb <= BA_DETAIL_MAX_SMALL_SIZE) {
      unsigned idx = ba_detail_small_index(nb);
      ba_detail_ch *quick = ba_detail_quick_pop(h, idx);
      if (quick) return ba_detail_chunk2mem(quick);
      /* A chunk in this bin or a larger one would be taken before the top. */
      if ((h->smallmap >> idx) != 0) return ba_detail_malloc_from_bins(h, nb, allow_huge);
   }
   /* The designated victim, then a tree chunk, would be taken before the top. */
   if (nb > h->dvsize && h->treemap == 0 && ba_detail_top_holds(h, nb)) return ba_detail_split_top(h, nb);
   return ba_detail_malloc_from_bins(h, nb, allow_huge);
}

BA_DETAIL_FN void *ba_detail_malloc(ba_heap *h, size_t bytes)
{
   if (BA_DETAIL_UNLIKELY(bytes >= BA_DETAIL_MAX_REQUEST)) return 0;
   return ba_detail_malloc_chunk(h, ba_detail_request2size(bytes), 1);
}

#if BOOST_ALLOCPLUS_CHECKED
/* Returns: whether chunk p lies in the chunks of one of h's segments (segments are few). */
BA_DETAIL_FN int ba_detail_in_segments(const ba_heap *h, const ba_detail_ch *p)
{
   const ba_detail_segment *s;
   for (s = h->segments; s; s = s->next)
      if ((const char *)p >= s->chunks_begin && p < ba_detail_fence(s)) return 1;
   return 0;
}

/* Returns: whether p is the chunk of one of h's huge blocks, found without reading p. */
BA_DETAIL_FN int ba_detail_in_huge_list(const ba_heap *h, const ba_detail_ch *p)
{
   const ba_detail_huge_header *hh;
   for (hh = h->huge; hh; hh = hh->next)
      if ((const char *)hh + hh->chunk_offset == (const char *)p) return 1;
   return 0;
}
#endif

/* Whether chunk p, not huge, passes the checks an unchecked build can afford: inside the heap's
 * range, in use and not in a quick list, at least a minimum chunk, and the next chunk knows it
 * in use (catches most double frees and pointers into blocks, at the cost of a few loads). */
BA_DETAIL_FN int ba_detail_looks_in_use(const ba_heap *h, const ba_detail_ch *p)
{
   return (const char *)p >= h->least_addr && (p->head & (BA_DETAIL_CINUSE | BA_DETAIL_QUICK)) == BA_DETAIL_CINUSE
          && ba_detail_chunksize(p) >= BA_DETAIL_MIN_CHUNK
          && ba_detail_pinuse(ba_detail_plus(p, ba_detail_chunksize(p)));
}

#define BA_DETAIL_NOT_A_BLOCK "free of a pointer that is not an in-use block of this heap (a double free, a pointer into a block or a corrupted header)"

/* Returns: the chunk of mem, after checking that it is an in-use chunk of h; reports otherwise.
 * A checked build finds the segment or huge block of mem first, so a pointer from elsewhere is
 * reported without the heap reading memory it does not own. */
BA_DETAIL_FN ba_detail_ch *ba_detail_checked_chunk(ba_heap *h, const void *mem)
{
   ba_detail_ch *p = ba_detail_mem2chunk(mem);
   if (BA_DETAIL_UNLIKELY(((uintptr_t)mem & BA_DETAIL_ALIGN_MASK) != 0))
      ba_detail_usage_error(h, "free of a pointer that did not come from this heap (misaligned)", mem);
#if BOOST_ALLOCPLUS_CHECKED
   if (!ba_detail_in_segments(h, p)) {
      if (ba_detail_in_huge_list(h, p)) return p;
      ba_detail_usage_error(h, "free of a pointer that did not come from this heap", mem);
   }
   if (BA_DETAIL_UNLIKELY(!ba_detail_cinuse(p) || (p->head & BA_DETAIL_QUICK)))
      ba_detail_usage_error(h, "double free (or a pointer into a block)", mem);
   if (BA_DETAIL_UNLIKELY(ba_detail_chunksize(p) < BA_DETAIL_MIN_CHUNK || !ba_detail_in_segments(h, ba_detail_plus(p, ba_detail_chunksize(p) - 1))
                          || !ba_detail_pinuse(ba_detail_plus(p, ba_detail_chunksize(p)))))
      ba_detail_usage_error(h, BA_DETAIL_NOT_A_BLOCK, mem);
#else
   if (ba_detail_is_huge(p)) {
      if (BA_DETAIL_UNLIKELY(!ba_detail_huge_valid(h, p))) ba_detail_usage_error(h, BA_DETAIL_NOT_A_BLOCK, mem);
      return p;
   }
   if (BA_DETAIL_UNLIKELY(!ba_detail_looks_in_use(h, p))) ba_detail_usage_error(h, BA_DETAIL_NOT_A_BLOCK, mem);
#endif
   return p;
}

/* Trims the top when it has grown past the threshold; a trim that finds nothing to give back
 * (the top is pinned by the segment's end) stops further attempts until the threshold is reset. */
BA_DETAIL_FN void ba_detail_maybe_trim(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(h->topsize > h->trim_check)) {
      if (ba_detail_sys_trim(h, h->top_pad) == 0) h->trim_check = ~(size_t)0;
      else h->trimmed_since_growth = 1;
   }
}

/* Whether a free of a chunk of psize bytes counts toward the release of unused segments. */
BA_DETAIL_FN int ba_detail_counts_toward_release(const ba_heap *h, size_t psize)
{
   return BA_DETAIL_UNLIKELY(psize >= BA_DETAIL_MIN_LARGE_SIZE) && h->release_rate != 0;
}

/* Counts a free of a large chunk; every release_rate of them, unused segments are released. */
BA_DETAIL_FN void ba_detail_count_release(ba_heap *h, size_t psize)
{
   if (ba_detail_counts_toward_release(h, psize) && --h->release_countdown == 0) {
      h->release_countdown = h->release_rate;
      ba_detail_release_unused_segments(h);
   }
}

/* Frees checked chunk p. */
BA_DETAIL_FN void ba_detail_free_chunk(ba_heap *h, ba_detail_ch *p)
{
   size_t psize;
   ba_detail_block_died(ba_detail_chunk2mem(p), ba_detail_usable(p));
   if (ba_detail_is_huge(p)) { ba_detail_huge_free(h, p); return; }
   psize = ba_detail_chunksize(p);
   /* A chunk before the top merges into it instead: held there, it would keep every chunk freed
    * below it from reaching the top (and the top from being trimmed). */
   if (psize <= BA_DETAIL_MAX_SMALL_SIZE && ba_detail_plus(p, psize) != h->top && ba_detail_quick_push(h, p, psize))
      return;
   ba_detail_dispose_chunk(h, p, psize);
   ba_detail_count_release(h, psize);
   ba_detail_maybe_trim(h);
}

/* Returns: whether in-use chunk p holds a request of padded size nb (a huge chunk has one word
 * of overhead more). */
BA_DETAIL_FN int ba_detail_holds(const ba_detail_ch *p, size_t nb)
{
   return ba_detail_chunksize(p) >= nb + (ba_detail_is_huge(p) ? BA_DETAIL_HUGE_OVERHEAD - BA_DETAIL_CHUNK_OVERHEAD : 0);
}

/* bytes / size, by a shift for the power-of-two sizes of most element types (a division costs
 * tens of cycles, a fair part of an allocation). */
BA_DETAIL_FN size_t ba_detail_count_of(size_t bytes, size_t size)
{
   return (size & (size - 1)) == 0 ? bytes >> __builtin_ctzl((unsigned long)size) : bytes / size;
}

/* ---------------------------------------------------------------------------------------------
 * Resizing in place
 * ------------------------------------------------------------------------------------------- */

/* Shrinks in-use chunk p to nb bytes if that frees at least a minimum chunk (a page for a huge
 * one). Never fails. */
BA_DETAIL_FN void ba_detail_shrink_chunk(ba_heap *h, ba_detail_ch *p, size_t nb)
{
   size_t size = ba_detail_chunksize(p);
   if (ba_detail_is_huge(p)) {
      if (nb < size) ba_detail_huge_resize(h, p, nb);
      return;
   }
   if (size >= nb + BA_DETAIL_MIN_CHUNK) {
      ba_detail_ch *r = ba_detail_plus(p, nb);
      ba_detail_poison(r, size - nb);
      ba_detail_set_inuse(p, nb);
      ba_detail_set_inuse(r, size - nb);
      ba_detail_dispose_chunk(h, r, size - nb);
   }
}

/* In-use chunk p (`size` bytes), which the top follows, becomes nb bytes, the top starting after
 * it (nb + BA_DETAIL_MIN_CHUNK <= size + topsize: the top keeps a minimum chunk). */
BA_DETAIL_FN void ba_detail_take_from_top(ba_heap *h, ba_detail_ch *p, size_t size, size_t nb)
{
   h->topsize = size + h->topsize - nb;
   h->top = ba_detail_plus(p, nb);
   p->head = (p->head & BA_DETAIL_PINUSE) | nb | BA_DETAIL_CINUSE;
   h->top->head = h->topsize | BA_DETAIL_PINUSE;
}

/* Grows in-use chunk p forward in place to at least min_nb and at most max_nb bytes (taking as
 * much as is free up to max_nb). Returns 1 on success; p is unchanged on failure. */
BA_DETAIL_FN int ba_detail_expand_fwd(ba_heap *h, ba_detail_ch *p, size_t min_nb, size_t max_nb)
{
   size_t size = ba_detail_chunksize(p);
   ba_detail_ch *next;
   if (ba_detail_holds(p, min_nb)) return 1;
   if (ba_detail_is_huge(p))
      return ba_detail_huge_resize(h, p, max_nb) || (min_nb < max_nb && ba_detail_huge_resize(h, p, min_nb));
   next = ba_detail_plus(p, size);
   /* A quick chunk after p is free memory held for reuse: growing in place is worth more. */
   if (next != h->top && (next->head & BA_DETAIL_QUICK)) ba_detail_quick_release(h, next);
   if (next == h->top) {
      size_t avail;
      if (size + h->topsize < max_nb + BA_DETAIL_MIN_CHUNK
          && !ba_detail_grow_top(h, max_nb - size) && min_nb < max_nb)
         ba_detail_grow_top(h, min_nb - size);
      avail = size + h->topsize - BA_DETAIL_MIN_CHUNK;
      if (avail < min_nb) return 0;
      ba_detail_take_from_top(h, p, size, avail > max_nb ? max_nb : avail);
      return 1;
   }
   if (!ba_detail_cinuse(next)) {
      size_t nsize = ba_detail_chunksize(next), avail = size + nsize, take, rest;
      if (avail < min_nb) return 0;
      take = avail > max_nb ? max_nb : avail;
      rest = avail - take;
      if (rest < BA_DETAIL_MIN_CHUNK) { take = avail; rest = 0; }
      if (next == h->dv) { h->dv = 0; h->dvsize = 0; }
      else ba_detail_unlink_chunk(h, next, nsize);
      ba_detail_set_inuse(p, take);
      if (rest) {
         /* The chunk after the remainder already has PINUSE clear: next was free. */
         ba_detail_ch *r = ba_detail_plus(p, take);
         ba_detail_set_free_chunk(r, rest);
         ba_detail_insert_chunk(h, r, rest);
      }
      return 1;
   }
   return 0;
}

/* Grows in-use chunk *pp backward into a free previous chunk (and forward into a free next chunk
 * that is not the top, when use_fwd) so that its usable bytes reach at least min_usable, taking
 * up to max_usable. The start moves down by a multiple of `step` (a multiple of the alignment),
 * so bytes at the old payload stay where they are. Returns 1 and the new chunk in *pp. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_expand_bwd(ba_heap *h, ba_detail_ch **pp, size_t step,
   size_t min_usable, size_t max_usable, int use_fwd)
{
   ba_detail_ch *p = *pp, *prev, *next, *q;
   ba_detail_ch **held = 0;   /* the quick-list link of a chunk before p held for reuse */
   unsigned held_list = 0;
   size_t prevsize, size, fwd = 0, have, kmin, kmax, k, rest, newsize;
   if (ba_detail_is_huge(p)) return 0;
   if (ba_detail_pinuse(p)) {
      if ((held = ba_detail_quick_find_before(h, p, &held_list)) == 0) return 0;
      prev = ba_detail_minus(p, p->prev_foot);
      if (!ba_detail_pinuse(prev)) {
         /* A free chunk lies before the held one: free it into that one, whose room counts too. */
         ba_detail_quick_release_at(h, held, held_list);
         held = 0;
      }
   }
   prevsize = p->prev_foot;
   prev = ba_detail_minus(p, prevsize);
   size = ba_detail_chunksize(p);
   next = ba_detail_plus(p, size);
   if (use_fwd && next != h->top && !ba_detail_cinuse(next)) fwd = ba_detail_chunksize(next);
   have = size + fwd - BA_DETAIL_CHUNK_OVERHEAD;       /* usable bytes without moving the start */
   /* count_of: the step is a power of two for most element types, and three divisions would
    * cost more than the rest of the expansion. */
   kmin = min_usable > have ? ba_detail_count_of(min_usable - have + step - 1, step) : 0;
   k = max_usable > have ? ba_detail_count_of(max_usable - have + step - 1, step) : 0;
   kmax = ba_detail_count_of(prevsize, step);
   if (k > kmax) k = kmax;
   rest = prevsize - k * step;
   if (rest != 0 && rest < BA_DETAIL_MIN_CHUNK && k > 0) { --k; rest += step; }
   if (k == 0 || k < kmin) return 0;
   /* Take the neighbours out of their lists before their headers are overwritten. A held chunk
    * (its predecessor in use) is taken straight from its quick list, as a free chunk would be
    * from its bin: freeing it into a bin first would only be undone here. */
   if (held) {
      ba_detail_quick_unlink(h, held, held_list);
   } else if (prev == h->dv) {
      if (rest == 0) { h->dv = 0; h->dvsize = 0; }
      else h->dvsize = rest;
   } else {
      ba_detail_unlink_chunk(h, prev, prevsize);
   }
   if (fwd) {
      if (next == h->dv) { h->dv = 0; h->dvsize = 0; }
      else ba_detail_unlink_chunk(h, next, fwd);
   }
   q = ba_detail_minus(p, k * step);
   newsize = size + fwd + k * step;
   if (rest) {
      ba_detail_set_free_chunk(prev, rest);          /* writes q->prev_foot */
      q->head = newsize | BA_DETAIL_CINUSE;
      if (prev != h->dv) ba_detail_insert_chunk(h, prev, rest);
   } else {
      q->head = newsize | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE;
   }
   ba_detail_set_pinuse_of(ba_detail_plus(q, newsize));
   *pp = q;
   return 1;
}

/* ---------------------------------------------------------------------------------------------
 * realloc and memalign
 * ------------------------------------------------------------------------------------------- */

/* Returns: p's mem resized to bytes, in place or moved; null (p untouched) when out of memory. */
BA_DETAIL_FN void *ba_detail_realloc(ba_heap *h, ba_detail_ch *p, size_t bytes)
{
   size_t nb = ba_detail_request2size(bytes);
   void *mem = ba_detail_chunk2mem(p), *moved;
   int huge = ba_detail_is_huge(p);
   /* A huge block that shrinks far below the threshold moves into the heap instead of keeping a
    * mapping of its own. */
   size_t old = ba_detail_exposed(mem, ba_detail_usable(p));
   if (!(huge && nb < h->mmap_threshold / 2)) {
      if (ba_detail_holds(p, nb) || ba_detail_expand_fwd(h, p, nb, nb)) {
         ba_detail_shrink_chunk(h, p, nb);
         ba_detail_block_moved(mem, mem, ba_detail_usable(p), bytes);
         return mem;
      }
   }
   moved = ba_detail_malloc_chunk(h, nb, 1);
   if (!moved) {
      if (!(huge && ba_detail_holds(p, nb))) return 0;
      ba_detail_block_moved(mem, mem, ba_detail_usable(p), bytes);
      return mem;
   }
   ba_detail_block_born(moved, ba_detail_usable(ba_detail_mem2chunk(moved)), bytes);
   memcpy(moved, mem, old < bytes ? old : bytes);
   ba_detail_free_chunk(h, p);
   return moved;
}

/* Returns: mem of a chunk of at least bytes whose mem is aligned to `alignment` (a power of two
 * above BA_MALLOC_ALIGNMENT), or null. */
BA_DETAIL_FN void *ba_detail_memalign(ba_heap *h, size_t alignment, size_t bytes)
{
   size_t nb, req;
   char *mem;
   ba_detail_ch *p;
   if (alignment < BA_DETAIL_MIN_CHUNK) alignment = BA_DETAIL_MIN_CHUNK;
   if (bytes >= BA_DETAIL_MAX_REQUEST - alignment || alignment >= BA_DETAIL_MAX_REQUEST) return 0;
   nb = ba_detail_request2size(bytes);
   if (nb >= h->mmap_threshold) {
      void *huge = ba_detail_huge_alloc(h, nb, alignment);
      if (huge) return huge;
   }
   /* Room for a leading remainder of at least a minimum chunk before the aligned start. */
   req = nb + alignment + BA_DETAIL_MIN_CHUNK;
   mem = (char *)ba_detail_malloc_chunk(h, req, 0);
   if (!mem) return 0;
   p = ba_detail_mem2chunk(mem);
   if (((uintptr_t)mem & (alignment - 1)) != 0) {
      char *br = (char *)ba_detail_mem2chunk((void *)(((uintptr_t)mem + alignment - 1) & ~(uintptr_t)(alignment - 1)));
      char *pos = (size_t)(br - (char *)p) >= BA_DETAIL_MIN_CHUNK ? br : br + alignment;
      ba_detail_ch *newp = (ba_detail_ch *)(void *)pos;
      size_t lead = (size_t)(pos - (char *)p);
      size_t newsize = ba_detail_chunksize(p) - lead;
      ba_detail_set_inuse(newp, newsize);
      ba_detail_set_inuse(p, lead);
      ba_detail_dispose_chunk(h, p, lead);
      p = newp;
   }
   ba_detail_shrink_chunk(h, p, nb);
   return ba_detail_chunk2mem(p);
}

/* Returns: mem of a new chunk for bytes aligned to alignment (power of two), or null. */
BA_DETAIL_FN void *ba_detail_malloc_aligned(ba_heap *h, size_t alignment, size_t bytes)
{
   return alignment <= BA_DETAIL_ALIGN ? ba_detail_malloc(h, bytes) : ba_detail_memalign(h, alignment, bytes);
}

/* ---------------------------------------------------------------------------------------------
 * allocation_command
 * ------------------------------------------------------------------------------------------- */

/* objects * size in bytes, or BA_DETAIL_MAX_REQUEST when that cannot be allocated. */
BA_DETAIL_FN size_t ba_detail_bytes_of(size_t objects, size_t size)
{
   size_t bytes;
   return __builtin_mul_overflow(objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST ? BA_DETAIL_MAX_REQUEST : bytes;
}

/* lcm(size, alignment) for a power-of-two alignment: size times the powers of two the alignment
 * has and size lacks. Returns 0 on overflow. */
BA_DETAIL_FN size_t ba_detail_backward_step(size_t size, size_t alignment)
{
   unsigned size_twos = (unsigned)__builtin_ctzl((unsigned long)size);
   unsigned align_twos = (unsigned)__builtin_ctzl((unsigned long)alignment);
   unsigned shift = align_twos > size_twos ? align_twos - size_twos : 0;
   return size > (BA_DETAIL_MAX_REQUEST >> shift) ? 0 : size << shift;
}

/* Expands in-use chunk *pp in place (forward, then backward by whole multiples of
 * lcm(size, alignment)) so that it holds at least min_bytes and up to max_bytes of payload (both
 * below BA_DETAIL_MAX_REQUEST). Returns 1 on success. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_expand(ba_heap *h, ba_detail_ch **pp, unsigned command,
   size_t size, size_t alignment, size_t min_bytes, size_t max_bytes)
{
   size_t step;
   if ((command & BA_EXPAND_FWD)
       && ba_detail_expand_fwd(h, *pp, ba_detail_request2size(min_bytes), ba_detail_request2size(max_bytes)))
      return 1;
   /* The step is worked out only here: forward expansion, the common case, does not need it. */
   if ((command & BA_EXPAND_BWD) && (step = ba_detail_backward_step(size, alignment)) != 0
       && ba_detail_expand_bwd(h, pp, step, min_bytes, max_bytes, (command & BA_EXPAND_FWD) != 0))
      return 1;
   /* A block that already holds the minimum is a success, whichever direction was asked. */
   return ba_detail_usable(*pp) >= min_bytes;
}

/* Whether an object size is one allocation_command accepts: neither 0 nor too large to represent
 * (one comparison: size - 1 wraps around for 0). */
BA_DETAIL_FN int ba_detail_valid_object_size(size_t size)
{
   return size - 1 < BA_DETAIL_MAX_REQUEST - 1;
}

/* Whether alignment is 0 (the default) or a power of two no larger than every block's. */
BA_DETAIL_FN int ba_detail_default_alignment(size_t alignment)
{
   return alignment <= BA_DETAIL_ALIGN && (alignment & (alignment - 1)) == 0;
}

/* The command a growing vector sends all the time: expand forward (and nothing else: no zeroing,
 * no shrink) small chunk p, which the top follows, to exactly the preferred size. Written apart
 * from the general path (which gives the same result) so that it is short enough for the
 * compiler to inline into the container: measured, it halves the cost of a small vector's
 * growth. Returns 1 when done, with *received set; 0 leaves everything as it was. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_expand_into_top(ba_heap *h, unsigned command, size_t size,
   size_t alignment, size_t limit_objects, size_t preferred_objects, ba_detail_ch *p, size_t *received)
{
   const size_t head = p->head, old_size = head & ~BA_DETAIL_FLAG_BITS;
   size_t bytes, nb, usable;
   if ((command & (BA_EXPAND_FWD | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_EXPAND_FWD
       || ba_detail_plus(p, old_size) != h->top || (head & BA_DETAIL_INUSE_BITS) == 0 /* huge */
       || !ba_detail_default_alignment(alignment) || limit_objects > preferred_objects || size == 0
       || __builtin_mul_overflow(preferred_objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST)
      return 0;
   nb = ba_detail_request2size(bytes);
   if (old_size >= nb || old_size + h->topsize < nb + BA_DETAIL_MIN_CHUNK) return 0;
   ba_detail_take_from_top(h, p, old_size, nb);
   usable = nb - BA_DETAIL_CHUNK_OVERHEAD;
   *received = ba_detail_count_of(usable, size);
   ba_detail_block_moved(ba_detail_chunk2mem(p), ba_detail_chunk2mem(p), usable, *received * size);
   return 1;
}

/* Returns: whether checked chunk p might satisfy `command` in place at `bytes` (as the general
 * path's expansion step would: a block already that large counts); 0 only when it surely cannot:
 * no expansion asked, or nothing free after it (or no expand_fwd) and nothing free or held before
 * it (or no expand_bwd). Conservative and cheap: for the growth of a vector that has to move. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_may_expand(ba_heap *h, unsigned command, ba_detail_ch *p,
   size_t bytes)
{
   const size_t head = p->head, size = head & ~BA_DETAIL_FLAG_BITS;
   const ba_detail_ch *next = ba_detail_plus(p, size);
   if (!(command & (BA_EXPAND_FWD | BA_EXPAND_BWD))) return 0;
   if ((head & BA_DETAIL_INUSE_BITS) == 0 || size - BA_DETAIL_CHUNK_OVERHEAD >= bytes) return 1;   /* huge; holds it */
   /* Forward: the top or a free chunk (neither has CINUSE), or a quick chunk (expand_fwd takes
    * it back from its list). */
   if ((command & BA_EXPAND_FWD) && (next->head & (BA_DETAIL_CINUSE | BA_DETAIL_QUICK)) != BA_DETAIL_CINUSE)
      return 1;
   return (command & BA_EXPAND_BWD) && (!(head & BA_DETAIL_PINUSE) || ba_detail_quick_may_precede(h, p));
}

/* A new block at the preferred size when there is no block p to reuse (a vector's first buffer)
 * or p surely cannot grow in place (the buffer a vector moves to): the command's short path for
 * it, one call to malloc_chunk, answering as the general path would. Returns: the block, or null
 * to leave the command (and any failure) to the general path. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_new_at_preferred(ba_heap *h, unsigned command, size_t size,
   size_t alignment, size_t limit_objects, size_t preferred_objects, ba_detail_ch *p, size_t *received)
{
   size_t bytes, usable;
   void *mem;
   if ((command & (BA_ALLOCATE_NEW | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_ALLOCATE_NEW
       || !ba_detail_default_alignment(alignment) || limit_objects > preferred_objects
       || !ba_detail_valid_object_size(size)
       || __builtin_mul_overflow(preferred_objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST
       || (p && ba_detail_may_expand(h, command, p, bytes)))
      return 0;
   mem = ba_detail_malloc_chunk(h, ba_detail_request2size(bytes), 1);
   if (!mem) return 0;
   usable = ba_detail_usable(ba_detail_mem2chunk(mem));
   *received = ba_detail_count_of(usable, size);
   ba_detail_block_born(mem, usable, *received * size);
   return mem;
}

/* Returns: the objects of `size` that chunk p's payload holds (as its owner sees it). */
BA_DETAIL_FN size_t ba_detail_objects(const ba_detail_ch *p, size_t size)
{
   return ba_detail_count_of(ba_detail_exposed(ba_detail_chunk2mem(p), ba_detail_usable(p)), size);
}

/* The shrink half of allocation_command: see the header. Every shrink_to_fit of a vector comes
 * here, so it is inlined into allocation_command, which is inlined into the container, whose
 * constant command then removes it from the growth paths. Measured: as a cold function 36 more
 * instructions a shrink (1.2x Boost.Container's time); as a call of its own 1.1-1.5x. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE ba_command_ret ba_detail_shrink_command(ba_heap *h, unsigned command,
   size_t size, size_t max_objects, size_t min_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   size_t exposed = ba_detail_exposed(ba_detail_chunk2mem(p), ba_detail_usable(p));
   size_t current = ba_detail_count_of(exposed, size), nb, usable_after;
   *received = current;
   if (min_objects > current) return ret;
   nb = ba_detail_request2size(min_objects * size);
   usable_after = exposed;
   if (ba_detail_is_huge(p)) {
      size_t page = ba_detail_page();
      size_t commit = ba_detail_round_up(p->prev_foot + nb + BA_DETAIL_WORD, page);
      if (commit < ba_detail_huge_of(p)->committed) usable_after = commit - p->prev_foot - BA_DETAIL_HUGE_OVERHEAD;
   } else if (ba_detail_chunksize(p) >= nb + BA_DETAIL_MIN_CHUNK) {
      usable_after = nb - BA_DETAIL_CHUNK_OVERHEAD;
   }
   /* Never report more than the owner sees now (under ASan, what it asked for). */
   if (usable_after > exposed) usable_after = exposed;
   if (ba_detail_count_of(usable_after, size) > max_objects) return ret;
   *received = ba_detail_count_of(usable_after, size);
   if (command & BA_SHRINK_IN_PLACE) {
      ba_detail_shrink_chunk(h, p, nb);
      ba_detail_block_moved(ba_detail_chunk2mem(p), ba_detail_chunk2mem(p), ba_detail_usable(p), *received * size);
   }
   ret.first = ba_detail_chunk2mem(p);
   ret.second = 1;
   return ret;
}

/* Allocates a new block of `bytes` (below BA_DETAIL_MAX_REQUEST) aligned to `alignment` for
 * allocation_command. */
BA_DETAIL_FN void *ba_detail_command_new(ba_heap *h, size_t alignment, size_t bytes)
{
   return alignment <= BA_DETAIL_ALIGN ? ba_detail_malloc_chunk(h, ba_detail_request2size(bytes), 1)
                                       : ba_detail_memalign(h, alignment, bytes);
}

/* Finishes a successful allocation or expansion: the caller may use the objects the block holds
 * (`bytes`) and, after an expansion, every byte it could use before (old_bytes at old_mem). With
 * zero_memory, the bytes gained are zeroed. */
BA_DETAIL_FN void ba_detail_command_done(unsigned command, char *old_mem, char *mem, size_t bytes,
   size_t old_bytes, int is_new)
{
   size_t usable = ba_detail_usable(ba_detail_mem2chunk(mem));
   char *old_end = old_mem + old_bytes, *end = mem + bytes;
   if (is_new) {
      ba_detail_block_born(mem, usable, bytes);
      if (command & BA_ZERO_MEMORY) memset(mem, 0, bytes);
      return;
   }
   if (end < old_end) end = old_end;
   ba_detail_block_moved(old_mem, mem, usable, (size_t)(end - mem));
   if (command & BA_ZERO_MEMORY) {
      memset(mem, 0, (size_t)(old_mem - mem));
      memset(old_end, 0, (size_t)(end - old_end));
   }
}

/* The expanding and allocating half of allocation_command (valid size and alignment, alignment
 * at least BA_DETAIL_ALIGN, limit_objects <= preferred_objects), on checked chunk p or null. In the
 * order of the header: expand to preferred, new at preferred, expand to limit, new at limit, each
 * only if the command asks for it. This is the path of every growing vector: nothing is worked
 * out before the step that needs it. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE ba_command_ret ba_detail_grow_command(ba_heap *h, unsigned command, size_t size, size_t alignment,
   size_t limit_objects, size_t preferred_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   const int expand = p && (command & (BA_EXPAND_FWD | BA_EXPAND_BWD));
   const size_t preferred_bytes = ba_detail_bytes_of(preferred_objects, size);
   char *old_mem = p ? (char *)ba_detail_chunk2mem(p) : 0;
   /* Under ASan an expansion keeps what the owner saw before, which may be less than usable. */
   size_t old_bytes = p ? ba_detail_exposed(old_mem, ba_detail_usable(p)) : 0;
   if (preferred_bytes < BA_DETAIL_MAX_REQUEST) {
      if (expand && ba_detail_expand(h, &p, command, size, alignment, preferred_bytes, preferred_bytes)) goto expanded;
      if ((command & BA_ALLOCATE_NEW) && (ret.first = ba_detail_command_new(h, alignment, preferred_bytes)) != 0)
         goto done;
   }
   if (limit_objects < preferred_objects) {
      /* Worked out only now: most commands succeed at the preferred size. */
      const size_t limit_bytes = ba_detail_bytes_of(limit_objects, size);
      /* A preferred size too large to represent still lets the limit be reached. */
      const size_t most = preferred_bytes < BA_DETAIL_MAX_REQUEST ? preferred_bytes : limit_bytes;
      if (limit_bytes >= BA_DETAIL_MAX_REQUEST) goto failed;
      if (expand && ba_detail_expand(h, &p, command, size, alignment, limit_bytes, most)) goto expanded;
      if ((command & BA_ALLOCATE_NEW) && (ret.first = ba_detail_command_new(h, alignment, limit_bytes)) != 0)
         goto done;
   }
failed:
   *received = p ? ba_detail_count_of(old_bytes, size) : 0;
   return ret;
expanded:
   ret.first = ba_detail_chunk2mem(p);
   ret.second = 1;
done:
   *received = ba_detail_count_of(ba_detail_usable(ba_detail_mem2chunk(ret.first)), size);
   ba_detail_command_done(command, old_mem, (char *)ret.first, *received * size, old_bytes, !ret.second);
   return ret;
}

/* allocation_command on a checked chunk p (null when there is no reuse block). Out of line: the
 * public function stays small enough to inline with its fast paths (see expand_into_top). */
BA_DETAIL_OUT_OF_LINE_FN ba_command_ret ba_detail_command(ba_heap *h, unsigned command, size_t size, size_t alignment,
   size_t limit_objects, size_t preferred_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   if (BA_DETAIL_UNLIKELY(!ba_detail_valid_object_size(size) || !ba_detail_is_pow2(alignment))) {
      *received = p && size ? ba_detail_objects(p, size) : 0;
      return ret;
   }
   if (alignment < BA_DETAIL_ALIGN) alignment = BA_DETAIL_ALIGN;
   if (BA_DETAIL_UNLIKELY(command & (BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE))) {
      if (!p) { *received = 0; return ret; }
      return ba_detail_shrink_command(h, command, size, limit_objects, preferred_objects, received, p);
   }
   if (BA_DETAIL_UNLIKELY(limit_objects > preferred_objects)) {
      *received = p ? ba_detail_objects(p, size) : 0;
      return ret;
   }
   return ba_detail_grow_command(h, command, size, alignment, limit_objects, preferred_objects, received, p);
}

/* ---------------------------------------------------------------------------------------------
 * Bursts
 * ------------------------------------------------------------------------------------------- */

/* Bytes of burst element i (the node size, or lengths[i] elements); at least the chain's link. */
BA_DETAIL_FN size_t ba_detail_burst_bytes(const size_t *lengths, size_t i, size_t elem_size)
{
   size_t bytes = lengths ? ba_detail_bytes_of(lengths[i], elem_size) : elem_size;
   return bytes < sizeof(void *) ? sizeof(void *) : bytes;
}
/* Padded chunk size of burst element i, or 0 if too big. */
BA_DETAIL_FN size_t ba_detail_burst_nb(const size_t *lengths, size_t i, size_t elem_size)
{
   size_t bytes = ba_detail_burst_bytes(lengths, i, elem_size);
   return bytes >= BA_DETAIL_MAX_REQUEST ? 0 : ba_detail_request2size(bytes);
}
/* Allocates elements [first, last) as one run: one chunk split into adjacent in-use chunks, linked
 * in address order and appended to *out in one step. A run of one element may be a huge block.
 * Returns the bytes, or 0. */
BA_DETAIL_FN size_t ba_detail_burst_run(ba_heap *h, const size_t *lengths, size_t elem_size, size_t first,
   size_t last, size_t total, ba_chain *out)
{
   char *mem = (char *)ba_detail_malloc_chunk(h, total, last - first == 1);
   ba_detail_ch *p;
   size_t size, i, pinuse, node_nb = lengths ? 0 : ba_detail_burst_nb(0, 0, elem_size);
   size_t remaining = last - first;   /* at least one */
   int huge;
   if (!mem) return 0;
   p = ba_detail_mem2chunk(mem);
   size = ba_detail_chunksize(p);
   pinuse = p->head & BA_DETAIL_PINUSE;
   huge = ba_detail_is_huge(p);
   /* Counted down, not `i + 1 < last`: GCC -O3 then sees the loop cannot run past the array. */
   for (i = first; --remaining != 0; ++i) {
      size_t nb = lengths ? ba_detail_burst_nb(lengths, i, elem_size) : node_nb;
      ba_detail_ch *next = ba_detail_plus(p, nb);
      p->head = nb | pinuse | BA_DETAIL_CINUSE;
      pinuse = BA_DETAIL_PINUSE;
      ba_detail_block_born(ba_detail_chunk2mem(p), nb - BA_DETAIL_CHUNK_OVERHEAD, ba_detail_burst_bytes(lengths, i, elem_size));
      *(void **)ba_detail_chunk2mem(p) = ba_detail_chunk2mem(next);   /* the chain's link */
      p = next;
      size -= nb;
   }
   /* The last element takes what the run chunk had beyond the total (less than a minimum chunk);
    * the chunk after the run already has PINUSE set. */
   if (!huge) p->head = size | pinuse | BA_DETAIL_CINUSE;
   ba_detail_block_born(ba_detail_chunk2mem(p), ba_detail_usable(p), ba_detail_burst_bytes(lengths, last - 1, elem_size));
   *(void **)ba_detail_chunk2mem(p) = 0;
   if (out->last) *(void **)out->last = mem; else out->first = mem;
   out->last = ba_detail_chunk2mem(p);
   out->size += last - first;
   return ba_detail_chunksize(p) + (size_t)((char *)p - (mem - 2 * BA_DETAIL_WORD));
}

/* Frees the chunks of a chain without accounting or trimming; merges runs adjacent in memory.
 * Returns the bytes freed (chunk sizes) and counts the chunks in *chunks. */
BA_DETAIL_FN size_t ba_detail_free_chain(ba_heap *h, ba_chain *chain, size_t *chunks)
{
   size_t bytes = 0, count = 0;
   void *node = chain->first;
   while (node) {
      void *next = ba_chain_next(node);
      ba_detail_ch *p = ba_detail_checked_chunk(h, node);
      size_t psize = ba_detail_chunksize(p);
      ++count;
      bytes += psize;
      ba_detail_block_died(node, ba_detail_usable(p));
      if (ba_detail_is_huge(p)) {
         ba_detail_huge_free(h, p);
         node = next;
         continue;
      }
      /* Swallow the next nodes while each is the chunk just after: one dispose for the run. */
      while (next && ba_detail_mem2chunk(next) == ba_detail_plus(p, psize)) {
         ba_detail_ch *q = ba_detail_checked_chunk(h, next);
         size_t qsize = ba_detail_chunksize(q);
         void *after = ba_chain_next(next);
         ba_detail_block_died(next, ba_detail_usable(q));
         ++count;
         bytes += qsize;
         psize += qsize;
         next = after;
      }
      ba_detail_dispose_chunk(h, p, psize);
      ba_detail_count_release(h, psize);
      node = next;
   }
   ba_chain_init(chain);
   *chunks = count;
   return bytes;
}

/* Allocates n elements in runs (see ba_multialloc_nodes) onto *chain. All or nothing. Returns
 * the bytes allocated, or 0 (and *chain untouched) when memory is out. */
BA_DETAIL_FN size_t ba_detail_multialloc(ba_heap *h, size_t n, const size_t *lengths, size_t elem_size,
   size_t contiguous, ba_chain *chain)
{
   ba_chain got;
   size_t i = 0, bytes = 0;
   size_t run_bytes = ~(size_t)0, run_count = ~(size_t)0;
   if (contiguous == BA_MULTIALLOC_DEFAULT_CONTIGUOUS) run_bytes = BA_DETAIL_BURST_RUN_BYTES;
   else if (contiguous != BA_MULTIALLOC_ALL_CONTIGUOUS) {
      if (lengths) run_bytes = ba_detail_bytes_of(contiguous, elem_size);
      else run_count = contiguous;
   }
   ba_chain_init(&got);
   while (i < n) {
      size_t j = i, total = 0, run;
      if (!lengths) {
         /* Nodes: the run's length follows from one size, no walk needed. */
         size_t nb = ba_detail_burst_nb(0, 0, elem_size), count = n - i, fit;
         if (nb == 0) goto fail;
         fit = run_bytes / nb;
         if (fit > BA_DETAIL_MAX_REQUEST / nb) fit = BA_DETAIL_MAX_REQUEST / nb - 1;
         if (fit == 0) fit = 1;
         if (count > fit) count = fit;
         if (count > run_count) count = run_count;
         j = i + count;
         total = count * nb;
      }
      while (lengths && j < n) {
         size_t nb = ba_detail_burst_nb(lengths, j, elem_size);
         if (nb == 0 || total + nb >= BA_DETAIL_MAX_REQUEST) { if (j == i) goto fail; break; }
         if (j > i && (total + nb > run_bytes || j - i >= run_count)) break;
         total += nb;
         ++j;
      }
      run = ba_detail_burst_run(h, lengths, elem_size, i, j, total, &got);
      if (!run) goto fail;
      bytes += run;
      i = j;
   }
   ba_chain_splice_back(chain, &got);
   return bytes;
fail:
   {
      size_t chunks;
      ba_detail_free_chain(h, &got, &chunks);
      ba_detail_maybe_trim(h);
      return 0;
   }
}

/* ---------------------------------------------------------------------------------------------
 * Heap walk: statistics and the heap check
 * ------------------------------------------------------------------------------------------- */

typedef struct ba_detail_tally {
   size_t inuse_chunks, inuse_bytes;
   size_t free_chunks, free_bytes;   /* top and designated victim included */
   size_t binned_chunks;             /* free chunks that must be found in a bin */
   size_t quick_chunks;              /* in-use chunks flagged QUICK: each in its quick list */
   size_t segments, committed;
   size_t huge_blocks, huge_committed;
   int found_top, found_dv;
} ba_detail_tally;

#define BA_DETAIL_FAIL(what, at) do { *where = (const void *)(at); return (what); } while (0)

BA_DETAIL_FN const char *ba_detail_walk_free_chunk(const ba_heap *h, const ba_detail_ch *p, size_t size,
   ba_detail_tally *t, const void **where)
{
   const ba_detail_ch *next = ba_detail_plus(p, size);
   if (!ba_detail_pinuse(p)) BA_DETAIL_FAIL("two adjacent free chunks (the previous one is free)", p);
   if (next->prev_foot != size) BA_DETAIL_FAIL("a free chunk's boundary tag does not repeat its size", p);
   if (ba_detail_pinuse(next)) BA_DETAIL_FAIL("the chunk after a free chunk has PINUSE set", next);
   if (!ba_detail_cinuse(next)) BA_DETAIL_FAIL("two adjacent free chunks (the next one is free)", next);
   ++t->free_chunks;
   t->free_bytes += size;
   if (p == h->dv) {
      if (size != h->dvsize) BA_DETAIL_FAIL("the designated victim's size disagrees with dvsize", p);
      t->found_dv = 1;
   } else if (ba_detail_is_small(size)) {
      ++t->binned_chunks;
      if (!(h->smallmap & ba_detail_small_bit(ba_detail_small_index(size)))) BA_DETAIL_FAIL("a free small chunk's bin is marked empty", p);
   } else {
      unsigned i = ba_detail_tree_index(size);
      ++t->binned_chunks;
      if (!(h->treemap & (1u << i))) BA_DETAIL_FAIL("a free large chunk's tree bin is marked empty", p);
      if (((const ba_detail_tch *)(const void *)p)->index != i) BA_DETAIL_FAIL("a tree chunk records the wrong bin", p);
   }
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_segment(const ba_heap *h, const ba_detail_segment *s, ba_detail_tally *t,
   const void **where)
{
   const ba_detail_ch *fence, *p;
   if (s->committed > s->reserved || s->committed < BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_FENCE_SIZE)
      BA_DETAIL_FAIL("a segment's committed size is out of its reservation", s);
   if (((uintptr_t)s->chunks_begin & BA_DETAIL_ALIGN_MASK) != 0) BA_DETAIL_FAIL("a segment's chunks are misaligned", s);
   fence = ba_detail_fence(s);
   if (ba_detail_chunksize(fence) != BA_DETAIL_FENCE_SIZE || !ba_detail_cinuse(fence))
      BA_DETAIL_FAIL("a segment's fence is overwritten", fence);
   ++t->segments;
   if (!(s->flags & BA_DETAIL_SEGMENT_EXTERNAL)) t->committed += s->committed;
   p = (const ba_detail_ch *)(const void *)s->chunks_begin;
   if (!ba_detail_pinuse(p)) BA_DETAIL_FAIL("the first chunk of a segment lacks PINUSE", p);
   while (p != fence) {
      size_t size = ba_detail_chunksize(p);
      const ba_detail_ch *next = ba_detail_plus(p, size);
      if (size < BA_DETAIL_MIN_CHUNK || (size & BA_DETAIL_ALIGN_MASK) != 0 || (const char *)next > (const char *)fence)
         BA_DETAIL_FAIL("a chunk's size is out of bounds (an overrun of the block before it?)", p);
      if (p == h->top) {
         if (next != fence || s != h->top_segment) BA_DETAIL_FAIL("the top is not the last chunk of the top segment", p);
         if (size != h->topsize || ba_detail_cinuse(p)) BA_DETAIL_FAIL("the top chunk disagrees with topsize", p);
         t->found_top = 1;
         ++t->free_chunks;
         t->free_bytes += size;
      } else if (ba_detail_cinuse(p)) {
         if (!ba_detail_pinuse(next)) BA_DETAIL_FAIL("the chunk after an in-use chunk lacks PINUSE", next);
         if (p->head & BA_DETAIL_QUICK) {
            /* Free memory to the owner and the statistics, an in-use chunk to its neighbours. */
            if (!ba_detail_is_small(size)) BA_DETAIL_FAIL("a large chunk is flagged as held in a quick list", p);
            ++t->quick_chunks;
            ++t->free_chunks;
            t->free_bytes += size;
         } else {
            ++t->inuse_chunks;
            t->inuse_bytes += size;
         }
      } else {
         const char *what = ba_detail_walk_free_chunk(h, p, size, t, where);
         if (what) return what;
      }
      p = next;
   }
   return 0;
}

/* Checks the ring of chunks of tree node x and the subtrees below it; counts the chunks. */
BA_DETAIL_FN const char *ba_detail_walk_tree(const ba_heap *h, const ba_detail_tch *x, unsigned i, size_t *count,
   size_t bound, const void **where)
{
   size_t size = ba_detail_chunksize(&x->c);
   size_t lo = ba_detail_tree_min_size(i);
   const ba_detail_tch *u = x;
   unsigned c;
   if (size < lo || (i + 1 < BA_DETAIL_NTREEBINS && size >= ba_detail_tree_min_size(i + 1)))
      BA_DETAIL_FAIL("a tree chunk's size is outside its bin", x);
   do {
      if (ba_detail_chunksize(&u->c) != size || u->index != i) BA_DETAIL_FAIL("a tree ring holds chunks of different sizes", u);
      if (ba_detail_cinuse(&u->c)) BA_DETAIL_FAIL("an in-use chunk is in a tree bin", u);
      if (u->c.fd->bk != &u->c || u->c.bk->fd != &u->c) BA_DETAIL_FAIL("broken links in a tree ring", u);
      if (u != x && u->parent != 0) BA_DETAIL_FAIL("two tree nodes for one size", u);
      if (h->dv == &u->c) BA_DETAIL_FAIL("the designated victim is also in a bin", u);
      if (++*count > bound) BA_DETAIL_FAIL("a tree bin holds more chunks than the heap has (a cycle?)", u);
      u = (const ba_detail_tch *)(const void *)u->c.fd;
   } while (u != x);
   if (x->child[0] && x->child[1] && ba_detail_chunksize(&x->child[0]->c) >= ba_detail_chunksize(&x->child[1]->c))
      BA_DETAIL_FAIL("tree children are out of order", x);
   for (c = 0; c < 2; ++c) {
      const ba_detail_tch *child = x->child[c];
      const char *what;
      if (!child) continue;
      if (child->parent != x) BA_DETAIL_FAIL("a tree child does not point back to its parent", child);
      if ((what = ba_detail_walk_tree(h, child, i, count, bound, where)) != 0) return what;
   }
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_bins(const ba_heap *h, const ba_detail_tally *t, const void **where)
{
   size_t count = 0;
   unsigned i;
   if (h->smallmap & 3u) BA_DETAIL_FAIL("a small bin below the minimum chunk is marked non-empty", h);
   for (i = 2; i < BA_DETAIL_NSMALLBINS; ++i) {
      const ba_detail_ch *b = &h->smallbins[i], *q;
      if (!(h->smallmap & ba_detail_small_bit(i))) continue;
      if (b->fd == b) BA_DETAIL_FAIL("a small bin marked non-empty is empty", b);
      for (q = b->fd; q != b; q = q->fd) {
         if (ba_detail_chunksize(q) != ba_detail_small_index2size(i)) BA_DETAIL_FAIL("a small bin holds a chunk of another size", q);
         if (ba_detail_cinuse(q)) BA_DETAIL_FAIL("an in-use chunk is in a small bin", q);
         if (q->fd->bk != q || q->bk->fd != q) BA_DETAIL_FAIL("broken links in a small bin", q);
         if (q == h->dv) BA_DETAIL_FAIL("the designated victim is also in a bin", q);
         if (++count > t->binned_chunks) BA_DETAIL_FAIL("the bins hold more chunks than the heap has (a cycle?)", q);
      }
   }
   for (i = 0; i < BA_DETAIL_NTREEBINS; ++i) {
      const ba_detail_tch *root = h->treebins[i];
      const char *what;
      if (!(h->treemap & (1u << i)) != !root) BA_DETAIL_FAIL("a tree bin's bit disagrees with its root", &h->treebins[i]);
      if (!root) continue;
      if (root->parent != (const ba_detail_tch *)(const void *)&h->treebins[i]) BA_DETAIL_FAIL("a tree root does not point to its bin", root);
      if ((what = ba_detail_walk_tree(h, root, i, &count, t->binned_chunks, where)) != 0) return what;
   }
   if (count != t->binned_chunks) BA_DETAIL_FAIL("free chunks are missing from the bins", h);
   return 0;
}

/* Checks the quick lists against the chunks the segment walk found flagged QUICK. */
BA_DETAIL_FN const char *ba_detail_walk_quick(const ba_heap *h, const ba_detail_tally *t, const void **where)
{
   size_t total = 0;
   unsigned i;
   for (i = 0; i < BA_DETAIL_NSMALLBINS; ++i) {
      unsigned count = 0;
      ba_detail_ch *q;
      for (q = h->quick[i]; q; q = *ba_detail_quick_link(q)) {
         /* A write after free lands on the link first: look at it before following it. */
         if ((char *)q < h->least_addr || ((uintptr_t)ba_detail_chunk2mem(q) & BA_DETAIL_ALIGN_MASK) != 0)
            BA_DETAIL_FAIL("a quick list's link is overwritten (a use after free?)", q);
         if (++count > h->quick_count[i]) BA_DETAIL_FAIL("a quick list holds more chunks than it counts (a cycle, or a use after free?)", q);
         if (!(q->head & BA_DETAIL_QUICK) || !ba_detail_cinuse(q)) BA_DETAIL_FAIL("a chunk in a quick list is not flagged QUICK (a use after free?)", q);
         if (ba_detail_chunksize(q) != ba_detail_small_index2size(i)) BA_DETAIL_FAIL("a quick list holds a chunk of another size", q);
      }
      if (count != h->quick_count[i]) BA_DETAIL_FAIL("a quick list holds fewer chunks than it counts", &h->quick[i]);
      total += count;
   }
   if (total != h->quick_chunks || total != t->quick_chunks) BA_DETAIL_FAIL("chunks flagged QUICK are missing from the quick lists", h);
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_huge(const ba_heap *h, ba_detail_tally *t, const void **where)
{
   const ba_detail_huge_header *hh, *prev = 0;
   for (hh = h->huge; hh; prev = hh, hh = hh->next) {
      const ba_detail_ch *p = (const ba_detail_ch *)(const void *)((const char *)hh + hh->chunk_offset);
      if (hh->prev != prev) BA_DETAIL_FAIL("broken links in the list of huge blocks", hh);
      if (hh->heap != h || hh->magic != ((size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC)) BA_DETAIL_FAIL("a huge block's header is overwritten", hh);
      if (hh->committed > hh->reserved || !ba_detail_is_huge(p) || p->prev_foot != hh->chunk_offset
          || ba_detail_chunksize(p) != hh->committed - hh->chunk_offset)
         BA_DETAIL_FAIL("a huge block's chunk disagrees with its header", p);
      ++t->huge_blocks;
      t->huge_committed += hh->committed;
      ++t->inuse_chunks;
      t->inuse_bytes += ba_detail_chunksize(p);
   }
   return 0;
}

/* Walks every segment, bin and huge block of h. Returns null when every invariant holds, else
 * the first broken one (and where). */
BA_DETAIL_FN const char *ba_detail_walk(const ba_heap *h, ba_detail_tally *t, const void **where)
{
   const ba_detail_segment *s;
   const char *what;
   memset(t, 0, sizeof *t);
   for (s = h->segments; s; s = s->next)
      if ((what = ba_detail_walk_segment(h, s, t, where)) != 0) return what;
   if (h->top && !t->found_top) BA_DETAIL_FAIL("the top chunk lies in no segment", h->top);
   if (h->dv && (!t->found_dv || h->dvsize < BA_DETAIL_MIN_CHUNK)) BA_DETAIL_FAIL("the designated victim lies in no segment", h->dv);
   if (!h->dv && h->dvsize != 0) BA_DETAIL_FAIL("dvsize is set without a designated victim", h);
   if ((what = ba_detail_walk_bins(h, t, where)) != 0) return what;
   if ((what = ba_detail_walk_quick(h, t, where)) != 0) return what;
   if ((what = ba_detail_walk_huge(h, t, where)) != 0) return what;
   if (h->huge_blocks != t->huge_blocks || h->huge_bytes != t->huge_committed)
      BA_DETAIL_FAIL("the huge block statistics disagree with the blocks", h);
   if (h->footprint != t->committed + t->huge_committed) BA_DETAIL_FAIL("the footprint disagrees with the segments and huge blocks", h);
   if (h->in_use_chunks != t->inuse_chunks || h->in_use_bytes != t->inuse_bytes)
      BA_DETAIL_FAIL("the in-use statistics disagree with the chunks", h);
   return 0;
}

#undef BA_DETAIL_FAIL

/* ---------------------------------------------------------------------------------------------
 * Accounting of the public functions
 * ------------------------------------------------------------------------------------------- */

BA_DETAIL_FN void ba_detail_note_alloc(ba_heap *h, size_t bytes, size_t chunks)
{
   h->in_use_bytes += bytes;
   h->in_use_chunks += chunks;
   if (h->in_use_bytes > h->peak_in_use_bytes) h->peak_in_use_bytes = h->in_use_bytes;
}
BA_DETAIL_FN void ba_detail_note_free(ba_heap *h, size_t bytes, size_t chunks)
{
   h->in_use_bytes -= bytes;
   h->in_use_chunks -= chunks;
}
/* A block of old_size bytes became a block of new_size (in place or moved). */
BA_DETAIL_FN void ba_detail_note_resize(ba_heap *h, size_t old_size, size_t new_size)
{
   ba_detail_note_free(h, old_size, 0);
   ba_detail_note_alloc(h, new_size, 0);
}
BA_DETAIL_FN size_t ba_detail_size_of_mem(const void *mem) { return ba_detail_chunksize(ba_detail_mem2chunk(mem)); }

/* Frees mem, with h locked; unlocks h. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_free_locked(ba_heap *h, void *mem)
{
   ba_detail_ch *p = ba_detail_checked_chunk(h, mem);
   ba_detail_note_free(h, ba_detail_chunksize(p), 1);
   ba_detail_free_chunk(h, p);
   ba_detail_unlock(h);
}

/* Frees mem when another thread held h's lock at the first try. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_free_contended(ba_heap *h, void *mem)
{
   ba_detail_spin_lock_slow(&h->lock_word);
   ba_detail_free_locked(h, mem);
}

/* The two commonest frees, done as ba_detail_free_chunk would do them, with h locked: a small
 * chunk into its quick list, or a chunk (with an in-use chunk before it) into the top when that
 * neither trims the top nor releases segments. They need no call and no register saved: a small
 * vector's free went from 91 instructions to 58 (callgrind). Returns: 1 when done; 0, with nothing
 * changed, for every other free, for a pointer that fails the checks (ba_detail_free_locked
 * reports it) and in checked builds (whose checks are ba_detail_free_locked's). */
BA_DETAIL_FN int ba_detail_free_short(ba_heap *h, void *mem)
{
#if BOOST_ALLOCPLUS_CHECKED
   (void)h; (void)mem;
   return 0;
#else
   ba_detail_ch *p = ba_detail_mem2chunk(mem), *next;
   size_t psize;
   if (BA_DETAIL_UNLIKELY(((uintptr_t)mem & BA_DETAIL_ALIGN_MASK) != 0) || !ba_detail_looks_in_use(h, p)) return 0;
   psize = ba_detail_chunksize(p);
   next = ba_detail_plus(p, psize);
   if (next != h->top) {
      if (psize > BA_DETAIL_MAX_SMALL_SIZE || h->quick_count[ba_detail_small_index(psize)] >= BA_DETAIL_QUICK_LIMIT)
         return 0;
      ba_detail_block_died(mem, ba_detail_usable(p));
      ba_detail_quick_push(h, p, psize);
   } else {
      /* No coalescing backward, no trim, no countdown to a release of segments reaching 0. */
      int counted = ba_detail_counts_toward_release(h, psize);
      if (!ba_detail_pinuse(p) || h->topsize + psize > h->trim_check || (counted && h->release_countdown == 1))
         return 0;
      if (counted) --h->release_countdown;
      ba_detail_block_died(mem, ba_detail_usable(p));
      ba_detail_merge_into_top(h, p, psize);
   }
   ba_detail_note_free(h, psize, 1);
   return 1;
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Public functions: explicit heaps
 * ------------------------------------------------------------------------------------------- */

BOOST_ALLOCPLUS_CORE_API void *ba_heap_malloc(ba_heap *h, size_t n)
{
   void *mem;
   ba_detail_lock(h);
   mem = ba_detail_malloc(h, n);
   if (mem) {
      ba_detail_note_alloc(h, ba_detail_size_of_mem(mem), 1);
      ba_detail_block_born(mem, ba_detail_usable(ba_detail_mem2chunk(mem)), n);
   }
   ba_detail_unlock(h);
   return mem;
}

BOOST_ALLOCPLUS_CORE_API void ba_heap_free(ba_heap *h, void *mem)
{
   if (!mem) return;
   if (BA_DETAIL_UNLIKELY(!ba_detail_try_lock(h))) {
      ba_detail_free_contended(h, mem);
      return;
   }
   if (ba_detail_free_short(h, mem)) {
      ba_detail_unlock(h);
      return;
   }
   ba_detail_free_locked(h, mem);
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_calloc(ba_heap *h, size_t n, size_t size)
{
   void *mem;
   ba_detail_ch *p;
   if (size != 0 && n > ~(size_t)0 / size) return 0;
   ba_detail_lock(h);
   mem = ba_detail_malloc(h, n * size);
   if (mem) {
      p = ba_detail_mem2chunk(mem);
      ba_detail_note_alloc(h, ba_detail_chunksize(p), 1);
      ba_detail_block_born(mem, ba_detail_usable(p), n * size);
      /* A huge block's pages are fresh from the system, hence already zero. */
      if (!ba_detail_is_huge(p)) memset(mem, 0, n * size);
   }
   ba_detail_unlock(h);
   return mem;
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_realloc(ba_heap *h, void *mem, size_t n)
{
   ba_detail_ch *p;
   size_t old_size;
   void *result;
   if (!mem) return ba_heap_malloc(h, n);
   if (n >= BA_DETAIL_MAX_REQUEST) return 0;
   ba_detail_lock(h);
   p = ba_detail_checked_chunk(h, mem);
   old_size = ba_detail_chunksize(p);
   result = ba_detail_realloc(h, p, n);
   if (result) ba_detail_note_resize(h, old_size, ba_detail_size_of_mem(result));
   ba_detail_unlock(h);
   return result;
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_memalign(ba_heap *h, size_t alignment, size_t n)
{
   void *mem;
   if (!ba_detail_is_pow2(alignment)) return 0;
   ba_detail_lock(h);
   mem = ba_detail_malloc_aligned(h, alignment, n);
   if (mem) {
      ba_detail_note_alloc(h, ba_detail_size_of_mem(mem), 1);
      ba_detail_block_born(mem, ba_detail_usable(ba_detail_mem2chunk(mem)), n);
   }
   ba_detail_unlock(h);
   return mem;
}

BA_DETAIL_FN BA_DETAIL_INLINE_INTO_CALLERS ba_command_ret ba_detail_inline_command(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr)
{
   ba_command_ret ret = {0, 0};
   ba_detail_ch *p = 0;
   size_t old_size = 0, received = 0;
   ba_detail_lock(h);
   if (reuse_ptr) {
      p = ba_detail_checked_chunk(h, reuse_ptr);
      old_size = ba_detail_chunksize(p);
   }
   /* A vector's everyday commands are handled here, inline: growing into the top, shrink_to_fit,
    * and a new block (its first, or the one it moves to: one call to malloc_chunk). Everything
    * else (and their failures) is a call. */
   if (p && ba_detail_expand_into_top(h, command, sizeof_object, alignof_object, limit_objects,
                                      preferred_objects, p, &received)) {
      ret.first = reuse_ptr;
      ret.second = 1;
   } else if (p && (command & (BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE))
              && ba_detail_valid_object_size(sizeof_object)
              && ba_detail_default_alignment(alignof_object)) {
      ret = ba_detail_shrink_command(h, command, sizeof_object, limit_objects, preferred_objects, &received, p);
   } else if ((ret.first = ba_detail_new_at_preferred(h, command, sizeof_object, alignof_object, limit_objects,
                                                      preferred_objects, p, &received)) == 0) {
      ret = ba_detail_command(h, command, sizeof_object, alignof_object ? alignof_object : BA_DETAIL_ALIGN,
                              limit_objects, preferred_objects, &received, p);
   }
   if (ret.first) {
      if (ret.second) ba_detail_note_resize(h, old_size, ba_detail_size_of_mem(ret.first));
      else ba_detail_note_alloc(h, ba_detail_size_of_mem(ret.first), 1);
   }
   ba_detail_unlock(h);
   if (received_objects) *received_objects = received;
   return ret;
}

BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_heap_allocation_command(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr)
{
   return ba_detail_inline_command(h, command, sizeof_object, alignof_object, limit_objects,
                                   preferred_objects, received_objects, reuse_ptr);
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_multialloc_arrays(ba_heap *h, size_t n, const size_t *lengths,
   size_t sizeof_element, size_t contiguous_elements, ba_chain *chain)
{
   size_t bytes;
   if (n == 0) return 1;
   if (lengths && sizeof_element == 0) return 0;
   ba_detail_lock(h);
   bytes = ba_detail_multialloc(h, n, lengths, sizeof_element, contiguous_elements, chain);
   if (bytes) ba_detail_note_alloc(h, bytes, n);
   ba_detail_unlock(h);
   return bytes != 0;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_multialloc_nodes(ba_heap *h, size_t n, size_t elem_size,
   size_t contiguous_elements, ba_chain *chain)
{
   return ba_heap_multialloc_arrays(h, n, 0, elem_size, contiguous_elements, chain);
}

BOOST_ALLOCPLUS_CORE_API void ba_heap_multidealloc(ba_heap *h, ba_chain *chain)
{
   size_t bytes, chunks;
   if (!chain->first) { ba_chain_init(chain); return; }
   ba_detail_lock(h);
   bytes = ba_detail_free_chain(h, chain, &chunks);
   ba_detail_note_free(h, bytes, chunks);
   ba_detail_maybe_trim(h);
   ba_detail_unlock(h);
}

BOOST_ALLOCPLUS_CORE_API size_t ba_heap_trim(ba_heap *h, size_t pad)
{
   size_t released;
   ba_detail_lock(h);
   released = ba_detail_sys_trim(h, pad);
   ba_detail_unlock(h);
   return released;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_set_option(ba_heap *h, int option, size_t value)
{
   int known = 1;
   ba_detail_lock(h);
   switch (option) {
   case BA_OPTION_TRIM_THRESHOLD:
      h->trim_threshold = h->trim_check = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_TRIM);
      break;
   case BA_OPTION_MMAP_THRESHOLD:
      if (!(h->flags & BA_DETAIL_HEAP_NO_SYSTEM)) h->mmap_threshold = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_MMAP);
      break;
   case BA_OPTION_RELEASE_RATE:
      h->release_rate = h->release_countdown = value;
      break;
   case BA_OPTION_HUGE_RESERVE:
      if (value > BA_DETAIL_MAX_REQUEST) value = BA_DETAIL_MAX_REQUEST;
      h->huge_reserve = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_RESERVE);
      break;
   default:
      known = 0;
   }
   ba_detail_unlock(h);
   return known;
}

BOOST_ALLOCPLUS_CORE_API size_t ba_heap_set_footprint_limit(ba_heap *h, size_t bytes)
{
   size_t previous;
   ba_detail_lock(h);
   previous = h->footprint_limit;
   h->footprint_limit = bytes;
   ba_detail_unlock(h);
   return previous;
}

BOOST_ALLOCPLUS_CORE_API void ba_heap_stats_get(ba_heap *h, ba_heap_stats *stats)
{
   ba_detail_tally t;
   const void *where;
   ba_detail_lock(h);
   ba_detail_walk(h, &t, &where);
   stats->system_bytes = h->footprint;
   stats->peak_system_bytes = h->max_footprint;
   stats->in_use_bytes = h->in_use_bytes;
   stats->peak_in_use_bytes = h->peak_in_use_bytes;
   stats->in_use_chunks = h->in_use_chunks;
   stats->free_chunks = t.free_chunks;
   stats->free_bytes = t.free_bytes;
   stats->top_bytes = h->topsize;
   stats->segments = t.segments;
   stats->huge_blocks = h->huge_blocks;
   stats->huge_bytes = h->huge_bytes;
   stats->footprint_limit = h->footprint_limit;
   ba_detail_unlock(h);
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_check(ba_heap *h, ba_check_report *report)
{
   ba_detail_tally t;
   const void *where = 0;
   const char *what;
   ba_detail_lock(h);
   what = ba_detail_walk(h, &t, &where);
   ba_detail_unlock(h);
   if (report) {
      report->what = what;
      report->where = what ? where : 0;
   }
   return what == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Creating and destroying heaps
 * ------------------------------------------------------------------------------------------- */

BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap(size_t capacity, int locked)
{
   size_t page, reserve, commit;
   char *base;
   ba_detail_segment *s;
   ba_heap *h;
   ba_detail_default();   /* the page size and the fork handlers */
   page = ba_detail_page();
   if (capacity > BA_DETAIL_MAX_REQUEST) return 0;
   reserve = ba_detail_round_up(capacity ? capacity : BA_DETAIL_CREATED_SEGMENT, page);
   commit = ba_detail_round_up(BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_HEAP_HEADER + BA_DETAIL_MIN_CHUNK + BA_DETAIL_FENCE_SIZE, page);
   if (reserve < commit) reserve = commit;
   if (commit < BA_DETAIL_COMMIT_GRANULE && reserve >= BA_DETAIL_COMMIT_GRANULE) commit = BA_DETAIL_COMMIT_GRANULE;
   base = ba_detail_reserve(reserve);
   if (!base) return 0;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve); return 0; }
   h = (ba_heap *)(void *)(base + BA_DETAIL_SEGMENT_HEADER);
   ba_detail_heap_init(h, reserve, locked, BA_DETAIL_HEAP_EMBEDDED);
   s = ba_detail_place_segment(base, reserve, commit, BA_DETAIL_SEGMENT_PERMANENT, BA_DETAIL_HEAP_HEADER);
   h->segments = s;
   ba_detail_top_from_segment(h, s);
   ba_detail_footprint_add(h, commit);
   h->flags |= BA_DETAIL_HEAP_READY;
   ba_detail_register(h);
   ba_detail_poison(base, commit);
   return h;
}

BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap_over(void *buffer, size_t size, int locked)
{
   char *base = (char *)ba_detail_round_up((size_t)(uintptr_t)buffer, BA_DETAIL_ALIGN);
   size_t lost = (size_t)(base - (char *)buffer), usable;
   ba_detail_segment *s;
   ba_heap *h;
   if (!buffer || size < BA_DETAIL_MIN_BUFFER || size - lost < BA_DETAIL_MIN_BUFFER) return 0;
   ba_detail_default();
   usable = (size - lost) & ~BA_DETAIL_ALIGN_MASK;
   if (usable < BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_HEAP_HEADER + BA_DETAIL_FENCE_SIZE + 2 * BA_DETAIL_MIN_CHUNK) return 0;
   h = (ba_heap *)(void *)(base + BA_DETAIL_SEGMENT_HEADER);
   ba_detail_heap_init(h, 0, locked, BA_DETAIL_HEAP_EMBEDDED | BA_DETAIL_HEAP_NO_SYSTEM);
   s = ba_detail_place_segment(base, usable, usable, BA_DETAIL_SEGMENT_EXTERNAL | BA_DETAIL_SEGMENT_PERMANENT,
                               BA_DETAIL_HEAP_HEADER);
   h->segments = s;
   ba_detail_top_from_segment(h, s);
   h->flags |= BA_DETAIL_HEAP_READY;
   ba_detail_register(h);
   ba_detail_poison(base, usable);
   return h;
}

BOOST_ALLOCPLUS_CORE_API size_t ba_destroy_heap(ba_heap *h)
{
   size_t released = 0;
   ba_detail_segment *s, *permanent = 0;
   if (!h || h == &ba_detail_default_heap_storage) return 0;
   ba_detail_unregister(h);
   while (h->huge) {
      ba_detail_huge_header *hh = h->huge;
      h->huge = hh->next;
      released += hh->committed;
      ba_detail_release((char *)hh, hh->reserved);
   }
   s = h->segments;
   while (s) {
      ba_detail_segment *next = s->next;
      if (s->flags & BA_DETAIL_SEGMENT_PERMANENT) permanent = s;
      else { released += s->committed; ba_detail_release(s->base, s->reserved); }
      s = next;
   }
   /* Last: the segment that holds the heap record itself. */
   if (permanent && !(permanent->flags & BA_DETAIL_SEGMENT_EXTERNAL)) {
      released += permanent->committed;
      ba_detail_release(permanent->base, permanent->reserved);
   } else if (permanent) {
      ba_detail_unpoison(permanent->base, permanent->committed);   /* the caller's buffer again */
   }
   return released;
}

/* ---------------------------------------------------------------------------------------------
 * Public functions: the default heap
 * ------------------------------------------------------------------------------------------- */

BOOST_ALLOCPLUS_CORE_API void *ba_malloc(size_t n) { return ba_heap_malloc(ba_detail_default(), n); }
BOOST_ALLOCPLUS_CORE_API void ba_free(void *p) { if (p) ba_heap_free(ba_detail_default(), p); }
BOOST_ALLOCPLUS_CORE_API void *ba_calloc(size_t n, size_t size) { return ba_heap_calloc(ba_detail_default(), n, size); }
BOOST_ALLOCPLUS_CORE_API void *ba_realloc(void *p, size_t n) { return ba_heap_realloc(ba_detail_default(), p, n); }
BOOST_ALLOCPLUS_CORE_API void *ba_memalign(size_t alignment, size_t n)
{ return ba_heap_memalign(ba_detail_default(), alignment, n); }

BOOST_ALLOCPLUS_CORE_API size_t ba_usable_size(const void *mem)
{
   size_t head, size;
   if (!mem) return 0;
   head = ba_detail_load_head(ba_detail_mem2chunk(mem));   /* no lock: see ba_detail_load_head */
   size = head & ~BA_DETAIL_FLAG_BITS;
   if ((head & BA_DETAIL_INUSE_BITS) == BA_DETAIL_PINUSE) return 0;   /* free */
   size -= (head & BA_DETAIL_INUSE_BITS) == 0 ? BA_DETAIL_HUGE_OVERHEAD : BA_DETAIL_CHUNK_OVERHEAD;
   return ba_detail_exposed(mem, size);
}

BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_allocation_command(unsigned command, size_t sizeof_object,
   size_t alignof_object, size_t limit_objects, size_t preferred_objects, size_t *received_objects,
   void *reuse_ptr)
{
   return ba_detail_inline_command(ba_detail_default(), command, sizeof_object, alignof_object,
                                   limit_objects, preferred_objects, received_objects, reuse_ptr);
}

BOOST_ALLOCPLUS_CORE_API int ba_multialloc_nodes(size_t n, size_t elem_size, size_t contiguous_elements, ba_chain *chain)
{ return ba_heap_multialloc_nodes(ba_detail_default(), n, elem_size, contiguous_elements, chain); }

BOOST_ALLOCPLUS_CORE_API int ba_multialloc_arrays(size_t n, const size_t *lengths, size_t sizeof_element,
   size_t contiguous_elements, ba_chain *chain)
{ return ba_heap_multialloc_arrays(ba_detail_default(), n, lengths, sizeof_element, contiguous_elements, chain); }

BOOST_ALLOCPLUS_CORE_API void ba_multidealloc(ba_chain *chain) { ba_heap_multidealloc(ba_detail_default(), chain); }
BOOST_ALLOCPLUS_CORE_API size_t ba_trim(size_t pad) { return ba_heap_trim(ba_detail_default(), pad); }
BOOST_ALLOCPLUS_CORE_API ba_heap *ba_default_heap(void) { return ba_detail_default(); }
BOOST_ALLOCPLUS_CORE_API void ba_stats(ba_heap_stats *stats) { ba_heap_stats_get(ba_detail_default(), stats); }
BOOST_ALLOCPLUS_CORE_API int ba_check(ba_check_report *report) { return ba_heap_check(ba_detail_default(), report); }

BOOST_ALLOCPLUS_CORE_API ba_diagnostic_handler ba_set_diagnostic_handler(ba_diagnostic_handler handler)
{
   return __atomic_exchange_n(&ba_detail_handler, handler, __ATOMIC_ACQ_REL);
}

#undef ba_detail_default_heap_storage
#undef ba_detail_registry_lock
#undef ba_detail_registry
#undef ba_detail_page_size
#undef ba_detail_handler
#undef ba_detail_fork_locked

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H */
