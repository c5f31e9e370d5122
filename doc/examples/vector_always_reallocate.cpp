// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE: every growth of a ba::vector moves the elements to a
// new buffer and frees the old one, as std::vector's does, so that AddressSanitizer reports a
// pointer, reference or iterator kept across a push_back when it is used.

#define BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE 1   // in every translation unit of the program
#include <boost/allocplus/vector.hpp>

#include <cstdio>

namespace ba = boost::allocplus;

int main()
{
   ba::vector<int> v(1, 0);
   int growths = 0, moved = 0;
   for (int i = 1; i != 1000; ++i) {
      const int *const before = v.data();
      const std::size_t capacity = v.capacity();
      v.push_back(i);   // a pointer kept from before this line dangles when it grows
      if (v.capacity() != capacity) {
         ++growths;
         moved += v.data() != before;
      }
   }
   // Without the macro most of these growths happen in place, and a kept pointer stays valid.
   std::printf("%d growths, %d to a new buffer\n", growths, moved);
   return growths > 5 && moved == growths ? 0 : 1;
}
