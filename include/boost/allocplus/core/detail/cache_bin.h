/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * A bin of a per-thread cache (thread_cache.h has the whole design): blocks of one chunk size,
 * linked through their first word by protected links (free_list.h), marked in their second by
 * the process's secret, in use to the heap. Here: finding a bin, taking a block from it, putting
 * one in, and the checks a block passes on the way. Apart from the rest of the caches so that the
 * heap's own paths (a forward expansion into a block the calling thread caches: resize.h) can
 * take a block out of a bin.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_CACHE_BIN_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_CACHE_BIN_H

#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/core/detail/instrumentation.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/state.h>
#include <boost/allocplus/core/detail/usage_error.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#define BA_DETAIL_CACHE_CORRUPTED "a thread cache's free list is overwritten (a write after free?)"

/* ------------------------------------------------------------------------------------------
 * Bins
 * ---------------------------------------------------------------------------------------- */

/* The bin of chunks of chunk_size bytes (a multiple of 16, at most BA_DETAIL_CACHE_MAX_CHUNK). */
BA_DETAIL_FN ba_detail_cache_bin *ba_detail_cache_bin_at(ba_detail_thread_cache *tc, size_t chunk_size)
{
   return (ba_detail_cache_bin *)(void *)((char *)tc->bins + chunk_size);
}

/* The chunk size a request of n bytes (at most BA_DETAIL_CACHE_MAX_REQUEST) gets. */
BA_DETAIL_FN size_t ba_detail_cache_chunk_size(size_t n)
{
   size_t size = (n + BA_DETAIL_CHUNK_OVERHEAD + BA_DETAIL_ALIGN_MASK) & ~BA_DETAIL_ALIGN_MASK;
   return size < BA_DETAIL_MIN_CHUNK ? BA_DETAIL_MIN_CHUNK : size;
}

BA_DETAIL_FN uintptr_t *ba_detail_cache_mark(void *mem) { return (uintptr_t *)mem + 1; }

/* A thread's cache or one of the two empty stand-ins (no cache yet; retired). */
BA_DETAIL_FN int ba_detail_cache_is_real(const ba_detail_thread_cache *tc)
{
   return tc != &ba_detail_no_cache && tc != &ba_detail_retired_cache;
}

/* Reports a forged link or block met in a cache: the heap is marked corrupted. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_cache_corrupted(const void *where)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_lock(h);
   ba_detail_heap_corrupted(h, BA_DETAIL_CACHE_CORRUPTED, where);
}

/* Returns: the block after cached block mem in its list, after checking the link. */
BA_DETAIL_FN void *ba_detail_cache_next(void *mem)
{
   void *next = ba_detail_link_load(mem);
   if (BA_DETAIL_UNLIKELY(!ba_detail_link_valid(next, BA_DETAIL_ALIGN_MASK))) ba_detail_cache_corrupted(mem);
   return next;
}

/* Unlinks mem, the first block of bin b, whose link names next (checked). */
BA_DETAIL_FN void ba_detail_cache_unlink_first(ba_detail_cache_bin *b, void *mem, void *next)
{
   b->head = next;
   ++b->room;
   *ba_detail_cache_mark(mem) = 0;
}

