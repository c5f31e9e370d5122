// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Burst allocation: many nodes in one call, handed back as an intrusive chain, freed in one call.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>

struct node { void *link; int value; };   // the chain's link is the first word of each node

int main()
{
   ba_chain chain;
   ba_chain_init(&chain);
   if (!ba_multialloc_nodes(1000, sizeof(node), BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain)) return 1;
   if (chain.size != 1000) return 1;

   // Walk the chain; each block is a separate allocation of at least sizeof(node) bytes.
   std::size_t count = 0;
   for (void *p = chain.first; p; p = ba_chain_next(p)) {
      if (ba_usable_size(p) < sizeof(node)) return 1;
      static_cast<node *>(p)->value = static_cast<int>(count++);   // leaves the link alone
   }
   if (count != 1000 || static_cast<node *>(chain.last)->value != 999) return 1;

   // Arrays of different lengths in one call too: 3, 5 and 7 doubles.
   const std::size_t lengths[] = {3, 5, 7};
   if (!ba_multialloc_arrays(3, lengths, sizeof(double), BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &chain))
      return 1;
   if (chain.size != 1003 || ba_usable_size(chain.last) < 7 * sizeof(double)) return 1;

   // One call frees all 1003 blocks, merging neighbours into one free chunk per run.
   ba_multidealloc(&chain);
   if (!ba_chain_empty(&chain)) return 1;
   std::printf("1003 blocks allocated and freed in two bursts\n");
   return ba_check(nullptr) ? 0 : 1;
}
