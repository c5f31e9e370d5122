// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Units built with and without BOOST_ALLOCPLUS_CHECKED share the heap and each other's blocks
// (checking adds code, never a layout).
#define BOOST_TEST_MODULE one_heap_checked_mix
#include <boost/test/unit_test.hpp>

#include "mode_units.hpp"

#include <cstring>

BOOST_AUTO_TEST_CASE(both_modes_see_one_default_heap)
{
   BOOST_TEST(checked_unit_heap() == unchecked_unit_heap());
}

BOOST_AUTO_TEST_CASE(blocks_cross_between_checked_and_unchecked_units)
{
   ba_heap_stats before, after;
   ba_stats(&before);
   for (int round = 0; round < 100; ++round) {
      void *a = checked_unit_malloc(24 + round * 13);
      void *b = unchecked_unit_malloc(1000 + round);
      BOOST_REQUIRE(a);
      BOOST_REQUIRE(b);
      std::memset(a, 1, 24 + round * 13);
      std::memset(b, 2, 1000 + round);
      a = checked_unit_expand(a, 4000);   // a checked command on a block the unchecked unit may free
      BOOST_REQUIRE(a);
      unchecked_unit_free(a);
      checked_unit_free(b);
   }
   ba_stats(&after);
   BOOST_TEST(after.in_use_chunks == before.in_use_chunks);
   BOOST_TEST(ba_check(nullptr) == 1);
}