/* Takes the first block of bin b (not empty) of chunks of `size` bytes. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_cache_pop(ba_detail_cache_bin *b, size_t size)
{
   void *mem = b->head;
   void *next = ba_detail_link_load(mem);
   if (BA_DETAIL_UNLIKELY(!ba_detail_link_valid(next, BA_DETAIL_ALIGN_MASK)
                          || (ba_detail_load_head(ba_detail_mem2chunk(mem)) | BA_DETAIL_PINUSE) != (size | BA_DETAIL_INUSE_BITS)))
      ba_detail_cache_corrupted(mem);
   ba_detail_cache_unlink_first(b, mem, next);
   return mem;
}

/* Puts block mem (checked) into bin b, which has room. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void ba_detail_cache_push(ba_detail_cache_bin *b, void *mem, size_t size)
{
   ba_detail_block_died(mem, size - BA_DETAIL_CHUNK_OVERHEAD);
   ba_detail_link_store(mem, b->head);
   *ba_detail_cache_mark(mem) = ba_detail_cache_secret;
   b->head = mem;
   --b->room;
}

/* Returns: the head of chunk p less its PINUSE bit (its size | CINUSE) when a cache may hold it:
 * in use, not held in a quick list, of a cached size (32..1040 bytes).
 * Else 0. One subtraction and one test: the valid values are 34 + 16k, k < 64. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE size_t ba_detail_cache_head(const ba_detail_ch *p)
{
   size_t y = ba_detail_load_head(p) & ~BA_DETAIL_PINUSE;
   return ((y - (BA_DETAIL_MIN_CHUNK | BA_DETAIL_CINUSE)) & ~(size_t)0x3f0) == 0 ? y : 0;
}

/* The bin of the chunks whose head, less PINUSE, is y (their size | CINUSE). */
BA_DETAIL_FN ba_detail_cache_bin *ba_detail_cache_bin_of_head(ba_detail_thread_cache *tc, size_t y)
{
   return (ba_detail_cache_bin *)(void *)((char *)tc->bins + y - BA_DETAIL_CINUSE);
}

/* Returns: the size of the chunk of mem when the default heap h may cache it: inside the heap,
 * aligned, in use and not in a quick list, of a cached size; else 0. Reads no other chunk. */
BA_DETAIL_FN size_t ba_detail_cache_takes(const ba_heap *h, const void *mem)
{
   const ba_detail_ch *p = ba_detail_mem2chunk(mem);
   size_t y = ba_detail_in_address_range(h, p) ? ba_detail_cache_head(p) : 0;
   return y & ~BA_DETAIL_CINUSE;
}

/* Whether mem is a block a cache of chunks of `size` bytes may hold: inside the default heap h,
 * aligned, its head that of an in-use chunk of that size, marked with the secret. Reads nothing
 * outside the heap. */
BA_DETAIL_FN int ba_detail_cache_block_valid(const ba_heap *h, const void *mem, size_t size)
{
   return ba_detail_cache_takes(h, mem) == size && ((const uintptr_t *)mem)[1] == ba_detail_cache_secret;
}

/* Checks a list of `held` cached blocks of chunk size `size` from `node`. Returns: what is
 * wrong (with *where), or null; when nothing is, and last is not null, *last is the list's
 * `held`-th block (its link is checked too: the next block's address is sound to follow). */
BA_DETAIL_FN const char *ba_detail_cache_check_blocks(const ba_heap *h, void *node, size_t held, size_t size,
                                                      const void **where, void **last)
{
   void *block = node;
   for (; held; --held) {
      void *next;
      if (!ba_detail_cache_block_valid(h, node, size)) {
         *where = node;
         return "a thread cache holds a block that is not a cached block of its size (a write after free?)";
      }
      next = ba_detail_link_load(node);
      if (!ba_detail_link_valid(next, BA_DETAIL_ALIGN_MASK)) { *where = node; return BA_DETAIL_CACHE_CORRUPTED; }
      block = node;
      node = next;
   }
   if (last) *last = block;
   return 0;
}

/* Checks, before anything is written to them, the `count` blocks (at least one) of a list of
 * cached blocks of chunk size `size` from `first`: a forged block or link is reported (the heap
 * is marked corrupted), never followed into a write. Returns: the list's count-th block. */
BA_DETAIL_FN void *ba_detail_cache_check_list(const ba_heap *h, void *first, size_t count, size_t size)
{
   const void *where = 0;
   void *last = 0;
   if (BA_DETAIL_UNLIKELY(ba_detail_cache_check_blocks(h, first, count, size, &where, &last) != 0))
      ba_detail_cache_corrupted(where);
   return last;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_CACHE_BIN_H */
