/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The heap walk: every segment chunk by chunk, every bin, quick list and huge block, checking the
 * structure (sizes and boundary tags, bin membership and links, the order of tree children, the
 * quick lists' flags and counts, huge headers) and the statistics against what it finds. It serves
 * ba_heap_check (the first broken invariant, and where) and the free-chunk figures of the
 * statistics. Linear in the heap; never on an allocation path.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_WALK_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_WALK_H

#include <boost/allocplus/core/detail/segments.h>
#include <boost/allocplus/core/detail/quick_list.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

typedef struct ba_detail_tally {
   size_t inuse_chunks, inuse_bytes;
   size_t free_chunks, free_bytes;   /* top and designated victim included */
   size_t binned_chunks;             /* free chunks that must be found in a bin */
   size_t quick_chunks;              /* in-use chunks flagged QUICK: each in its quick list */
   size_t segments, committed;
   size_t huge_blocks, huge_committed;
   int found_top, found_dv;
} ba_detail_tally;

#define BA_DETAIL_FAIL(what, at) do { *where = (const void *)(at); return (what); } while (0)

BA_DETAIL_FN const char *ba_detail_walk_free_chunk(const ba_heap *h, const ba_detail_ch *p, size_t size,
   ba_detail_tally *t, const void **where)
{
   const ba_detail_ch *next = ba_detail_plus(p, size);
   if (!ba_detail_pinuse(p)) BA_DETAIL_FAIL("two adjacent free chunks (the previous one is free)", p);
   if (next->prev_foot != size) BA_DETAIL_FAIL("a free chunk's boundary tag does not repeat its size", p);
   if (ba_detail_pinuse(next)) BA_DETAIL_FAIL("the chunk after a free chunk has PINUSE set", next);
   if (!ba_detail_cinuse(next)) BA_DETAIL_FAIL("two adjacent free chunks (the next one is free)", next);
   ++t->free_chunks;
   t->free_bytes += size;
   if (p == h->dv) {
      if (size != h->dvsize) BA_DETAIL_FAIL("the designated victim's size disagrees with dvsize", p);
      t->found_dv = 1;
   } else if (ba_detail_is_small(size)) {
      ++t->binned_chunks;
      if (!(h->smallmap & ba_detail_small_bit(ba_detail_small_index(size)))) BA_DETAIL_FAIL("a free small chunk's bin is marked empty", p);
   } else {
      unsigned i = ba_detail_tree_index(size);
      ++t->binned_chunks;
      if (!(h->treemap & (1u << i))) BA_DETAIL_FAIL("a free large chunk's tree bin is marked empty", p);
      if (((const ba_detail_tch *)(const void *)p)->index != i) BA_DETAIL_FAIL("a tree chunk records the wrong bin", p);
   }
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_segment(const ba_heap *h, const ba_detail_segment *s, ba_detail_tally *t,
   const void **where)
{
   const ba_detail_ch *fence, *p;
   if (s->committed > s->reserved || s->committed < BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_FENCE_SIZE)
      BA_DETAIL_FAIL("a segment's committed size is out of its reservation", s);
   if (((uintptr_t)s->chunks_begin & BA_DETAIL_ALIGN_MASK) != 0) BA_DETAIL_FAIL("a segment's chunks are misaligned", s);
   fence = ba_detail_fence(s);
   if (ba_detail_chunksize(fence) != BA_DETAIL_FENCE_SIZE || !ba_detail_cinuse(fence))
      BA_DETAIL_FAIL("a segment's fence is overwritten", fence);
   ++t->segments;
   if (!(s->flags & BA_DETAIL_SEGMENT_EXTERNAL)) t->committed += s->committed;
   p = (const ba_detail_ch *)(const void *)s->chunks_begin;
   if (!ba_detail_pinuse(p)) BA_DETAIL_FAIL("the first chunk of a segment lacks PINUSE", p);
   while (p != fence) {
      size_t size = ba_detail_chunksize(p);
      const ba_detail_ch *next = ba_detail_plus(p, size);
      if (size < BA_DETAIL_MIN_CHUNK || (size & BA_DETAIL_ALIGN_MASK) != 0 || (const char *)next > (const char *)fence)
         BA_DETAIL_FAIL("a chunk's size is out of bounds (an overrun of the block before it?)", p);
      if (p == h->top) {
         if (next != fence || s != h->top_segment) BA_DETAIL_FAIL("the top is not the last chunk of the top segment", p);
         if (size != h->topsize || ba_detail_cinuse(p)) BA_DETAIL_FAIL("the top chunk disagrees with topsize", p);
         t->found_top = 1;
         ++t->free_chunks;
         t->free_bytes += size;
      } else if (ba_detail_cinuse(p)) {
         if (!ba_detail_pinuse(next)) BA_DETAIL_FAIL("the chunk after an in-use chunk lacks PINUSE", next);
         if (p->head & BA_DETAIL_QUICK) {
            /* Free memory to the owner and the statistics, an in-use chunk to its neighbours. */
            if (!ba_detail_is_small(size)) BA_DETAIL_FAIL("a large chunk is flagged as held in a quick list", p);
            ++t->quick_chunks;
            ++t->free_chunks;
            t->free_bytes += size;
         } else {
            ++t->inuse_chunks;
            t->inuse_bytes += size;
         }
      } else {
         const char *what = ba_detail_walk_free_chunk(h, p, size, t, where);
         if (what) return what;
      }
      p = next;
   }
   return 0;
}

/* Checks the ring of chunks of tree node x and the subtrees below it; counts the chunks. */
BA_DETAIL_FN const char *ba_detail_walk_tree(const ba_heap *h, const ba_detail_tch *x, unsigned i, size_t *count,
   size_t bound, const void **where)
{
   size_t size = ba_detail_chunksize(&x->c);
   size_t lo = ba_detail_tree_min_size(i);
   const ba_detail_tch *u = x;
   unsigned c;
   if (size < lo || (i + 1 < BA_DETAIL_NTREEBINS && size >= ba_detail_tree_min_size(i + 1)))
      BA_DETAIL_FAIL("a tree chunk's size is outside its bin", x);
   do {
      if (ba_detail_chunksize(&u->c) != size || u->index != i) BA_DETAIL_FAIL("a tree ring holds chunks of different sizes", u);
      if (ba_detail_cinuse(&u->c)) BA_DETAIL_FAIL("an in-use chunk is in a tree bin", u);
      if (u->c.fd->bk != &u->c || u->c.bk->fd != &u->c) BA_DETAIL_FAIL("broken links in a tree ring", u);
      if (u != x && u->parent != 0) BA_DETAIL_FAIL("two tree nodes for one size", u);
      if (h->dv == &u->c) BA_DETAIL_FAIL("the designated victim is also in a bin", u);
      if (++*count > bound) BA_DETAIL_FAIL("a tree bin holds more chunks than the heap has (a cycle?)", u);
      u = (const ba_detail_tch *)(const void *)u->c.fd;
   } while (u != x);
   if (x->child[0] && x->child[1] && ba_detail_chunksize(&x->child[0]->c) >= ba_detail_chunksize(&x->child[1]->c))
      BA_DETAIL_FAIL("tree children are out of order", x);
   for (c = 0; c < 2; ++c) {
      const ba_detail_tch *child = x->child[c];
      const char *what;
      if (!child) continue;
      if (child->parent != x) BA_DETAIL_FAIL("a tree child does not point back to its parent", child);
      if ((what = ba_detail_walk_tree(h, child, i, count, bound, where)) != 0) return what;
   }
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_bins(const ba_heap *h, const ba_detail_tally *t, const void **where)
{
   size_t count = 0;
   unsigned i;
   if (h->smallmap & 3u) BA_DETAIL_FAIL("a small bin below the minimum chunk is marked non-empty", h);
   for (i = 2; i < BA_DETAIL_NSMALLBINS; ++i) {
      const ba_detail_ch *b = &h->smallbins[i], *q;
      if (!(h->smallmap & ba_detail_small_bit(i))) continue;
      if (b->fd == b) BA_DETAIL_FAIL("a small bin marked non-empty is empty", b);
      for (q = b->fd; q != b; q = q->fd) {
         if (ba_detail_chunksize(q) != ba_detail_small_index2size(i)) BA_DETAIL_FAIL("a small bin holds a chunk of another size", q);
         if (ba_detail_cinuse(q)) BA_DETAIL_FAIL("an in-use chunk is in a small bin", q);
         if (q->fd->bk != q || q->bk->fd != q) BA_DETAIL_FAIL("broken links in a small bin", q);
         if (q == h->dv) BA_DETAIL_FAIL("the designated victim is also in a bin", q);
         if (++count > t->binned_chunks) BA_DETAIL_FAIL("the bins hold more chunks than the heap has (a cycle?)", q);
      }
   }
   for (i = 0; i < BA_DETAIL_NTREEBINS; ++i) {
      const ba_detail_tch *root = h->treebins[i];
      const char *what;
      if (!(h->treemap & (1u << i)) != !root) BA_DETAIL_FAIL("a tree bin's bit disagrees with its root", &h->treebins[i]);
      if (!root) continue;
      if (root->parent != (const ba_detail_tch *)(const void *)&h->treebins[i]) BA_DETAIL_FAIL("a tree root does not point to its bin", root);
      if ((what = ba_detail_walk_tree(h, root, i, &count, t->binned_chunks, where)) != 0) return what;
   }
   if (count != t->binned_chunks) BA_DETAIL_FAIL("free chunks are missing from the bins", h);
   return 0;
}

/* Checks the quick lists against the chunks the segment walk found flagged QUICK. */
BA_DETAIL_FN const char *ba_detail_walk_quick(const ba_heap *h, const ba_detail_tally *t, const void **where)
{
   size_t total = 0;
   unsigned i;
   for (i = 0; i < BA_DETAIL_NSMALLBINS; ++i) {
      unsigned count;
      /* The count says where a list ends: its last link is never read, and is not checked. */
      const ba_detail_ch *q = h->quick_count[i] ? ba_detail_mem2chunk(h->quick[i]) : 0;
      for (count = 0; count < h->quick_count[i]; ++count) {
         /* A write after free lands on the link first: look at it before following it. */
         if ((char *)q < h->least_addr || (char *)q >= h->greatest_addr || !ba_detail_link_valid(q, BA_DETAIL_ALIGN_MASK))
            BA_DETAIL_FAIL("a quick list's link is overwritten (a use after free?)", q);
         if (!(q->head & BA_DETAIL_QUICK) || !ba_detail_cinuse(q)) BA_DETAIL_FAIL("a chunk in a quick list is not flagged QUICK (a use after free?)", q);
         if (ba_detail_chunksize(q) != ba_detail_small_index2size(i)) BA_DETAIL_FAIL("a quick list holds a chunk of another size", q);
         if (count + 1 < h->quick_count[i]) q = ba_detail_quick_next(q);
      }
      total += count;
   }
   if (total != t->quick_chunks) BA_DETAIL_FAIL("chunks flagged QUICK are missing from the quick lists", h);
   return 0;
}

BA_DETAIL_FN const char *ba_detail_walk_huge(const ba_heap *h, ba_detail_tally *t, const void **where)
{
   const ba_detail_huge_header *hh, *prev = 0;
   for (hh = h->huge; hh; prev = hh, hh = hh->next) {
      const ba_detail_ch *p = (const ba_detail_ch *)(const void *)((const char *)hh + hh->chunk_offset);
      if (hh->prev != prev) BA_DETAIL_FAIL("broken links in the list of huge blocks", hh);
      if (hh->heap != h || hh->magic != ((size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC)) BA_DETAIL_FAIL("a huge block's header is overwritten", hh);
      if (hh->committed > hh->reserved || !ba_detail_is_huge(p) || p->prev_foot != hh->chunk_offset
          || ba_detail_chunksize(p) != hh->committed - hh->chunk_offset)
         BA_DETAIL_FAIL("a huge block's chunk disagrees with its header", p);
      ++t->huge_blocks;
      t->huge_committed += hh->committed;
      ++t->inuse_chunks;
      t->inuse_bytes += ba_detail_chunksize(p);
   }
   return 0;
}

/* Walks every segment, bin and huge block of h. Returns null when every invariant holds, else
 * the first broken one (and where). */
BA_DETAIL_FN const char *ba_detail_walk(const ba_heap *h, ba_detail_tally *t, const void **where)
{
   const ba_detail_segment *s;
   const char *what;
   memset(t, 0, sizeof *t);
   if (h->corrupted) BA_DETAIL_FAIL("the heap reported a corruption before", h);
   for (s = h->segments; s; s = s->next)
      if ((what = ba_detail_walk_segment(h, s, t, where)) != 0) return what;
   if (h->top && !t->found_top) BA_DETAIL_FAIL("the top chunk lies in no segment", h->top);
   if (h->dv && (!t->found_dv || h->dvsize < BA_DETAIL_MIN_CHUNK)) BA_DETAIL_FAIL("the designated victim lies in no segment", h->dv);
   if (!h->dv && h->dvsize != 0) BA_DETAIL_FAIL("dvsize is set without a designated victim", h);
   if ((what = ba_detail_walk_bins(h, t, where)) != 0) return what;
   if ((what = ba_detail_walk_quick(h, t, where)) != 0) return what;
   if ((what = ba_detail_walk_huge(h, t, where)) != 0) return what;
   if (h->huge_blocks != t->huge_blocks || h->huge_bytes != t->huge_committed)
      BA_DETAIL_FAIL("the huge block statistics disagree with the blocks", h);
   if (h->footprint != t->committed + t->huge_committed) BA_DETAIL_FAIL("the footprint disagrees with the segments and huge blocks", h);
   if (h->in_use_chunks != t->inuse_chunks || h->in_use_bytes != t->inuse_bytes)
      BA_DETAIL_FAIL("the in-use statistics disagree with the chunks", h);
   return 0;
}

#undef BA_DETAIL_FAIL

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_WALK_H */
