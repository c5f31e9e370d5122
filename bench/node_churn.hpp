// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The node churn of the pool benchmarks: push `count` keys, erase every 3rd element, push
// `count`, erase every 7th, push `count`, destroy. A list takes every key; a set keeps one node
// per key, so with `repeat_keys` (1..count each time) its later pushes make few nodes, and
// without (keys never seen before) each push makes `count`.
#ifndef ALLOCPLUS_BENCH_NODE_CHURN_HPP
#define ALLOCPLUS_BENCH_NODE_CHURN_HPP

#include <cstddef>

namespace ba_bench {

//! Runs the churn on c; add(c, key) puts in one key. Returns: the nodes made and freed (the
//! destruction of c, which the caller does, counted).
template <class Container, class Add>
std::size_t node_churn(Container &c, Add add, int count, bool repeat_keys)
{
   std::size_t operations = 0;
   int next_key = 0;
   auto push_all = [&] {
      const std::size_t before = c.size();
      if (repeat_keys) next_key = 0;
      for (int i = 0; i < count; ++i) add(c, ++next_key);
      operations += c.size() - before;
   };
   auto erase_every = [&](std::size_t nth) {
      std::size_t i = 0;
      for (auto it = c.begin(); it != c.end();) {
         if (++i % nth == 0) {
            it = c.erase(it);
            ++operations;
         } else {
            ++it;
         }
      }
   };
   push_all();
   erase_every(3);
   push_all();
   erase_every(7);
   push_all();
   operations += c.size();   // the destruction frees every node
   return operations;
}

} // namespace ba_bench

#endif // ALLOCPLUS_BENCH_NODE_CHURN_HPP
