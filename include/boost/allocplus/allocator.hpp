// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_ALLOCATOR_HPP

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/core_allocator_base.hpp>   // the implementation, shared with heap_allocator
#include <boost/allocplus/detail/heap_source.hpp>

#include <type_traits>

namespace boost { namespace allocplus {

//! The allocator of arrays over the C core's default heap.
//!
//! Version 1 is a standard allocator (allocate, deallocate, allocate_at_least, max_size).
//! Version 2 adds what boost::container (and ba::vector) use to grow and shrink in place and to
//! allocate in bursts: a nested `version` (value 2), allocation_command (allocate new, expand
//! forward and backward, shrink in place, with limit / preferred / received sizes), size(p),
//! allocate_one / deallocate_one, allocate_individual / deallocate_individual and allocate_many /
//! deallocate_many over `multiallocation_chain`. DisableMask removes commands from every
//! allocation_command (`command &= ~DisableMask`): `allocator<T, 2, expand_fwd | expand_bwd>`
//! only allocates new blocks, still reporting their real size, which is how benchmarks compare
//! like with like. A mask that would remove allocate_new, expand_fwd and expand_bwd together,
//! a mask on a version-1 allocator, and a Version other than 1 or 2 do not compile.
//!
//! Stateless: every instance, of every T, compares equal and can free what another allocated;
//! safe from many threads (the default heap has a lock). T may be incomplete, or void, where
//! the allocator is only named or rebound.
template <class T, unsigned Version = 2, unsigned DisableMask = 0>
class allocator
   : public detail::core_allocator_base<T, detail::default_heap_source, Version, DisableMask> {
   static_assert(Version == 1 || Version == 2, "ba::allocator: Version must be 1 or 2");

public:
   using propagate_on_container_copy_assignment = std::false_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::false_type;
   using is_always_equal = std::true_type;

   template <class U>
   struct rebind {
      using other = allocator<U, Version, DisableMask>;
   };

   allocator() noexcept = default;
   allocator(const allocator &) noexcept = default;
   allocator &operator=(const allocator &) noexcept = default;
   //! Rebinding: a copy for another value type.
   template <class U>
   allocator(const allocator<U, Version, DisableMask> &) noexcept
   {}

   template <class U>
   friend bool operator==(const allocator &, const allocator<U, Version, DisableMask> &) noexcept
   {
      return true;
   }
   template <class U>
   friend bool operator!=(const allocator &, const allocator<U, Version, DisableMask> &) noexcept
   {
      return false;
   }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ALLOCATOR_HPP
