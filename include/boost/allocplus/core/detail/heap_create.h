/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Creating and destroying independent heaps: over memory from the system (the heap record lives in
 * its first segment, which is released last; registered for fork when it has a lock) or over a
 * caller's buffer (never committed, trimmed or unmapped; given back unpoisoned; never registered,
 * so that abandoning it without ba_destroy_heap is harmless). A buffer in memory shared with
 * other processes takes the process-shared lock, which is never skipped.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_CREATE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_CREATE_H

#include <boost/allocplus/core/detail/segments.h>
#include <boost/allocplus/core/detail/registry.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap(size_t capacity, int locked)
{
   size_t page, segment, reserve, commit;
   char *base;
   ba_detail_segment *s;
   ba_heap *h;
   if (locked == BA_HEAP_PROCESS_SHARED) {   /* its memory is private to this process */
      errno = EINVAL;
      return 0;
   }
   ba_detail_default();   /* the page size and the fork handlers */
   page = ba_detail_page();
   if (capacity > BA_DETAIL_MAX_REQUEST) return 0;
   segment = ba_detail_round_up(capacity ? capacity : BA_DETAIL_CREATED_SEGMENT, page);
   commit = ba_detail_round_up(BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_HEAP_HEADER + BA_DETAIL_MIN_CHUNK + BA_DETAIL_FENCE_SIZE, page);
   if (segment < commit) segment = commit;
   /* Smaller than asked when the system refuses that much address space; later segments try the
    * size asked again. */
   base = ba_detail_reserve_up_to(segment, commit, page, &reserve);
   if (!base) return 0;
   if (commit < BA_DETAIL_COMMIT_GRANULE && reserve >= BA_DETAIL_COMMIT_GRANULE) commit = BA_DETAIL_COMMIT_GRANULE;
   if (!ba_detail_commit(base, commit)) { ba_detail_release(base, reserve, 0); return 0; }
   h = (ba_heap *)(void *)(base + BA_DETAIL_SEGMENT_HEADER);
   ba_detail_heap_init(h, segment, locked, BA_DETAIL_HEAP_EMBEDDED);
   s = ba_detail_place_segment(base, reserve, commit, BA_DETAIL_SEGMENT_PERMANENT, BA_DETAIL_HEAP_HEADER);
   h->segments = s;
   ba_detail_top_from_segment(h, s);
   ba_detail_footprint_add(h, commit);
   h->flags |= BA_DETAIL_HEAP_READY;
   ba_detail_register(h);
   ba_detail_poison(base, commit);
   return h;
}

BOOST_ALLOCPLUS_CORE_API ba_heap *ba_create_heap_over(void *buffer, size_t size, int locked)
{
   char *base = (char *)ba_detail_round_up((size_t)(uintptr_t)buffer, BA_DETAIL_ALIGN);
   size_t lost = (size_t)(base - (char *)buffer), usable;
   ba_detail_segment *s;
   ba_heap *h;
   if (!buffer || size < BA_DETAIL_MIN_BUFFER || size - lost < BA_DETAIL_MIN_BUFFER) return 0;
   /* A heap whose lock may be skipped must not live where another process can reach it. */
   if (locked != BA_HEAP_PROCESS_SHARED && ba_detail_in_shared_mapping(buffer, size)) {
      errno = EINVAL;
      return 0;
   }
   ba_detail_default();
   usable = (size - lost) & ~BA_DETAIL_ALIGN_MASK;
   if (usable < BA_DETAIL_SEGMENT_HEADER + BA_DETAIL_HEAP_HEADER + BA_DETAIL_FENCE_SIZE + 2 * BA_DETAIL_MIN_CHUNK) return 0;
   h = (ba_heap *)(void *)(base + BA_DETAIL_SEGMENT_HEADER);
   ba_detail_heap_init(h, 0, locked, BA_DETAIL_HEAP_EMBEDDED | BA_DETAIL_HEAP_NO_SYSTEM);
   s = ba_detail_place_segment(base, usable, usable, BA_DETAIL_SEGMENT_EXTERNAL | BA_DETAIL_SEGMENT_PERMANENT,
                               BA_DETAIL_HEAP_HEADER);
   h->segments = s;
   ba_detail_top_from_segment(h, s);
   h->flags |= BA_DETAIL_HEAP_READY;
   /* Not registered (ba_detail_registered): the buffer may go away without ba_destroy_heap. */
   ba_detail_poison(base, usable);
   return h;
}

BOOST_ALLOCPLUS_CORE_API size_t ba_destroy_heap(ba_heap *h)
{
   size_t released = 0;
   ba_detail_segment *s, *permanent = 0;
   if (!h || h == &ba_detail_default_heap_storage) return 0;
   ba_detail_unregister(h);
   while (h->huge) {
      ba_detail_huge_header *hh = h->huge;
      h->huge = hh->next;
      released += hh->committed;
      ba_detail_release((char *)hh, hh->reserved, hh->committed);
   }
   s = h->segments;
   while (s) {
      ba_detail_segment *next = s->next;
      if (s->flags & BA_DETAIL_SEGMENT_PERMANENT) permanent = s;
      else { released += s->committed; ba_detail_release(s->base, s->reserved, s->committed); }
      s = next;
   }
   /* Last: the segment that holds the heap record itself. */
   if (permanent && !(permanent->flags & BA_DETAIL_SEGMENT_EXTERNAL)) {
      released += permanent->committed;
      ba_detail_release(permanent->base, permanent->reserved, permanent->committed);
   } else if (permanent) {
      ba_detail_unpoison(permanent->base, permanent->committed);   /* the caller's buffer again */
   }
   return released;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_HEAP_CREATE_H */
