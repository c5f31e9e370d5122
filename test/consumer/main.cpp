// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Built by a separate project against an installed or add_subdirectory'd allocplus: proves the
// headers are found, the target carries C++17 and the thread library, and the core works.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>
#include <cstring>

int main()
{
   void *p = ba_malloc(100);
   if (!p || ba_usable_size(p) < 100) {
      std::fputs("consumer: ba_malloc failed\n", stderr);
      return 1;
   }
   std::memset(p, 0xA5, 100);
   ba_free(p);
   ba_check_report report = {nullptr, nullptr};
   if (!ba_check(&report)) {
      std::fprintf(stderr, "consumer: ba_check: %s\n", report.what ? report.what : "(no reason)");
      return 1;
   }
   return 0;
}
