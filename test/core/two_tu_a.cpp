// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// One process, one heap: two translation units that include the header-only core each get their
// own copy of its inline functions, and must still share the one default heap (its state is an
// inline variable). Built twice: header-only, and with BOOST_ALLOCPLUS_CORE_EXTERN_C over the
// implementation compiled once from C (c_impl.c).

#define BOOST_TEST_MODULE allocplus core two translation units
#include "core/two_tu.hpp"

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <vector>

BOOST_AUTO_TEST_CASE(both_units_see_the_same_default_heap)
{
   BOOST_REQUIRE(ba_default_heap() != nullptr);
   BOOST_TEST(ba_default_heap() == two_tu_b::default_heap());
}

#if !defined(BOOST_ALLOCPLUS_CORE_EXTERN_C)
BOOST_AUTO_TEST_CASE(header_only_names_live_in_the_versioned_namespace)
{
   // The global names are the namespace's, so both spellings reach one function.
   BOOST_TEST(&::ba_malloc == &boost::allocplus::core_abi_v1::ba_malloc);
   BOOST_TEST(&::ba_default_heap == &boost::allocplus::ba_default_heap);
}
#endif

BOOST_AUTO_TEST_CASE(blocks_allocated_in_one_unit_are_freed_in_the_other)
{
   std::size_t before = two_tu_b::in_use_chunks();
   std::vector<void *> mine, theirs;
   for (std::size_t i = 0; i < 200; ++i) {
      mine.push_back(ba_malloc(16 + i * 13));
      theirs.push_back(two_tu_b::malloc_(16 + i * 13));
      BOOST_REQUIRE(mine.back() && theirs.back());
      std::memset(mine.back(), 0xA1, 16 + i * 13);
      std::memset(theirs.back(), 0xB2, 16 + i * 13);
   }
   ba_heap_stats s;
   ba_stats(&s);
   BOOST_TEST(s.in_use_chunks == before + 400, "this unit counts the other unit's blocks");
   BOOST_TEST(two_tu_b::in_use_chunks() == before + 400);
   for (std::size_t i = 0; i < mine.size(); ++i) {
      BOOST_TEST(two_tu_b::usable_size(mine[i]) == ba_usable_size(mine[i]));
      two_tu_b::free_(mine[i]);
      ba_free(theirs[i]);
   }
   BOOST_TEST(two_tu_b::in_use_chunks() == before);
   BOOST_TEST(ba_check(nullptr) == 1);
   BOOST_TEST(two_tu_b::check() == 1);
}

BOOST_AUTO_TEST_CASE(realloc_and_expansion_cross_units)
{
   void *p = two_tu_b::malloc_(100);
   BOOST_REQUIRE(p);
   std::memset(p, 7, 100);
   void *q = ba_realloc(p, 5000);
   BOOST_REQUIRE(q);
   void *r = two_tu_b::realloc_(q, 20000);
   BOOST_REQUIRE(r);
   BOOST_TEST(static_cast<unsigned char *>(r)[99] == 7);
   std::size_t rec = 0;
   void *e = two_tu_b::expand_fwd(r, 20000, &rec);   // already holds 20000 bytes: in place
   BOOST_TEST(e == r);
   ba_free(r);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(a_burst_from_one_unit_is_freed_by_the_other)
{
   std::size_t before = two_tu_b::in_use_chunks();
   ba_chain c;
   ba_chain_init(&c);
   BOOST_REQUIRE(two_tu_b::multialloc_nodes(300, 40, &c) == 1);
   BOOST_TEST(c.size == 300u);
   ba_chain d;
   ba_chain_init(&d);
   BOOST_REQUIRE(ba_multialloc_nodes(300, 40, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &d) == 1);
   ba_multidealloc(&c);
   two_tu_b::multidealloc(&d);
   BOOST_TEST(ba_chain_empty(&c) == 1);
   BOOST_TEST(ba_chain_empty(&d) == 1);
   BOOST_TEST(two_tu_b::in_use_chunks() == before);
}

BOOST_AUTO_TEST_CASE(a_heap_created_in_one_unit_is_used_in_the_other)
{
   ba_heap *h = two_tu_b::create_heap();
   BOOST_REQUIRE(h);
   void *p = ba_heap_malloc(h, 1000);
   void *q = two_tu_b::heap_malloc(h, 1000);
   BOOST_REQUIRE(p && q);
   two_tu_b::heap_free(h, p);
   ba_heap_free(h, q);
   BOOST_TEST(ba_heap_check(h, nullptr) == 1);
   ba_destroy_heap(h);
}
