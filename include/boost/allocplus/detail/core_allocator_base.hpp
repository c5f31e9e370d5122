// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_CORE_ALLOCATOR_BASE_HPP
#define BOOST_ALLOCPLUS_DETAIL_CORE_ALLOCATOR_BASE_HPP

// The one implementation of the allocators over the C core (ba::allocator and ba::heap_allocator):
// the standard interface (version 1) and the version-2 interface, written against a heap source
// (detail/heap_source.hpp) that says which heap the blocks come from. The allocators themselves
// only add what differs: construction, rebinding, equality and propagation.
//
// Nothing here uses sizeof(T) or alignof(T) outside a function body, so the allocators can be
// named (and rebound) with T incomplete or void.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/config.hpp>

#include <cstddef>
#include <limits>
#include <type_traits>

namespace boost { namespace allocplus { namespace detail {

static_assert(allocate_new == BA_ALLOCATE_NEW && expand_fwd == BA_EXPAND_FWD && expand_bwd == BA_EXPAND_BWD
                 && shrink_in_place == BA_SHRINK_IN_PLACE && nothrow_allocation == BA_NOTHROW_ALLOCATION
                 && zero_memory == BA_ZERO_MEMORY && try_shrink_in_place == BA_TRY_SHRINK_IN_PLACE,
              "allocation_type values must be the C core's");

//! The most objects of T one block can hold: what std::allocator<T>::max_size() says
//! (PTRDIFF_MAX bytes), so that pointer differences within a block never overflow.
template <class T>
constexpr std::size_t max_objects() noexcept
{
   return static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);
}

//! Whether T needs more alignment than every block of the core has.
template <class T>
constexpr bool over_aligned() noexcept
{
   return alignof(T) > BA_MALLOC_ALIGNMENT;
}

//! The standard (version 1) interface over heap source Source.
template <class T, class Source>
class core_allocator_v1 : private Source {
public:
   using value_type = T;
   using pointer = T *;
   using const_pointer = const T *;
   using void_pointer = void *;
   using const_void_pointer = const void *;
   using size_type = std::size_t;
   using difference_type = std::ptrdiff_t;

   //! Returns: a block for n objects of T, aligned to alignof(T).
   //! Throws: std::bad_array_new_length when n > max_size(); std::bad_alloc when memory is out.
   //! Complexity: constant, unless the core searches a tree bin (logarithmic in the bin's size).
   [[nodiscard]] T *allocate(size_type n)
   {
      if (n > max_objects<T>()) throw_bad_array_new_length();
      void *p = allocate_bytes(n * sizeof(T));
      if (!p) throw_bad_alloc();
      return static_cast<T *>(p);
   }

   //! Requires: p comes from this allocator's heap (allocate, allocate_at_least, or any
   //!   version-2 function); n is ignored (the block knows its size).
   //! Effects: frees p. Throws: nothing. Complexity: constant.
   void deallocate(T *p, size_type n) noexcept
   {
      (void)n;
      source().deallocate_bytes(p);
   }

   //! Returns: {a block for at least n objects, the objects it holds}: all of the block is usable,
   //!   and deallocate(ptr, count) frees it.
   //! Throws: as allocate(n).
   [[nodiscard]] allocation_result<T *> allocate_at_least(size_type n)
   {
      if (n > max_objects<T>()) throw_bad_array_new_length();
      if constexpr (!malloc_exposes_whole_blocks) {
         std::size_t received = 0;
         void *p = source().command(allocate_new, sizeof(T), alignof(T), n, n, &received, nullptr).first;
         if (!p) throw_bad_alloc();
         return {static_cast<T *>(p), received};
      }
      void *p = allocate_bytes(n * sizeof(T));
      if (!p) throw_bad_alloc();
      return {static_cast<T *>(p), objects_in(static_cast<T *>(p))};
   }

   //! Returns: the most objects allocate can be asked for (PTRDIFF_MAX / sizeof(T)).
   size_type max_size() const noexcept { return max_objects<T>(); }

protected:
   //! Under ASan the core's malloc exposes the requested bytes only (the rest of the block stays
   //! poisoned), so a size read back from a malloc'd block is the request, not the block: the
   //! paths that report a received size then ask the core's command, which exposes all of it.
   //! Without this a vector under ASan would come back for slack it was never told of.
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   static constexpr bool malloc_exposes_whole_blocks = false;
#else
   static constexpr bool malloc_exposes_whole_blocks = true;
#endif

   core_allocator_v1() = default;
   explicit core_allocator_v1(const Source &s) noexcept : Source(s) {}

   const Source &source() const noexcept { return *this; }

