/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Quick lists: freed small chunks of one exact size each, linked through their first payload word
 * and left in use (flag QUICK) so that nothing coalesces with them until they are flushed. A free
 * and the next malloc of a size then touch one chunk instead of its neighbours and two bin lists
 * (ptmalloc's fast bins). A list holds at most BA_DETAIL_QUICK_LIMIT chunks; a held chunk's last
 * word (the next chunk's prev_foot) names its size, as a free chunk's does, so backward expansion
 * can find it. The lists are flushed into the bins before a trim or a release of segments, and
 * before malloc grows the heap for a request that is not to be mapped directly, so that memory
 * held for reuse rarely makes the heap larger (expand_fwd grows the top without a flush).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H

#include <boost/allocplus/core/detail/coalesce.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN ba_detail_ch **ba_detail_quick_link(ba_detail_ch *p) { return (ba_detail_ch **)ba_detail_chunk2mem(p); }

/* Holds freed small chunk p (size psize) in its quick list. Returns 0 when the list is full. */
BA_DETAIL_FN int ba_detail_quick_push(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   unsigned i = ba_detail_small_index(psize);
   if (h->quick_count[i] >= BA_DETAIL_QUICK_LIMIT) return 0;
   *ba_detail_quick_link(p) = h->quick[i];
   /* The chunk's last word (the next chunk's prev_foot) names its size, as a free chunk's does:
    * backward expansion of the next chunk finds it so (ba_detail_quick_find_before). */
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

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H */
