// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_EXPANSION_LIMITED_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_EXPANSION_LIMITED_ALLOCATOR_HPP

// expansion_limited_allocator<T, Allowed>: a version-2 allocator whose in-place expansions are
// exactly the ones in Allowed (expand_fwd, expand_bwd or both) and always possible up to a known
// room, so a test can make a container expand forward only or backward only, deterministically:
//
//   forward_expansion_allocator<T>   a block starts at the beginning of its own slab and grows
//                                    forward into it; never backward
//   backward_expansion_allocator<T>  a block ends at the end of its slab and grows backward into
//                                    it (the start moves down by whole objects); never forward
//
// Each new block of n objects gets a slab of room_factor * n objects (at least min_slab_bytes),
// from an expansion_arena shared by copies and rebinds (the default arena when default-
// constructed). Shrinking in place always succeeds down to the preferred (minimum) size. Blocks
// of bursts are blocks like any other. Not synchronized: one thread at a time.

#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <type_traits>

namespace allocplus_test {

namespace ba = boost::allocplus;

//! The slabs of expansion-limited allocators.
class expansion_arena {
public:
   struct block {
      char *slab;
      std::size_t slab_bytes;
      std::size_t alignment;
      char *start;
      std::size_t bytes;
   };

   explicit expansion_arena(std::size_t room_factor = 4, std::size_t min_slab_bytes = 256)
      : room_factor_(room_factor), min_slab_bytes_(min_slab_bytes)
   {}
   expansion_arena(const expansion_arena &) = delete;
   expansion_arena &operator=(const expansion_arena &) = delete;
   ~expansion_arena()
   {
      for (auto &entry : blocks_) release(entry.second);
   }

   static expansion_arena &default_arena()
   {
      static expansion_arena a;
      return a;
   }

   std::size_t live_blocks() const { return blocks_.size(); }
   //! Frees of pointers the arena did not hand out (or handed out and then moved or freed).
   std::size_t bad_frees() const { return bad_frees_; }

   //! Returns: a block of `bytes` (a multiple of `object`), placed in a new slab at its start
   //!   (forward room), at its end (backward room) or in its middle (both).
   void *allocate(std::size_t bytes, std::size_t object, std::size_t alignment, bool fwd_room, bool bwd_room)
   {
      alignment = std::max(alignment, alignof(std::max_align_t));
      std::size_t slab_bytes = std::max(bytes * room_factor_, min_slab_bytes_);
      slab_bytes = (slab_bytes + alignment - 1) / alignment * alignment;
      char *slab = static_cast<char *>(::operator new(slab_bytes, std::align_val_t(alignment)));
      std::size_t offset = 0;
      if (bwd_room && !fwd_room) offset = slab_bytes - bytes;
      else if (bwd_room && fwd_room) offset = (slab_bytes - bytes) / 2 / object * object;
      // bytes is a multiple of `object`, itself a multiple of the alignment: start stays aligned.
      block b = {slab, slab_bytes, alignment, slab + offset, bytes};
      blocks_[b.start] = b;
      return b.start;
   }

   //! Returns: the block starting at p, or null.
   block *find(const void *p)
   {
      auto it = blocks_.find(p);
      return it == blocks_.end() ? nullptr : &it->second;
   }

   void deallocate(const void *p) noexcept
   {
      auto it = blocks_.find(p);
      if (it == blocks_.end()) {
         ++bad_frees_;
         return;
      }
      release(it->second);
      blocks_.erase(it);
   }

   //! Effects: block b's start moved down to new_start.
   void rekey(const void *old_start, char *new_start)
   {
      auto it = blocks_.find(old_start);
      block b = it->second;
      blocks_.erase(it);
      b.start = new_start;
      blocks_[new_start] = b;
   }

private:
   static void release(block &b) noexcept { ::operator delete(b.slab, std::align_val_t(b.alignment)); }

