// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_POOL_TWO_LIBRARY_LIB_HPP
#define ALLOCPLUS_TEST_POOL_TWO_LIBRARY_LIB_HPP

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/node_allocator.hpp>
#include <cstddef>

#define TWO_LIBRARY_API __attribute__((visibility("default")))

// Each library (built with hidden visibility and hidden inline functions, its own copy of the
// header-only library) allocates and frees nodes of 24 bytes with ba::node_allocator and with
// ba::adaptive_pool, and reports its view of each pool.
#define TWO_LIBRARY_DECLARE(prefix)                                          \
   TWO_LIBRARY_API void *prefix##_allocate_node();                           \
   TWO_LIBRARY_API void prefix##_deallocate_node(void *p);                   \
   TWO_LIBRARY_API const void *prefix##_pool_address();                      \
   TWO_LIBRARY_API boost::allocplus::node_pool_statistics prefix##_statistics();       \
   TWO_LIBRARY_API void *prefix##_allocate_adaptive_node();                  \
   TWO_LIBRARY_API void prefix##_deallocate_adaptive_node(void *p);          \
   TWO_LIBRARY_API boost::allocplus::adaptive_pool_statistics prefix##_adaptive_statistics();

TWO_LIBRARY_DECLARE(library_a)
TWO_LIBRARY_DECLARE(library_b)

#endif
