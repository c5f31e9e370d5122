// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The second translation unit of core_two_tu_test: it allocates and frees through its own copy of
// the core's inline functions (or, with BOOST_ALLOCPLUS_CORE_EXTERN_C, through the compiled C core).

#include "core/two_tu.hpp"

#include <boost/allocplus/core/dlmalloc.h>

namespace two_tu_b {

ba_heap *default_heap() { return ba_default_heap(); }
void *malloc_(std::size_t n) { return ba_malloc(n); }
void *realloc_(void *p, std::size_t n) { return ba_realloc(p, n); }
void free_(void *p) { ba_free(p); }
std::size_t usable_size(const void *p) { return ba_usable_size(p); }
void *heap_malloc(ba_heap *h, std::size_t n) { return ba_heap_malloc(h, n); }
void heap_free(ba_heap *h, void *p) { ba_heap_free(h, p); }
ba_heap *create_heap() { return ba_create_heap(0, 1); }
int multialloc_nodes(std::size_t n, std::size_t size, ba_chain *c)
{
   return ba_multialloc_nodes(n, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, c);
}
void multidealloc(ba_chain *c) { ba_multidealloc(c); }
std::size_t in_use_chunks()
{
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_chunks;
}
int check() { return ba_check(nullptr); }
void *expand_fwd(void *p, std::size_t bytes, std::size_t *received)
{
   return ba_allocation_command(BA_EXPAND_FWD, 1, 0, bytes, bytes, received, p).first;
}

} // namespace two_tu_b
