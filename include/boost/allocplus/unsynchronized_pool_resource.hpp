// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP
#define BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/unsynchronized_pool_resource_base.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus {

namespace detail {

// The pools of the unsynchronized pool resources: node pools of max_blocks_per_chunk nodes a block.
struct unsynchronized_pool_resource_pools {
   static constexpr const char *name = "ba::unsynchronized_pool_resource";
   static constexpr node_pool::parameters parameters(std::size_t nodes_per_block) noexcept { return nodes_per_block; }
};

}   // namespace detail

//! A std::pmr pool resource for one thread at a time, over pools of its own (private_node_allocator's
//! engine): a pool per size class (8 to 128 bytes by 8, then to 512 by 16), no lock,
//! nothing stored per block. Checked builds report two threads inside one resource at once.
//!
//! What it does not serve, a request bigger than the largest class (pool_options::
//! largest_required_pool_block, at most 512 bytes) or aligned to more than 16, goes to the
//! upstream resource, std::pmr::get_default_resource() unless another is given (as for
//! std::pmr::unsynchronized_pool_resource). The pools' blocks (pool_options::max_blocks_per_chunk
//! nodes each, 256 by default) come from the core's default heap.
//!
//! Stateful: equal only to itself. Destroying it (or release()) gives every pool block back.
class unsynchronized_pool_resource
   : public detail::unsynchronized_pool_resource_base<detail::node_pool, detail::unsynchronized_pool_resource_pools> {
public:
   using unsynchronized_pool_resource_base::unsynchronized_pool_resource_base;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP
