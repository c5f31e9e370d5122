// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_PRIVATE_NODE_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_PRIVATE_NODE_ALLOCATOR_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/private_pool_handle.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus {

//! A node allocator with a pool of its own: one pool per container, and no lock.
//!
//! `allocate(1)` takes a node from the pool (simple segregated storage: nothing per node), and
//! `deallocate(p, 1)` gives it back for the next `allocate(1)`; blocks of NodesPerBlock nodes come
//! from the core. Any other count goes to the core, as ba::allocator's. Version 2 adds the core's
//! array interface (allocation_command, size, allocate_many) and bursts of nodes
//! (allocate_one / allocate_individual and their frees), which ba::list and boost::container's
//! node containers use.
//!
//! The allocator is a handle to a pool set (a pool per node size and alignment: a container rebinds
//! its allocator to its node type). Copies, rebinds and moves share the set and compare equal (a
//! moved-from allocator is unchanged, as the standard requires: std::deque relies on it), so node
//! rebinding and std::allocate_shared work. A copied container gets a new pool set
//! (select_on_container_copy_construction); copy assignment keeps each container's pools; move
//! assignment and swap take the pools along. A container moved from keeps sharing the pools with
//! the one it moved to until it is assigned or destroyed. The default constructor takes no memory:
//! the pools are made when first needed (or when the allocator is first copied).
//!
//! Not thread-safe: one pool set is not for use from two threads at once (a container over it is
//! not either; two containers with their own pools are independent). Checked builds report two
//! threads inside one pool set.
//!
//! Complexity: allocate(1) and deallocate(p, 1) are constant (checked builds: logarithmic in the
//! blocks, to check every pointer).
template <class T, std::size_t NodesPerBlock = 256, unsigned Version = 2>
class private_node_allocator
   : public detail::private_pool_handle<T, private_node_allocator<T, NodesPerBlock, Version>, detail::node_pool, Version> {
   static_assert(Version == 1 || Version == 2, "ba::private_node_allocator: Version must be 1 or 2");
   static_assert(NodesPerBlock > 0, "ba::private_node_allocator: NodesPerBlock must be at least 1");
   using base = detail::private_pool_handle<T, private_node_allocator, detail::node_pool, Version>;
   friend base;

public:
   template <class U>
   struct rebind {
      using other = private_node_allocator<U, NodesPerBlock, Version>;
   };

   //! Effects: an allocator with no pools yet (made by the first allocation). Throws: nothing.
   private_node_allocator() noexcept = default;

   //! Effects: shares x's pools (made first if x has none yet, so that both allocators hand out
   //!   and take back the same nodes). Throws: nothing: when memory is out, the copy has no pools
   //!   (it allocates from new ones, and a node of x given to its deallocate is reported).
   private_node_allocator(const private_node_allocator &x) noexcept = default;
   template <class U>
   private_node_allocator(const private_node_allocator<U, NodesPerBlock, Version> &x) noexcept : base(x)
   {
   }

   //! Effects: shares x's pools (as the copy constructor), dropping its own.
   private_node_allocator &operator=(const private_node_allocator &x) noexcept = default;

   //! Returns: an allocator with pools of its own: a copied container does not share its nodes.
   private_node_allocator select_on_container_copy_construction() const noexcept { return {}; }

   template <class U>
   friend bool operator==(const private_node_allocator &a, const private_node_allocator<U, NodesPerBlock, Version> &b) noexcept
   {
      return a.shares_pools_with(b);
   }
   template <class U>
   friend bool operator!=(const private_node_allocator &a, const private_node_allocator<U, NodesPerBlock, Version> &b) noexcept
   {
      return !(a == b);
   }

private:
   template <class, std::size_t, unsigned>
   friend class private_node_allocator;

   static constexpr const char *name = "ba::private_node_allocator";
   static constexpr detail::node_pool::parameters pool_parameters() noexcept { return NodesPerBlock; }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_PRIVATE_NODE_ALLOCATOR_HPP
