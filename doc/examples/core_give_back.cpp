// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Free memory goes back to the system once it has stayed unused for the decay delay: memory
// rebuilt within the delay keeps its pages, memory left alone goes back.
#include <boost/allocplus/core/dlmalloc.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

static std::size_t system_bytes()
{
   ba_heap_stats s;
   ba_stats(&s);
   return s.system_bytes;
}

int main()
{
   ba_heap_set_option(ba_default_heap(), BA_OPTION_DECAY_MS, 100);   // default: 1000 ms

   std::vector<void *> blocks(256);
   std::size_t held = 0;
   for (int round = 0; round < 3; ++round) {   // 16 MiB built and freed three times
      for (void *&b : blocks)
         if (!(b = ba_malloc(64 * 1024))) return 1;
      for (void *b : blocks) ba_free(b);
      if (round > 0 && system_bytes() < held) return 1;   // kept between the rounds
      held = system_bytes();
   }
   std::printf("after three rounds: %zu MiB held\n", held >> 20);

   std::this_thread::sleep_for(std::chrono::milliseconds(200));   // a quiet spell
   const std::size_t released = ba_collect();
   std::printf("after 200 ms: %zu MiB given back, %zu MiB held\n", released >> 20, system_bytes() >> 20);
   return released >= (8u << 20) ? 0 : 1;
}