   //! The objects of T block p holds. ba_usable_size takes no lock: the core reads the header
   //! word, and the heap writes the bit a neighbour's free flips, as relaxed atomics.
   std::size_t objects_in(const T *p) const noexcept { return ba_usable_size(p) / sizeof(T); }

   void *allocate_bytes(std::size_t bytes) const noexcept
   {
      if constexpr (over_aligned<T>()) return source().allocate_aligned(alignof(T), bytes);
      else return source().allocate_bytes(bytes);
   }

   //! allocate_bytes for a block the caller means to grow in place (allocation_command).
   void *allocate_growable_bytes(std::size_t bytes) const noexcept
   {
      if constexpr (over_aligned<T>()) return source().allocate_aligned(alignof(T), bytes);
      else return source().allocate_growable_bytes(bytes);
   }
};

//! The whole interface of a version-`Version` allocator over Source, with the commands of
//! DisableMask removed. Version 1: the standard interface only.
template <class T, class Source, unsigned Version, unsigned DisableMask>
class core_allocator_base : public core_allocator_v1<T, Source> {
   static_assert(Version == 1 || Version == 2, "allocplus allocators have version 1 or 2");
   static_assert(Version != 1 || DisableMask == 0, "DisableMask applies to version-2 allocators only");

public:
   using version = std::integral_constant<unsigned, Version>;

protected:
   using core_allocator_v1<T, Source>::core_allocator_v1;
};

//! Version 2: allocation_command, size, node and burst allocation.
template <class T, class Source, unsigned DisableMask>
class core_allocator_base<T, Source, 2, DisableMask> : public core_allocator_v1<T, Source> {
   using base = core_allocator_v1<T, Source>;
   static constexpr allocation_type all_allocating = allocate_new | expand_fwd | expand_bwd;
   static_assert((DisableMask & all_allocating) != all_allocating,
                 "DisableMask may not remove allocate_new, expand_fwd and expand_bwd all together");

public:
   using typename base::size_type;
   using version = std::integral_constant<unsigned, 2>;
   //! (For ba::allocator_traits: this base, where the command with inline growth is.)
   using core_allocator_type = core_allocator_base;
   //! The chain of allocate_individual and allocate_many.
   using multiallocation_chain = allocplus::multiallocation_chain<T>;

   //! Allocates a new block, expands `reuse` in place (forward, backward), or shrinks it in
   //! place, as `command` (less DisableMask) asks; alignof(T) is kept in every case.
   //!
   //! Effects: expanding or allocating (no shrink command): `limit_size` is the fewest objects
   //!   acceptable, `prefer_in_received_out` the number wanted (raised to limit_size if below
   //!   it). Tries in order: expand `reuse` to the preferred size (forward, then backward), a new
   //!   block of the preferred size, expand to the limit, a new block of the limit. A backward
   //!   expansion moves the start down by a multiple of lcm(sizeof(T), alignment); the old objects
   //!   stay where they were, now at a whole-object offset from the new start.
   //!   Shrinking (shrink_in_place, or try_shrink_in_place which only reports): `limit_size` is
   //!   the most objects acceptable, `prefer_in_received_out` the fewest; `reuse` keeps its start.
   //!   On return `prefer_in_received_out` holds the objects the returned block holds (on failure:
   //!   those `reuse` holds, 0 without reuse). `reuse` is left as it was when the returned block
   //!   is `reuse` expanded or shrunk (after a backward expansion the result is below it), and
   //!   set to null otherwise (a new block, or failure), exactly as
   //!   boost::container::allocator<T, 2> does.
   //! Returns: the block (for a backward expansion, its new start), or null on failure with
   //!   nothrow_allocation. zero_memory zeroes what the block gains.
   //! Throws: std::bad_array_new_length when the size that must be reached (limit_size when
   //!   expanding or allocating) exceeds max_size(); std::bad_alloc on any other failure; never
   //!   with nothrow_allocation. Strong guarantee: on failure `reuse`'s block is unchanged.
   //! Complexity: constant, unless the core searches a tree bin (logarithmic in the bin's size).
   //!
   //! (Inlining: a shrink runs inline; growth is one call into the core, the shape of
   //! boost::container::allocator's. ba::vector reaches the growth's short paths inline through
   //! ba::allocator_traits; see command_with_paths.)
   [[nodiscard]] T *allocation_command(allocation_type command, size_type limit_size,
                                       size_type &prefer_in_received_out, T *&reuse)
   {
      return command_with_paths<false>(command, limit_size, prefer_in_received_out, reuse);
   }

private:
   friend struct detail::inline_allocation_command;

