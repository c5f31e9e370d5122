// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The heap resources: the default heap for every std::pmr container of a program, and a heap in a
// buffer of one's own that throws std::bad_alloc when it is full.
#include <boost/allocplus/memory_resource.hpp>

#include <cstdio>
#include <memory_resource>
#include <new>
#include <vector>

namespace ba = boost::allocplus;

int main()
{
   // Every std::pmr container without a resource of its own now uses the library's heap.
   std::pmr::set_default_resource(ba::default_heap_resource());
   std::pmr::vector<double> v(1000, 1.0);
   std::printf("default heap: %zu bytes in use\n", ba::default_heap_resource()->stats().in_use_bytes);

   // A heap inside 64 KiB of the caller's: nothing comes from the system.
   alignas(std::max_align_t) static unsigned char buffer[64 * 1024];
   ba::heap_resource local(buffer, sizeof buffer);
   std::pmr::vector<int> w(&local);
   bool full = false;
   try {
      for (;;) w.push_back(1);
   } catch (const std::bad_alloc &) {
      full = true;   // w keeps what it had
   }
   std::printf("the buffer held %zu ints\n", w.size());
   std::pmr::set_default_resource(nullptr);   // back to new/delete
   return full && !w.empty() && v.size() == 1000 ? 0 : 1;
}
