// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// boost::container::vector on ba::allocator grows in place: its elements are not copied when
// its buffer grows, and shrink_to_fit gives the tail back without moving them.
#include <boost/allocplus/allocator.hpp>
#include <boost/container/vector.hpp>

#include <cstdio>

namespace ba = boost::allocplus;

int main()
{
   boost::container::vector<int, ba::allocator<int>> v;
   v.push_back(0);

   int moved = 0;   // times the elements had to move to a new buffer
   for (int i = 1; i != 100000; ++i) {
      const int *before = v.data();
      v.push_back(i);
      if (v.data() != before) ++moved;
   }
   std::printf("100000 push_backs: the buffer moved %d times\n", moved);

   // Shrinking in place: the same buffer, a smaller capacity.
   v.resize(10);
   const int *data = v.data();
   v.shrink_to_fit();
   std::printf("capacity after shrink_to_fit: %zu\n", v.capacity());

   return moved <= 2 && v.data() == data && v.capacity() < 100 && v[9] == 9 ? 0 : 1;
}
