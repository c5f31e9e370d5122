// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// valgrind_nodes.cpp's runs over the adaptive pools.
#define ALLOCPLUS_VALGRIND_ADAPTIVE 1
#include "valgrind_nodes.cpp"
