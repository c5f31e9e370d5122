/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Segments and the top chunk. A segment is an address-space reservation committed from the bottom
 * up; its chunks end with a fence (an in-use chunk of BA_DETAIL_FENCE_SIZE that is never freed).
 * The top chunk is the free space of the newest segment, just below its fence: it always has
 * PINUSE set (a free chunk below it would have merged), never vanishes (it keeps at least a
 * minimum chunk), grows by committing more of the reservation or by a new segment, and is trimmed
 * back to the system beyond a threshold that doubles when trimmed memory was wanted again.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_SEGMENTS_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_SEGMENTS_H

#include <boost/allocplus/core/detail/address_space.h>
#include <boost/allocplus/core/detail/bins.h>
#include <boost/allocplus/core/detail/quick_list.h>
#include <boost/allocplus/core/detail/registry.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#define BA_DETAIL_SEGMENT_HEADER ba_detail_round_up(sizeof(ba_detail_segment), BA_DETAIL_ALIGN)
#define BA_DETAIL_HEAP_HEADER    ba_detail_round_up(sizeof(ba_heap), BA_DETAIL_ALIGN)

BA_DETAIL_FN ba_detail_ch *ba_detail_fence(const ba_detail_segment *s)
{ return (ba_detail_ch *)(s->base + s->committed - BA_DETAIL_FENCE_SIZE); }

BA_DETAIL_FN void ba_detail_write_fence(const ba_detail_segment *s)
{
   /* PINUSE clear: the chunk below is the top or a free chunk when it matters, and is set
    * whenever the chunk below becomes in use. */
   ba_detail_fence(s)->head = BA_DETAIL_FENCE_SIZE | BA_DETAIL_CINUSE;
}

/* Makes [s->chunks_begin, fence) the top chunk. */
BA_DETAIL_FN void ba_detail_top_from_segment(ba_heap *h, ba_detail_segment *s)
{
   ba_detail_ch *top = (ba_detail_ch *)(void *)s->chunks_begin;
   h->top = top;
   h->topsize = (size_t)((char *)ba_detail_fence(s) - s->chunks_begin);
   h->top_segment = s;
   top->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_write_fence(s);
   ba_detail_set_address_range(h, s->chunks_begin < h->least_addr ? s->chunks_begin : h->least_addr,
                               s->base + s->reserved > h->greatest_addr ? s->base + s->reserved : h->greatest_addr);
}

/* Writes the record of a segment at base, with the heap record after it when `embed` is set. */
BA_DETAIL_FN ba_detail_segment *ba_detail_place_segment(char *base, size_t reserved, size_t committed,
   unsigned flags, size_t embed)
{
   ba_detail_segment *s = (ba_detail_segment *)(void *)base;
   s->base = base;
   s->reserved = reserved;
   s->committed = committed;
   s->chunks_begin = base + BA_DETAIL_SEGMENT_HEADER + embed;
   s->next = 0;
   s->flags = flags;
   return s;
}

/* The heap has just grown: its top was used up, so nothing of it stayed unused through the
 * running decay epoch (decay.h), and a top found pinned before may be trimmed again. */
BA_DETAIL_FN void ba_detail_grown(ba_heap *h)
{
   h->decay_lowest_top = 0;
   h->trim_check = h->trim_threshold;
}

/* Grows the top chunk by committing more of the top segment, so that it holds at least `bytes`
 * (a chunk of that size plus the minimum top). Returns 1 on success. */
BA_DETAIL_FN int ba_detail_grow_top(ba_heap *h, size_t bytes)
{
   ba_detail_segment *s = h->top_segment;
   size_t page = ba_detail_page(), want, need;
   if (!s || (s->flags & BA_DETAIL_SEGMENT_EXTERNAL)) return 0;
   if (bytes > BA_DETAIL_MAX_REQUEST) return 0;
   need = bytes + BA_DETAIL_MIN_CHUNK;
   if (need <= h->topsize) return 1;
   need = ba_detail_round_up(need - h->topsize, page);
   if (need > s->reserved - s->committed) return 0;
   want = ba_detail_round_up(need + h->top_pad, BA_DETAIL_COMMIT_GRANULE);
   if (want > s->reserved - s->committed) want = s->reserved - s->committed;
   if (!ba_detail_footprint_allows(h, want)) want = need;
   if (!ba_detail_footprint_allows(h, want)) return 0;
   if (!ba_detail_commit(s->base + s->committed, want)) return 0;
   ba_detail_poison(s->base + s->committed, want);
   s->committed += want;
   ba_detail_footprint_add(h, want);
   h->topsize += want;
   h->top->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_write_fence(s);
   ba_detail_grown(h);
   return 1;
}

/* Starts a new segment large enough for a chunk of nb bytes and moves the top there; the old top
 * becomes an ordinary free chunk. The segment reserves segment_reserve bytes, or less down to what
 * the chunk needs when the system refuses that much address space. Returns 1 on success. */
