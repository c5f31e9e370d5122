// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP
#define BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/pool_resource_classes.hpp>
#include <boost/allocplus/detail/private_pool_set.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus {

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
class unsynchronized_pool_resource : public std::pmr::memory_resource {
   using classes = detail::pool_resource_classes;

public:
   //! Effects: a resource with no pools yet (each is made on its class's first allocation).
   //! Throws: std::bad_alloc when memory is out.
   unsynchronized_pool_resource(const std::pmr::pool_options &options, std::pmr::memory_resource *upstream)
      : upstream_(upstream), last_class_(classes::last_class_for(options)),
        nodes_per_block_(classes::nodes_per_block_for(options)), pools_(make_pools())
   {
   }
   unsynchronized_pool_resource() : unsynchronized_pool_resource(std::pmr::pool_options(), std::pmr::get_default_resource()) {}
   explicit unsynchronized_pool_resource(std::pmr::memory_resource *upstream)
      : unsynchronized_pool_resource(std::pmr::pool_options(), upstream)
   {
   }
   explicit unsynchronized_pool_resource(const std::pmr::pool_options &options)
      : unsynchronized_pool_resource(options, std::pmr::get_default_resource())
   {
   }
   unsynchronized_pool_resource(const unsynchronized_pool_resource &) = delete;
   unsynchronized_pool_resource &operator=(const unsynchronized_pool_resource &) = delete;

   //! Returns: the resource what the pools do not serve goes to.
   std::pmr::memory_resource *upstream_resource() const noexcept { return upstream_; }

   //! Returns: the options in use (largest_required_pool_block: the largest class's node size).
   std::pmr::pool_options options() const noexcept
   {
      std::pmr::pool_options o;
      o.largest_required_pool_block = classes::node_size_of(last_class_);
      o.max_blocks_per_chunk = nodes_per_block_;
      return o;
   }

   //! Effects: gives every pool block back to the core: every block the pools handed out dies
   //!   (checked builds print how many were still in use). Blocks that came from the upstream
   //!   are not tracked: free them as usual.
   //! Throws: std::bad_alloc when memory is out for the new, empty set of pools (then the old
   //!   pools are kept).
   void release()
   {
      detail::private_pool_set_ptr<detail::node_pool> fresh = make_pools();
      pools_ = fresh;
      for (detail::node_pool *&p : by_class_) p = nullptr;
   }

   //! Effects: each pool gives back to the core its blocks that have no node in use.
   //! Returns: the blocks given back. Complexity: O(n log n) for n free nodes.
   std::size_t release_free_blocks() noexcept
   {
      detail::private_pool_set<detail::node_pool>::usage_guard guard(*pools_);
      return pools_->release_free_blocks();
   }

   //! Returns: what the pools hold, all classes together (node_size: the node size when one
   //!   class is in use, else 0). Requests sent upstream are not counted.
   //! Complexity: linear in the classes in use.
   node_pool_statistics statistics() const noexcept { return pools_->statistics(); }

protected:
   //! Returns: a block of `bytes` aligned to `alignment`, from the pool of its class or upstream.
   //! Throws: std::bad_alloc when memory is out (or the upstream throws it), or the alignment is
   //!   not a power of two. Complexity: constant for a pool's.
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      if (BOOST_UNLIKELY((alignment & (alignment - 1)) != 0 || alignment == 0)) detail::throw_bad_alloc();
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->allocate(bytes, alignment);
      detail::node_pool &p = pool(cls);
      detail::private_pool_set<detail::node_pool>::usage_guard guard(*pools_);
      return p.allocate();
   }

   //! Requires: p came from this resource's allocate(bytes, alignment).
   //! Effects: gives p back to its class's pool (a pointer that is not one of its nodes, or a
   //!   double free, is reported: checked builds always), or upstream.
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->deallocate(p, bytes, alignment);
      detail::node_pool *pool = by_class_[cls];
      if (BOOST_UNLIKELY(!pool))
         detail::report_usage_error("ba::unsynchronized_pool_resource: a block is freed into a size class that "
                                    "has allocated nothing (a pointer from elsewhere, or the wrong size)",
                                    p);
      detail::private_pool_set<detail::node_pool>::usage_guard guard(*pools_);
      pool->deallocate(p);
   }

   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

private:
   detail::private_pool_set_ptr<detail::node_pool> make_pools() const
   {
      detail::private_pool_set_ptr<detail::node_pool> set = detail::private_pool_set<detail::node_pool>::make("ba::unsynchronized_pool_resource", nodes_per_block_);
      if (!set) detail::throw_bad_alloc();
      return set;
   }

   detail::node_pool &pool(std::size_t cls)
   {
      if (BOOST_UNLIKELY(!by_class_[cls]))
         by_class_[cls] = &pools_->pool_for(classes::node_size_of(cls), classes::alignment_of(cls));
      return *by_class_[cls];
   }

   std::pmr::memory_resource *const upstream_;
   const std::size_t last_class_;
   const std::size_t nodes_per_block_;
   detail::private_pool_set_ptr<detail::node_pool> pools_;
   detail::node_pool *by_class_[classes::count] = {};   // the pools of pools_, by class
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_UNSYNCHRONIZED_POOL_RESOURCE_HPP
