// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_CORE_TWO_TU_HPP
#define BOOST_ALLOCPLUS_TEST_CORE_TWO_TU_HPP

// What two_tu_b.cpp offers two_tu_a.cpp: the core's operations as compiled in the other unit.

#include <boost/allocplus/core/dlmalloc.h>

#include <cstddef>

namespace two_tu_b {
ba_heap *default_heap();
void *malloc_(std::size_t n);
void *realloc_(void *p, std::size_t n);
void free_(void *p);
std::size_t usable_size(const void *p);
void *heap_malloc(ba_heap *h, std::size_t n);
void heap_free(ba_heap *h, void *p);
ba_heap *create_heap();
int multialloc_nodes(std::size_t n, std::size_t size, ba_chain *c);
void multidealloc(ba_chain *c);
std::size_t in_use_chunks();
int check();
void *expand_fwd(void *p, std::size_t bytes, std::size_t *received);
} // namespace two_tu_b

#endif
