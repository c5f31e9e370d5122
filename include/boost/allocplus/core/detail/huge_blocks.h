/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Huge blocks: a request at or above the mmap threshold that no bin, designated victim or top
 * chunk serves is mapped directly (an aligned one is mapped first), with a header at the base of
 * its mapping (linked into the heap's list, with a magic word that a free checks) and address
 * space reserved after it, so that expand_fwd and realloc grow it in place by committing more.
 * Freeing one raises the dynamic mmap threshold (as glibc does), so that sizes a program frees and
 * asks for again stop being mapped one by one.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_HUGE_BLOCKS_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_HUGE_BLOCKS_H

#include <boost/allocplus/core/detail/address_space.h>
#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/registry.h>
#include <boost/allocplus/core/detail/segments.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#define BA_DETAIL_HUGE_HEADER ba_detail_round_up(sizeof(ba_detail_huge_header), BA_DETAIL_ALIGN)

BA_DETAIL_FN ba_detail_huge_header *ba_detail_huge_of(const ba_detail_ch *p)
{ return (ba_detail_huge_header *)(void *)((char *)p - p->prev_foot); }

/* Returns: the mem of a new huge chunk of at least nb bytes (nb counts the one-word overhead of
 * an ordinary chunk) aligned to `alignment`, or null. */
BA_DETAIL_FN void *ba_detail_huge_alloc(ba_heap *h, size_t nb, size_t alignment)
{
   size_t page = ba_detail_page();
   size_t lead = BA_DETAIL_HUGE_HEADER + 2 * BA_DETAIL_WORD;   /* from base to the first mem */
   size_t slack = alignment > BA_DETAIL_ALIGN ? alignment : 0;
   size_t commit, extra, reserve;
   char *base, *mem;
   ba_detail_huge_header *hh;
   ba_detail_ch *p;
   if (h->flags & BA_DETAIL_HEAP_NO_SYSTEM) return 0;
   if (nb > BA_DETAIL_MAX_REQUEST || slack > BA_DETAIL_MAX_REQUEST) return 0;
   commit = ba_detail_round_up(lead + nb + BA_DETAIL_WORD + slack, page);
   if (!ba_detail_footprint_allows(h, commit)) return 0;
   extra = commit > BA_DETAIL_HUGE_EXTRA_MIN ? commit : BA_DETAIL_HUGE_EXTRA_MIN;
   if (extra > h->huge_reserve || (h->flags & BA_DETAIL_HEAP_USER_RESERVE))
      extra = ba_detail_round_up(h->huge_reserve, page);
   /* Less room to grow (down to none) when the system refuses that much address space. */
   base = ba_detail_reserve_up_to(commit + extra, commit, page, &reserve);
   if (!base) return 0;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve, 0); return 0; }
   ba_detail_poison(base, commit);
   mem = (char *)ba_detail_round_up((size_t)(uintptr_t)(base + lead), alignment > BA_DETAIL_ALIGN ? alignment : BA_DETAIL_ALIGN);
   p = ba_detail_mem2chunk(mem);
   p->prev_foot = (size_t)((char *)p - base);
   p->head = (size_t)(base + commit - (char *)p);
   hh = (ba_detail_huge_header *)(void *)base;
   hh->reserved = reserve;
   hh->committed = commit;
   hh->chunk_offset = p->prev_foot;
   hh->heap = h;
   hh->magic = (size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC;
   hh->prev = 0;
   hh->next = h->huge;
   if (h->huge) h->huge->prev = hh;
   h->huge = hh;
   ba_detail_footprint_add(h, commit);
   h->huge_blocks += 1;
   h->huge_bytes += commit;
   return mem;
}

/* Whether p, whose header says it is a huge chunk, is one of h's: h has huge blocks at all, the
 * offset to its mapping's base is plausible (computed in integers: a forged one must not wrap a
 * pointer), and the header there names h. */
BA_DETAIL_FN int ba_detail_huge_valid(const ba_heap *h, const ba_detail_ch *p)
{
   uintptr_t base = (uintptr_t)p - p->prev_foot;
   const ba_detail_huge_header *hh = (const ba_detail_huge_header *)base;
   return h->huge != 0 && p->prev_foot >= BA_DETAIL_HUGE_HEADER && p->prev_foot < (uintptr_t)p
       && (base & (ba_detail_page() - 1)) == 0
       && hh->heap == h && hh->magic == ((size_t)(uintptr_t)h ^ BA_DETAIL_HUGE_MAGIC);
}

BA_DETAIL_FN void ba_detail_huge_free(ba_heap *h, ba_detail_ch *p)
{
   ba_detail_huge_header *hh = ba_detail_huge_of(p);
   size_t size = ba_detail_chunksize(p);
   if (hh->prev) hh->prev->next = hh->next; else h->huge = hh->next;
   if (hh->next) hh->next->prev = hh->prev;
   h->footprint -= hh->committed;
   h->huge_blocks -= 1;
   h->huge_bytes -= hh->committed;
   hh->magic = 0;
   /* The dynamic threshold (as glibc's): a program that frees a block of this size is likely to
    * ask for it again, so such sizes stop being mapped one by one, and the top keeps twice that
    * before it trims. The trim threshold only rises here: the user's threshold, or a larger one
    * a larger block raised, stays. */
   if (!(h->flags & BA_DETAIL_HEAP_USER_MMAP) && size > h->mmap_threshold && size <= BA_DETAIL_MMAP_THRESHOLD_MAX) {
      h->mmap_threshold = size;
      if (!(h->flags & BA_DETAIL_HEAP_USER_TRIM) && 2 * size > h->trim_threshold)
         h->trim_threshold = h->trim_check = 2 * size;
   }
   ba_detail_release((char *)hh, hh->reserved, hh->committed);
}

/* Resizes huge chunk p in place so that it holds nb bytes (as counted for ordinary chunks):
 * commits more of its reservation, extends the reservation when the addresses after it are free,
 * or gives back whole pages. Returns 1 on success. */
BA_DETAIL_FN int ba_detail_huge_resize(ba_heap *h, ba_detail_ch *p, size_t nb)
{
   ba_detail_huge_header *hh = ba_detail_huge_of(p);
   char *base = (char *)hh;
   size_t page = ba_detail_page(), off = p->prev_foot, commit;
   if (nb > BA_DETAIL_MAX_REQUEST) return 0;
   commit = ba_detail_round_up(off + nb + BA_DETAIL_WORD, page);
   if (commit > hh->committed) {
      size_t grow = commit - hh->committed;
      if (!ba_detail_footprint_allows_after_trim(h, grow)) return 0;
      if (commit > hh->reserved) {
#if defined(MAP_FIXED_NOREPLACE)
         size_t more = commit - hh->reserved;
         void *q = mmap(base + hh->reserved, more, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
         if (q == MAP_FAILED) return 0;
         if (q != base + hh->reserved) { munmap(q, more); return 0; }  /* an old kernel: no NOREPLACE */
         hh->reserved = commit;
#else
         return 0;
#endif
      }
      if (!ba_detail_commit(base + hh->committed, grow)) return 0;
      ba_detail_poison(base + hh->committed, grow);
      ba_detail_footprint_add(h, grow);
      h->huge_bytes += grow;
   } else if (commit < hh->committed) {
      size_t drop = hh->committed - commit;
      ba_detail_decommit(base + commit, drop);
      h->footprint -= drop;
      h->huge_bytes -= drop;
   }
   hh->committed = commit;
   p->head = commit - off;
   return 1;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_HUGE_BLOCKS_H */
