// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_UNSYNCHRONIZED_POOL_RESOURCE_BASE_HPP
#define BOOST_ALLOCPLUS_DETAIL_UNSYNCHRONIZED_POOL_RESOURCE_BASE_HPP

// The one implementation of the std::pmr pool resources for one thread at a time, over either
// engine (node_pool: unsynchronized_pool_resource; adaptive_node_pool: its adaptive twin): a set
// of pools of its own, one per size class (pool_resource_classes.hpp), everything else upstream.
// Family names the resource in reports (Family::name) and gives the engine's parameters
// (Family::parameters(nodes_per_block)).

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/pool_resource_classes.hpp>
#include <boost/allocplus/detail/private_pool_set.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <cstdio>
#include <memory_resource>

namespace boost { namespace allocplus { namespace detail {

template <class Pool, class Family>
class unsynchronized_pool_resource_base : public std::pmr::memory_resource {
   using classes = pool_resource_classes;
   using set = private_pool_set<Pool>;

public:
   //! Effects: a resource with no pools yet (each is made on its class's first allocation).
   //! Throws: std::bad_alloc when memory is out.
   unsynchronized_pool_resource_base(const std::pmr::pool_options &options, std::pmr::memory_resource *upstream)
      : upstream_(upstream), last_class_(classes::last_class_for(options)),
        nodes_per_block_(classes::nodes_per_block_for(options)), pools_(make_pools())
   {
   }
   unsynchronized_pool_resource_base()
      : unsynchronized_pool_resource_base(std::pmr::pool_options(), std::pmr::get_default_resource())
   {
   }
   explicit unsynchronized_pool_resource_base(std::pmr::memory_resource *upstream)
      : unsynchronized_pool_resource_base(std::pmr::pool_options(), upstream)
   {
   }
   explicit unsynchronized_pool_resource_base(const std::pmr::pool_options &options)
      : unsynchronized_pool_resource_base(options, std::pmr::get_default_resource())
   {
   }
   unsynchronized_pool_resource_base(const unsynchronized_pool_resource_base &) = delete;
   unsynchronized_pool_resource_base &operator=(const unsynchronized_pool_resource_base &) = delete;

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
      private_pool_set_ptr<Pool> fresh = make_pools();
      pools_ = fresh;
      for (Pool *&p : by_class_) p = nullptr;
   }

   //! Effects: each pool gives back to the core its blocks that have no node in use.
   //! Returns: the blocks given back. Complexity: the engine's (node pools: O(n log n) for n free
   //!   nodes; adaptive pools: linear in the free blocks they keep).
   std::size_t release_free_blocks() noexcept
   {
      typename set::usage_guard guard(*pools_);
      return pools_->release_free_blocks();
   }

   //! Returns: what the pools hold, all classes together (node_size: the node size when one
   //!   class is in use, else 0). Requests sent upstream are not counted.
   //! Complexity: linear in the classes in use.
   typename Pool::statistics_type statistics() const noexcept { return pools_->statistics(); }

protected:
   //! Returns: a block of `bytes` aligned to `alignment`, from the pool of its class or upstream.
   //! Throws: std::bad_alloc when memory is out (or the upstream throws it), or the alignment is
   //!   not a power of two. Complexity: constant for a pool's.
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      check_resource_alignment(alignment);
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->allocate(bytes, alignment);
      typename set::usage_guard guard(*pools_);   // (before the set's pools are looked up or made)
      return pool(cls).allocate();
   }

   //! Requires: p came from this resource's allocate(bytes, alignment).
   //! Effects: gives p back to its class's pool (a pointer that is not one of its nodes, or a
   //!   double free, is reported: checked builds always), or upstream.
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->deallocate(p, bytes, alignment);
      Pool *pool = by_class_[cls];
      if (BOOST_UNLIKELY(!pool)) report_no_class(p);
      typename set::usage_guard guard(*pools_);
      pool->deallocate(p);
   }

   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

private:
   private_pool_set_ptr<Pool> make_pools() const
   {
      private_pool_set_ptr<Pool> pools = set::make(Family::name, Family::parameters(nodes_per_block_));
      if (!pools) throw_bad_alloc();
      return pools;
   }

   Pool &pool(std::size_t cls)
   {
      if (BOOST_UNLIKELY(!by_class_[cls]))
         by_class_[cls] = &pools_->pool_for(classes::node_size_of(cls), classes::alignment_of(cls));
      return *by_class_[cls];
   }

   [[noreturn]] BOOST_NOINLINE static void report_no_class(const void *p) noexcept
   {
      char message[200];
      std::snprintf(message, sizeof message,
                    "%s: a block is freed into a size class that has allocated nothing (a pointer from elsewhere, "
                    "or the wrong size)",
                    Family::name);
      report_usage_error(message, p);
   }

   std::pmr::memory_resource *const upstream_;
   const std::size_t last_class_;
   const std::size_t nodes_per_block_;
   private_pool_set_ptr<Pool> pools_;
   Pool *by_class_[classes::count] = {};   // the pools of pools_, by class
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_UNSYNCHRONIZED_POOL_RESOURCE_BASE_HPP
