/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Freeing. A pointer is checked first (checked_chunk: its alignment and, below level 2, what
 * a few loads can tell; at checking level 2, that it lies in one of the heap's segments or is one of
 * its huge blocks, found without reading memory the heap does not own). free_chunk is the general
 * path: a huge block is unmapped; a small chunk not before the top goes to its quick list when the
 * list has room; any other chunk coalesces (coalesce.h), a large one counts toward the release of
 * unused segments, and the top may be trimmed. free_short, beside it, does the two commonest frees
 * without a call (into a quick list; into the top when no trim or release is due) and must agree
 * with free_chunk on both; free_locked and free_contended are the public free's other paths.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_FREE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_FREE_H

#include <boost/allocplus/core/detail/segments.h>
#include <boost/allocplus/core/detail/decay.h>
#include <boost/allocplus/core/detail/huge_blocks.h>
#include <boost/allocplus/core/detail/quick_list.h>
#include <boost/allocplus/core/detail/coalesce.h>
#include <boost/allocplus/core/detail/accounting.h>
#include <boost/allocplus/core/detail/usage_error.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
/* Returns: whether chunk p lies in the chunks of one of h's segments (segments are few). */
BA_DETAIL_FN int ba_detail_in_segments(const ba_heap *h, const ba_detail_ch *p)
{
   const ba_detail_segment *s;
   for (s = h->segments; s; s = s->next)
      if ((const char *)p >= s->chunks_begin && p < ba_detail_fence(s)) return 1;
   return 0;
}

/* Returns: whether p is the chunk of one of h's huge blocks, found without reading p. */
BA_DETAIL_FN int ba_detail_in_huge_list(const ba_heap *h, const ba_detail_ch *p)
{
   const ba_detail_huge_header *hh;
   for (hh = h->huge; hh; hh = hh->next)
      if ((const char *)hh + hh->chunk_offset == (const char *)p) return 1;
   return 0;
}
#endif

/* Whether in-use chunk p (of at least a minimum chunk) is marked as a thread cache's block: a block
 * a cache holds is in use to the heap, and its second word holds the process's secret (made
 * before any heap exists). A free of it straight to the heap, a realloc of it or an expansion from
 * it is a use after free. */
BA_DETAIL_FN int ba_detail_cache_marked(const ba_detail_ch *p)
{
   return *(const uintptr_t *)(const void *)((const char *)p + 3 * BA_DETAIL_WORD) == ba_detail_cache_secret;
}

/* The part of ba_detail_looks_in_use that reads p's own head, for a p already known to lie in
 * the heap's range. */
BA_DETAIL_FN int ba_detail_head_looks_in_use(const ba_heap *h, const ba_detail_ch *p)
{
   size_t size = ba_detail_chunksize(p);
   return (p->head & (BA_DETAIL_CINUSE | BA_DETAIL_QUICK)) == BA_DETAIL_CINUSE
          && size >= BA_DETAIL_MIN_CHUNK && size < (size_t)(h->greatest_addr - (const char *)p)
          && ba_detail_pinuse(ba_detail_plus(p, size)) && !ba_detail_cache_marked(p);
}

/* Whether chunk p, not huge, passes the checks levels 0 and 1 can afford, glibc's on a free:
 * inside the heap's range with its whole size, in use and not in a quick list (a double free of a
 * quick-listed block), at least a minimum chunk, and the next chunk knows it in use (catches most
 * double frees and pointers into blocks, at the cost of a few loads). */
BA_DETAIL_FN int ba_detail_looks_in_use(const ba_heap *h, const ba_detail_ch *p)
{
   const char *c = (const char *)p;
   return c >= h->least_addr && c < h->greatest_addr && ba_detail_head_looks_in_use(h, p);
}

#define BA_DETAIL_NOT_A_BLOCK "free of a pointer that is not an in-use block of this heap (a double free, a pointer into a block or a corrupted header)"

/* Returns: null when mem is an in-use block of h, else what is wrong with it; reads nothing but
 * the block's header and its neighbour's. Checking level 2 finds the segment or huge block of mem
 * first, so a pointer from elsewhere is told apart without the heap reading memory it does not
 * own. */
