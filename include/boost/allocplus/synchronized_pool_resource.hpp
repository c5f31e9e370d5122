// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP
#define BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/pool_resource_classes.hpp>
#include <boost/allocplus/detail/shared_node_pool.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory_resource>
#include <utility>

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
class synchronized_pool_resource : public std::pmr::memory_resource {
   using classes = detail::pool_resource_classes;

public:
   //! Effects: a resource over the shared pools, with options (largest_required_pool_block: the
   //!   largest request served by a pool, rounded up to a class, at most 512) and upstream.
   //! Throws: nothing.
   synchronized_pool_resource(const std::pmr::pool_options &options, std::pmr::memory_resource *upstream) noexcept
      : upstream_(upstream), last_class_(classes::last_class_for(options))
   {
   }
   synchronized_pool_resource() noexcept : synchronized_pool_resource(std::pmr::pool_options(), std::pmr::get_default_resource()) {}
   explicit synchronized_pool_resource(std::pmr::memory_resource *upstream) noexcept
      : synchronized_pool_resource(std::pmr::pool_options(), upstream)
   {
   }
   explicit synchronized_pool_resource(const std::pmr::pool_options &options) noexcept
      : synchronized_pool_resource(options, std::pmr::get_default_resource())
   {
   }
   synchronized_pool_resource(const synchronized_pool_resource &) = delete;
   synchronized_pool_resource &operator=(const synchronized_pool_resource &) = delete;

   //! Returns: the resource what the pools do not serve goes to.
   std::pmr::memory_resource *upstream_resource() const noexcept { return upstream_; }

   //! Returns: the options in use (largest_required_pool_block: the largest class's node size;
   //!   max_blocks_per_chunk: the nodes of a block).
   std::pmr::pool_options options() const noexcept
   {
      std::pmr::pool_options o;
      o.largest_required_pool_block = classes::node_size_of(last_class_);
      o.max_blocks_per_chunk = nodes_per_block;
      return o;
   }

   //! Effects: gives back to the core every block of the shared pools none of whose nodes is in
   //!   use or waiting in a thread's bin. Returns: the blocks given back.
   //! Complexity: O(n log n) for n free nodes.
   std::size_t release_free_blocks() noexcept
   {
      std::size_t released = 0;
      for (std::size_t cls = 0; cls <= last_class_; ++cls)
         if (detail::shared_node_pool *p = pools_[cls].load(std::memory_order_acquire)) released += p->release_free_blocks();
      return released;
   }

   //! Returns: what the shared pools of the classes this resource has used hold, all together
   //!   (every synchronized_pool_resource's nodes of those classes; nodes waiting in threads' bins
   //!   count as in use; node_size: 0). Requests sent upstream are not counted.
   //! Complexity: linear in the classes.
   node_pool_statistics statistics() const noexcept
   {
      node_pool_statistics total;
      for (std::size_t cls = 0; cls <= last_class_; ++cls)
         if (const detail::shared_node_pool *p = pools_[cls].load(std::memory_order_acquire)) {
            const node_pool_statistics s = p->statistics();
            total.blocks += s.blocks;
            total.nodes_in_use += s.nodes_in_use;
            total.free_nodes += s.free_nodes;
            total.bytes_held += s.bytes_held;
         }
      return total;
   }

protected:
   //! Returns: a block of `bytes` aligned to `alignment`, from the pool of its class or upstream.
   //! Throws: std::bad_alloc when memory is out (or the upstream throws it), or the alignment is
   //!   not a power of two. Complexity: constant for a pool's.
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      if (BOOST_UNLIKELY((alignment & (alignment - 1)) != 0 || alignment == 0)) detail::throw_bad_alloc();
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->allocate(bytes, alignment);
      return pool(cls).allocate();
   }

   //! Requires: p came from this resource's allocate(bytes, alignment).
   //! Effects: gives p back to its class's pool (checked builds report a pointer that is not one
   //!   of its nodes, or a double free), or upstream.
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      const std::size_t cls = classes::class_of(bytes, alignment, last_class_);
      if (cls == classes::upstream) return upstream_->deallocate(p, bytes, alignment);
      pool(cls).deallocate(p);
   }

   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

private:
   static constexpr std::size_t nodes_per_block = 256;
   using pool_factory = detail::shared_node_pool &(*)() noexcept;

   template <std::size_t... Class>
   static constexpr std::array<pool_factory, classes::count> make_factories(std::index_sequence<Class...>) noexcept
   {
      return {{&detail::shared_node_pool_for<classes::node_size_of(Class), classes::alignment_of(Class), nodes_per_block,
                                             detail::synchronized_pool_resource_pools>...}};
   }

   // The pool of a class, looked up once per resource (the pools are made on first use: a
   // class no resource uses takes none of the core's per-thread bin classes).
   detail::shared_node_pool &pool(std::size_t cls) noexcept
   {
      detail::shared_node_pool *p = pools_[cls].load(std::memory_order_acquire);
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
   std::atomic<detail::shared_node_pool *> pools_[classes::count] = {};
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_SYNCHRONIZED_POOL_RESOURCE_HPP
