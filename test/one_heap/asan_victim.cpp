// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A program with a bug ASan must report (built with ASan only): `overrun` reads one byte past a
// ba_malloc block, `use_after_free` reads a block after ba_free, `burst_overrun` writes one byte
// past a burst node, `clean` does neither and must pass.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "clean";
   char *p = static_cast<char *>(ba_malloc(13));
   std::memset(p, 1, 13);
   volatile char sink = 0;
   if (std::strcmp(mode, "overrun") == 0) {
      sink = p[13];
   } else if (std::strcmp(mode, "use_after_free") == 0) {
      ba_free(p);
      sink = p[0];
      p = nullptr;
   } else if (std::strcmp(mode, "burst_overrun") == 0) {
      ba_chain chain;
      ba_chain_init(&chain);
      ba_multialloc_nodes(10, 40, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain);
      static_cast<char *>(chain.first)[40] = 1;   // the next node's header, in the same run
      ba_multidealloc(&chain);
   }
   (void)sink;
   ba_free(p);
   std::puts("no error detected");
   return 0;
}
