// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A heap over a buffer of ours, and containers on it: their memory never leaves the buffer, and
// when the buffer is full they get std::bad_alloc, keeping what they had.
#include <boost/allocplus/heap.hpp>
#include <boost/container/vector.hpp>

#include <cstdio>
#include <list>
#include <new>

namespace ba = boost::allocplus;

alignas(64) static unsigned char buffer[64 * 1024];

int main()
{
   ba::heap h(buffer, sizeof buffer);

   ba::heap_allocator<int> ints(h);   // a reference to h: copies and rebinds share it
   std::list<int, ba::heap_allocator<int>> l(100, 1, ints);
   boost::container::vector<double, ba::heap_allocator<double>> v(ints);

   bool full = false;
   try {
      for (;;) v.push_back(1.5);
   } catch (const std::bad_alloc &) {
      full = true;
   }
   const ba_heap_stats s = h.stats();
   std::printf("the buffer took %zu doubles and %zu list nodes; %zu bytes in use\n", v.size(), l.size(),
               s.in_use_bytes);

   const unsigned char *at = reinterpret_cast<const unsigned char *>(v.data());
   const bool inside = at >= buffer && at < buffer + sizeof buffer;
   return full && inside && v.size() > 1000 && v.back() == 1.5 && h.check() ? 0 : 1;
}
