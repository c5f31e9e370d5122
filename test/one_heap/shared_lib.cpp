// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A shared library built with hidden visibility that uses the header-only core on its own.
#include "shared_lib.hpp"

#include <boost/allocplus/core/dlmalloc.h>

void *one_heap_lib_malloc(std::size_t n) { return ba_malloc(n); }
void one_heap_lib_free(void *p) { ba_free(p); }
ba_heap *one_heap_lib_heap() { return ba_default_heap(); }