   std::size_t room_factor_;
   std::size_t min_slab_bytes_;
   std::size_t bad_frees_ = 0;
   std::map<const void *, block> blocks_;
};

template <class T, ba::allocation_type Allowed>
class expansion_limited_allocator {
   static_assert((Allowed & ~(ba::expand_fwd | ba::expand_bwd)) == 0 && Allowed != 0,
                 "Allowed is expand_fwd, expand_bwd or both");

   template <class, ba::allocation_type>
   friend class expansion_limited_allocator;

public:
   using value_type = T;
   using size_type = std::size_t;
   using difference_type = std::ptrdiff_t;
   using version = std::integral_constant<unsigned, 2>;
   using multiallocation_chain = ba::multiallocation_chain<T>;
   using propagate_on_container_copy_assignment = std::true_type;
   using propagate_on_container_move_assignment = std::true_type;
   using propagate_on_container_swap = std::true_type;
   using is_always_equal = std::false_type;

   template <class U>
   struct rebind {
      using other = expansion_limited_allocator<U, Allowed>;
   };

   expansion_limited_allocator() noexcept : arena_(&expansion_arena::default_arena()) {}
   explicit expansion_limited_allocator(expansion_arena &a) noexcept : arena_(&a) {}
   template <class U>
   expansion_limited_allocator(const expansion_limited_allocator<U, Allowed> &other) noexcept : arena_(other.arena_)
   {}

   expansion_arena &arena() const noexcept { return *arena_; }

   [[nodiscard]] T *allocate(size_type n)
   {
      if (n > max_size()) throw std::bad_array_new_length();
      return static_cast<T *>(arena_->allocate(std::max<size_type>(n, 1) * sizeof(T), sizeof(T), alignof(T),
                                               (Allowed & ba::expand_fwd) != 0, (Allowed & ba::expand_bwd) != 0));
   }
   void deallocate(T *p, size_type) noexcept { arena_->deallocate(p); }
   size_type max_size() const noexcept
   {
      return static_cast<size_type>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T) / 8;
   }

   //! allocation_command as ba::allocator's, with only the expansions of Allowed.
   [[nodiscard]] T *allocation_command(ba::allocation_type command, size_type limit, size_type &prefer_in_received_out,
                                       T *&reuse)
   {
      command &= Allowed | ba::allocate_new | ba::nothrow_allocation | ba::zero_memory | ba::shrink_in_place
                 | ba::try_shrink_in_place;
      expansion_arena::block *b = reuse ? arena_->find(reuse) : nullptr;
      const size_type had = b ? b->bytes / sizeof(T) : 0;
      size_type received = 0;
      T *result = nullptr;
      bool in_place = false;
      if (command & (ba::shrink_in_place | ba::try_shrink_in_place)) {
         result = b ? shrink(*b, command, limit, prefer_in_received_out, received) : nullptr;
         in_place = result != nullptr;
      } else {
         const size_type preferred = std::max(prefer_in_received_out, limit);
         const bool expand = b && (command & (ba::expand_fwd | ba::expand_bwd));
         if (expand && (result = expand_to(b, command, preferred)) != nullptr) {
            in_place = true;
         } else if ((command & ba::allocate_new) && preferred <= max_size()) {
            result = fresh(preferred, command);
         } else if (expand && limit < preferred && (result = expand_to(b, command, limit)) != nullptr) {
            in_place = true;
         } else if ((command & ba::allocate_new) && limit < preferred && limit <= max_size()) {
            result = fresh(limit, command);
         }
         if (result) received = size(result);
      }
      prefer_in_received_out = result ? received : had;
      if (!in_place) reuse = nullptr;
      if (!result && !(command & ba::nothrow_allocation)) throw std::bad_alloc();
      return result;
   }

