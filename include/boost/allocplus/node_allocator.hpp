// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_NODE_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_NODE_ALLOCATOR_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/pooled_allocator_base.hpp>
#include <boost/allocplus/detail/shared_node_pool.hpp>

#include <cstddef>
#include <type_traits>

namespace boost { namespace allocplus {

//! The shared node allocator: one pool per node size in the process, safe from many threads.
//!
//! `allocate(1)` takes a node from the pool of nodes of sizeof(T) bytes (every T of that size and
//! alignment shares it, so std::allocate_shared<T>(ba::node_allocator<void>()) pools its control
//! blocks), `deallocate(p, 1)` gives it back; nothing is stored per node. Each thread allocates
//! from and frees into a bin of its own (the core's thread caches): the pool's lock is taken once
//! a magazine of nodes. Any other count goes to the core, as ba::allocator's. Version 2 adds the
//! core's array interface and bursts of nodes (allocate_one / allocate_individual and their frees).
//!
//! Stateless: every instance, of every T, compares equal; the pools are never destroyed (a static
//! container destroyed at exit still frees into a live pool). Boost.Container's parameter order.
//!
//! Complexity: allocate(1) and deallocate(p, 1) are constant.
template <class T, std::size_t NodesPerBlock = 256, unsigned Version = 2>
class node_allocator
   : public detail::pooled_allocator_base<T, node_allocator<T, NodesPerBlock, Version>, Version> {
   static_assert(Version == 1 || Version == 2, "ba::node_allocator: Version must be 1 or 2");
   static_assert(NodesPerBlock > 0, "ba::node_allocator: NodesPerBlock must be at least 1");
   using base = detail::pooled_allocator_base<T, node_allocator, Version>;
   friend base;

public:
   using propagate_on_container_copy_assignment = std::false_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::false_type;
   using is_always_equal = std::true_type;

   template <class U>
   struct rebind {
      using other = node_allocator<U, NodesPerBlock, Version>;
   };

   node_allocator() noexcept = default;
   node_allocator(const node_allocator &) noexcept = default;
   node_allocator &operator=(const node_allocator &) noexcept = default;
   template <class U>
   node_allocator(const node_allocator<U, NodesPerBlock, Version> &) noexcept
   {
   }

   //! Effects: gives back to the core every block of the pool of T's nodes none of whose nodes is
   //!   in use or waiting in a thread's bin. Returns: the blocks given back.
   //! Complexity: O(n log n) for n free nodes in the pool.
   static std::size_t release_free_blocks() noexcept { return pool().release_free_blocks(); }

   //! Returns: what the pool of T's nodes holds (nodes waiting in threads' bins count as in use).
   static node_pool_statistics statistics() noexcept { return pool().statistics(); }

   template <class U>
   friend bool operator==(const node_allocator &, const node_allocator<U, NodesPerBlock, Version> &) noexcept
   {
      return true;
   }
   template <class U>
   friend bool operator!=(const node_allocator &, const node_allocator<U, NodesPerBlock, Version> &) noexcept
   {
      return false;
   }

private:
   static constexpr const char *name = "ba::node_allocator";

   static detail::shared_node_pool &pool() noexcept
   {
      return detail::shared_node_pool_for<sizeof(T), alignof(T), NodesPerBlock>();
   }

   // The nodes (pooled_allocator_base).
   static void *allocate_node() { return pool().allocate(); }
   static void deallocate_node(void *p) noexcept { pool().deallocate(p); }
   static bool owns_node(const void *p) noexcept { return pool().owns(p); }
   static constexpr bool shared_bursts = true;
   static auto &burst_pool() noexcept { return pool(); }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_NODE_ALLOCATOR_HPP
