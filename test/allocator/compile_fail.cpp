// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Compiled by compile_fail.cmake once per CASE: case 0 must compile, every other case must be
// refused with its static_assert.
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/vector.hpp>

namespace ba = boost::allocplus;

int main()
{
#if CASE == 0
   struct fixed {
      const int id;
   };
   ba::vector<fixed> v;
   v.push_back(fixed{1});
   ba::allocator<int, 1> a1;
   ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd> a2;
   ba::allocator<int, 2, ba::allocate_new | ba::expand_bwd> a3;
   return a1.max_size() == 0 || a2.max_size() == 0 || a3.max_size() == 0 || v[0].id != 1;
#elif CASE == 1
   ba::allocator<int, 3> a;   // Version must be 1 or 2
   return a.max_size() == 0;
#elif CASE == 2
   ba::allocator<int, 2, ba::allocate_new | ba::expand_fwd | ba::expand_bwd> a;   // nothing left
   return a.max_size() == 0;
#elif CASE == 3
   ba::allocator<int, 1, ba::expand_fwd> a;   // a mask on version 1
   return a.max_size() == 0;
#elif CASE == 4
   ba::heap_allocator<int, 0> *a = nullptr;   // Version must be 1 or 2
   return sizeof(*a) == 0;
#elif CASE == 5
   struct fixed {
      const int id;
   };
   ba::vector<fixed> v;
   v.push_back(fixed{1});             // appending needs no assignment...
   v.emplace(v.begin(), fixed{2});    // ...inserting before an element does
   return v[0].id;
#endif
}
