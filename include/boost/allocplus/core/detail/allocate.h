/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Allocation of a chunk of a padded size nb. malloc_chunk is the short path: a quick chunk of that
 * size, or a cut from the top when nothing the general path takes before the top could serve; it
 * saves no register and calls nothing but the general path, as a tail call. malloc_from_bins,
 * just before it, is the general path, in dlmalloc's order: an exact or next-size small bin; for a
 * small request above the designated victim's size, a larger small bin or the smallest tree chunk
 * (the remainder becomes the victim); for a large request, the best tree fit if it beats the
 * victim; the designated victim; the top; then, for a request that is not to be mapped directly,
 * the quick lists flushed and the search again; then the system (sys_alloc: a huge block, more of
 * the top segment, or a new segment); and when the system has nothing either, the quick lists
 * flushed and the search again, whatever the size. A quick chunk is taken before an exact-fit bin: both are of
 * exactly the size asked.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATE_H

#include <boost/allocplus/core/detail/accounting.h>
#include <boost/allocplus/core/detail/segments.h>
#include <boost/allocplus/core/detail/decay.h>
#include <boost/allocplus/core/detail/huge_blocks.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

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

/* ba_detail_sys_alloc, and when the system refuses (a footprint limit, an address-space limit):
 * the free top the decay still keeps goes back first and the request is tried again, so that the
 * delay never makes an allocation fail that an immediate trim would have let through. */
BA_DETAIL_FN void *ba_detail_sys_alloc_or_trim(ba_heap *h, size_t nb, int allow_huge)
{
   void *mem = ba_detail_sys_alloc(h, nb, allow_huge);
   if (!mem && h->topsize > h->top_pad + BA_DETAIL_MIN_CHUNK && ba_detail_sys_trim(h, h->top_pad) != 0)
      mem = ba_detail_sys_alloc(h, nb, allow_huge);
   return mem;
}

/* Returns: the mem of a chunk of nb bytes (at most dvsize) cut from the start of the designated
 * victim, which keeps the rest. */
BA_DETAIL_FN void *ba_detail_split_dv(ba_heap *h, size_t nb)
{
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
   unsigned steps = 0;
   while ((t = ba_detail_tree_step(h, ba_detail_leftmost_child(t), &steps)) != 0) {
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
   unsigned idx = ba_detail_tree_index(nb), steps = 0;
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
         rt = ba_detail_tree_step(h, t->child[1], &steps);
         t = ba_detail_tree_step(h, t->child[(sizebits >> (BA_DETAIL_SIZE_BITS - 1)) & 1], &steps);
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
      t = ba_detail_tree_step(h, ba_detail_leftmost_child(t), &steps);
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
   ba_detail_refuse_corrupted(h);
   ba_detail_decay_note(h);
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
   if (nb <= h->dvsize) return ba_detail_split_dv(h, nb);
   if (ba_detail_top_holds(h, nb)) return ba_detail_split_top(h, nb);
   /* Before the heap grows, what the quick lists hold may coalesce into a fit. */
   if (ba_detail_quick_any(h) && !(allow_huge && nb >= h->mmap_threshold)) {
      ba_detail_quick_flush(h);
      return ba_detail_malloc_chunk(h, nb, allow_huge);
   }
   mem = ba_detail_sys_alloc_or_trim(h, nb, allow_huge);
   /* Out of memory (or a huge block refused) while quick lists hold memory: it may coalesce into
    * a fit, whatever the size. */
   if (!mem && ba_detail_quick_any(h)) {
      ba_detail_quick_flush(h);
      return ba_detail_malloc_chunk(h, nb, allow_huge);
   }
   return mem;
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

/* Returns: the mem of a chunk of at least nb bytes its owner means to grow forward in place (a
 * vector's buffer), or null. On a heap that has freed many small blocks (an old heap) the general
 * path gives a small request an exact fit between live blocks, where it can never grow: this one
 * cuts it from the start of the designated victim or of the top when either has room for it to
 * grow (BA_DETAIL_GROWABLE_ROOM times its size), so that free memory follows it. */
BA_DETAIL_FN void *ba_detail_malloc_growable(ba_heap *h, size_t nb)
{
   if (nb <= BA_DETAIL_MAX_SMALL_SIZE) {
      if (h->dvsize >= BA_DETAIL_GROWABLE_ROOM * nb) return ba_detail_split_dv(h, nb);
      if (h->topsize >= BA_DETAIL_GROWABLE_ROOM * nb + BA_DETAIL_MIN_CHUNK) return ba_detail_split_top(h, nb);
   }
   return ba_detail_malloc_chunk(h, nb, 1);
}

BA_DETAIL_FN void *ba_detail_malloc(ba_heap *h, size_t bytes)
{
   /* A small request needs no test against the largest one (a 64-bit constant to load). */
   if (BA_DETAIL_LIKELY(bytes <= BA_DETAIL_MAX_SMALL_REQUEST))
      return ba_detail_malloc_chunk(h, ba_detail_request2size(bytes), 1);
   if (BA_DETAIL_UNLIKELY(bytes >= BA_DETAIL_MAX_REQUEST)) return 0;
   return ba_detail_malloc_chunk(h, ba_detail_pad_request(bytes), 1);
}

/* ba_detail_heap_malloc with h locked by the caller; unlocks h. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_heap_malloc_held(ba_heap *h, size_t n)
{
   void *mem = ba_detail_malloc(h, n);
   if (mem) {
      ba_detail_note_alloc(h, ba_detail_size_of_mem(mem), 1);
      ba_detail_block_born(mem, ba_detail_usable(ba_detail_mem2chunk(mem)), n);
   }
   ba_detail_unlock(h);
   return mem;
}
/* ba_heap_malloc: the lock, the allocation, the statistics, the sanitizers. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_heap_malloc(ba_heap *h, size_t n)
{
   ba_detail_lock(h);
   return ba_detail_heap_malloc_held(h, n);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATE_H */