BA_DETAIL_FN const char *ba_detail_block_fault(ba_heap *h, const void *mem)
{
   ba_detail_ch *p = ba_detail_mem2chunk(mem);
   if (BA_DETAIL_UNLIKELY(((uintptr_t)mem & BA_DETAIL_ALIGN_MASK) != 0))
      return "free of a pointer that did not come from this heap (misaligned)";
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   if (!ba_detail_in_segments(h, p))
      return ba_detail_in_huge_list(h, p) ? 0 : "free of a pointer that did not come from this heap";
   if (BA_DETAIL_UNLIKELY(!ba_detail_cinuse(p) || (p->head & BA_DETAIL_QUICK)))
      return "double free (or a pointer into a block)";
   if (BA_DETAIL_UNLIKELY(ba_detail_chunksize(p) < BA_DETAIL_MIN_CHUNK || !ba_detail_in_segments(h, ba_detail_plus(p, ba_detail_chunksize(p) - 1))
                          || !ba_detail_pinuse(ba_detail_plus(p, ba_detail_chunksize(p)))))
      return BA_DETAIL_NOT_A_BLOCK;
   if (BA_DETAIL_UNLIKELY(ba_detail_cache_marked(p))) return "double free (of a block held in a thread cache)";
#else
   /* (A corrupted heap's range holds no pointer: checked_chunk then refuses the call; a huge
    * block is refused the same way.) */
   if (ba_detail_is_huge(p))
      return BA_DETAIL_LIKELY(ba_detail_huge_valid(h, p) && !h->corrupted) ? 0 : BA_DETAIL_NOT_A_BLOCK;
   if (BA_DETAIL_UNLIKELY(!ba_detail_looks_in_use(h, p))) return BA_DETAIL_NOT_A_BLOCK;
#endif
   return 0;
}

/* Returns: the chunk of mem, after checking that it is an in-use chunk of h; reports otherwise
 * (a heap marked corrupted refuses the call first: its checks would not be trusted). */
BA_DETAIL_FN ba_detail_ch *ba_detail_checked_chunk(ba_heap *h, const void *mem)
{
   const char *fault;
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   ba_detail_refuse_corrupted(h);
#endif
   fault = ba_detail_block_fault(h, mem);
   if (BA_DETAIL_UNLIKELY(fault != 0)) {
      ba_detail_refuse_corrupted(h);
      ba_detail_usage_error(h, fault, mem);
   }
   return ba_detail_mem2chunk(mem);
}

/* ba_detail_block_fault for q, the chunk that starts where an in-use chunk checked before it
 * ends (a burst free's run): q is known to be aligned and inside the heap, so only its own head
 * is checked. */
BA_DETAIL_FN const char *ba_detail_next_block_fault(ba_heap *h, const ba_detail_ch *q)
{
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   return ba_detail_block_fault(h, ba_detail_chunk2mem(q));
#else
   return BA_DETAIL_LIKELY(ba_detail_head_looks_in_use(h, q)) ? 0 : BA_DETAIL_NOT_A_BLOCK;
#endif
}

/* After a free: a top grown past the threshold begins its decay (decay.h), and a running decay
 * epoch is advanced. */
BA_DETAIL_FN void ba_detail_maybe_trim(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(h->topsize > h->trim_check)) ba_detail_decay_top_is_large(h);
   else ba_detail_decay_note(h);
}

/* Whether a free of a chunk of psize bytes counts toward the release of unused segments. */
BA_DETAIL_FN int ba_detail_counts_toward_release(const ba_heap *h, size_t psize)
{
   return BA_DETAIL_UNLIKELY(psize >= BA_DETAIL_MIN_LARGE_SIZE) && h->release_rate != 0;
}

/* Counts a free of a large chunk; every release_rate of them, unused segments are released. */
BA_DETAIL_FN void ba_detail_count_release(ba_heap *h, size_t psize)
{
   if (ba_detail_counts_toward_release(h, psize) && --h->release_countdown == 0) {
      h->release_countdown = h->release_rate;
      ba_detail_release_unused_segments(h);
   }
}

