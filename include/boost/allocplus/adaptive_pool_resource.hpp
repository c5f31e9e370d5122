// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ADAPTIVE_POOL_RESOURCE_HPP
#define BOOST_ALLOCPLUS_ADAPTIVE_POOL_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/detail/adaptive_node_pool.hpp>
#include <boost/allocplus/detail/synchronized_pool_resource_base.hpp>
#include <boost/allocplus/detail/unsynchronized_pool_resource_base.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus {

namespace detail {

// The shared pools of the synchronized adaptive pool resources (their own, not adaptive_pool's).
struct BOOST_SYMBOL_VISIBLE synchronized_adaptive_pool_resource_pools {
   static constexpr const char *name = "ba::synchronized_adaptive_pool_resource";
};

// The pools of the unsynchronized adaptive pool resources: at least max_blocks_per_chunk nodes a
// block, adaptive_pool's defaults for the rest.
struct unsynchronized_adaptive_pool_resource_pools {
   static constexpr const char *name = "ba::unsynchronized_adaptive_pool_resource";
   static constexpr adaptive_node_pool::parameters parameters(std::size_t nodes_per_block) noexcept
   {
      return {nodes_per_block, adaptive_pool_max_free_blocks, adaptive_pool_overhead_percent};
   }
};

}   // namespace detail

//! A thread-safe std::pmr pool resource over shared adaptive pools (ba::adaptive_pool's engine):
//! a pool per size class (8 to 128 bytes by 8, then to 512 by 16), each with per-thread bins, in
//! aligned blocks that go back to the core as soon as their nodes are all free (each pool keeps
//! at most 2 such blocks, once the threads' bins are flushed). For programs whose pmr containers
//! grow and die: their memory goes down with them.
//!
//! What it does not serve, a request bigger than the largest class (pool_options::
//! largest_required_pool_block, at most 512 bytes) or aligned to more than 16, goes to the
//! upstream resource, std::pmr::get_default_resource() unless another is given.
//!
//! The pools are the process's, shared by every synchronized_adaptive_pool_resource and never
//! destroyed: there is no release(). Blocks hold at least 256 nodes with at most 5% of their
//! bytes holding none (pool_options::max_blocks_per_chunk is not used).
//!
//! Stateful (it has an upstream): equal only to itself, as the standard's pool resources.
class synchronized_adaptive_pool_resource
   : public detail::synchronized_pool_resource_base<detail::adaptive_node_pool, detail::synchronized_adaptive_pool_resource_pools,
                                                    adaptive_pool_nodes_per_block, adaptive_pool_max_free_blocks,
                                                    adaptive_pool_overhead_percent> {
public:
   using synchronized_pool_resource_base::synchronized_pool_resource_base;
};

//! A std::pmr pool resource for one thread at a time over adaptive pools of its own
//! (ba::private_adaptive_pool's engine): a pool per size class, no lock, nothing stored per
//! block, and a block given back to the core as soon as its nodes are all free (each pool keeps at
//! most 2 such blocks). Checked builds report two threads inside one resource at once.
//!
//! What it does not serve goes to the upstream resource, as for unsynchronized_pool_resource.
//! Blocks hold at least pool_options::max_blocks_per_chunk nodes (256 by default), with at most 5%
//! of their bytes holding none.
//!
//! Stateful: equal only to itself. Destroying it (or release()) gives every pool block back.
class unsynchronized_adaptive_pool_resource
   : public detail::unsynchronized_pool_resource_base<detail::adaptive_node_pool,
                                                      detail::unsynchronized_adaptive_pool_resource_pools> {
public:
   using unsynchronized_pool_resource_base::unsynchronized_pool_resource_base;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ADAPTIVE_POOL_RESOURCE_HPP
