/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Resizing a chunk in place: shrink (the tail is freed when it makes at least a minimum chunk),
 * expand forward (into the top, growing it if need be, or into a free or quick chunk after), and
 * expand backward (into a free or quick chunk before, moving the start down by whole steps so that
 * the bytes at the old start stay where they are). A failed expansion leaves the chunk as it was
 * (a quick chunk next to it may have been freed into the bins on the way).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_RESIZE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_RESIZE_H

#include <boost/allocplus/core/detail/free.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

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
 * much as is free up to max_nb). Returns 1 on success; p is unchanged on failure. A block a
 * thread cache holds is in use to the heap: nothing expands into it. */
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
   ba_detail_ch *held = 0;          /* the chunk before p, when held for reuse in a quick list */
   ba_detail_ch *held_before = 0;   /* the chunk before it in its list */
   unsigned held_list = 0;
   size_t prevsize, size, fwd = 0, have, kmin, kmax, k, rest, newsize;
   if (ba_detail_is_huge(p)) return 0;
   if (ba_detail_pinuse(p)) {
      if ((held = ba_detail_quick_find_before(h, p, &held_list, &held_before)) == 0) return 0;
      if (!ba_detail_pinuse(held)) {
         /* A free chunk lies before the held one: free it into that one, whose room counts too. */
         ba_detail_quick_release_at(h, held_list, held_before, held);
         held = 0;
      }
      prev = ba_detail_minus(p, p->prev_foot);
   } else {
      prev = ba_detail_free_prev(h, p);
   }
   prevsize = p->prev_foot;
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
      ba_detail_quick_unlink(h, held_list, held_before, held);
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
   /* The old header is inside the block now: forgotten, so that a free of the old start is
    * reported (until the owner writes over it). */
   ba_detail_forget_header(p);
   *pp = q;
   return 1;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_RESIZE_H */
