/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Coalescing: the step every path that gives memory back to the heap ends in (the general free,
 * the quick lists' flush, a shrink in place, the lead cut off an aligned block, a burst free).
 * dispose_chunk merges a chunk with its free neighbours and puts the result where it belongs: into
 * the top when the top follows, into the designated victim when it touches it, else into a bin. It
 * keeps the invariant that no free chunk has a free neighbour.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H

#include <boost/allocplus/core/detail/bins.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Frees chunk p of size psize into the heap, coalescing with free neighbours. p's head need not
 * be consistent except for its PINUSE bit. */
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

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_COALESCE_H */