BA_DETAIL_FN int ba_detail_new_segment(ba_heap *h, size_t nb)
{
   size_t page = ba_detail_page();
   size_t overhead = BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_FENCE_SIZE + BA_DETAIL_MIN_CHUNK;
   size_t reserve, commit, need;
   char *base;
   ba_detail_segment *s;
   if (nb > BA_DETAIL_MAX_REQUEST) return 0;
   need = ba_detail_round_up(nb + overhead, page);
   reserve = need > h->segment_reserve ? need : h->segment_reserve;
   if (!ba_detail_footprint_allows(h, need)) return 0;
   base = ba_detail_reserve_up_to(reserve, need, page, &reserve);
   if (!base) return 0;
   commit = ba_detail_round_up(need + h->top_pad, BA_DETAIL_COMMIT_GRANULE);
   if (commit > reserve) commit = reserve;
   if (!ba_detail_footprint_allows(h, commit)) commit = need;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve, 0); return 0; }
   ba_detail_poison(base, commit);
   ba_detail_footprint_add(h, commit);
   s = ba_detail_place_segment(base, reserve, commit, 0, 0);
   s->next = h->segments;
   h->segments = s;
   if (h->top) {
      /* The top always has PINUSE set (a free chunk below it would have merged). */
      ba_detail_ch *old = h->top;
      size_t oldsize = h->topsize;
      ba_detail_set_free_chunk(old, oldsize);
      ba_detail_insert_chunk(h, old, oldsize);
   }
   ba_detail_top_from_segment(h, s);
   ba_detail_grown(h);
   return 1;
}

/* Unmaps every segment other than the top one that is a single free chunk. Returns the bytes. */
BA_DETAIL_FN size_t ba_detail_release_unused_segments(ba_heap *h)
{
   size_t released = 0;
   ba_detail_segment **link = &h->segments;
   ba_detail_quick_flush(h);
   while (*link) {
      ba_detail_segment *s = *link;
      ba_detail_ch *first = (ba_detail_ch *)(void *)s->chunks_begin;
      size_t span = (size_t)((char *)ba_detail_fence(s) - s->chunks_begin);
      if (s != h->top_segment && !(s->flags & (BA_DETAIL_SEGMENT_EXTERNAL | BA_DETAIL_SEGMENT_PERMANENT))
          && !ba_detail_cinuse(first) && ba_detail_chunksize(first) == span) {
         if (first == h->dv) { h->dv = 0; h->dvsize = 0; }
         else ba_detail_unlink_chunk(h, first, span);
         *link = s->next;
         released += s->committed;
         h->footprint -= s->committed;
         ba_detail_release(s->base, s->reserved, s->committed);
         continue;
      }
      link = &s->next;
   }
   return released;
}

/* Gives back the top beyond pad bytes (by whole pages) and unused segments. Returns the bytes. */
BA_DETAIL_FN size_t ba_detail_sys_trim(ba_heap *h, size_t pad)
{
   size_t released = 0;
   ba_detail_segment *s;
   ba_detail_quick_flush(h);
   s = h->top_segment;
   if (s && !(s->flags & BA_DETAIL_SEGMENT_EXTERNAL) && pad < BA_DETAIL_MAX_REQUEST) {
      size_t page = ba_detail_page();
      char *keep = (char *)h->top + BA_DETAIL_MIN_CHUNK + pad + BA_DETAIL_FENCE_SIZE;
      size_t keep_off = ba_detail_round_up((size_t)(keep - s->base), page);
      if (keep_off < s->committed) {
         size_t drop = s->committed - keep_off;
         ba_detail_decommit(s->base + keep_off, drop);
         s->committed = keep_off;
         h->footprint -= drop;
         h->topsize -= drop;
         h->top->head = h->topsize | BA_DETAIL_PINUSE;
         ba_detail_write_fence(s);
         released += drop;
      }
   }
   released += ba_detail_release_unused_segments(h);
   return released;
}

/* Returns: whether h's footprint limit allows `bytes` more, once the free top the decay still
 * keeps has gone back if that is what stands in the way: the delay never makes a growth fail that
 * an immediate trim would have let through (a huge block's growth in place; the rest of the heap's
 * growth retries in ba_detail_sys_alloc_or_trim). */
BA_DETAIL_FN int ba_detail_footprint_allows_after_trim(ba_heap *h, size_t bytes)
{
   if (ba_detail_footprint_allows(h, bytes)) return 1;
   if (h->topsize > h->top_pad + BA_DETAIL_MIN_CHUNK) ba_detail_sys_trim(h, h->top_pad);
   return ba_detail_footprint_allows(h, bytes);
}

/* Whether the top can give a chunk of nb bytes and still keep a minimum chunk (the top never
 * vanishes). */
BA_DETAIL_FN int ba_detail_top_holds(const ba_heap *h, size_t nb) { return nb + BA_DETAIL_MIN_CHUNK <= h->topsize; }

/* Returns: the mem of a chunk of nb bytes cut from the start of the top (which holds it). */
BA_DETAIL_FN void *ba_detail_split_top(ba_heap *h, size_t nb)
{
   ba_detail_ch *p = h->top;
   ba_detail_ch *r = h->top = ba_detail_plus(p, nb);
   h->topsize -= nb;
   r->head = h->topsize | BA_DETAIL_PINUSE;
   ba_detail_set_size_and_pinuse_of_inuse(p, nb);
   return ba_detail_chunk2mem(p);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_SEGMENTS_H */
