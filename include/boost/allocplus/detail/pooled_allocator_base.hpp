// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_POOLED_ALLOCATOR_BASE_HPP
#define BOOST_ALLOCPLUS_DETAIL_POOLED_ALLOCATOR_BASE_HPP

// The one implementation of what the node pool allocators (node_allocator,
// private_node_allocator) share: a count of 1 is a node of the pool, any other count an array of
// the core (ba::allocator's implementation); version 2 adds bursts of nodes and the core's
// allocation_command for arrays, which never hands out a block of a single object (so that
// deallocate(p, 1) always means a node). The allocator itself (Derived) says where nodes come
// from: allocate_node(), deallocate_node(p), and, for checked builds, owns_node(p).

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
   //!   this one. Effects: frees p. Throws: nothing. Checked builds report a node of the pool
   //!   given back as an array (n != 1). Complexity: constant.
   void deallocate(T *p, size_type n) noexcept
   {
      if (BOOST_LIKELY(n == 1)) {
         derived().deallocate_node(p);
      } else {
         check_not_a_node(p);
         base::deallocate(p, n);
      }
   }

   //! Returns: {allocate(1), 1} for n == 1: exactly one node; else the core's block for at least n.
   [[nodiscard]] allocation_result<T *> allocate_at_least(size_type n)
   {
      if (n == 1) return {allocate(1), 1};
      return base::allocate_at_least(n);
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
   void allocate_individual(size_type n, typename base::multiallocation_chain &chain)
   {
      typename base::multiallocation_chain got;
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         for (size_type i = 0; i != n; ++i) got.push_back(static_cast<T *>(derived().allocate_node()));
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         deallocate_individual(got);
         throw;
      }
#endif
      chain.splice_after(chain.before_begin(), got);
   }
   //! Version 2. Effects: gives every node of `chain` back to the pool; `chain` is left empty.
   //! Complexity: linear in chain.size().
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   void deallocate_individual(typename base::multiallocation_chain &chain) noexcept
   {
      while (!chain.empty()) derived().deallocate_node(chain.pop_front());
   }

   //! Version 2: ba::allocator's allocation_command (arrays, from the core), except that a block
   //!   holds at least 2 objects: deallocate(p, 1) means a node of the pool.
   //! Requires: `reuse`, when given, comes from allocation_command or allocate(n != 1).
   template <unsigned V = Version, std::enable_if_t<V == 2, int> = 0>
   [[nodiscard]] T *allocation_command(allocation_type command, size_type limit_size,
                                       size_type &prefer_in_received_out, T *&reuse)
   {
      if (limit_size < 2) limit_size = 2;
      if (prefer_in_received_out < 2) prefer_in_received_out = 2;
      if (reuse) check_not_a_node(reuse);
      return base::allocation_command(command, limit_size, prefer_in_received_out, reuse);
   }

protected:
   pooled_allocator_base() = default;

private:
   Derived &derived() noexcept { return static_cast<Derived &>(*this); }
   const Derived &derived() const noexcept { return static_cast<const Derived &>(*this); }

   void check_not_a_node(const void *p) const noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED
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
