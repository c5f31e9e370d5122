// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP

// ba::arena_allocator<T>: the standard allocator interface over a ba::arena, for std and ba
// containers whose memory should come from a caller's buffer.

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace boost { namespace allocplus {

//! A handle to a ba::arena: copies and rebinds share the arena, and two allocators compare equal
//! iff they use the same one. The arena must outlive every container over it. Propagates on
//! copy, move and swap, so a container assigned from another uses the other's arena.
//!
//! Version 2: allocation_command grows a block forward in place (at the arena's bump end, into a
//! free block that follows it, or within the block's capacity: arena::try_resize_in_place) and
//! shrinks it in place, so ba::vector grows without copying while its buffer is the arena's last
//! block or is followed by freed memory; bursts (allocate_individual, allocate_many) are loops of
//! single allocations.
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
   using version = std::integral_constant<unsigned, 2>;
   using multiallocation_chain = boost::allocplus::multiallocation_chain<T>;

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

   //! Returns: a block for n objects of T, aligned for T: to 16 at least, but to 8 where the arena
   //!   gives a compact block (alignof(T) <= 8, and n * sizeof(T) at most 256 bytes, as a node's,
   //!   or leaving at most 8 bytes in its last 16: see arena::allocate).
   //! Throws: std::bad_array_new_length if n * sizeof(T) overflows; std::bad_alloc if the arena
   //!   has no room (and, if it grows, its upstream no memory for a region).
   //! Complexity: as arena::allocate.
   [[nodiscard]] T *allocate(size_type n)
   {
      if (n > max_size()) detail::throw_bad_array_new_length();
      return static_cast<T *>(arena_->allocate(n * sizeof(T), alignof(T)));
   }

   //! Effects: gives block p (from allocate) back to the arena. Complexity: as arena::deallocate.
   void deallocate(T *p, size_type) noexcept { arena_->deallocate(p); }

   //! Effects: the version-2 command (see allocation_command.hpp): with expand_fwd, grows `reuse`
   //!   in place to `prefer_in_received_out` objects, else to `limit`; with shrink_in_place, shrinks
   //!   `reuse` in place to at least `prefer_in_received_out` and at most `limit` objects; then, if
   //!   that failed and allocate_new is asked for, a new block of the preferred count, else of
   //!   `limit` (reuse becomes null). expand_bwd is never done; try_shrink_in_place always fails.
   //!   zero_memory zeroes the bytes gained.
   //! Returns: the block, with its count of objects in prefer_in_received_out; null on failure
   //!   with nothrow_allocation.
   //! Throws: std::bad_alloc on failure without nothrow_allocation.
   //! Complexity: as arena::try_resize_in_place, then as arena::allocate.
   [[nodiscard]] T *allocation_command(allocation_type command, size_type limit, size_type &prefer_in_received_out,
                                       T *&reuse)
   {
      const size_type preferred = prefer_in_received_out;
      if (reuse != nullptr && (command & shrink_in_place)) {
         // A shrink that succeeds leaves the block holding what fits in preferred's bytes rounded up
         // to the arena's granule (arena::resized_capacity): when that is over limit the block must
         // not be touched at all, since the caller then keeps using its old size.
         if (preferred <= limit && arena::resized_capacity(reuse, preferred * sizeof(T)) / sizeof(T) <= limit &&
             arena_->try_resize_in_place(reuse, preferred * sizeof(T)) && size(reuse) <= limit) {
            prefer_in_received_out = size(reuse);
            return reuse;
         }
      } else if (reuse != nullptr && (command & expand_fwd)) {
         const size_type before = arena_->capacity(reuse);
         if (limit <= size(reuse)) {
            // Already as large as asked: an expansion never shrinks (the arena's resize would).
            prefer_in_received_out = size(reuse);
            return reuse;
         }
         for (size_type want : {preferred > limit ? preferred : limit, limit}) {
            if (want <= max_size() && arena_->try_resize_in_place(reuse, want * sizeof(T))) {
               zero_gained(command, reuse, before);
               prefer_in_received_out = size(reuse);
               return reuse;
            }
         }
      }
      if (command & allocate_new) {
         for (size_type want : {preferred > limit ? preferred : limit, limit}) {
            if (want > max_size()) continue;
            if (void *p = arena_->try_allocate(want * sizeof(T), alignof(T))) {
               zero_gained(command, static_cast<T *>(p), 0);
               reuse = nullptr;
               prefer_in_received_out = size(static_cast<T *>(p));
               return static_cast<T *>(p);
            }
         }
      }
      if (command & nothrow_allocation) return nullptr;
      detail::throw_bad_alloc();
   }

   //! Returns: the objects block p (from this allocator's arena) can hold.
   size_type size(const T *p) const noexcept { return arena_->capacity(p) / sizeof(T); }

   //! Returns: a block for one object. Throws: std::bad_alloc.
   [[nodiscard]] T *allocate_one() { return allocate(1); }
   //! Effects: frees a block of allocate_one.
   void deallocate_one(T *p) noexcept { arena_->deallocate(p); }

   //! Effects: adds n blocks of one object to `chain`. Throws: std::bad_alloc, `chain` unchanged.
   void allocate_individual(size_type n, multiallocation_chain &chain) { allocate_many(1, n, chain); }
   //! Effects: frees every block of `chain`; leaves it empty.
   void deallocate_individual(multiallocation_chain &chain) noexcept { deallocate_many(chain); }

   //! Effects: adds n blocks of elem_size objects to `chain`.
   //! Throws: std::bad_array_new_length or std::bad_alloc, `chain` unchanged.
   void allocate_many(size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      allocate_blocks(n, chain, [elem_size](size_type) { return elem_size; });
   }
   //! Effects: adds n blocks to `chain`, block i of elem_sizes[i] objects. Throws: as above.
   void allocate_many(const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      allocate_blocks(n, chain, [elem_sizes](size_type i) { return elem_sizes[i]; });
   }
   //! Effects: frees every block of `chain`; leaves it empty.
   void deallocate_many(multiallocation_chain &chain) noexcept
   {
      while (!chain.empty()) arena_->deallocate(chain.pop_front());
   }

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
   // zero_memory: zeroes the bytes of p from bytes_before to its capacity.
   void zero_gained(allocation_type command, T *p, std::size_t bytes_before) const noexcept
   {
      if ((command & zero_memory) && arena_->capacity(p) > bytes_before)
         std::memset(reinterpret_cast<unsigned char *>(p) + bytes_before, 0, arena_->capacity(p) - bytes_before);
   }

   // Pushed to the front, so that on failure the blocks made so far are the first i ones.
   template <class SizeOf>
   void allocate_blocks(size_type n, multiallocation_chain &chain, SizeOf size_of)
   {
      size_type i = 0;
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         for (; i != n; ++i) chain.push_front(allocate(size_of(i)));
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         while (i--) arena_->deallocate(chain.pop_front());
         throw;
      }
#endif
   }

   arena *arena_;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ARENA_ALLOCATOR_HPP
