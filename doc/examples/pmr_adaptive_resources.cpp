// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The adaptive pool resources: std::pmr containers whose memory goes back as they die.
#include <boost/allocplus/adaptive_pool_resource.hpp>

#include <cstdio>
#include <list>
#include <map>
#include <memory_resource>

namespace ba = boost::allocplus;

int main()
{
   ba::unsynchronized_adaptive_pool_resource pools;   // one thread at a time
   {
      std::pmr::map<int, int> index(&pools);
      std::pmr::list<int> queue(&pools);
      for (int i = 0; i < 100000; ++i) {
         index.emplace(i, i);
         queue.push_back(i);
      }
      ba::adaptive_pool_statistics s = pools.statistics();
      std::printf("while they live: %zu blocks, %zu KiB\n", s.blocks, s.bytes_held / 1024);
   }
   ba::adaptive_pool_statistics s = pools.statistics();   // each pool keeps at most 2 free blocks
   std::printf("after they died: %zu blocks, %zu KiB\n", s.blocks, s.bytes_held / 1024);

   ba::synchronized_adaptive_pool_resource shared;   // any thread; the pools are the process's
   std::pmr::list<int> l(&shared);
   l.assign(1000, 7);
   return s.blocks <= 4 && s.nodes_in_use == 0 && l.size() == 1000 ? 0 : 1;
}
