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
 * statistics, themselves or through the detail paths they hand a whole operation to
 * (free_locked, free_short, free_contended, inline_command); the other ba_detail_ functions never
 * lock and never account.
 *
 * The implementation is one file per job in this folder, each opening with what it owns and the
 * invariants it keeps; a short path sits in the file of the general path it must agree with.
 * They are included here, each after the files it uses, which it includes itself (a test
 * compiles each alone); doc/core.md has the map:
 *
 *   config.h              system headers, storage-class macros, sanitizer and valgrind detection
 *   geometry.h            sizes, header bits, bin counts, default tunables
 *   structures.h          chunk, tree chunk, segment, huge header, the heap record
 *   state.h               the process-wide state (one object with C linkage)
 *   chunk.h               chunk header operations and request padding
 *   instrumentation.h     what ASan and valgrind are told about blocks
 *   lock.h                the heap's lock: plain, held across fork, or process-shared
 *   usage_error.h         reports to the diagnostic handler: usage errors, corruption
 *   accounting.h          the in-use statistics
 *   bins.h                small bins, tree bins, the designated victim, the merge into the top
 *   coalesce.h            merging a chunk given back with its free neighbours
 *   free_list.h           the hardened singly linked free list (protected links)
 *   quick_list.h          quick lists of freed small chunks
 *   cache_bin.h           a bin of a per-thread cache: find, take, put, check
 *   registry.h            the heap registry and fork, process set-up, the default heap's readiness
 *   address_space.h       reserve (smaller when refused), commit, decommit, release; the footprint
 *   segments.h            segments and the top chunk: growth, new segments, trimming
 *   decay.h               the free top given back once it has stayed unused for a while
 *   huge_blocks.h         directly mapped blocks with room to grow in place
 *   allocate.h            malloc: the short path and the general path through the bins
 *   free.h                pointer checks, coalescing, the general free and the short free
 *   resize.h              shrink, expand forward, expand backward, in place
 *   realloc.h             realloc and memalign
 *   allocation_command.h  allocation_command: the general path and the inlined short paths
 *   burst.h               multialloc and chain frees
 *   heap_walk.h           the walk behind ba_heap_check and the statistics
 *   heap_create.h         creating and destroying independent heaps
 *   thread_cache.h        the per-thread caches of the default heap, and their depot
 *   public_api.h          the other functions of dlmalloc.h
 *   collector.h           the opt-in thread that gives back what stays unused while the program is idle
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H

#include <boost/allocplus/core/detail/config.h>
#include <boost/allocplus/core/detail/geometry.h>
#include <boost/allocplus/core/detail/structures.h>
#include <boost/allocplus/core/detail/state.h>
#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/instrumentation.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/usage_error.h>
#include <boost/allocplus/core/detail/accounting.h>
#include <boost/allocplus/core/detail/bins.h>
#include <boost/allocplus/core/detail/coalesce.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/core/detail/quick_list.h>
#include <boost/allocplus/core/detail/cache_bin.h>
#include <boost/allocplus/core/detail/registry.h>
#include <boost/allocplus/core/detail/address_space.h>
#include <boost/allocplus/core/detail/segments.h>
#include <boost/allocplus/core/detail/decay.h>
#include <boost/allocplus/core/detail/huge_blocks.h>
#include <boost/allocplus/core/detail/allocate.h>
#include <boost/allocplus/core/detail/free.h>
#include <boost/allocplus/core/detail/resize.h>
#include <boost/allocplus/core/detail/realloc.h>
#include <boost/allocplus/core/detail/allocation_command.h>
#include <boost/allocplus/core/detail/burst.h>
#include <boost/allocplus/core/detail/heap_walk.h>
#include <boost/allocplus/core/detail/heap_create.h>
#include <boost/allocplus/core/detail/pool_cache.h>
#include <boost/allocplus/core/detail/thread_cache.h>
#include <boost/allocplus/core/detail/public_api.h>
#include <boost/allocplus/core/detail/collector.h>

/* The short names of the process-wide state (state.h) stay inside the implementation. */
#undef ba_detail_default_heap_storage
#undef ba_detail_registry_lock
#undef ba_detail_registry
#undef ba_detail_page_size
#undef ba_detail_handler
#undef ba_detail_fork_owner
#undef ba_detail_pool_class_at
#undef ba_detail_thread_cache_ptr
#undef ba_detail_no_cache
#undef ba_detail_retired_cache
#undef ba_detail_caches
#undef ba_detail_depot_storage
#undef ba_detail_cache_secret

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_DLMALLOC_IMPL_H */
