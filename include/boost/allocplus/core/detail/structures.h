/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The records of the heap: a chunk (boundary tags and, while free, its bin links), a tree chunk, a
 * segment, the header of a huge block, and the heap itself (struct ba_heap). The layout is shared
 * by checked and unchecked units (they share one heap), so nothing here depends on
 * BOOST_ALLOCPLUS_CHECKED.
 *
 * Invariants of a chunk (dlmalloc 2.8): `head` is the size (a multiple of the alignment, at least
 * BA_DETAIL_MIN_CHUNK but for a segment's fence) with PINUSE (the previous chunk is in use) and
 * CINUSE (this one is); a free chunk other than the top repeats its size in the next chunk's
 * prev_foot; no free chunk has a free neighbour (they merged); a chunk held in a quick list is in
 * use to its neighbours and flagged QUICK; a huge chunk has both in-use bits clear and its offset
 * from the base of its mapping in prev_foot.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_STRUCTURES_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_STRUCTURES_H

#include <boost/allocplus/core/detail/geometry.h>

BOOST_ALLOCPLUS_CORE_BEGIN_DECLS

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
   int use_lock;                    /* the kind of lock (BA_DETAIL_LOCK_*, lock.h) */
   int lock_owner;                  /* a process-shared heap's lock: the holder's pid, or 0 */
   /* What ba_detail_unlock releases, so that releasing any kind of lock is one path: lock_word;
    * lock_owner for a process-shared heap (its lock_word stays 1); and, while fork holds the lock
    * for the forking thread, the unused lock_owner, always 0 (the lock stays held when that thread
    * leaves). Changed only by the holder of the lock. */
   int *unlock_word;
   int lock_sleepers;               /* threads asleep on lock_word, or about to sleep (lock.h) */
   unsigned flags;
   uint64_t smallmap;               /* bit i: small bin i is not empty */
   unsigned treemap;                /* bit i: tree bin i is not empty */
   size_t dvsize;
   size_t topsize;
   ba_detail_chunk *dv;             /* the designated victim: last split remainder */
   ba_detail_chunk *top;
   char *least_addr;                /* the lowest and highest addresses of any segment's chunks: */
   char *greatest_addr;             /* a pointer outside them is not a chunk of this heap */
   /* (greatest_addr - least_addr) / BA_DETAIL_ALIGN, 0 while there are no chunks: the range as
    * the per-thread caches test it, with one comparison (ba_detail_in_address_range). */
   size_t aligned_span;
   /* The heap found itself corrupted and reported it: every later call on it is refused (see
    * usage_error.h). Written under the lock. */
   int corrupted;
   ba_detail_segment *segments;     /* newest first */
   ba_detail_segment *top_segment;
   ba_detail_huge_header *huge;
   size_t segment_reserve;
   size_t trim_threshold;
   size_t trim_check;               /* trim_threshold, or SIZE_MAX after a trim found nothing */
   /* The decay of the free top (decay.h): the delay, the running epoch (its start, the lowest
    * size the top fell to, the slow calls until the next clock read) and the clock. */
   size_t decay_ms;
   int decay_running;
   unsigned decay_countdown;
   uint64_t decay_epoch_start;
   size_t decay_lowest_top;
   uint64_t (*clock_ms)(void);      /* null: the monotonic clock */
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
   void *quick[BA_DETAIL_NSMALLBINS];                /* the payload of each list's first chunk */
   unsigned char quick_count[BA_DETAIL_NSMALLBINS];
   ba_detail_tree_chunk *treebins[BA_DETAIL_NTREEBINS];
};

/* The per-thread caches (thread_cache.h). A bin holds freed blocks of one chunk size, linked
 * through their first word (free_list.h) and marked in their second by the process's secret; to
 * the heap they are in use. A bin is 16 bytes and bin i holds chunks of 16 * i bytes, so that a
 * chunk's size is its bin's offset in the cache: bins 2..65 (chunks of 32..1040 bytes, requests
 * of up to 1032 bytes: glibc's tcache covers the same) are used; 0 and 1 stay empty, so that the
 * malloc fast path need not exclude their sizes (a malloc of up to 8 bytes looks in bin 1 and
 * finds its way to the slow path, which knows better). */
#define BA_DETAIL_CACHE_BINS        66u
#define BA_DETAIL_CACHE_MAX_CHUNK   ((size_t)1040)
#define BA_DETAIL_CACHE_MAX_REQUEST (BA_DETAIL_CACHE_MAX_CHUNK - BA_DETAIL_CHUNK_OVERHEAD)
#define BA_DETAIL_CACHE_MAX_BATCH   32u   /* blocks in a magazine, at most */
#define BA_DETAIL_DEPOT_MAGAZINES   8u    /* full magazines the depot keeps per size */

typedef struct ba_detail_cache_bin {
   void *head;                      /* the payload of the block cached last, or null */
   unsigned room;                   /* blocks the bin takes before a free moves a magazine out */
   unsigned limit;                  /* room + blocks held (twice a magazine); 0: not cached */
} ba_detail_cache_bin;

/* The node pools' classes (pool_cache.h): a shared node pool registers itself once and gets an
 * index; each thread's cache has a bin of that pool's nodes at that index (0: none). */
#define BA_DETAIL_POOL_CLASSES 32u

typedef struct ba_detail_pool_class {
   /* Frees a bin's list (count nodes from first; none: 0) into the pool. ended: the bin of a
    * thread that ends (its exit, or a fork child without it), which the pool forgets; null when
    * the thread lives on (ba_thread_cache_flush). */
   void (*give_back)(void *pool, void *first, size_t count, const void *ended);
   void *pool;
   int *lock;                       /* the pool's lock word: taken around fork */
   unsigned batch;                  /* nodes in a magazine (a thread's bin holds two) */
   uintptr_t align_mask;            /* every node's alignment, less one */
} ba_detail_pool_class;

typedef struct ba_detail_thread_cache {
   ba_detail_cache_bin bins[BA_DETAIL_CACHE_BINS];
   ba_detail_cache_bin pool_bins[BA_DETAIL_POOL_CLASSES];   /* the node pools' (pool_cache.h) */
   struct ba_detail_thread_cache *next;   /* every thread's cache, under the registry lock */
   struct ba_detail_thread_cache *prev;
   uintptr_t thread;                      /* its thread (ba_detail_thread_id) */
} ba_detail_thread_cache;

/* Full magazines between the threads (Bonwick's depot): a magazine is a bin's worth of blocks
 * linked as in a bin, its length known from its size. */
typedef struct ba_detail_magazine {
   void *first;
   size_t length;                   /* its blocks: half the limit of the bin it came from */
} ba_detail_magazine;

typedef struct ba_detail_depot {
   int lock;
   unsigned char count[BA_DETAIL_CACHE_BINS];   /* written under the lock, read without it as a hint */
   ba_detail_magazine magazine[BA_DETAIL_CACHE_BINS][BA_DETAIL_DEPOT_MAGAZINES];
} ba_detail_depot;

typedef char ba_detail_cache_bin_is_16_bytes[sizeof(ba_detail_cache_bin) == 16 ? 1 : -1];

BOOST_ALLOCPLUS_CORE_END_DECLS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_STRUCTURES_H */
