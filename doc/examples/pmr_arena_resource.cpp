// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// std::pmr containers in a stack buffer, with real frees, and the heap when the buffer is full.
#include <boost/allocplus/arena_resource.hpp>

#include <cstdio>
#include <list>
#include <map>
#include <memory_resource>

int main()
{
   alignas(std::max_align_t) unsigned char buffer[64 * 1024];
   boost::allocplus::arena arena(buffer, sizeof buffer);
   boost::allocplus::arena_resource resource(arena, std::pmr::new_delete_resource());

   std::pmr::map<int, int> squares(&resource);
   for (int i = 0; i < 100; ++i) squares[i] = i * i;
   for (int i = 0; i < 100; i += 2) squares.erase(i);   // freed nodes are reused...
   for (int i = 100; i < 150; ++i) squares[i] = i * i;  // ...by these
   std::pmr::list<int> many(20000, 1, &resource);      // more than the buffer holds: the rest from new

   const auto s = resource.statistics();
   std::printf("%zu bytes in the arena, %zu nodes of the list in all\n", s.bytes_allocated, many.size());
   return squares.size() == 100 && many.size() == 20000 ? 0 : 1;
}
