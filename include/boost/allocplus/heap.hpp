// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_HEAP_HPP
#define BOOST_ALLOCPLUS_HEAP_HPP

#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/detail/core_allocator_base.hpp>   // the implementation, shared with allocator
#include <boost/allocplus/detail/heap_source.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus {

//! An independent heap of the C core (an "mspace"): its own memory, its own lock, its own
//! statistics, either from the system (mmap) or entirely inside a buffer of the caller's.
//! Destroying it returns all its memory at once, so every block must be dead by then: destroy the
//! containers that use it first.
//!
//! Move-only. heap_allocator<T> instances refer to it (they stay valid when the heap object is
//! moved: they hold the core heap, not the C++ object).
class heap {
public:
   //! The smallest buffer a heap fits in: bytes from the buffer's first address aligned to
   //! BA_MALLOC_ALIGNMENT (the minimum of the core's ba_create_heap_over).
   static constexpr std::size_t min_buffer_size = 4096;

   //! Effects: creates a heap whose memory comes from the system, in segments of at least
   //!   `capacity` bytes of reserved address space (0: the core's default), with a lock unless
   //!   `locked` is false (then one thread at a time may use it).
   //! Throws: std::bad_alloc when the system refuses.
   explicit heap(std::size_t capacity = 0, bool locked = true) : heap_(ba_create_heap(capacity, locked))
   {
      if (!heap_) detail::throw_bad_alloc();
   }

   //! Effects: creates a heap that lives entirely in [buffer, buffer + size) (its bookkeeping
   //!   included) and never asks the system for memory: when the buffer is full, allocations fail
   //!   (std::bad_alloc, or null where nothrow is asked for). The buffer must outlive the heap.
   //! Throws: std::bad_alloc when the buffer is too small (under min_buffer_size, 4096 bytes,
   //!   from its first aligned address) to hold a heap: its what() says so and states the minimum.
   heap(void *buffer, std::size_t size, bool locked = true) : heap_(ba_create_heap_over(buffer, size, locked))
   {
      if (!heap_) detail::throw_buffer_too_small();
   }

   //! Effects: as heap(buffer, sizeof buffer), with a lock, for an array: one below
   //!   min_buffer_size bytes is refused at compile time.
   //! Throws: as heap(buffer, size, locked) (an array of min_buffer_size bytes whose elements
   //!   are less aligned than BA_MALLOC_ALIGNMENT may still be short by its misalignment).
   template <class Byte, std::size_t N, class = std::enable_if_t<!std::is_const<Byte>::value>>
   explicit heap(Byte (&buffer)[N]) : heap(static_cast<void *>(buffer), sizeof buffer)
   {
      static_assert(sizeof(Byte) * N >= min_buffer_size,
                    "ba::heap: a heap over a buffer needs at least 4096 bytes (ba::heap::min_buffer_size); "
                    "this array is smaller");
   }

   heap(heap &&other) noexcept : heap_(std::exchange(other.heap_, nullptr)) {}
   heap &operator=(heap &&other) noexcept
   {
      if (this != &other) {
         release();
         heap_ = std::exchange(other.heap_, nullptr);
      }
      return *this;
   }
   heap(const heap &) = delete;
   heap &operator=(const heap &) = delete;

   //! Effects: gives every segment and huge block back to the system (nothing for a heap over a
   //!   buffer); every block of the heap dies.
   ~heap() { release(); }

   //! Returns: the core heap, for the ba_heap_* functions; null after a move.
   ba_heap *native_handle() const noexcept { return heap_; }

   //! Returns: a block of `bytes` aligned to `alignment` (a power of two).
   //! Throws: std::bad_alloc when memory is out or the alignment is not a power of two.
   [[nodiscard]] void *allocate(std::size_t bytes, std::size_t alignment = BA_MALLOC_ALIGNMENT)
   {
      if (alignment == 0 || (alignment & (alignment - 1)) != 0) detail::throw_bad_alloc();
      void *p = alignment <= BA_MALLOC_ALIGNMENT ? ba_heap_malloc(heap_, bytes)
                                                 : ba_heap_memalign(heap_, alignment, bytes);
      if (!p) detail::throw_bad_alloc();
      return p;
   }

