/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The one translation unit that compiles the C core's extern "C" implementation, for the C
 * program core_c_build_test and for C++ programs built with BOOST_ALLOCPLUS_CORE_EXTERN_C. */
#define BOOST_ALLOCPLUS_CORE_IMPLEMENTATION
#include <boost/allocplus/core/dlmalloc.h>
