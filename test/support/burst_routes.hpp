// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_BURST_ROUTES_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_BURST_ROUTES_HPP

// The shared pools' two routes for a burst (detail/shared_node_pool.hpp): under the pool's lock,
// or, while threads contend for that lock, through the threads' bins. A test reaches the pool
// under ba::node_allocator<T> or ba::adaptive_pool<T> (default parameters) and steers its bursts
// through the bins for a scope:
//
//   auto &pool = allocplus_test::node_allocator_pool_of<T>();
//   {
//      allocplus_test::bursts_through_bins steer(pool);
//      ... bursts of ba::node_allocator<T> go through the thread's bin ...
//   }

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/node_allocator.hpp>

namespace allocplus_test {

template <class T>
boost::allocplus::detail::shared_node_pool &node_allocator_pool_of()
{
   return boost::allocplus::detail::shared_node_pool_for<sizeof(T), alignof(T), 256>();
}

template <class T>
boost::allocplus::detail::shared_pool<boost::allocplus::detail::adaptive_node_pool> &adaptive_pool_pool_of()
{
   namespace ba = boost::allocplus;
   return ba::detail::immortal_shared_pool<ba::detail::shared_pool<ba::detail::adaptive_node_pool>,
                                           ba::detail::adaptive_pool_pools, sizeof(T), alignof(T),
                                           ba::adaptive_pool_nodes_per_block, ba::adaptive_pool_max_free_blocks,
                                           ba::adaptive_pool_overhead_percent>();
}

// For its life, the bursts of `pool` go through the threads' bins (as after a wait for its lock);
// then under its lock again.
template <class Pool>
class bursts_through_bins {
public:
   explicit bursts_through_bins(Pool &pool) : pool_(pool) { pool_.route_bursts_through_bins(1u << 30); }
   ~bursts_through_bins() { pool_.route_bursts_through_bins(0); }
   bursts_through_bins(const bursts_through_bins &) = delete;
   bursts_through_bins &operator=(const bursts_through_bins &) = delete;

private:
   Pool &pool_;
};

} // namespace allocplus_test

#endif // BOOST_ALLOCPLUS_TEST_SUPPORT_BURST_ROUTES_HPP
