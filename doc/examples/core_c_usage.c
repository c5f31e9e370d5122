/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The core from C11. */

/* In exactly one .c file of the program; the others include the header without it. */
#define BOOST_ALLOCPLUS_CORE_IMPLEMENTATION
#include <boost/allocplus/core/dlmalloc.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
   char *s = (char *)ba_malloc(32);
   if (!s) return 1;
   strcpy(s, "allocplus");

   /* Grow to at least 4096 bytes, in place if the heap can, else into a new block. */
   size_t received = 0;
   ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 0, 4096, 4096,
                                            &received, s);
   if (!r.first || received < 4096) return 1;
   if (!r.second) {
      memcpy(r.first, s, 32);
      ba_free(s);
   }
   s = (char *)r.first;
   if (strcmp(s, "allocplus") != 0) return 1;

   ba_heap_stats st;
   ba_stats(&st);
   printf("%s: %zu bytes usable, %zu bytes in use\n", s, ba_usable_size(s), st.in_use_bytes);
   ba_free(s);
   return ba_check(NULL) ? 0 : 1;
}
