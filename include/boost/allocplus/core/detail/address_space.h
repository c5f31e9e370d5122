/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Address space from the system: reserve (PROT_NONE, no swap charged), commit, decommit (the pages
 * go back, the range stays reserved) and release; and the footprint (the committed bytes a heap
 * holds) with its limit, which the paths that grow a heap ask before they commit.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H

#include <boost/allocplus/core/detail/instrumentation.h>
#include <boost/allocplus/core/detail/structures.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN char *ba_detail_reserve(size_t bytes)
{
   void *p = mmap(0, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   return p == MAP_FAILED ? (char *)0 : (char *)p;
}
BA_DETAIL_FN int ba_detail_commit(char *at, size_t bytes)
{
   return mprotect(at, bytes, PROT_READ | PROT_WRITE) == 0;
}
/* Gives the pages back and keeps the address range reserved. */
BA_DETAIL_FN void ba_detail_decommit(char *at, size_t bytes)
{
   ba_detail_unpoison(at, bytes);
   void *p = mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
   (void)p;
}
BA_DETAIL_FN void ba_detail_release(char *at, size_t bytes)
{
   ba_detail_unpoison(at, bytes);
   munmap(at, bytes);
}

/* Returns: whether the footprint may grow by `bytes`. */
BA_DETAIL_FN int ba_detail_footprint_allows(const ba_heap *h, size_t bytes)
{
   return bytes <= h->footprint_limit && h->footprint <= h->footprint_limit - bytes;
}
BA_DETAIL_FN void ba_detail_footprint_add(ba_heap *h, size_t bytes)
{
   h->footprint += bytes;
   if (h->footprint > h->max_footprint) h->max_footprint = h->footprint;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H */