   //! deallocate(p, n) for a buffer a container grew (its first block from allocation_command
   //! with an expansion asked for, its growths from expansions and such commands): such blocks come from the
   //! heap itself, and in a process of one thread a block the thread's cache has no room for
   //! goes back there (heap_source.hpp: deallocate_grown_bytes). With both expansions disabled
   //! no command takes such a block: the buffers came as any other, and go back as any other.
   void deallocate_grown(T *p) noexcept
   {
      if constexpr ((DisableMask & (expand_fwd | expand_bwd)) == (expand_fwd | expand_bwd))
         this->source().deallocate_bytes(p);
      else this->source().deallocate_grown_bytes(p);
   }

   //! allocation_command, with the core's short paths (growth into the top of the heap, a
   //! shrink) forced inline when `InlineGrowth`, only the shrink's otherwise. Why two: measured
   //! with GCC 12 (doc/allocator.md, "Why growth through the member is a call"), ba::vector's
   //! growth is faster with the paths inline, and boost::container::vector's is slower: the
   //! paths make Boost's command wrapper too large to inline into its growth function, which GCC
   //! then compiles with a 16-byte store of size and capacity that the next push_back's 8-byte
   //! load of size must wait for (store forwarding).
   template <bool InlineGrowth>
   [[nodiscard]] BOOST_FORCEINLINE T *command_with_paths(allocation_type command, size_type limit_size,
                                                         size_type &prefer_in_received_out, T *&reuse)
   {
      command &= ~static_cast<allocation_type>(DisableMask);
      size_type preferred = prefer_in_received_out;
      if (!(command & (shrink_in_place | try_shrink_in_place))) {
         if (preferred < limit_size) preferred = limit_size;
         if (limit_size > max_objects<T>()) {
            prefer_in_received_out = reuse ? size(reuse) : 0;
            reuse = nullptr;
            if (command & nothrow_allocation) return nullptr;
            throw_bad_array_new_length();
         }
         if (preferred > max_objects<T>()) preferred = max_objects<T>();
      }
      // Without a block to expand (none given, or no expansion asked for), the command is an
      // allocation: the malloc path, shorter than the command's (measured: a tenth of the cost of
      // a small vector's growth). A block the caller means to expand comes from the heap itself,
      // where it can grow into the top, and its old buffers go back there (deallocate_grown),
      // where the next buffer can expand backward into them; a cached block is in use to the
      // heap and would stop both.
      const bool growable = (command & (expand_fwd | expand_bwd)) != 0;
      if (base::malloc_exposes_whole_blocks && (!reuse || !(command & (expand_fwd | expand_bwd)))
          && (command & allocate_new)
          && !(command & (zero_memory | shrink_in_place | try_shrink_in_place))) {
         reuse = nullptr;
         return allocate_new_block(limit_size, preferred, prefer_in_received_out, command & nothrow_allocation, growable);
      }
      std::size_t received = 0;
      const ba_command_ret r =
         InlineGrowth || (command & (shrink_in_place | try_shrink_in_place))
            ? this->source().command_inline(command, sizeof(T), alignof(T), limit_size, preferred, &received, reuse)
            : this->source().command(command, sizeof(T), alignof(T), limit_size, preferred, &received, reuse);
      prefer_in_received_out = received;
      if (!r.second) reuse = nullptr;
      if (!r.first && !(command & nothrow_allocation)) throw_bad_alloc();
      return static_cast<T *>(r.first);
   }

   //! A new block of `preferred` objects, else of `limit` (limit <= preferred <= max_objects),
   //! one that can grow in place if `growable`; `received` gets the objects it holds (0 on
   //! failure). The first try is inline; the second, and the failure, are a call away (a
   //! growth path keeps fewer registers alive: measured, 16 instructions less per new block).
   T *allocate_new_block(size_type limit, size_type preferred, size_type &received, bool nothrow, bool growable)
   {
      void *p = new_block_bytes(preferred, growable);
      if (BOOST_LIKELY(p != nullptr)) {
         received = this->objects_in(static_cast<T *>(p));
         return static_cast<T *>(p);
      }
      return allocate_new_block_short(limit, preferred, received, nothrow, growable);
   }

   void *new_block_bytes(size_type objects, bool growable) const noexcept
   {
      return growable ? this->allocate_growable_bytes(objects * sizeof(T)) : this->allocate_bytes(objects * sizeof(T));
   }

