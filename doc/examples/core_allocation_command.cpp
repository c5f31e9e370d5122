// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// allocation_command: grow in place or move, shrink in place, grow backward.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>
#include <cstring>

struct point { int x, y, z; };   // 12 bytes: a backward step is a multiple of 12

int main()
{
   std::size_t n = 0;
   // Forward: at least 400 ints, 1000 if possible; in place, else a new block.
   int *a = static_cast<int *>(ba_malloc(300 * sizeof(int)));
   ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD | BA_ALLOCATE_NEW, sizeof(int),
                                            alignof(int), 400, 1000, &n, a);
   if (!r.first || n < 400) return 1;
   if (!r.second) { std::memcpy(r.first, a, 300 * sizeof(int)); ba_free(a); }
   std::printf("forward: %zu ints, %s\n", n, r.second ? "in place" : "moved");
   a = static_cast<int *>(r.first);
   // Shrink in place to between 50 (preferred, the minimum) and 60 (limit, the maximum) ints.
   r = ba_allocation_command(BA_SHRINK_IN_PLACE, sizeof(int), alignof(int), 60, 50, &n, a);
   if (r.first != a || !r.second || n < 50 || n > 60) return 1;
   // Backward: free space just below b lets b grow downward; the objects stay where they are.
   // (Blocks of more than 1032 bytes come from the heap, one after the other; smaller ones may
   // come from the thread's cache, from anywhere, and stay there when freed.)
   void *below = ba_malloc(2048);
   point *b = static_cast<point *>(ba_malloc(100 * sizeof(point)));
   if (!below || !b) return 1;
   b[9] = point{7, 8, 9};
   ba_free(below);
   r = ba_allocation_command(BA_EXPAND_BWD, sizeof(point), alignof(point), 150, 200, &n, b);
   if (!r.first || !r.second || n < 150) return 1;
   point *nb = static_cast<point *>(r.first);
   const char *old_first = reinterpret_cast<char *>(b), *new_first = static_cast<char *>(r.first);
   std::size_t at = static_cast<std::size_t>(old_first - new_first) / sizeof(point);
   if (old_first != new_first + at * sizeof(point) || nb[at + 9].z != 9) return 1;
   std::printf("backward: %zu points, the old ones from index %zu on\n", n, at);
   ba_free(a); ba_free(nb);
   return ba_check(nullptr) ? 0 : 1;
}
