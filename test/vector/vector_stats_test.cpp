// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The allocation statistics of ba::vector (built with BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS): new
// buffers, forward and backward expansions and shrinks, counted per thread, checked against the
// test kit's counting allocator, which sees the same calls from the allocator's side.

#define BOOST_TEST_MODULE allocplus vector stats
#include "support/allocator_test_kit.hpp"

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
