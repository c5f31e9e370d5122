// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The allocation statistics of ba::vector (built with BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS): new
// buffers, forward and backward expansions and shrinks, counted per thread, checked against the
// test kit's counting allocator, which sees the same calls from the allocator's side.

#define BOOST_TEST_MODULE allocplus vector stats
#include "support/allocator_test_kit.hpp"
#include "support/grown_buffer_placement.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <thread>

using namespace allocplus_test;
namespace ba = boost::allocplus;

#if !defined(BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS)
#  error "this test is built with BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS"
#endif

template <class A>
void check_against_counting(const A &inner)
{
   using C = counting_allocator<A>;
   allocation_counters c;
   ba::vector<int, C> v{C(c, inner)};
   v.reset_alloc_stats();
   for (int i = 0; i != 5000; ++i) v.push_back(i);
   v.resize(100);
   v.shrink_to_fit();
   BOOST_TEST(v.num_alloc() == c.allocations);
   BOOST_TEST(v.num_expand_fwd() == c.expansions_fwd);
   BOOST_TEST(v.num_expand_bwd() == c.expansions_bwd);
   BOOST_TEST(v.num_shrink() == c.shrinks);
   BOOST_TEST(v.num_alloc() + v.num_expand_fwd() + v.num_expand_bwd() + v.num_shrink() > 0u);
}

// Before any test starts a thread: in a process of one thread a buffer meant to grow comes from
// the heap itself and goes back there, where the next buffer can expand backward into it.
BOOST_AUTO_TEST_CASE(a_vector_whose_allocator_only_expands_backward_grows_backward)
{
   if (const char *why = allocplus_test::why_grown_buffers_go_through_the_cache()) {
      BOOST_TEST_MESSAGE(why);
      return;
   }
   using backward_only = ba::allocator<int, 2, ba::expand_fwd>;
   ba::vector<int, backward_only>::reset_alloc_stats();
   for (int v = 0; v != 1000; ++v) {
      ba::vector<int, backward_only> grown;
      for (int e = 0; e != 100; ++e) grown.push_back(e);
      BOOST_REQUIRE(grown.size() == 100u);
      for (int e = 0; e != 100; ++e) BOOST_REQUIRE(grown[e] == e);
   }
   const auto stats = ba::vector<int, backward_only>::alloc_stats();
   BOOST_TEST_MESSAGE("1000 vectors of 100 elements: " << stats.num_alloc << " buffers, " << stats.num_expand_bwd
                                                       << " backward expansions");
   // Each old buffer is free memory just before the new one: most growths are backward
   // expansions (3.8 a vector here), not new buffers (7 a vector when the old buffers were cached).
   BOOST_TEST(stats.num_expand_bwd >= 2000u);
   BOOST_TEST(stats.num_alloc <= 5000u);
   ba_check_report report{nullptr, nullptr};
   BOOST_TEST(ba_check(&report) == 1, (report.what ? report.what : ""));
}

BOOST_AUTO_TEST_CASE(stats_count_what_the_allocator_saw)
{
   check_against_counting(ba::allocator<int>());
   check_against_counting(forward_expansion_allocator<int>());
   check_against_counting(backward_expansion_allocator<int>());
   check_against_counting(ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>());
   check_against_counting(std::allocator<int>());
}

BOOST_AUTO_TEST_CASE(stats_shrink_in_place_and_expand)
{
   ba::vector<int> v;
   v.reset_alloc_stats();
   for (int i = 0; i != 100000; ++i) v.push_back(i);
   BOOST_TEST(v.num_alloc() >= 1u);
   BOOST_TEST(v.num_expand_fwd() > 5u);
   v.resize(10);
   v.shrink_to_fit();
   BOOST_TEST(v.num_shrink() == 1u);
   v.reset_alloc_stats();
   BOOST_TEST(v.num_alloc() + v.num_expand_fwd() + v.num_shrink() == 0u);
}

BOOST_AUTO_TEST_CASE(stats_are_per_thread)
{
   ba::vector<int>::reset_alloc_stats();
   std::thread t([] {
      ba::vector<int> w;
      for (int i = 0; i != 1000; ++i) w.push_back(i);
   });
   t.join();
   BOOST_TEST(ba::vector<int>::alloc_stats().num_alloc == 0u);
   BOOST_TEST(ba::vector<int>::alloc_stats().num_expand_fwd == 0u);
}
