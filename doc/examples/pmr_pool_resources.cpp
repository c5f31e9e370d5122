// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The pool resources: a map on a pool resource of its own, a big request sent upstream, and one
// resource shared by threads that free each other's nodes.
#include <boost/allocplus/memory_resource.hpp>

#include <cstdio>
#include <list>
#include <map>
#include <memory_resource>
#include <string>
#include <thread>
#include <vector>

namespace ba = boost::allocplus;

int main()
{
   // One thread: a pool per size class, no lock.
   ba::unsynchronized_pool_resource pools;   // upstream: std::pmr::get_default_resource()
   std::pmr::map<int, std::pmr::string> m(&pools);
   for (int i = 0; i < 1000; ++i) m.emplace(i, "value");
   ba::node_pool_statistics s = pools.statistics();
   std::printf("%zu blocks in use, %zu bytes held\n", s.nodes_in_use, s.bytes_held);
   std::pmr::vector<int> big(10000, 0, &pools);   // 40000 bytes: beyond 512, served upstream
   m.clear();
   std::printf("%zu pool blocks given back\n", pools.release_free_blocks());

   // Many threads: the nodes of a list made by one thread are freed by another.
   ba::synchronized_pool_resource shared;
   std::pmr::list<int> handed(&shared);
   std::thread([&] {
      for (int i = 0; i < 1000; ++i) handed.push_back(i);
   }).join();
   std::thread([&] { handed.clear(); }).join();
   return big.size() == 10000 && handed.empty() && pools.statistics().nodes_in_use == 0 ? 0 : 1;
}
