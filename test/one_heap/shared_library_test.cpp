// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A program and a shared library built with hidden visibility, each with its own copy of the
// header-only core, use one heap: blocks cross the boundary both ways.
#define BOOST_TEST_MODULE one_heap_shared_library
#include <boost/test/unit_test.hpp>

#include "shared_lib.hpp"

#include <cstring>

BOOST_AUTO_TEST_CASE(library_and_program_see_one_default_heap)
{
   BOOST_TEST(one_heap_lib_heap() == ba_default_heap());
}

BOOST_AUTO_TEST_CASE(library_frees_what_the_program_allocated)
{
   ba_heap_stats before, after;
   ba_stats(&before);
   void *p = ba_malloc(300);
   BOOST_REQUIRE(p);
   std::memset(p, 0x5a, 300);
   one_heap_lib_free(p);
   ba_stats(&after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(program_frees_what_the_library_allocated)
{
   ba_heap_stats before, during, after;
   ba_stats(&before);
   void *p = one_heap_lib_malloc(5000);
   BOOST_REQUIRE(p);
   ba_stats(&during);
   BOOST_TEST(during.in_use_chunks == before.in_use_chunks + 1);   // counted in this heap
   std::memset(p, 0xa5, 5000);
   ba_free(p);
   ba_stats(&after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(ba_check(nullptr) == 1);
}
