// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_ONE_HEAP_SHARED_LIB_HPP
#define ALLOCPLUS_TEST_ONE_HEAP_SHARED_LIB_HPP

#include <boost/allocplus/core/dlmalloc.h>
#include <cstddef>

#define ONE_HEAP_LIB_API __attribute__((visibility("default")))

ONE_HEAP_LIB_API void *one_heap_lib_malloc(std::size_t n);
ONE_HEAP_LIB_API void one_heap_lib_free(void *p);
ONE_HEAP_LIB_API ba_heap *one_heap_lib_heap();

#endif
