// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Burst allocation: a range insertion gets all its nodes in one allocate_individual call and a
// range erasure gives them back in one deallocate_individual call. The allocator below is
// ba::allocator with those two calls counted.

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>

#include <cstdio>
#include <vector>

namespace ba = boost::allocplus;

int bursts_in = 0, bursts_out = 0;

template <class T>
struct burst_counting : ba::allocator<T> {
   template <class U>
   struct rebind {
      using other = burst_counting<U>;
   };
   burst_counting() = default;
   template <class U>
   burst_counting(const burst_counting<U> &) noexcept {}

   void allocate_individual(std::size_t n, typename ba::allocator<T>::multiallocation_chain &chain)
   {
      ++bursts_in;
      ba::allocator<T>::allocate_individual(n, chain);
   }
   void deallocate_individual(typename ba::allocator<T>::multiallocation_chain &chain) noexcept
   {
      ++bursts_out;
      ba::allocator<T>::deallocate_individual(chain);
   }
};

int main()
{
   const std::vector<int> values(1000, 7);
   ba::list<int, burst_counting<int>> l;
   l.insert(l.end(), values.begin(), values.end());   // 1000 nodes, one call
   l.insert(l.begin(), 500, 1);                       // 500 more, one call
   std::printf("%zu elements, %d allocate_individual calls\n", l.size(), bursts_in);

   auto first = l.begin(), last = l.end();
   std::advance(first, 100);
   std::advance(last, -100);
   l.erase(first, last);   // 1300 nodes, one call
   l.clear();              // the other 200, one call
   std::printf("%d deallocate_individual calls\n", bursts_out);
   return bursts_in == 2 && bursts_out == 2 && l.empty() ? 0 : 1;
}
