// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// An independent heap over a static buffer: it never asks the system for memory.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>

alignas(64) static unsigned char buffer[256 * 1024];

int main()
{
   ba_heap *h = ba_create_heap_over(buffer, sizeof buffer, /*locked=*/0);
   if (!h) return 1;

   void *blocks[10];
   for (void *&b : blocks) {
      b = ba_heap_malloc(h, 1000);
      const unsigned char *at = static_cast<unsigned char *>(b);
      if (!b || at < buffer || at >= buffer + sizeof buffer) return 1;   // inside the buffer
   }
   // More than the buffer holds fails cleanly: the heap cannot grow.
   if (ba_heap_malloc(h, sizeof buffer) != nullptr) return 1;

   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   if (s.in_use_chunks != 10 || s.in_use_bytes < 10 * 1000) return 1;
   std::printf("%zu blocks, %zu bytes in use\n", s.in_use_chunks, s.in_use_bytes);

   ba_heap_free(h, blocks[3]);
   ba_check_report report;
   if (!ba_heap_check(h, &report)) {   // walks every chunk and bin of the heap
      std::printf("broken: %s\n", report.what);
      return 1;
   }
   ba_destroy_heap(h);   // nothing to give back: the buffer is ours
   return 0;
}
