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

//! Effects: takes the first node off a list linked through first words (not empty).
//! Returns: that node.
inline void *pop_taken(void *&taken) noexcept
{
   void *node = taken;
   taken = *static_cast<void **>(node);
   return node;
}

//! Effects: takes n more nodes from pool (its try_allocate_many, block by block) onto the list
//!   `taken`, linked through their first words.
//! Returns: true; false when memory ran out, after giving back every node of the list (those
//!   it had before too: they must be the pool's; `taken` null).
//! Complexity: linear in n (and in the list, when memory runs out).
template <class Pool>
bool take_more_nodes(Pool &pool, std::size_t n, void *&taken) noexcept
{
   const std::size_t got = pool.try_allocate_many(n, [&](void *node) {
      *static_cast<void **>(node) = taken;
      taken = node;
   });
   if (BOOST_LIKELY(got == n)) return true;
   while (taken) pool.deallocate(pop_taken(taken));
   return false;
}

//! Effects: takes n nodes from pool into a list whose head is left in `taken` (null when n is 0).
//! Returns: true; false when memory ran out, after giving back the nodes it took (`taken` null).
//! Complexity: linear in n.
template <class Pool>
bool take_nodes(Pool &pool, std::size_t n, void *&taken) noexcept
{
   taken = nullptr;
   return take_more_nodes(pool, n, taken);
}

//! Effects: calls push(node) for every node of a list take_nodes made, head first.
template <class Push>
void push_taken(void *taken, Push push)
{
   while (taken) push(pop_taken(taken));
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_NODE_BURST_HPP
