// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::vector grows in place with ba::allocator (its elements are not moved when the buffer
// grows), takes every element of the block it receives as capacity, and shrinks in place;
// with std::allocator it behaves as std::vector.

#include <boost/allocplus/vector.hpp>

#include <cstdio>
#include <memory>

namespace ba = boost::allocplus;

template <class Vector>
int moves_in_100000_push_backs(Vector &v)
{
   int moved = 0;   // times the elements had to move to another buffer
   for (int i = 0; i != 100000; ++i) {
      const int *before = v.data();
      v.push_back(i);
      if (v.data() != before && i != 0) ++moved;
   }
   return moved;
}

int main()
{
   ba::vector<int> v;   // ba::allocator<int>: version 2
   ba::vector<int, std::allocator<int>> s;
   const int ours = moves_in_100000_push_backs(v);
   const int std_moves = moves_in_100000_push_backs(s);
   std::printf("buffer moves: %d with ba::allocator, %d with std::allocator\n", ours, std_moves);

   // Shrinking in place: the same buffer, a smaller capacity, nothing moved.
   v.resize(10);
   const int *data = v.data();
   v.shrink_to_fit();
   std::printf("capacity after shrink_to_fit: %zu, same buffer: %s\n", v.capacity(),
               v.data() == data ? "yes" : "no");

   return ours <= 2 && std_moves >= 16 && v.data() == data && v.capacity() < 100 && v[9] == 9 ? 0 : 1;
}