   //! Effects: frees p (null is ignored), which must come from this heap.
   void deallocate(void *p) noexcept { ba_heap_free(heap_, p); }

   //! Returns: the heap's statistics (system bytes, bytes in use, peaks, free chunks...).
   //! Complexity: linear in the heap's chunks (the free figures come from a walk).
   ba_heap_stats stats() const noexcept
   {
      ba_heap_stats s;
      ba_heap_stats_get(heap_, &s);
      return s;
   }

   //! Effects: gives back to the system every free page beyond `pad` bytes of top that it can.
   //! Returns: the bytes released.
   std::size_t trim(std::size_t pad = 0) noexcept { return ba_heap_trim(heap_, pad); }

   //! Returns: whether every invariant of the heap holds (walking every chunk, bin and huge
   //!   block); when not, *report (if given) names the first broken one.
   bool check(ba_check_report *report = nullptr) const noexcept { return ba_heap_check(heap_, report) == 1; }

   //! Effects: the heap's system bytes may not exceed `bytes` from now on (SIZE_MAX: no limit);
   //!   allocations that would need more fail as out of memory. Returns: the previous limit.
   std::size_t set_footprint_limit(std::size_t bytes) noexcept { return ba_heap_set_footprint_limit(heap_, bytes); }

   //! Effects: sets a core option (BA_OPTION_*). Returns: false for an unknown option.
   bool set_option(int option, std::size_t value) noexcept { return ba_heap_set_option(heap_, option, value) == 1; }

private:
   void release() noexcept
   {
      if (heap_) ba_destroy_heap(heap_);
      heap_ = nullptr;
   }

   ba_heap *heap_;
};

//! An allocator of the blocks of one heap: ba::allocator's interface (version 1 or 2, the same
//! allocation_command, bursts and allocate_at_least), over a heap it refers to.
//!
//! A reference: copies and rebinds refer to the same heap and compare equal; allocators of
//! different heaps compare unequal. Like std::pmr's allocators it does not propagate (a
//! container's memory stays in the heap it was built with; copying a container keeps the heap);
//! it is safe from many threads when the heap has a lock.
template <class T, unsigned Version = 2>
class heap_allocator : public detail::core_allocator_base<T, detail::heap_reference_source, Version, 0> {
   static_assert(Version == 1 || Version == 2, "ba::heap_allocator: Version must be 1 or 2");
   using base = detail::core_allocator_base<T, detail::heap_reference_source, Version, 0>;

   template <class, unsigned>
   friend class heap_allocator;

public:
   using propagate_on_container_copy_assignment = std::false_type;
   using propagate_on_container_move_assignment = std::false_type;
   using propagate_on_container_swap = std::false_type;
   using is_always_equal = std::false_type;

   template <class U>
   struct rebind {
      using other = heap_allocator<U, Version>;
   };

   //! Effects: an allocator of the blocks of h.
   explicit heap_allocator(heap &h) noexcept : base(detail::heap_reference_source(h.native_handle())) {}
   //! Effects: an allocator of the blocks of core heap h (ba_default_heap() included).
   explicit heap_allocator(ba_heap *h) noexcept : base(detail::heap_reference_source(h)) {}

   heap_allocator(const heap_allocator &) noexcept = default;
   heap_allocator &operator=(const heap_allocator &) noexcept = default;
   //! Rebinding: an allocator of another value type for the same heap.
   template <class U>
   heap_allocator(const heap_allocator<U, Version> &other) noexcept : base(other.source())
   {}

   //! Returns: the core heap this allocator allocates from.
   ba_heap *native_heap() const noexcept { return this->source().heap(); }

   template <class U>
   friend bool operator==(const heap_allocator &a, const heap_allocator<U, Version> &b) noexcept
   {
      return a.native_heap() == b.native_heap();
   }
   template <class U>
   friend bool operator!=(const heap_allocator &a, const heap_allocator<U, Version> &b) noexcept
   {
      return !(a == b);
   }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_HEAP_HPP
