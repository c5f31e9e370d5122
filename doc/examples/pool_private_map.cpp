// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// private_node_allocator: a map whose nodes come from a pool of its own.
#include <boost/allocplus/private_node_allocator.hpp>

#include <cstdio>
#include <map>
#include <string>

namespace ba = boost::allocplus;

using entry = std::pair<const int, std::string>;
using pooled_map = std::map<int, std::string, std::less<int>, ba::private_node_allocator<entry>>;

int main()
{
   pooled_map m;
   for (int i = 0; i < 1000; ++i) m.emplace(i, "value");
   for (int i = 0; i < 1000; i += 2) m.erase(i);   // freed nodes wait in the pool for reuse
   ba::node_pool_statistics s = m.get_allocator().statistics();
   std::printf("%zu nodes in use, %zu free, %zu blocks\n", s.nodes_in_use, s.free_nodes, s.blocks);

   pooled_map copy = m;   // a copy gets pools of its own
   if (copy.get_allocator() == m.get_allocator()) return 1;
   m.clear();
   std::size_t released = m.get_allocator().release_free_blocks();   // back to the heap
   std::printf("%zu blocks given back\n", released);
   return m.get_allocator().statistics().blocks == 0 && copy.size() == 500 ? 0 : 1;
}
