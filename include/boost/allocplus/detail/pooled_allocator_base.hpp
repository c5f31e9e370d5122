// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_POOLED_ALLOCATOR_BASE_HPP
#define BOOST_ALLOCPLUS_DETAIL_POOLED_ALLOCATOR_BASE_HPP

// The one implementation of what the node pool allocators (node_allocator,
// private_node_allocator) share: a count of 1 is a node of the pool, any other count an array of
// the core (ba::allocator's implementation); version 2 adds bursts of nodes and the core's
// allocation_command for arrays, which never hands out a block of a single object (so that
// deallocate(p, 1) always means a node). The allocator itself (Derived) says where nodes come
// from: allocate_node(), deallocate_node(p), and, for checked builds, owns_node(p); a shared one
// (Derived::shared_bursts) also gives its pool (burst_pool()), which takes a burst under one lock,
// a private one takes bursts in allocate_nodes(n, push) and deallocate_nodes(pop).

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/core_allocator_base.hpp>
#include <boost/allocplus/detail/heap_source.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <cstdio>
#include <type_traits>

namespace boost { namespace allocplus { namespace detail {

template <class T, class Derived, unsigned Version>
class pooled_allocator_base : public core_allocator_base<T, default_heap_source, Version, 0> {
   static_assert(Version == 1 || Version == 2, "the node pool allocators have version 1 or 2");
   using base = core_allocator_base<T, default_heap_source, Version, 0>;

public:
   using typename base::size_type;

   //! Returns: a node (n == 1) from the pool, else a block of n objects from the core.
   //! Throws: std::bad_array_new_length when n > max_size(); std::bad_alloc when memory is out.
   //! Complexity: constant.
   [[nodiscard]] T *allocate(size_type n)
   {
      if (BOOST_LIKELY(n == 1)) return static_cast<T *>(derived().allocate_node());
      return base::allocate(n);
   }

   //! Requires: p comes from allocate(n) (or allocate_at_least, count n) of an allocator equal to
   //!   this one. Effects: frees p. Throws: nothing. Checking level 2 reports a node of the
   //!   pool given back as an array (n != 1). Complexity: constant (at level 2, an array given
   //!   back is looked up in the pool's blocks: logarithmic).
   void deallocate(T *p, size_type n) noexcept
   {
      if (BOOST_LIKELY(n == 1)) {
         derived().deallocate_node(p);
      } else {
         check_not_a_node(p);
         base::deallocate(p, n);
      }
   }

   //! Returns: {allocate(1), 1} for n == 1: exactly one node; else the core's block for at least n
   //!   objects and at least 2 (a count of 1 means a node).
   [[nodiscard]] allocation_result<T *> allocate_at_least(size_type n)
   {
      if (n == 1) return {allocate(1), 1};
      return base::allocate_at_least(n < 2 ? 2 : n);
   }

   //! Version 2. Returns: a node from the pool. Throws: std::bad_alloc.
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   [[nodiscard]] T *allocate_one()
   {
      return allocate(1);
   }
   //! Version 2. Effects: gives node p back to the pool.
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void deallocate_one(T *p) noexcept
   {
      deallocate(p, 1);
   }
   //! Version 2. Effects: adds n nodes to `chain`: all of them, or (when memory is out) none.
   //! Throws: std::bad_alloc, with `chain` as it was. Complexity: linear in n.
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void allocate_individual(size_type n, allocplus::multiallocation_chain<T> &chain)
   {
      if (n == 0) return;   // (a private allocator makes no pool for nothing)
      // One lock (shared) or guard (private) for the burst, all or nothing: the pool gives back
      // what it took.
      allocplus::multiallocation_chain<T> got;
      auto push = [&](void *node) { got.push_front(static_cast<T *>(node)); };
      if constexpr (Derived::shared_bursts)
         derived().burst_pool().allocate_burst(n, push);
      else
         derived().allocate_nodes(n, push);
      chain.splice_after(chain.before_begin(), got);
   }
   //! Version 2. Effects: gives every node of `chain` back to the pool; `chain` is left empty.
   //! Complexity: linear in chain.size().
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void deallocate_individual(allocplus::multiallocation_chain<T> &chain) noexcept
   {
      detail::chain_walk pop(chain.extract_data().first);
      if constexpr (Derived::shared_bursts)
         derived().burst_pool().deallocate_burst(pop);
      else
         derived().deallocate_nodes(pop);
   }

