// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ADAPTIVE_POOL_HPP
#define BOOST_ALLOCPLUS_ADAPTIVE_POOL_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/adaptive_node_pool.hpp>
#include <boost/allocplus/detail/pooled_allocator_base.hpp>
#include <boost/allocplus/detail/shared_node_pool.hpp>

#include <cstddef>
#include <type_traits>

namespace boost { namespace allocplus {

//! The defaults of the adaptive pools' parameters (Boost.Container's).
constexpr std::size_t adaptive_pool_nodes_per_block = 256;
constexpr std::size_t adaptive_pool_max_free_blocks = 2;
constexpr std::size_t adaptive_pool_overhead_percent = 5;
//! OverheadPercent for blocks of one sub-block, aligned to their size (NodesPerBlock sets it).
constexpr std::size_t adaptive_pool_only_alignment = 0;

namespace detail {

//! The users of the shared adaptive pools (named in reports; visible, as node_allocator_pools).
struct BOOST_SYMBOL_VISIBLE adaptive_pool_pools {
   static constexpr const char *name = "ba::adaptive_pool";
};

//! Compile-time checks of the adaptive pools' parameters and of the geometry they give T.
template <class T, std::size_t NodesPerBlock, std::size_t MaxFreeBlocks, std::size_t OverheadPercent, unsigned Version>
struct adaptive_pool_parameters_check {
   static_assert(Version == 1 || Version == 2, "the adaptive pools have version 1 or 2");
   static_assert(NodesPerBlock > 0, "the adaptive pools need NodesPerBlock of at least 1");
   static_assert(OverheadPercent < 100, "the adaptive pools need OverheadPercent below 100");
   static constexpr adaptive_node_pool::parameters parameters{NodesPerBlock, MaxFreeBlocks, OverheadPercent};
   static constexpr adaptive_pool_geometry geometry = adaptive_node_pool::geometry_for(sizeof(T), alignof(T), parameters);
   static_assert(geometry.valid(), "no block of an adaptive pool (up to 64 MiB) holds NodesPerBlock nodes of this "
                                   "type within OverheadPercent: lower NodesPerBlock or raise OverheadPercent");
};

} // namespace detail

//! The shared adaptive pool: nodes at no cost per node, in aligned blocks that go back to the core
//! as soon as they are free (beyond the MaxFreeBlocks lowest kept), one pool per node size in the process,
//! safe from many threads.
//!
//! `allocate(1)` takes a node from the pool of nodes of sizeof(T) bytes (every T of that size and
//! alignment shares it, so std containers and std::allocate_shared are pooled), from the block
//! with the fewest free nodes, so that the others drain; `deallocate(p, 1)` gives it back to its
//! block, found by masking p's address. A block is at least NodesPerBlock nodes; OverheadPercent
//! caps the bytes of a block that hold no node (0, adaptive_pool_only_alignment: one sub-block as
//! big as the nodes need, aligned to its size; otherwise sub-blocks of at least a page, each
//! leading to the block's header). Any other count goes to the core, as ba::allocator's. Version 2
//! adds the core's array interface and bursts of nodes.
//!
//! Each thread allocates from and frees into a bin of its own (at most two magazines of about
//! 8 KiB of nodes, counted as in use): the pool's lock is taken once a magazine. Nodes in a bin
//! keep their blocks, so the promise that at most MaxFreeBlocks completely free blocks are kept
//! holds for the nodes given back to the pool: after the threads have exited or flushed their
//! bins (ba_thread_cache_flush()).
//!
//! Stateless: every instance, of every T, compares equal; the pools are never destroyed.
//! Boost.Container's parameter order and defaults.
//!
//! Complexity: allocate(1) is amortized constant (a block that got nodes back moves to its bucket
//! when an allocation meets it), deallocate(p, 1) constant (a block emptied or taken again: plus
//! a look at the MaxFreeBlocks kept).
template <class T, std::size_t NodesPerBlock = adaptive_pool_nodes_per_block,
          std::size_t MaxFreeBlocks = adaptive_pool_max_free_blocks,
          std::size_t OverheadPercent = adaptive_pool_overhead_percent, unsigned Version = 2>
class adaptive_pool
   : public detail::pooled_allocator_base<T, adaptive_pool<T, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>,
                                          Version> {
   using checks = detail::adaptive_pool_parameters_check<T, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>;
   using base = detail::pooled_allocator_base<T, adaptive_pool, Version>;
   friend base;

public:
   using propagate_on_container_copy_assignment = std::false_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::false_type;
   using is_always_equal = std::true_type;

   template <class U>
   struct rebind {
      using other = adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version>;
   };

   adaptive_pool() noexcept = default;
   adaptive_pool(const adaptive_pool &) noexcept = default;
   adaptive_pool &operator=(const adaptive_pool &) noexcept = default;
   template <class U>
   adaptive_pool(const adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &) noexcept
   {
   }

   //! Effects: gives back to the core the completely free blocks the pool of T's nodes keeps.
   //! Returns: the blocks given back. Complexity: linear in them.
   static std::size_t release_free_blocks() noexcept { return pool().release_free_blocks(); }

   //! Returns: what the pool of T's nodes holds (nodes waiting in threads' bins count as in use).
   static adaptive_pool_statistics statistics() noexcept { return pool().statistics(); }

   //! Returns: null when every invariant of the pool of T's nodes holds, else the first broken
   //!   one (a sentence). Complexity: linear in the blocks and their free nodes.
   static const char *check() noexcept { return pool().check(); }

   //! Returns: the shape of the blocks of T's nodes (computed at compile time).
   static constexpr detail::adaptive_pool_geometry geometry() noexcept { return checks::geometry; }

   template <class U>
   friend bool operator==(const adaptive_pool &, const adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &) noexcept
   {
      return true;
   }
   template <class U>
   friend bool operator!=(const adaptive_pool &, const adaptive_pool<U, NodesPerBlock, MaxFreeBlocks, OverheadPercent, Version> &) noexcept
   {
      return false;
   }

private:
   static constexpr const char *name = detail::adaptive_pool_pools::name;
   using shared_pool = detail::shared_pool<detail::adaptive_node_pool>;

   static shared_pool &pool() noexcept
   {
      static_assert(checks::geometry.valid(), "ba::adaptive_pool: no block geometry for these parameters");
      return detail::immortal_shared_pool<shared_pool, detail::adaptive_pool_pools, sizeof(T), alignof(T), NodesPerBlock,
                                          MaxFreeBlocks, OverheadPercent>();
   }

   // The nodes (pooled_allocator_base).
   static void *allocate_node() { return pool().allocate(); }
   static void deallocate_node(void *p) noexcept { pool().deallocate(p); }
   static bool owns_node(const void *p) noexcept { return pool().owns(p); }
   static constexpr bool shared_bursts = true;
   static auto &burst_pool() noexcept { return pool(); }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ADAPTIVE_POOL_HPP
