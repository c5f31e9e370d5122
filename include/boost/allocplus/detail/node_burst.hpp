// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_NODE_BURST_HPP
#define BOOST_ALLOCPLUS_DETAIL_NODE_BURST_HPP

// A burst of nodes made all or nothing, in two steps: the nodes are taken from an engine
// (node_pool, adaptive_node_pool) while its owner holds it (the shared pool's lock, a private
// pool's guard against two threads), then handed to the caller once the owner has let go.

#include <boost/allocplus/detail/config.hpp>

#include <cstddef>

namespace boost { namespace allocplus { namespace detail {

//! Effects: takes n nodes from pool (its try_allocate_many, block by block) into a list linked
//!   through their first words, whose head is left in `taken` (null when n is 0).
//! Returns: true; false when memory ran out, after giving back the nodes it took (`taken` null).
//! Complexity: linear in n.
template <class Pool>
bool take_nodes(Pool &pool, std::size_t n, void *&taken) noexcept
{
   taken = nullptr;
   const std::size_t got = pool.try_allocate_many(n, [&](void *node) {
      *static_cast<void **>(node) = taken;
      taken = node;
   });
   if (BOOST_LIKELY(got == n)) return true;
   while (taken) {
      void *next = *static_cast<void **>(taken);
      pool.deallocate(taken);
      taken = next;
   }
   return false;
}

//! Effects: calls push(node) for every node of a list take_nodes made, head first.
template <class Push>
void push_taken(void *taken, Push push)
{
   while (taken) {
      void *next = *static_cast<void **>(taken);
      push(taken);
      taken = next;
   }
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_NODE_BURST_HPP
