// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// arena: containers whose memory comes from a buffer on the stack, freed and reused inside it.
#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>

#include <cstdio>
#include <list>
#include <map>

namespace ba = boost::allocplus;

int main()
{
   alignas(16) unsigned char buffer[64 * 1024];
   ba::arena arena(buffer, sizeof buffer);   // declared first: destroyed after the containers
   {
      using entry = std::pair<const int, int>;
      std::map<int, int, std::less<int>, ba::arena_allocator<entry>> squares{ba::arena_allocator<entry>(arena)};
      std::list<int, ba::arena_allocator<int>> odd{ba::arena_allocator<int>(arena)};
      for (int i = 0; i < 500; ++i) squares.emplace(i, i * i);
      for (int i = 0; i < 500; i += 2) squares.erase(i);   // freed nodes go to their size class
      for (int i = 1; i < 500; i += 2) odd.push_back(i);   // ... and the list's nodes reuse them
      const ba::arena_statistics s = arena.statistics();
      std::printf("%zu live blocks, %zu bytes in use, %zu available\n", s.live_blocks, s.bytes_allocated,
                  s.bytes_available);
   }
   // Raw blocks: any size, any power-of-two alignment; reallocate grows in place at the end.
   void *p = arena.allocate(1000, 64);
   void *q = arena.reallocate(p, 4000);
   std::printf("grown in place: %s\n", p == q ? "yes" : "no");
   arena.deallocate(q);
   return arena.statistics().live_blocks == 0 && p == q ? 0 : 1;
}
