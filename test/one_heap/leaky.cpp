// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Run under valgrind: `leak` loses a 100-byte ba_malloc block, which memcheck must report;
// `clean` exercises every kind of block (malloc, realloc in place and moved, commands, bursts)
// and must leave memcheck with nothing to say.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstring>

int main(int argc, char **argv)
{
   bool leak = argc > 1 && std::strcmp(argv[1], "leak") == 0;
   void *lost = ba_malloc(100);
   std::memset(lost, 1, 100);
   if (!leak) ba_free(lost);
   lost = nullptr;

   char *grown = static_cast<char *>(ba_malloc(10));
   std::memset(grown, 2, 10);
   grown = static_cast<char *>(ba_realloc(grown, 5000));
   std::size_t received = 0;
   ba_command_ret r = ba_allocation_command(BA_EXPAND_FWD | BA_ALLOCATE_NEW, 1, 0, 6000, 9000, &received, grown);
   if (!r.second) ba_free(grown);
   std::memset(r.first, 3, received);
   ba_free(r.first);

   ba_chain chain;
   ba_chain_init(&chain);
   ba_multialloc_nodes(50, 48, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain);
   for (void *node = chain.first; node; node = ba_chain_next(node)) std::memset(static_cast<char *>(node) + sizeof(void *), 4, 40);
   ba_multidealloc(&chain);
   return 0;
}
