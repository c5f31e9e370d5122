// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Compiled with BOOST_ALLOCPLUS_CHECKED=0 (see CMakeLists.txt); its partner with 2.
#include "mode_units.hpp"

#if BOOST_ALLOCPLUS_CHECKED
#  error "this unit must be unchecked"
#endif

void *unchecked_unit_malloc(std::size_t n) { return ba_malloc(n); }
void unchecked_unit_free(void *p) { ba_free(p); }
ba_heap *unchecked_unit_heap() { return ba_default_heap(); }
