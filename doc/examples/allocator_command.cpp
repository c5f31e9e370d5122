// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// allocation_command by hand: grow a buffer in place when possible (else get a new one), use
// every object of the block received, and shrink it in place.
#include <boost/allocplus/allocator.hpp>

#include <cstdio>
#include <cstring>

namespace ba = boost::allocplus;

int main()
{
   ba::allocator<double> a;

   // A new block of at least 10 doubles, preferably 100: received tells how many it holds.
   double *reuse = nullptr;
   std::size_t received = 100;
   double *p = a.allocation_command(ba::allocate_new, 10, received, reuse);
   std::printf("asked 10..100, received %zu\n", received);
   for (std::size_t i = 0; i != received; ++i) p[i] = static_cast<double>(i);

   // Grow to at least 200 (1000 preferred): in place if the memory after p is free, else a new
   // block. reuse says which: p itself (expanded) or null (a new block: move, then free p).
   reuse = p;
   std::size_t grown = 1000;
   double *q = a.allocation_command(ba::expand_fwd | ba::allocate_new, 200, grown, reuse);
   if (reuse) {
      std::printf("expanded in place to %zu\n", grown);
   } else {
      std::memcpy(q, p, received * sizeof(double));
      a.deallocate(p, received);
      std::printf("moved to a new block of %zu\n", grown);
   }

   // Shrink in place to between 50 (the minimum) and `grown` (the maximum) objects: the start
   // stays, the tail goes back to the heap, nothing is copied.
   reuse = q;
   std::size_t kept = 50;
   double *r = a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, grown, kept, reuse);
   std::printf("shrunk to %zu\n", kept);

   const bool ok = q[49] == 49.0 && r == q && kept >= 50 && kept < grown && a.size(q) == kept;
   a.deallocate(q, kept);
   return ok ? 0 : 1;
}
