// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Code written once against ba::allocator_traits runs on any allocator: a version-2 allocator
// grows in place, std::allocator gets a new block every time.
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>

#include <cstdio>
#include <cstring>
#include <memory>

namespace ba = boost::allocplus;

//! Grows a buffer of ints from 1 to n one element at a time; returns how often it moved.
template <class A>
int grow(A a, std::size_t n)
{
   using traits = ba::allocator_traits<A>;
   std::size_t capacity = 1;
   int *p = traits::allocate(a, capacity);
   int moves = 0;
   for (std::size_t size = 1; size != n; ++size) {
      if (size < capacity) continue;
      int *reuse = p;
      std::size_t received = capacity * 2;
      int *q = traits::allocation_command(a, ba::expand_fwd | ba::allocate_new, size + 1, received, reuse);
      if (!reuse) {   // a new block: move and free the old one
         std::memcpy(q, p, size * sizeof(int));
         traits::deallocate(a, p, capacity);
         ++moves;
      }
      p = q;
      capacity = received;
   }
   traits::deallocate(a, p, capacity);
   return moves;
}

int main()
{
   const int with_ours = grow(ba::allocator<int>(), 100000);
   const int with_std = grow(std::allocator<int>(), 100000);
   std::printf("moves: %d with ba::allocator, %d with std::allocator\n", with_ours, with_std);
   return ba::allocator_traits<std::allocator<int>>::version::value == 1 && with_ours < with_std ? 0 : 1;
}
