// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP

// ba::arena_allocator<T>: the standard allocator interface over a ba::arena, for std and ba
// containers whose memory should come from a caller's buffer.

#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <type_traits>

namespace boost { namespace allocplus {

//! A handle to a ba::arena: copies and rebinds share the arena, and two allocators compare equal
//! iff they use the same one. The arena must outlive every container over it. Propagates on
//! copy, move and swap, so a container assigned from another uses the other's arena.
template <class T>
class arena_allocator {
public:
   using value_type = T;
   using size_type = std::size_t;
   using difference_type = std::ptrdiff_t;
   using propagate_on_container_copy_assignment = std::true_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::true_type;
   using is_always_equal = std::false_type;

   template <class U>
   struct rebind {
      using other = arena_allocator<U>;
   };

   //! Effects: an allocator that takes its blocks from `a`.
   explicit arena_allocator(arena &a) noexcept : arena_(&a) {}

   //! Effects: an allocator over the same arena as `other`.
   template <class U>
   arena_allocator(const arena_allocator<U> &other) noexcept : arena_(&other.resource())
   {}

   //! Returns: a block for n objects of T, aligned for T (at least 16).
   //! Throws: std::bad_array_new_length if n * sizeof(T) overflows; std::bad_alloc if the arena
   //!   has no room.
   //! Complexity: as arena::allocate.
   [[nodiscard]] T *allocate(size_type n)
   {
      if (n > max_size()) detail::throw_bad_array_new_length();
      return static_cast<T *>(arena_->allocate(n * sizeof(T), alignof(T)));
   }

   //! Effects: gives block p (from allocate) back to the arena. Complexity: as arena::deallocate.
   void deallocate(T *p, size_type) noexcept { arena_->deallocate(p); }

   //! Returns: the most objects one allocate call could be asked for.
   size_type max_size() const noexcept { return static_cast<size_type>(-1) / 2 / sizeof(T); }

   //! Returns: the arena this allocator takes its blocks from.
   arena &resource() const noexcept { return *arena_; }

   template <class U>
   friend bool operator==(const arena_allocator &a, const arena_allocator<U> &b) noexcept
   {
      return &a.resource() == &b.resource();
   }
   template <class U>
   friend bool operator!=(const arena_allocator &a, const arena_allocator<U> &b) noexcept
   {
      return !(a == b);
   }

private:
   arena *arena_;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP
