/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The second translation unit of core_c_build_test: allocates blocks the first one frees, and
 * frees blocks the first one allocated. */
#include <boost/allocplus/core/dlmalloc.h>

#include <string.h>

#include "c_other_tu.h"

void *other_allocate(size_t n, unsigned char fill)
{
   void *p = ba_malloc(n);
   if (p) memset(p, fill, n);
   return p;
}

int other_free_checked(void *p, size_t n, unsigned char fill)
{
   const unsigned char *b = (const unsigned char *)p;
   size_t i;
   for (i = 0; i < n; ++i)
      if (b[i] != fill) return 0;
   ba_free(p);
   return 1;
}

int other_burst(size_t n, size_t size, ba_chain *chain)
{
   return ba_multialloc_nodes(n, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, chain);
}

void other_multidealloc(ba_chain *chain) { ba_multidealloc(chain); }

ba_heap *other_default_heap(void) { return ba_default_heap(); }

void *other_heap_malloc(ba_heap *h, size_t n) { return ba_heap_malloc(h, n); }
