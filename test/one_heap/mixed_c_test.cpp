// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A mixed program: C units over the extern "C" core compiled once, and this C++ unit over the
// header-only core. They share one heap.
#define BOOST_TEST_MODULE one_heap_mixed_c
#include <boost/test/unit_test.hpp>

#include "c_side.h"

#include <cstring>

#if !defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
#  error "this unit must use the header-only core"
#endif

BOOST_AUTO_TEST_CASE(c_and_cpp_see_one_default_heap)
{
   BOOST_TEST(c_side_heap() == ba_default_heap());
}

BOOST_AUTO_TEST_CASE(blocks_cross_between_c_and_cpp)
{
   ba_heap_stats before, after;
   ba_stats(&before);
   void *from_c = c_side_malloc(200);
   void *from_cpp = ba_malloc(700);
   BOOST_REQUIRE(from_c);
   BOOST_REQUIRE(from_cpp);
   std::memset(from_c, 1, 200);
   std::memset(from_cpp, 2, 700);
   ba_free(from_c);
   c_side_free(from_cpp);
   ba_stats(&after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(ba_check(nullptr) == 1);
}
