// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// arena: a small buffer on the stack that grows by regions from the core's heap when a request
// does not fit, and gives the regions back on release().
#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>
#include <map>

namespace ba = boost::allocplus;

std::size_t heap_bytes_in_use()
{
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_bytes;
}

int main()
{
   const std::size_t heap_before = heap_bytes_in_use();
   alignas(16) unsigned char buffer[4096];
   ba::arena arena(buffer, sizeof buffer, ba_default_heap());   // grows from the default heap
   using entry = std::pair<const int, int>;
   std::size_t most_regions = 0;
   for (int request = 0; request < 3; ++request) {
      {
         std::map<int, int, std::less<int>, ba::arena_allocator<entry>> counts{ba::arena_allocator<entry>(arena)};
         for (int i = 0; i < 10000; ++i) ++counts[i % 5000];   // far more than 4 KiB of nodes
         const ba::arena_statistics s = arena.statistics();
         std::printf("request %d: %zu entries, %zu regions, %zu bytes in all\n", request, counts.size(), s.regions,
                     s.buffer_size);
         if (s.regions > most_regions) most_regions = s.regions;
      }
      arena.release();   // the regions go back to the heap; the next request starts in the buffer
   }
   const ba::arena_statistics s = arena.statistics();
   const bool all_back = heap_bytes_in_use() == heap_before;
   std::printf("after release: %zu region (the buffer); every region back in the heap: %s\n", s.regions,
               all_back ? "yes" : "no");
   return most_regions > 1 && s.regions == 1 && s.buffer_size == sizeof buffer && all_back ? 0 : 1;
}
