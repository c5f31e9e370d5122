// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The allocation statistics of ba::vector: new buffers, forward and backward expansions and
// shrinks, counted per thread (for every ba::vector of the thread, since the last reset) when
// the program is built with BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS.

#define BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS 1   // in every translation unit of the program
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/vector.hpp>

#include <cstdio>

namespace ba = boost::allocplus;

int main()
{
   ba::vector<int> v;
   v.reset_alloc_stats();
   for (int i = 0; i != 10000; ++i) v.push_back(i);
   std::printf("forward: %zu new, %zu expanded forward\n", v.num_alloc(), v.num_expand_fwd());
   const bool grew_in_place = v.num_alloc() == 1 && v.num_expand_fwd() > 5;

   // With forward expansion masked, the buffer grows backward into the blocks it left behind.
   ba::vector<int, ba::allocator<int, 2, ba::expand_fwd>> b;
   b.reset_alloc_stats();
   for (int i = 0; i != 10000; ++i) b.push_back(i);
   std::printf("backward: %zu new, %zu expanded backward\n", b.num_alloc(), b.num_expand_bwd());
   const bool grew_backward = b.num_expand_bwd() > 0;

   v.resize(100);
   v.reset_alloc_stats();
   v.shrink_to_fit();
   std::printf("shrink_to_fit: %zu shrink, %zu new\n", v.num_shrink(), v.num_alloc());
   return grew_in_place && grew_backward && v.num_shrink() == 1 && v.num_alloc() == 0 ? 0 : 1;
}
