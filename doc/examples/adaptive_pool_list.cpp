// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// adaptive_pool: a list's nodes at no cost per node, and its memory back when it dies.
#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>

#include <cstdio>
#include <list>
#include <map>

namespace ba = boost::allocplus;

std::size_t heap_bytes_in_use()
{
   ba_thread_cache_flush();   // this thread's cached nodes and blocks back to their pools and heap
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_bytes;
}

int main()
{
   const std::size_t before = heap_bytes_in_use();
   std::size_t during = 0;
   {
      std::list<int, ba::adaptive_pool<int>> numbers;
      for (int i = 0; i < 100000; ++i) numbers.push_back(i);
      during = heap_bytes_in_use();
   }
   const std::size_t after = heap_bytes_in_use();   // the pool keeps at most 2 free blocks
   std::printf("the list held %zu KiB of the heap; after it died, %zu KiB\n", (during - before) / 1024,
               (after - before) / 1024);

   // A pool of the map's own; blocks aligned to their size, no sub-blocks (OverheadPercent 0).
   using entry = std::pair<const int, double>;
   std::map<int, double, std::less<int>, ba::private_adaptive_pool<entry, 256, 2, ba::adaptive_pool_only_alignment>> m;
   for (int i = 0; i < 10000; ++i) m.emplace(i, i * 0.5);
   ba::adaptive_pool_statistics s = m.get_allocator().statistics();
   std::printf("%zu nodes in %zu blocks of %zu bytes: %.2f bytes a node\n", s.nodes_in_use, s.blocks,
               s.block_alignment, double(s.bytes_held) / double(s.nodes_in_use));
   return after - before <= 64 * 1024 && m.get_allocator().check() == nullptr ? 0 : 1;
}
