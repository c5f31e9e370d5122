// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Bursts: many nodes in one call, and back in one call. boost::container::list does this by
// itself on a version-2 allocator; here by hand.
#include <boost/allocplus/allocator.hpp>
#include <boost/container/list.hpp>

#include <cstdio>

namespace ba = boost::allocplus;

struct node {
   node *next;
   int value;
};

int main()
{
   ba::allocator<node> a;

   // 1000 nodes in one call, handed over as a chain linked through their first word.
   ba::allocator<node>::multiallocation_chain chain;
   a.allocate_individual(1000, chain);

   // Build a list from them: pop each node before overwriting its first word.
   node *head = nullptr;
   int count = 0;
   while (!chain.empty()) {
      node *n = chain.pop_front();
      *n = node{head, count++};
      head = n;
   }

   // All of them back in one call (runs of adjacent nodes are freed together).
   for (node *n = head; n;) {
      node *next = n->next;
      chain.push_back(n);
      n = next;
   }
   a.deallocate_individual(chain);

   // A boost::container::list of 1000 copies takes its nodes in one burst, too.
   boost::container::list<int, ba::allocator<int>> l(1000, 7);

   std::printf("%d nodes by hand, %zu in a list\n", count, l.size());
   return count == 1000 && chain.empty() && l.size() == 1000 ? 0 : 1;
}
