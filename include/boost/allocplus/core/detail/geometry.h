/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The geometry of the heap, as constants: the word, the alignment, the header bits of a chunk, the
 * smallest chunk and the largest request, the small and tree bins, the quick lists' depth, and the
 * defaults of the tunables (thresholds, commit granule, segment sizes). A request at or above
 * BA_DETAIL_MAX_REQUEST (far above anything the system can give) is refused, so no size worked
 * out from a request can overflow.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_GEOMETRY_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_GEOMETRY_H

#include <boost/allocplus/core/detail/config.h>

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
/* Far above anything the system can give: refusing requests from here on keeps every size worked
 * out from a request from overflowing. */
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
/* How long the free top beyond the trim threshold stays unused before it goes back (decay.h):
 * longer than a large container's rebuild (a million list nodes: about 0.1 s), shorter than a
 * program's idle spells; jemalloc's default is 10 s, mimalloc's 10 ms to 1 s by version. */
#define BA_DETAIL_DECAY_MS             ((size_t)1000)
/* A block meant to grow (allocate.h, ba_detail_malloc_growable) is cut from free memory at least
 * this many times its size. */
#define BA_DETAIL_GROWABLE_ROOM        4u
/* Slow calls between two clock reads while an epoch runs. */
#define BA_DETAIL_DECAY_CLOCK_EVERY    64u
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

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_GEOMETRY_H */
