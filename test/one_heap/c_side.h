/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt) */
#ifndef ALLOCPLUS_TEST_ONE_HEAP_C_SIDE_H
#define ALLOCPLUS_TEST_ONE_HEAP_C_SIDE_H

#include <boost/allocplus/core/dlmalloc.h>

#ifdef __cplusplus
extern "C" {
#endif
void *c_side_malloc(size_t n);
void c_side_free(void *p);
ba_heap *c_side_heap(void);
#ifdef __cplusplus
}
#endif

#endif
