/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The C side of a mixed program: plain C calling the extern "C" core compiled once. */
#include "c_side.h"

void *c_side_malloc(size_t n) { return ba_malloc(n); }
void c_side_free(void *p) { ba_free(p); }
ba_heap *c_side_heap(void) { return ba_default_heap(); }
