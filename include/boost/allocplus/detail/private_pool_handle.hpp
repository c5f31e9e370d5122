// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_HANDLE_HPP
#define BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_HANDLE_HPP

// The one implementation of the private pool allocators (private_node_allocator,
// private_adaptive_pool): a handle to a set of pools of one engine (private_pool_set.hpp), with
// the container semantics their docs state. Derived names itself (Derived::name) and the engine's
// parameters (Derived::pool_parameters()); the rest is here.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/node_burst.hpp>
#include <boost/allocplus/detail/pooled_allocator_base.hpp>
#include <boost/allocplus/detail/private_pool_set.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <cstdio>
#include <type_traits>

namespace boost { namespace allocplus { namespace detail {

template <class T, class Derived, class Pool, unsigned Version>
class private_pool_handle : public pooled_allocator_base<T, private_pool_handle<T, Derived, Pool, Version>, Version> {
   using base = pooled_allocator_base<T, private_pool_handle, Version>;
   friend base;
   template <class, class, class, unsigned>
   friend class private_pool_handle;

public:
   using statistics_type = typename Pool::statistics_type;
   using propagate_on_container_copy_assignment = std::false_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::true_type;
   using is_always_equal = std::false_type;

   //! Effects: gives back to the core every block of the pools (of every node size this
   //!   allocator's copies and rebinds used) none of whose nodes is in use.
   //! Returns: the blocks given back.
   std::size_t release_free_blocks() noexcept
   {
      if (!pools_) return 0;
      typename set::usage_guard guard(*pools_);
      return pools_->release_free_blocks();
   }

   //! Returns: what the pools hold, all node sizes together (the pools of every copy and rebind:
   //!   a container's get_allocator() reports the container's nodes); node_size is the node
   //!   size when there is one pool. Zeros before the first allocation.
   //! Complexity: linear in the node sizes.
   statistics_type statistics() const noexcept { return pools_ ? pools_->statistics() : statistics_type{}; }

protected:
   using set = private_pool_set<Pool>;
   static constexpr const char *name = Derived::name;

   private_pool_handle() noexcept = default;
   template <class U, class D>
   private_pool_handle(const private_pool_handle<U, D, Pool, Version> &x) noexcept
      : pools_(x.shared_pools())
   {
   }
   private_pool_handle(const private_pool_handle &x) noexcept : pools_(x.shared_pools()) {}
   private_pool_handle &operator=(const private_pool_handle &x) noexcept
   {
      pools_ = x.shared_pools();
      return *this;
   }

   // Two allocators without pools yet are equal only to themselves: each will make its own.
   template <class H>
   bool shares_pools_with(const H &x) const noexcept
   {
      return pools_.get() == x.pools_.get() && (pools_ || static_cast<const void *>(this) == static_cast<const void *>(&x));
   }

   const set *pools() const noexcept { return pools_.get(); }

private:
   // The nodes (pooled_allocator_base).
   // (The guard is taken before the set's list of pools is read or grown: that is the set's too.)
   void *allocate_node()
   {
      typename set::usage_guard guard(existing_set());
      return pool().allocate();
   }
   void deallocate_node(void *p) noexcept
   {
      if (BOOST_UNLIKELY(!pools_)) report_no_pool(p);
      typename set::usage_guard guard(*pools_);
      existing_pool(p).deallocate(p);
   }
   // A burst made (pooled_allocator_base::allocate_individual): n nodes pushed, taken under one
   // guard from the one pool of T's nodes, found once, block by block (the engine's
   // try_allocate_many). All or nothing: when memory is out, the nodes taken go back and
   // std::bad_alloc is thrown before push is called.
   template <class Push>
   void allocate_nodes(std::size_t n, Push push)
   {
      void *taken;
      {
         typename set::usage_guard guard(existing_set());
         if (BOOST_UNLIKELY(!take_nodes(pool(), n, taken))) throw_bad_alloc();
      }
      push_taken(taken, push);
   }
   // A burst freed (pooled_allocator_base::deallocate_individual): every node of the walk
   // (pop() returns each, then null), under one guard, into the one pool of T's
   // nodes, found once from the first; the engine's deallocate_many finds the block of each run
   // of nodes once.
   void deallocate_nodes(chain_walk pop) noexcept
   {
      void *const first = pop.peek();
      if (first == nullptr) return;
      if (BOOST_UNLIKELY(!pools_)) report_no_pool(first);
      typename set::usage_guard guard(*pools_);
      existing_pool(first).deallocate_many(pop);
   }
   static constexpr bool shared_bursts = false;   // (bursts: allocate_nodes, deallocate_nodes)
   bool owns_node(const void *p) const noexcept
   {
      const Pool *pool = pools_ ? pools_->find(sizeof(T), alignof(T)) : nullptr;
      return pool && pool->owns(p);
   }

   // The pool set, made now if there is none; null when memory is out. (Inline: every
   // std::allocate_shared copies the allocator into its control block; the making is apart.)
   BOOST_FORCEINLINE private_pool_set_ptr<Pool> shared_pools() const noexcept
   {
      if (BOOST_UNLIKELY(!pools_)) make_pools();
      return pools_;
   }
   BOOST_NOINLINE void make_pools() const noexcept { pools_ = set::make(name, Derived::pool_parameters()); }

   // The pool set, made now if there is none. Throws: std::bad_alloc when memory is out.
   set &existing_set()
   {
      if (BOOST_UNLIKELY(!pools_)) {
         make_pools();
         if (!pools_) throw_bad_alloc();
      }
      return *pools_;
   }

   Pool &pool() { return existing_set().pool_for(sizeof(T), alignof(T)); }

   // The pool a node given back belongs to: there must be one.
   Pool &existing_pool(const void *p) const noexcept
   {
      Pool *pool = pools_ ? pools_->find(sizeof(T), alignof(T)) : nullptr;
      if (BOOST_UNLIKELY(!pool)) report_no_pool(p);
      return *pool;
   }

   [[noreturn]] BOOST_NOINLINE static void report_no_pool(const void *p) noexcept
   {
      char message[200];
      std::snprintf(message, sizeof message,
                    "%s: a node is given back to an allocator that has none (a pointer from elsewhere, or an "
                    "allocator copied while memory was out)",
                    name);
      report_usage_error(message, p);
   }

   mutable private_pool_set_ptr<Pool> pools_;
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_HANDLE_HPP
