/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Coalescing: the step every path that gives memory back to the heap ends in (the general free,
 * the quick lists' flush, a shrink in place, the lead cut off an aligned block, a burst free).
 * dispose_chunk merges a chunk with its free neighbours and puts the result where it belongs: into
 * the top when the top follows, into the designated victim when it touches it, else into a bin. It
 * keeps the invariant that no free chunk has a free neighbour, checks the boundary tags it follows
 * (glibc's checks: a forged tag is reported as a corruption), and forgets the headers that end up
 * inside the merged chunk, so that a second free of one of them is reported.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H

#include <boost/allocplus/core/detail/bins.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The head written over the header of a chunk that merged into the one before it, or of a
 * block's old start after it grew backward: no size and not in use, so a second free of the
 * pointer is reported (the header the block had would otherwise still say "in use"). */
#define BA_DETAIL_MERGED_HEAD BA_DETAIL_PINUSE

BA_DETAIL_FN void ba_detail_forget_header(ba_detail_ch *p) { p->head = BA_DETAIL_MERGED_HEAD; }

/* Returns: the free chunk before p, which p's PINUSE bit says is free, after checking (as glibc
 * does on every merge) that p's previous-size word names a chunk inside the heap that is free and
 * of exactly that size; a forged word (an overrun into p's header) is reported, not followed. */
BA_DETAIL_FN ba_detail_ch *ba_detail_free_prev(ba_heap *h, ba_detail_ch *p)
{
   size_t prevsize = p->prev_foot;
   ba_detail_ch *prev = ba_detail_minus(p, prevsize);
   if (BA_DETAIL_UNLIKELY((prevsize & BA_DETAIL_ALIGN_MASK) != 0 || prevsize < BA_DETAIL_MIN_CHUNK
                          || (char *)prev < h->least_addr || prev >= p
                          || prev->head != (prevsize | BA_DETAIL_PINUSE)))
      ba_detail_heap_corrupted(h, "a free chunk's boundary tag is forged (an overrun into the next block's header?)", p);
   return prev;
}

/* Checks free chunk next (neither the top nor the designated victim) before a merge takes it:
 * its size must stay in the heap and be repeated in its boundary tag. */
BA_DETAIL_FN size_t ba_detail_free_next_size(ba_heap *h, ba_detail_ch *next)
{
   size_t nsize = ba_detail_chunksize(next);
   if (BA_DETAIL_UNLIKELY(nsize < BA_DETAIL_MIN_CHUNK || nsize > (size_t)(h->greatest_addr - (char *)next)
                          || ba_detail_plus(next, nsize)->prev_foot != nsize))
      ba_detail_heap_corrupted(h, "a free chunk's size disagrees with its boundary tag (an overrun?)", next);
   return nsize;
}

/* Frees chunk p of size psize into the heap, coalescing with free neighbours. p's head need not
 * be consistent except for its PINUSE bit. The headers of the neighbours that merge into a chunk
 * before them are forgotten (ba_detail_forget_header). */
BA_DETAIL_FN void ba_detail_dispose_chunk(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   ba_detail_ch *next = ba_detail_plus(p, psize);
   if (!ba_detail_pinuse(p)) {
      ba_detail_ch *prev = ba_detail_free_prev(h, p);
      size_t prevsize = p->prev_foot;
      ba_detail_forget_header(p);
      psize += prevsize;
      p = prev;
      if (p != h->dv) {
         if (!ba_detail_is_small(prevsize) && (next->head & BA_DETAIL_INUSE_BITS) == BA_DETAIL_INUSE_BITS
             && ba_detail_tree_root_may_grow(h, (ba_detail_tch *)(void *)p, psize)) {
            ba_detail_set_free_with_pinuse(p, psize, next);
            return;
         }
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
         ba_detail_forget_header(next);
         if (p == h->dv) { h->dv = 0; h->dvsize = 0; }
         return;
      }
      if (next == h->dv) {
         size_t dsize = h->dvsize += psize;
         h->dv = p;
         ba_detail_forget_header(next);
         ba_detail_set_free_chunk(p, dsize);
         return;
      }
      {
         size_t nsize = ba_detail_free_next_size(h, next);
         psize += nsize;
         ba_detail_unlink_chunk(h, next, nsize);
         ba_detail_forget_header(next);
         ba_detail_set_free_chunk(p, psize);
         if (p == h->dv) { h->dvsize = psize; return; }
      }
   } else {
      ba_detail_set_free_with_pinuse(p, psize, next);
   }
   ba_detail_insert_chunk(h, p, psize);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H */