   size_type size(const T *p) const noexcept
   {
      expansion_arena::block *b = arena_->find(p);
      return b ? b->bytes / sizeof(T) : 0;
   }
   [[nodiscard]] T *allocate_one() { return allocate(1); }
   void deallocate_one(T *p) noexcept { deallocate(p, 1); }
   void allocate_individual(size_type n, multiallocation_chain &chain) { allocate_many(1, n, chain); }
   void deallocate_individual(multiallocation_chain &chain) noexcept { deallocate_many(chain); }
   void allocate_many(size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      multiallocation_chain got;
      try {
         for (size_type i = 0; i != n; ++i) got.push_back(allocate(elem_size));
      } catch (...) {
         deallocate_many(got);
         throw;
      }
      splice_front(got, chain);
   }
   void allocate_many(const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      multiallocation_chain got;
      try {
         for (size_type i = 0; i != n; ++i) got.push_back(allocate(elem_sizes[i]));
      } catch (...) {
         deallocate_many(got);
         throw;
      }
      splice_front(got, chain);
   }
   void deallocate_many(multiallocation_chain &chain) noexcept
   {
      while (!chain.empty()) deallocate(chain.pop_front(), 1);
   }

   template <class U>
   friend bool operator==(const expansion_limited_allocator &a, const expansion_limited_allocator<U, Allowed> &b) noexcept
   {
      return &a.arena() == &b.arena();
   }
   template <class U>
   friend bool operator!=(const expansion_limited_allocator &a, const expansion_limited_allocator<U, Allowed> &b) noexcept
   {
      return &a.arena() != &b.arena();
   }

private:
   T *fresh(size_type n, ba::allocation_type command)
   {
      T *p = allocate(n);
      if (command & ba::zero_memory) std::memset(static_cast<void *>(p), 0, std::max<size_type>(n, 1) * sizeof(T));
      return p;
   }

   //! Grows block *b to `want` objects: forward first (into the slab after it), then backward.
   T *expand_to(expansion_arena::block *b, ba::allocation_type command, size_type want)
   {
      const size_type have = b->bytes / sizeof(T);
      if (have >= want) return reinterpret_cast<T *>(b->start);
      const size_type fwd = (command & ba::expand_fwd)
                               ? static_cast<size_type>(b->slab + b->slab_bytes - (b->start + b->bytes)) / sizeof(T)
                               : 0;
      const size_type bwd = (command & ba::expand_bwd) ? static_cast<size_type>(b->start - b->slab) / sizeof(T) : 0;
      char *const old_start = b->start;
      const std::size_t old_bytes = b->bytes;
      if (have + fwd >= want) {
         b->bytes = want * sizeof(T);
      } else if (have + fwd + bwd >= want) {
         const size_type k = want - have - fwd;
         b->bytes = want * sizeof(T);
         char *const new_start = b->start - k * sizeof(T);
         arena_->rekey(old_start, new_start);
         b = arena_->find(new_start);
      } else {
         return nullptr;
      }
      if (command & ba::zero_memory) {
         std::memset(b->start, 0, static_cast<std::size_t>(old_start - b->start));
         std::memset(old_start + old_bytes, 0, static_cast<std::size_t>(b->start + b->bytes - (old_start + old_bytes)));
      }
      return reinterpret_cast<T *>(b->start);
   }

   T *shrink(expansion_arena::block &b, ba::allocation_type command, size_type max_objects, size_type min_objects,
             size_type &received)
   {
      const size_type have = b.bytes / sizeof(T);
      received = std::max<size_type>(min_objects, 1);
      if (min_objects > have || received > max_objects) return nullptr;
      if (command & ba::shrink_in_place) b.bytes = received * sizeof(T);
      return reinterpret_cast<T *>(b.start);
   }

   static void splice_front(multiallocation_chain &got, multiallocation_chain &chain)
   {
      const size_type n = got.size();
      const typename multiallocation_chain::pointer_pair d = got.extract_data();
      chain.incorporate_after(chain.before_begin(), d.first, d.second, n);
   }

   expansion_arena *arena_;
};

template <class T>
using forward_expansion_allocator = expansion_limited_allocator<T, ba::expand_fwd>;
template <class T>
using backward_expansion_allocator = expansion_limited_allocator<T, ba::expand_bwd>;

} // namespace allocplus_test

#endif
