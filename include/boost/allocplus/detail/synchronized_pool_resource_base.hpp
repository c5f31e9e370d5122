// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_SYNCHRONIZED_POOL_RESOURCE_BASE_HPP
#define BOOST_ALLOCPLUS_DETAIL_SYNCHRONIZED_POOL_RESOURCE_BASE_HPP

// The one implementation of the thread-safe std::pmr pool resources, over either engine
// (node_pool: synchronized_pool_resource; adaptive_node_pool: its adaptive twin): the process's
// shared pools of Family (Family::name names them in reports), one per size class
// (pool_resource_classes.hpp), made of SharedParameters (the engine's parameters, the fewest
// nodes a block holds first); everything else upstream.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/pool_resource_classes.hpp>
#include <boost/allocplus/detail/shared_node_pool.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory_resource>
#include <utility>

namespace boost { namespace allocplus { namespace detail {

template <class Pool, class Family, std::size_t... SharedParameters>
class synchronized_pool_resource_base : public std::pmr::memory_resource {
   using classes = pool_resource_classes;
   using shared = shared_pool<Pool>;

public:
   //! Effects: a resource over the shared pools, with options (largest_required_pool_block: the
   //!   largest request served by a pool, rounded up to a class, at most 512) and upstream.
   //! Throws: nothing.
   synchronized_pool_resource_base(const std::pmr::pool_options &options, std::pmr::memory_resource *upstream) noexcept
      : upstream_(upstream), last_class_(classes::last_class_for(options))
   {
   }
   synchronized_pool_resource_base() noexcept
      : synchronized_pool_resource_base(std::pmr::pool_options(), std::pmr::get_default_resource())
   {
   }
   explicit synchronized_pool_resource_base(std::pmr::memory_resource *upstream) noexcept
      : synchronized_pool_resource_base(std::pmr::pool_options(), upstream)
   {
   }
   explicit synchronized_pool_resource_base(const std::pmr::pool_options &options) noexcept
      : synchronized_pool_resource_base(options, std::pmr::get_default_resource())
   {
   }
   synchronized_pool_resource_base(const synchronized_pool_resource_base &) = delete;
   synchronized_pool_resource_base &operator=(const synchronized_pool_resource_base &) = delete;

   //! Returns: the resource what the pools do not serve goes to.
   std::pmr::memory_resource *upstream_resource() const noexcept { return upstream_; }

   //! Returns: the options in use (largest_required_pool_block: the largest class's node size;
   //!   max_blocks_per_chunk: the fewest nodes of a block).
   std::pmr::pool_options options() const noexcept
   {
      std::pmr::pool_options o;
      o.largest_required_pool_block = classes::node_size_of(last_class_);
      o.max_blocks_per_chunk = nodes_per_block;
      return o;
   }

   //! Effects: gives back to the core the free blocks of the shared pools of the classes this
   //!   resource has used (nodes waiting in threads' bins stay). Returns: the blocks given back.
   //! Complexity: the engine's.
   std::size_t release_free_blocks() noexcept
   {
      std::size_t released = 0;
      for (std::size_t cls = 0; cls <= last_class_; ++cls)
         if (shared *p = pools_[cls].load(std::memory_order_acquire)) released += p->release_free_blocks();
      return released;
   }

   //! Returns: what the shared pools of the classes this resource has used hold, all together
   //!   (every such resource's nodes of those classes; nodes waiting in threads' bins count as in
   //!   use; node_size: 0). Requests sent upstream are not counted.
   //! Complexity: linear in the classes.
   typename Pool::statistics_type statistics() const noexcept
   {
      typename Pool::statistics_type total;
      for (std::size_t cls = 0; cls <= last_class_; ++cls)
         if (const shared *p = pools_[cls].load(std::memory_order_acquire)) total.add(p->statistics());
      total.node_size = 0;
      return total;
   }

protected:
   //! Returns: a block of `bytes` aligned to `alignment`, from the pool of its class or upstream.
   //! Throws: std::bad_alloc when memory is out (or the upstream throws it), or the alignment is
   //!   not a power of two. Complexity: constant for a pool's.
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      check_resource_alignment(alignment);
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->allocate(bytes, alignment);
      return pool(cls).allocate();
   }

   //! Requires: p came from this resource's allocate(bytes, alignment).
   //! Effects: gives p back to its class's pool, or upstream. Checked builds report a pointer
   //!   outside the span of the pool's blocks or misaligned (level 1), any pointer that is not one
   //!   of its nodes (level 2), and the double frees the pool's checking level finds.
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->deallocate(p, bytes, alignment);
      pool(cls).deallocate(p);
   }

   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

private:
   static constexpr std::size_t nodes_per_block = std::get<0>(std::array<std::size_t, sizeof...(SharedParameters)>{SharedParameters...});
   using pool_factory = shared &(*)() noexcept;

   template <std::size_t... Class>
   static constexpr std::array<pool_factory, classes::count> make_factories(std::index_sequence<Class...>) noexcept
   {
      return {{&immortal_shared_pool<shared, Family, classes::node_size_of(Class), classes::alignment_of(Class),
                                     SharedParameters...>...}};
   }

   // The pool of a class, looked up once per resource (the pools are made on first use: a
   // class no resource uses takes none of the core's per-thread bin classes).
   shared &pool(std::size_t cls) noexcept
   {
      shared *p = pools_[cls].load(std::memory_order_acquire);
      if (BOOST_UNLIKELY(!p)) {
         static constexpr std::array<pool_factory, classes::count> factories =
            make_factories(std::make_index_sequence<classes::count>());
         p = &factories[cls]();
         pools_[cls].store(p, std::memory_order_release);
      }
      return *p;
   }

   std::pmr::memory_resource *const upstream_;
   const std::size_t last_class_;
   std::atomic<shared *> pools_[classes::count] = {};
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_SYNCHRONIZED_POOL_RESOURCE_BASE_HPP
