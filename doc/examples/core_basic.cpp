// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The core as a malloc: allocate, ask the real size, grow with realloc, free.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

int main()
{
   char *p = static_cast<char *>(ba_malloc(100));
   if (!p || reinterpret_cast<std::uintptr_t>(p) % BA_MALLOC_ALIGNMENT != 0) return 1;

   // The block may be larger than asked for; all of it is usable.
   std::size_t usable = ba_usable_size(p);
   if (usable < 100) return 1;
   std::memset(p, 'x', usable);

   // realloc keeps the contents (in place when the next chunk is free or the top).
   p = static_cast<char *>(ba_realloc(p, 10000));
   if (!p || ba_usable_size(p) < 10000 || p[usable - 1] != 'x') return 1;

   // calloc zeroes; its n * size is checked for overflow.
   int *zeros = static_cast<int *>(ba_calloc(256, sizeof(int)));
   if (!zeros || zeros[255] != 0 || ba_calloc(SIZE_MAX / 2, 4) != nullptr) return 1;

   std::printf("100 bytes asked, %zu usable\n", usable);
   ba_free(zeros);
   ba_free(p);
   ba_free(nullptr);   // ignored, as free(NULL) is
   return ba_check(nullptr) ? 0 : 1;
}
