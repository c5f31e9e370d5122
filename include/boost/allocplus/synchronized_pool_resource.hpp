// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP
#define BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/synchronized_pool_resource_base.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus {

namespace detail {

// The family of shared pools of the synchronized pool resources (their own, not node_allocator's).
struct BOOST_SYMBOL_VISIBLE synchronized_pool_resource_pools {
   static constexpr const char *name = "ba::synchronized_pool_resource";
};

}   // namespace detail

//! A thread-safe std::pmr pool resource over the library's shared node pools (node_allocator's
//! engine): a pool per size class (8 to 128 bytes by 8, then to 512 by 16), each
//! with per-thread bins, so that most allocations and frees take no lock, and a block freed by
//! another thread than the one that allocated it is simply taken back.
//!
//! What it does not serve, a request bigger than the largest class (pool_options::
//! largest_required_pool_block, at most 512 bytes) or aligned to more than 16, goes to the
//! upstream resource, std::pmr::get_default_resource() unless another is given (as for
//! std::pmr::synchronized_pool_resource).
//!
//! The pools are the process's, shared by every synchronized_pool_resource and never destroyed:
//! a node freed goes back to them for the next allocation of its class by any resource, and
//! release_free_blocks() gives their free blocks back to the core. There is therefore no
//! release(): nodes still in use stay valid after the resource is destroyed (free them first all
//! the same). pool_options::max_blocks_per_chunk is not used (blocks hold 256 nodes).
//!
//! Stateful (it has an upstream): equal only to itself, as the standard's pool resources.
class synchronized_pool_resource
   : public detail::synchronized_pool_resource_base<detail::node_pool, detail::synchronized_pool_resource_pools, 256> {
public:
   using synchronized_pool_resource_base::synchronized_pool_resource_base;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP
