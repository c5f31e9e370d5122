/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * realloc (in place when the chunk holds or can grow to the new size, else moved) and aligned
 * allocation (memalign: a larger chunk whose aligned part is cut out, the lead and tail freed; a
 * huge block is mapped aligned).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_REALLOC_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_REALLOC_H

#include <boost/allocplus/core/detail/allocate.h>
#include <boost/allocplus/core/detail/resize.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Returns: p's mem resized to bytes, in place or moved; null (p untouched) when out of memory. */
BA_DETAIL_FN void *ba_detail_realloc(ba_heap *h, ba_detail_ch *p, size_t bytes)
{
   size_t nb = ba_detail_request2size(bytes);
   void *mem = ba_detail_chunk2mem(p), *moved;
   int huge = ba_detail_is_huge(p);
   /* A huge block that shrinks far below the threshold moves into the heap instead of keeping a
    * mapping of its own. */
   size_t old = ba_detail_exposed(mem, ba_detail_usable(p));
   if (!(huge && nb < h->mmap_threshold / 2)) {
      if (ba_detail_holds(p, nb) || ba_detail_expand_fwd(h, p, nb, nb)) {
         ba_detail_shrink_chunk(h, p, nb);
         ba_detail_block_moved(mem, mem, ba_detail_usable(p), bytes);
         return mem;
      }
   }
   moved = ba_detail_malloc_chunk(h, nb, 1);
   if (!moved) {
      if (!(huge && ba_detail_holds(p, nb))) return 0;
      ba_detail_block_moved(mem, mem, ba_detail_usable(p), bytes);
      return mem;
   }
   ba_detail_block_born(moved, ba_detail_usable(ba_detail_mem2chunk(moved)), bytes);
   memcpy(moved, mem, old < bytes ? old : bytes);
   ba_detail_free_chunk(h, p);
   return moved;
}

/* Returns: mem of a chunk of at least bytes whose mem is aligned to `alignment` (a power of two
 * above BA_MALLOC_ALIGNMENT), or null. */
BA_DETAIL_FN void *ba_detail_memalign(ba_heap *h, size_t alignment, size_t bytes)
{
   size_t nb, req;
   char *mem;
   ba_detail_ch *p;
   if (alignment < BA_DETAIL_MIN_CHUNK) alignment = BA_DETAIL_MIN_CHUNK;
   if (bytes >= BA_DETAIL_MAX_REQUEST - alignment || alignment >= BA_DETAIL_MAX_REQUEST) return 0;
   nb = ba_detail_request2size(bytes);
   if (nb >= h->mmap_threshold) {
      void *huge = ba_detail_huge_alloc(h, nb, alignment);
      if (huge) return huge;
   }
   /* Room for a leading remainder of at least a minimum chunk before the aligned start. */
   req = nb + alignment + BA_DETAIL_MIN_CHUNK;
   mem = (char *)ba_detail_malloc_chunk(h, req, 0);
   if (!mem) return 0;
   p = ba_detail_mem2chunk(mem);
   if (((uintptr_t)mem & (alignment - 1)) != 0) {
      char *br = (char *)ba_detail_mem2chunk((void *)(((uintptr_t)mem + alignment - 1) & ~(uintptr_t)(alignment - 1)));
      char *pos = (size_t)(br - (char *)p) >= BA_DETAIL_MIN_CHUNK ? br : br + alignment;
      ba_detail_ch *newp = (ba_detail_ch *)(void *)pos;
      size_t lead = (size_t)(pos - (char *)p);
      size_t newsize = ba_detail_chunksize(p) - lead;
      ba_detail_set_inuse(newp, newsize);
      ba_detail_set_inuse(p, lead);
      ba_detail_dispose_chunk(h, p, lead);
      p = newp;
   }
   ba_detail_shrink_chunk(h, p, nb);
   return ba_detail_chunk2mem(p);
}

/* Returns: mem of a new chunk for bytes aligned to alignment (power of two), or null. */
BA_DETAIL_FN void *ba_detail_malloc_aligned(ba_heap *h, size_t alignment, size_t bytes)
{
   return alignment <= BA_DETAIL_ALIGN ? ba_detail_malloc(h, bytes) : ba_detail_memalign(h, alignment, bytes);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_REALLOC_H */
