/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt) */
#ifndef BOOST_ALLOCPLUS_TEST_CORE_C_OTHER_TU_H
#define BOOST_ALLOCPLUS_TEST_CORE_C_OTHER_TU_H

#include <boost/allocplus/core/dlmalloc.h>

/* What c_other_tu.c offers c_build_test.c. */
void *other_allocate(size_t n, unsigned char fill);
/* Returns: 1 if p's first n bytes are all `fill` (then p is freed), else 0. */
int other_free_checked(void *p, size_t n, unsigned char fill);
int other_burst(size_t n, size_t size, ba_chain *chain);
void other_multidealloc(ba_chain *chain);
ba_heap *other_default_heap(void);
void *other_heap_malloc(ba_heap *h, size_t n);

#endif
