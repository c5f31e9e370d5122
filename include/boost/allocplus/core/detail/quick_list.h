/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Quick lists: freed small chunks of one exact size each, linked through their first payload word
 * (a protected link: free_list.h) and left in use (flag QUICK) so that nothing coalesces with them
 * until they are flushed. A free and the next malloc of a size then touch one chunk instead of its
 * neighbours and two bin lists (ptmalloc's fast bins). A list holds at most BA_DETAIL_QUICK_LIMIT chunks; a held chunk's last
 * word (the next chunk's prev_foot) names its size, as a free chunk's does, so backward expansion
 * can find it. The lists are flushed into the bins before a trim or a release of segments, and
 * before the heap grows (malloc, expand_fwd) or reports that memory is out, so that memory held
 * for reuse never makes the heap larger or an allocation fail. A pop checks the chunk it takes
 * (flagged QUICK, of the list's size) and the link after it (aligned); a walk through a list
 * checks every link it follows (inside the heap).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H

#include <boost/allocplus/core/detail/coalesce.h>
#include <boost/allocplus/core/detail/free_list.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#define BA_DETAIL_QUICK_CORRUPTED "corrupted quick list (a write after free?)"

/* The chunk after p in its quick list, as its protected link names it (see free_list.h); the
 * links and the lists' heads name payloads, so that a pop hands out what it read. */
BA_DETAIL_FN ba_detail_ch *ba_detail_quick_next(const ba_detail_ch *p)
{
   void *next = ba_detail_link_load(ba_detail_chunk2mem(p));
   return next ? ba_detail_mem2chunk(next) : 0;
}

/* Returns: the chunk after p in its quick list, null at the end; reports a corruption when the
 * link names no chunk this heap could hold. For the walks through a list, which dereference
 * what they find (a pop checks the chunk it takes instead). */
BA_DETAIL_FN ba_detail_ch *ba_detail_quick_follow(ba_heap *h, const ba_detail_ch *p)
{
   ba_detail_ch *next = ba_detail_quick_next(p);
   if (BA_DETAIL_UNLIKELY(next && (!ba_detail_link_valid(next, BA_DETAIL_ALIGN_MASK) || (char *)next < h->least_addr
                                   || (char *)next >= h->greatest_addr)))
      ba_detail_heap_corrupted(h, BA_DETAIL_QUICK_CORRUPTED, p);
   return next;
}

/* Makes the link of quick chunk `before` (null: the list's head) name chunk next (null: none). */
BA_DETAIL_FN void ba_detail_quick_relink(ba_heap *h, unsigned i, ba_detail_ch *before, ba_detail_ch *next)
{
   void *next_mem = next ? ba_detail_chunk2mem(next) : 0;
   if (before) ba_detail_link_store(ba_detail_chunk2mem(before), next_mem);
   else h->quick[i] = next_mem;
}

/* Returns: whether any quick list holds a chunk. A scan of the counts (a few words), made on slow
 * paths only: a running total would cost the fast paths an instruction each. */
BA_DETAIL_FN int ba_detail_quick_any(const ba_heap *h)
{
   unsigned i;
   unsigned char any = 0;
   for (i = 0; i < BA_DETAIL_NSMALLBINS; ++i) any |= h->quick_count[i];
   return any != 0;
}

/* Holds freed small chunk p (size psize) in its quick list. Returns 0 when the list is full. */
BA_DETAIL_FN int ba_detail_quick_push(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   unsigned i = ba_detail_small_index(psize);
   void *mem = ba_detail_chunk2mem(p);
   if (h->quick_count[i] >= BA_DETAIL_QUICK_LIMIT) return 0;
   p->head |= BA_DETAIL_QUICK;
   /* An empty list's head is null (the last pop read a null link) unless a forged last link was
    * popped: harmless, the count says where a list ends and the last link is never read. */
   ba_detail_link_store(mem, h->quick[i]);
   /* The chunk's last word (the next chunk's prev_foot) names its size, as a free chunk's does:
    * backward expansion of the next chunk finds it so (ba_detail_quick_find_before). */
   ba_detail_plus(p, psize)->prev_foot = psize;
   h->quick[i] = mem;
   ++h->quick_count[i];
   return 1;
}

/* Returns: the chunk freed last into quick list i, now in use again, or null. The count, not the
 * links, says when the list is empty (a forged last link cannot make it longer), and the chunk
 * taken must be flagged QUICK with the list's size, and the link to the next one aligned: a
 * write after free that forges the link is reported before its address is handed out. */
BA_DETAIL_FN ba_detail_ch *ba_detail_quick_pop(ba_heap *h, unsigned i)
{
   ba_detail_ch *p;
   void *next;
   size_t head;
   if (h->quick_count[i] == 0) return 0;
   p = ba_detail_mem2chunk(h->quick[i]);
   head = p->head;
   next = ba_detail_link_load(ba_detail_chunk2mem(p));
   /* Two tests, two branches: fewer instructions than one test of the two results or-ed (and the
    * reports name the list's head again rather than keep a register for it). */
   if (BA_DETAIL_UNLIKELY((head & ~BA_DETAIL_PINUSE) != (ba_detail_small_index2size(i) | BA_DETAIL_CINUSE | BA_DETAIL_QUICK)))
      ba_detail_heap_corrupted(h, BA_DETAIL_QUICK_CORRUPTED, h->quick[i]);
   if (BA_DETAIL_UNLIKELY(!ba_detail_link_valid(next, BA_DETAIL_ALIGN_MASK)))
      ba_detail_heap_corrupted(h, BA_DETAIL_QUICK_CORRUPTED, h->quick[i]);
   h->quick[i] = next;
   --h->quick_count[i];
   p->head = head - BA_DETAIL_QUICK;   /* checked: the flag is set */
   return p;
}

/* Takes quick chunk p, which follows `before` (null: p is the first) in quick list i, out of the
 * list; it stays in use (QUICK set) for the caller to free or reuse. */
BA_DETAIL_FN void ba_detail_quick_unlink(ba_heap *h, unsigned i, ba_detail_ch *before, ba_detail_ch *p)
{
   ba_detail_quick_relink(h, i, before, h->quick_count[i] > 1 ? ba_detail_quick_follow(h, p) : 0);
   --h->quick_count[i];
}

/* Frees quick chunk p, which follows `before` in quick list i, into the bins (coalescing). */
BA_DETAIL_FN void ba_detail_quick_release_at(ba_heap *h, unsigned i, ba_detail_ch *before, ba_detail_ch *p)
{
   ba_detail_quick_unlink(h, i, before, p);
   ba_detail_dispose_chunk(h, p, ba_detail_chunksize(p));
}

/* Returns: whether quick list i holds chunk p, and in *before the chunk before it (null when p
 * is the first). Follows the list's count, checking every link it follows. */
BA_DETAIL_FN int ba_detail_quick_find(ba_heap *h, unsigned i, const ba_detail_ch *p, ba_detail_ch **before)
{
   ba_detail_ch *q = h->quick_count[i] ? ba_detail_mem2chunk(h->quick[i]) : 0, *prev = 0;
   unsigned n;
   for (n = h->quick_count[i]; n != 0; --n) {
      if (q == p) { *before = prev; return 1; }
      prev = q;
      if (n > 1) q = ba_detail_quick_follow(h, q);
   }
   return 0;
}

/* Frees quick chunk p into the bins (coalescing), wherever it is in its list. */
BA_DETAIL_FN void ba_detail_quick_release(ba_heap *h, ba_detail_ch *p)
{
   unsigned i = ba_detail_small_index(ba_detail_chunksize(p));
   ba_detail_ch *before = 0;
   if (BA_DETAIL_UNLIKELY(!ba_detail_quick_find(h, i, p, &before)))
      ba_detail_heap_corrupted(h, "a chunk flagged as held in a quick list is in none (an overrun?)", p);
   ba_detail_quick_release_at(h, i, before, p);
}

/* If the chunk before in-use chunk p is a quick chunk, returns it, with its list in *list and the
 * chunk before it in that list in *before; else null. The word before p's head is that chunk's
 * size (written by quick_push) or its owner's data: it is believed only if the quick list of that
 * size holds the chunk it points to, found without reading memory the word names. */
BA_DETAIL_FN ba_detail_ch *ba_detail_quick_find_before(ba_heap *h, ba_detail_ch *p, unsigned *list, ba_detail_ch **before)
{
#if defined(BA_DETAIL_TSAN)
   /* The word may be the owner's, written by another thread: ThreadSanitizer would rightly call
    * the read a race. Backward expansion into quick chunks is left out of TSan builds. */
   (void)h; (void)p; (void)list; (void)before;
   return 0;
#else
   size_t f;
   ba_detail_ch *prev;
#  if defined(BA_DETAIL_VALGRIND)
   /* Memcheck would report the read of the owner's word, perhaps never written, as undefined. */
   if (RUNNING_ON_VALGRIND) return 0;
#  endif
   f = p->prev_foot;
   if ((f & BA_DETAIL_ALIGN_MASK) != 0 || f < BA_DETAIL_MIN_CHUNK || f > BA_DETAIL_MAX_SMALL_SIZE
       || h->quick_count[ba_detail_small_index(f)] == 0)
      return 0;
   prev = ba_detail_minus(p, f);
   *list = ba_detail_small_index(f);
   return ba_detail_quick_find(h, *list, prev, before) ? prev : 0;
#endif
}

/* Whether a quick chunk may lie right before in-use chunk p, where a backward expansion would take
 * it. Where quick_find_before is blind (ThreadSanitizer, Valgrind) any quick chunk may be the one:
 * a malloc that finds no room frees them all into the bins, and the chunk before p may be among
 * them (the command's short path must then leave the block to the general one). */
BA_DETAIL_FN int ba_detail_quick_may_precede(ba_heap *h, ba_detail_ch *p)
{
   unsigned list;
   ba_detail_ch *before;
#if defined(BA_DETAIL_TSAN)
   (void)p; (void)list; (void)before;
   return ba_detail_quick_any(h);
#else
#  if defined(BA_DETAIL_VALGRIND)
   if (RUNNING_ON_VALGRIND) return ba_detail_quick_any(h);
#  endif
   return ba_detail_quick_find_before(h, p, &list, &before) != 0;
#endif
}

/* Frees every quick chunk into the bins: before the heap grows, trims or releases a segment, and
 * before it reports that memory is out, so that memory held for reuse never makes the heap larger
 * or an allocation fail. */
BA_DETAIL_FN void ba_detail_quick_flush(ba_heap *h)
{
   unsigned i;
   ba_detail_ch *p;
   for (i = 0; i < BA_DETAIL_NSMALLBINS; ++i)
      while ((p = ba_detail_quick_pop(h, i)) != 0) ba_detail_dispose_chunk(h, p, ba_detail_small_index2size(i));
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_QUICK_LIST_H */
