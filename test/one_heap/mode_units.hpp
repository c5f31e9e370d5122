// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_ONE_HEAP_MODE_UNITS_HPP
#define ALLOCPLUS_TEST_ONE_HEAP_MODE_UNITS_HPP

#include <boost/allocplus/core/dlmalloc.h>
#include <cstddef>

// Defined in checked_unit.cpp (checked) and unchecked_unit.cpp (unchecked).
void *checked_unit_malloc(std::size_t n);
void checked_unit_free(void *p);
void *checked_unit_expand(void *p, std::size_t objects);
ba_heap *checked_unit_heap();
void *unchecked_unit_malloc(std::size_t n);
void unchecked_unit_free(void *p);
ba_heap *unchecked_unit_heap();

#endif