   //! Version 2: ba::allocator's allocation_command (arrays, from the core), except that a block
   //!   holds at least 2 objects (deallocate(p, 1) means a node of the pool), and that a node of
   //!   the pool given as `reuse` is never expanded or shrunk: a command that may allocate gets a
   //!   new block (reuse set to null), one that may not fails (the node holds 1 object).
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   [[nodiscard]] T *allocation_command(allocation_type command, size_type limit_size,
                                       size_type &prefer_in_received_out, T *&reuse)
   {
      if (reuse && derived().owns_node(reuse)) {
         const bool shrink = (command & (shrink_in_place | try_shrink_in_place)) != 0;
         if (shrink || !(command & allocate_new)) {
            const size_type fewest = prefer_in_received_out;
            prefer_in_received_out = 1;
            if (shrink && fewest <= 1 && limit_size >= 1) return reuse;   // 1 object: already within
            reuse = nullptr;
            if (command & nothrow_allocation) return nullptr;
            throw_bad_alloc();
         }
         command &= ~static_cast<allocation_type>(expand_fwd | expand_bwd);
         reuse = nullptr;
      }
      if (limit_size < 2) limit_size = 2;
      if (prefer_in_received_out < 2) prefer_in_received_out = 2;
      return base::allocation_command(command, limit_size, prefer_in_received_out, reuse);
   }

   //! Version 2. Returns: the objects block p holds: 1 for a node of the pool.
   //! Complexity: logarithmic in the pool's blocks (the pool is searched first).
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   size_type size(const T *p) const noexcept
   {
      return derived().owns_node(p) ? 1 : base::size(p);
   }

   //! Version 2. Effects: adds n blocks of elem_size objects each at the front of `chain`: nodes
   //!   of the pool when elem_size is 1 (deallocate(p, 1) frees them), else blocks of the core.
   //! Throws: as allocate_individual, or the core's allocate_many. Strong guarantee.
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void allocate_many(size_type elem_size, size_type n, allocplus::multiallocation_chain<T> &chain)
   {
      if (elem_size == 1) allocate_individual(n, chain);
      else base::allocate_many(elem_size, n, chain);
   }
   //! Version 2. Effects: adds n blocks at the front of `chain`, block i holding elem_sizes[i]
   //!   objects (a node of the pool for 1). Throws: as allocate(n). Strong guarantee.
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void allocate_many(const size_type *elem_sizes, size_type n, allocplus::multiallocation_chain<T> &chain)
   {
      size_type nodes = 0;
      for (size_type i = 0; i != n; ++i) nodes += elem_sizes[i] == 1;
      if (nodes == 0) return base::allocate_many(elem_sizes, n, chain);
      allocplus::multiallocation_chain<T> got;
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         for (size_type i = n; i-- != 0;) got.push_front(allocate(elem_sizes[i]));   // block i at place i
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         deallocate_many(got);
         throw;
      }
#endif
      chain.splice_after(chain.before_begin(), got);
   }
   //! Version 2. Effects: frees every block of `chain` (nodes to the pool, the others to the
   //!   core); `chain` is left empty. Complexity: linear in chain.size() (each looked up in the pool).
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void deallocate_many(allocplus::multiallocation_chain<T> &chain) noexcept
   {
      while (!chain.empty()) {
         T *p = chain.pop_front();
         if (derived().owns_node(p)) derived().deallocate_node(p);
         else base::deallocate(p, 0);
      }
   }

protected:
   pooled_allocator_base() = default;

private:
   Derived &derived() noexcept { return static_cast<Derived &>(*this); }
   const Derived &derived() const noexcept { return static_cast<const Derived &>(*this); }

   // Checking level 2: owns_node searches the pool's blocks (logarithmic), so an array given back
   // is looked up there only at level 2.
   void check_not_a_node(const void *p) const noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      if (derived().owns_node(p)) {
         char message[128];
         std::snprintf(message, sizeof message, "%s: a node is given back as an array (deallocate(p, n) with n != 1)",
                       Derived::name);
         report_usage_error(message, p);
      }
#else
      (void)p;
#endif
   }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_POOLED_ALLOCATOR_BASE_HPP
