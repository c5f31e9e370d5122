// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Compiled with BOOST_ALLOCPLUS_CHECKED=2 (see CMakeLists.txt); its partner with 0.
#include "mode_units.hpp"

#if !BOOST_ALLOCPLUS_CHECKED
#  error "this unit must be checked"
#endif

void *checked_unit_malloc(std::size_t n) { return ba_malloc(n); }
void checked_unit_free(void *p) { ba_free(p); }
void *checked_unit_expand(void *p, std::size_t objects)
{
   std::size_t received = 0;
   ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 0, objects, objects, &received, p);
   if (r.first && !r.second) ba_free(p);   // moved: the old block is ours to free
   return r.first;
}
ba_heap *checked_unit_heap() { return ba_default_heap(); }