/* Frees checked chunk p. */
BA_DETAIL_FN void ba_detail_free_chunk(ba_heap *h, ba_detail_ch *p)
{
   size_t psize;
   ba_detail_block_died(ba_detail_chunk2mem(p), ba_detail_usable(p));
   if (ba_detail_is_huge(p)) { ba_detail_huge_free(h, p); return; }
   psize = ba_detail_chunksize(p);
   /* A chunk before the top merges into it instead: held there, it would keep every chunk freed
    * below it from reaching the top (and the top from being trimmed). */
   if (psize <= BA_DETAIL_MAX_SMALL_SIZE && ba_detail_plus(p, psize) != h->top && ba_detail_quick_push(h, p, psize))
      return;
   ba_detail_dispose_chunk(h, p, psize);
   ba_detail_count_release(h, psize);
   ba_detail_maybe_trim(h);
}

/* Frees mem, with h locked; unlocks h. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_free_locked(ba_heap *h, void *mem)
{
   ba_detail_ch *p;
   ba_detail_refuse_corrupted(h);
   p = ba_detail_checked_chunk(h, mem);
   ba_detail_note_free(h, ba_detail_chunksize(p), 1);
   ba_detail_free_chunk(h, p);
   ba_detail_unlock(h);
}

/* Frees mem when another thread held h's lock at the first try. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_free_contended(ba_heap *h, void *mem)
{
   ba_detail_spin_lock_slow(&h->lock_word);
   ba_detail_free_locked(h, mem);
}

/* The two commonest frees, done as ba_detail_free_chunk would do them, with h locked: a small
 * chunk into its quick list, or a chunk (with an in-use chunk before it) into the top when that
 * neither trims the top nor releases segments. They need no call and no register saved: a small
 * vector's free went from 91 instructions to 58 (callgrind). Returns: 1 when done; 0, with nothing
 * changed, for every other free, for a pointer that fails the checks (ba_detail_free_locked
 * reports it) and at checking level 2 (whose checks are ba_detail_free_locked's). */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_free_short(ba_heap *h, void *mem)
{
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   (void)h; (void)mem;
   return 0;
#else
   ba_detail_ch *p = ba_detail_mem2chunk(mem), *next;
   size_t psize;
   if (BA_DETAIL_UNLIKELY(((uintptr_t)mem & BA_DETAIL_ALIGN_MASK) != 0) || !ba_detail_looks_in_use(h, p)) return 0;
   psize = ba_detail_chunksize(p);
   next = ba_detail_plus(p, psize);
   if (next != h->top) {
      if (psize > BA_DETAIL_MAX_SMALL_SIZE || h->quick_count[ba_detail_small_index(psize)] >= BA_DETAIL_QUICK_LIMIT)
         return 0;
      ba_detail_block_died(mem, ba_detail_usable(p));
      ba_detail_quick_push(h, p, psize);
   } else {
      /* No coalescing backward, no trim, no countdown to a release of segments reaching 0. */
      int counted = ba_detail_counts_toward_release(h, psize);
      if (!ba_detail_pinuse(p) || h->topsize + psize > h->trim_check || (counted && h->release_countdown == 1))
         return 0;
      if (counted) --h->release_countdown;
      ba_detail_block_died(mem, ba_detail_usable(p));
      ba_detail_merge_into_top(h, p, psize);
   }
   ba_detail_note_free(h, psize, 1);
   return 1;
#endif
}

/* ba_heap_free: the short free when it applies, else the general one (which reports a pointer
 * that fails the checks). */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void ba_detail_heap_free(ba_heap *h, void *mem)
{
   if (!mem) return;
   if (BA_DETAIL_UNLIKELY(!ba_detail_try_lock(h))) {
      ba_detail_free_contended(h, mem);
      return;
   }
   if (ba_detail_free_short(h, mem)) {
      ba_detail_unlock(h);
      return;
   }
   ba_detail_free_locked(h, mem);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_FREE_H */
