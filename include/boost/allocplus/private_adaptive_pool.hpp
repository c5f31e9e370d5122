// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_PRIVATE_ADAPTIVE_POOL_HPP
#define BOOST_ALLOCPLUS_PRIVATE_ADAPTIVE_POOL_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/detail/adaptive_node_pool.hpp>
#include <boost/allocplus/detail/private_pool_handle.hpp>

#include <cstddef>
#include <type_traits>

namespace boost { namespace allocplus {

//! An adaptive pool of its own: one pool per container, and no lock.
//!
//! The nodes and blocks of ba::adaptive_pool (nothing per node; aligned blocks found by masking;
//! a node from the block with the fewest free nodes; completely free blocks beyond the
//! MaxFreeBlocks lowest back to the core at once), in pools that belong to one container. The allocator is a handle to
//! a pool set, with ba::private_node_allocator's semantics: copies, rebinds and moves share the set
//! and compare equal; a copied container gets a new set (select_on_container_copy_construction);
//! copy assignment keeps each container's pools; move assignment and swap take them along. The
//! default constructor takes no memory. When the container dies, its pools give every block back.
//!
//! Not thread-safe: one pool set is not for use from two threads at once. Checked builds report
//! two threads inside one pool set.
//!
//! Complexity: allocate(1) is amortized constant (a block that got nodes back moves to its bucket
//! when an allocation meets it), deallocate(p, 1) constant (checked builds: logarithmic in the
//! blocks, to check every pointer).
template <class T, std::size_t NodesPerBlock = adaptive_pool_nodes_per_block,
          std::size_t MaxFreeBlocks = adaptive_pool_max_free_blocks,
          std::size_t OverheadPercent = adaptive_pool_overhead_percent, unsigned Version = 2>
class private_adaptive_pool
   : public detail::private_pool_handle<T, private_adaptive_pool<T, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>,
                                        detail::adaptive_node_pool, Version> {
   using checks = detail::adaptive_pool_parameters_check<T, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>;
   using base = detail::private_pool_handle<T, private_adaptive_pool, detail::adaptive_node_pool, Version>;
   friend base;

public:
   template <class U>
   struct rebind {
      using other = private_adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>;
   };

   //! Effects: an allocator with no pools yet (made by the first allocation). Throws: nothing.
   private_adaptive_pool() noexcept = default;

   //! Effects: shares x's pools (made first if x has none yet). Throws: nothing: when memory is
   //!   out, the copy has no pools (a node of x given to its deallocate is then reported).
   private_adaptive_pool(const private_adaptive_pool &x) noexcept = default;
   template <class U>
   private_adaptive_pool(const private_adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &x) noexcept
      : base(x)
   {
   }

   //! Effects: shares x's pools (as the copy constructor), dropping its own.
   private_adaptive_pool &operator=(const private_adaptive_pool &x) noexcept = default;

   //! Returns: an allocator with pools of its own: a copied container does not share its nodes.
   private_adaptive_pool select_on_container_copy_construction() const noexcept { return {}; }

   //! Returns: null when every invariant of the pools holds (or there are none yet), else the
   //!   first broken one (a sentence). Complexity: linear in the blocks and their free nodes.
   const char *check() const noexcept { return this->pools() ? this->pools()->check() : nullptr; }

   //! Returns: the shape of the blocks of T's nodes (computed at compile time).
   static constexpr detail::adaptive_pool_geometry geometry() noexcept { return checks::geometry; }

   template <class U>
   friend bool operator==(const private_adaptive_pool &a,
                          const private_adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &b) noexcept
   {
      return a.shares_pools_with(b);
   }
   template <class U>
   friend bool operator!=(const private_adaptive_pool &a,
                          const private_adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &b) noexcept
   {
      return !(a == b);
   }

private:
   template <class, std::size_t, std::size_t, std::size_t, unsigned>
   friend class private_adaptive_pool;

   static constexpr const char *name = "ba::private_adaptive_pool";
   static constexpr detail::adaptive_node_pool::parameters pool_parameters() noexcept { return checks::parameters; }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_PRIVATE_ADAPTIVE_POOL_HPP