   //! allocate_new_block once a block of `preferred` objects was refused.
   BOOST_NOINLINE T *allocate_new_block_short(size_type limit, size_type preferred, size_type &received, bool nothrow,
                                              bool growable)
   {
      void *p = limit < preferred ? new_block_bytes(limit, growable) : nullptr;
      if (!p) {
         received = 0;
         if (nothrow) return nullptr;
         throw_bad_alloc();
      }
      received = this->objects_in(static_cast<T *>(p));
      return static_cast<T *>(p);
   }

public:
   //! Requires: p is a block of this allocator's heap. Returns: the objects p holds (its usable
   //!   bytes / sizeof(T)): all of them may be used. Complexity: constant (one lock).
   size_type size(const T *p) const noexcept { return this->objects_in(p); }

   //! Returns: a block for one object. Throws: std::bad_alloc. Complexity: as allocate.
   [[nodiscard]] T *allocate_one() { return this->allocate(1); }

   //! Effects: frees a block of allocate_one or allocate_individual. Throws: nothing.
   void deallocate_one(T *p) noexcept { this->deallocate(p, 1); }

   //! Effects: adds n blocks of one object each at the front of `chain`, in one call to the
   //!   core (runs of adjacent blocks of up to 4 KiB; a loop for over-aligned T). Free them one by
   //!   one (deallocate_one) or together (deallocate_individual / deallocate_many).
   //! Throws: std::bad_array_new_length when n > max_size(); std::bad_alloc when memory is out.
   //!   Strong guarantee: `chain` and the heap are as they were.
   //! Complexity: linear in n, under one lock.
   void allocate_individual(size_type n, multiallocation_chain &chain) { allocate_many(1, n, chain); }

   //! Effects: frees every block of `chain` (see deallocate_many).
   void deallocate_individual(multiallocation_chain &chain) noexcept { deallocate_many(chain); }

   //! Effects: adds n blocks of elem_size objects each at the front of `chain`, in one call to the
   //!   core. Each block is an ordinary block: deallocate, size and allocation_command apply.
   //! Throws: std::bad_array_new_length when n or elem_size exceeds max_size(); std::bad_alloc
   //!   when memory is out. Strong guarantee.
   //! Complexity: linear in n, under one lock.
   void allocate_many(size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      if (elem_size > max_objects<T>() || n > max_objects<T>()) throw_bad_array_new_length();
      if constexpr (over_aligned<T>()) {
         allocate_each(n, [elem_size](size_type) { return elem_size; }, chain);
      } else {
         ba_chain got;
         ba_chain_init(&got);
         if (!this->source().burst_nodes(n, elem_size * sizeof(T), &got)) throw_bad_alloc();
         adopt(got, chain);
      }
   }

   //! Effects: adds n blocks at the front of `chain`, block i holding elem_sizes[i] objects (in
   //!   that order), in one call to the core.
   //! Throws: std::bad_array_new_length when an elem_sizes[i] exceeds max_size(); std::bad_alloc
   //!   when memory is out. Strong guarantee.
   //! Complexity: linear in n, under one lock.
   void allocate_many(const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      for (size_type i = 0; i != n; ++i)
         if (elem_sizes[i] > max_objects<T>()) throw_bad_array_new_length();
      if constexpr (over_aligned<T>()) {
         allocate_each(n, [elem_sizes](size_type i) { return elem_sizes[i]; }, chain);
      } else {
         ba_chain got;
         ba_chain_init(&got);
         if (!this->source().burst_arrays(n, elem_sizes, sizeof(T), &got)) throw_bad_alloc();
         adopt(got, chain);
      }
   }

   //! Requires: every block of `chain` comes from this allocator's heap (any of its functions).
   //! Effects: frees them all under one lock, runs of blocks adjacent in memory as one; leaves
   //!   `chain` empty. Throws: nothing. Complexity: linear in chain.size().
   void deallocate_many(multiallocation_chain &chain) noexcept
   {
      ba_chain c;
      c.size = chain.size();
      const typename multiallocation_chain::pointer_pair d = chain.extract_data();
      c.first = d.first;
      c.last = d.second;
      this->source().burst_deallocate(&c);
   }

protected:
   using base::base;

private:
   // O(1): a core chain is already a linked list through the blocks' first words.
   static void adopt(ba_chain &got, multiallocation_chain &chain) noexcept
   {
      chain.incorporate_after(chain.before_begin(), static_cast<T *>(got.first), static_cast<T *>(got.last),
                              got.size);
   }

   template <class SizeOf>
   void allocate_each(size_type n, SizeOf size_of, multiallocation_chain &chain)
   {
      multiallocation_chain got;
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         for (size_type i = 0; i != n; ++i) got.push_back(this->allocate(size_of(i)));
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         deallocate_many(got);
         throw;
      }
#endif
      const typename multiallocation_chain::pointer_pair d = got.extract_data();
      chain.incorporate_after(chain.before_begin(), d.first, d.second, n);
   }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_CORE_ALLOCATOR_BASE_HPP
