// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ARENA_HPP
#define BOOST_ALLOCPLUS_ARENA_HPP

// ba::arena: allocation with real frees inside memory the caller owns (a stack array, static
// storage, an mmap). New blocks come off a bump pointer; a freed block goes to a free list of its
// 16-byte size class (up to 16 KiB) or, if larger, to a red-black tree keyed by size (one block of
// each size in the tree, the others of that size in a ring hanging from it), all built in the
// freed memory itself; a freed block that ends at the bump pointer moves the pointer back.
// Given an upstream heap, a full arena chains a new region from it (each twice the last) and bumps
// from there; the free stores span every region, blocks never do.
//
// One arena is not for use from two threads at once (checked builds report two threads inside it).

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/heap.hpp>             // ba::heap, an upstream
#include <boost/allocplus/detail/arena_block.hpp>
#include <boost/allocplus/detail/heap_source.hpp>   // how the arena reaches its upstream
#include <boost/allocplus/detail/single_thread_guard.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>
#include <boost/core/bit.hpp>                  // countr_zero: the slot table's filled lists

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <new>

// A pointer given to deallocate or reallocate is checked in every build, at constant cost.
#define BOOST_ALLOCPLUS_ARENA_CHECK(condition, what, address)                                       \
   (BOOST_LIKELY(condition) ? (void)0 : ::boost::allocplus::detail::report_usage_error(what, address))

namespace boost { namespace allocplus {

//! What an arena holds (ba::arena::statistics). Block bytes include headers and padding.
struct arena_statistics {
   std::size_t buffer_size = 0;          //!< bytes blocks are carved from: the buffer (aligned to 16) and every region
   std::size_t regions = 0;              //!< the buffer (if any) and the regions chained from the upstream
   std::size_t upstream_bytes = 0;       //!< bytes taken from the upstream (regions' records included)
   std::size_t bytes_allocated = 0;      //!< block bytes of the live blocks
   std::size_t bytes_available = 0;      //!< free block bytes plus the room past the bump pointer
   std::size_t bytes_overhead = 0;       //!< of bytes_allocated: headers and alignment padding
   std::size_t largest_free_block = 0;   //!< the largest request (16-byte aligned) sure to succeed without a new region
   std::size_t live_blocks = 0;          //!< blocks handed out and not given back
   std::size_t free_blocks_in_slots = 0; //!< free blocks of 16 KiB or less
   std::size_t free_blocks_in_tree = 0;  //!< free blocks over 16 KiB
};

//! What ba::arena::defragment recovered.
struct arena_defragment_result {
   std::size_t free_blocks_before = 0;         //!< free blocks in the slot table and the tree before
   std::size_t free_blocks_after = 0;          //!< and after (adjacent ones in a region merged, the last one gone to the bump pointer)
   std::size_t bytes_returned_to_bump = 0;     //!< free bytes that ended at the bump pointer, now bump room
   std::size_t largest_free_block_before = 0;  //!< arena_statistics::largest_free_block before
   std::size_t largest_free_block_after = 0;   //!< and after
};

namespace detail {
struct arena_test_access;   // (the tests' way to the header tags: defined by them only)
} // namespace detail

//! A heap over a caller's buffer: bump allocation, per-size-class free lists, a size-keyed tree of
//! large free blocks, in-place reallocation at the bump end. With an upstream heap it grows: a
//! request nothing in the arena can serve chains a new region from the upstream. Neither copyable
//! nor movable (the allocators over it hold its address). Not for use from two threads at once:
//! checked builds report a call from one thread while another is inside the arena.
class arena {
   friend struct detail::arena_test_access;

public:
   //! The alignment of every block unless more is asked for.
   static constexpr std::size_t default_alignment = detail::arena_granule;
   //! Block sizes up to this many bytes (header included) are kept in the slot table when freed.
   static constexpr std::size_t slot_limit = detail::arena_slot_limit;
   //! A block grows in place into a following free block of slot_limit bytes or less only if that
   //! one is among the first this many of its slot list (the most recently freed of its size).
   static constexpr unsigned slot_search_limit = 8;
   //! The smallest region the arena takes from its upstream.
   static constexpr std::size_t min_region_size = 4096;
   //! The first region of an arena with an upstream and no buffer, unless another size is given.
   static constexpr std::size_t default_first_region_size = 64 * 1024;

   //! Effects: an arena over the `size` bytes at `buffer`, from its first 16-byte-aligned address,
   //!   without an upstream: it never grows. The buffer must outlive the arena; the arena writes
   //!   only inside it.
   //! Throws: std::invalid_argument if the buffer holds less than 32 bytes from that address (or
   //!   is null).
   arena(void *buffer, std::size_t size) : arena(buffer, size, static_cast<ba_heap *>(nullptr)) {}

   //! Effects: an arena over the buffer, as arena(buffer, size), that grows from `upstream` (a
   //!   core heap: ba_default_heap() or a ba::heap's native_handle(); null: none). When nothing in
   //!   the arena can serve a request, it takes a region from the upstream (twice the size of the
   //!   last one, at least min_region_size, and at least what the request needs) and bumps from
   //!   there. The regions go back to the upstream on release() and on destruction. The upstream
   //!   must outlive the arena.
   //!   With a null buffer (and an upstream) the arena has no buffer of its own: its first region
   //!   comes from the upstream at the first allocation, `size` bytes (0: default_first_region_size;
   //!   at least min_region_size).
   //! Throws: as arena(buffer, size); with a null buffer, std::invalid_argument only if upstream is
   //!   null too (the arena would have no memory at all).
   arena(void *buffer, std::size_t size, ba_heap *upstream)
      : buffer_(static_cast<unsigned char *>(buffer)), buffer_bytes_(buffer == nullptr ? 0 : size), upstream_(upstream)
   {
      if (buffer == nullptr && upstream != nullptr) {
         first_region_bytes_ = size == 0 ? default_first_region_size : size;
      } else {
         adopt_buffer(buffer, size);
         first_region_bytes_ = 2 * static_cast<std::size_t>(initial_.end - initial_.begin);
      }
      open();
   }

   //! Effects: as arena(buffer, size, upstream.native_handle()).
   arena(void *buffer, std::size_t size, heap &upstream) : arena(buffer, size, upstream.native_handle()) {}

   //! Effects: as arena(nullptr, 0, upstream): an arena without a buffer of its own, whose regions
   //!   (the first one default_first_region_size bytes) come from `upstream`.
   //! Throws: std::invalid_argument if upstream is null.
   explicit arena(ba_heap *upstream) : arena(nullptr, 0, upstream) {}

   //! Effects: as arena(nullptr, 0, upstream.native_handle()).
   explicit arena(heap &upstream) : arena(nullptr, 0, upstream.native_handle()) {}

   arena(const arena &) = delete;
   arena &operator=(const arena &) = delete;

   //! Effects: gives every region back to the upstream and the buffer back to the caller
   //!   (addressable again under ASan). In checked builds an arena destroyed with live blocks (not
   //!   released) reports them through the diagnostic handler: the containers over it would be
   //!   left pointing into a dead arena.
   //! Complexity: linear in the regions.
   ~arena()
   {
      BOOST_ALLOCPLUS_PRECONDITION(live_blocks() == 0, live_blocks_message(), this);
      detail::arena_vg_quiet quiet;
      give_back_regions();
      BOOST_ALLOCPLUS_ARENA_UNPOISON(buffer_, buffer_bytes_);
      detail::arena_vg_destroy(this, buffer_, buffer_bytes_);
   }

   //! Returns: the heap the arena grows from; null if it does not grow.
   ba_heap *upstream() const noexcept { return upstream_.heap(); }

   //! Effects: with an upstream, a request nothing in the arena can serve takes a new region
   //!   from it (the room left in the current region becomes a free block).
   //! Returns: a block of at least `size` bytes aligned to max(alignment, 16); at an alignment of 8
   //!   or less, a size of at most 256 bytes (a node), or a larger one whose last 16 bytes are 8
   //!   or fewer, gets a compact block instead, aligned to 8 (its address 8 mod 16): 16 bytes
   //!   smaller where the size leaves 8 bytes or fewer in its last 16 (24, 40, ...: a node of
   //!   three pointers), as large otherwise, with 8 more bytes to use.
   //! Throws: std::invalid_argument if alignment is not a power of two; std::bad_alloc if the
   //!   arena has no room and the upstream (if any) no memory for a region (the arena is then
   //!   unchanged).
   //! Complexity: constant, except a request that falls to the tree (log of its size) or finds
   //!   neither its slot, nor the tree, nor bump room (a scan of the larger slots, then a region
   //!   from the upstream). A free block outside the current region is checked in the regions'
   //!   set: logarithmic in the number of regions.
   [[nodiscard]] void *allocate(std::size_t size, std::size_t alignment = default_alignment)
   {
      if (!detail::is_power_of_two(alignment))
         detail::throw_invalid_argument("ba::arena::allocate: the alignment must be a power of two");
      void *p = try_allocate(size, alignment);
      if (p == nullptr) detail::throw_bad_alloc();
      return p;
   }

   //! Returns: as allocate, or null where allocate throws.
   [[nodiscard]] void *try_allocate(std::size_t size, std::size_t alignment = default_alignment) noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet(size, alignment);
      if (void *p = try_allocate_small(size, alignment)) return p;
      return allocate_unguarded(size, alignment);
   }

   //! Effects: frees block p of this arena (null: nothing, but in checked builds a use of the
   //!   arena as any other, by the thread that makes it): back to the bump pointer if it ends
   //!   there, else into its slot list or the tree. When p was the last live block of an arena
   //!   that has one region (its buffer, or the one region it grew), the arena is empty again:
   //!   the whole region is bump room, its free lists and tree are emptied.
   //! Checked builds: a pointer this arena did not give out, or one freed already, stops the
   //!   program through the diagnostic handler ("ba::arena::deallocate: ...").
   //! Complexity: constant for blocks up to 16 KiB, logarithmic in the tree's size above; for a
   //!   block outside the current region, plus a lookup of its region (logarithmic in the number
   //!   of regions).
   void deallocate(void *p) noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet(p);
      // (A null p is below every region: try_deallocate_small leaves it to deallocate_unguarded.)
      if (!try_deallocate_small(p)) deallocate_unguarded(p);
   }

   //! Effects: resizes block p (null: allocate(size)) to at least `size` bytes, keeping its
   //!   alignment and its first min(old, new) bytes. In place when try_resize_in_place can;
   //!   otherwise a new block, a copy and a free.
   //! Returns: the block (p itself when in place).
   //! Throws: std::bad_alloc without room, in the arena and (if it grows) in its upstream (block p
   //!   is then unchanged and still owned by the caller).
   [[nodiscard]] void *reallocate(void *p, std::size_t size)
   {
      void *r = try_reallocate(p, size);
      if (r == nullptr) detail::throw_bad_alloc();
      return r;
   }

   //! Returns: as reallocate, or null where reallocate throws (p is then still valid).
   [[nodiscard]] void *try_reallocate(void *p, std::size_t size) noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet(p, size);
      return reallocate_unguarded(p, size);
   }

   //! Effects: resizes block p to hold at least `size` bytes without moving it, if it can: at the
   //!   bump end when there is room; elsewhere when the size needs no more block bytes than p
   //!   has, or when the block after p is free and large enough (with the bump room after it,
   //!   if it ends at the bump pointer): p takes it, and gives back what it does not need when
   //!   that can be a block of its own. A free block of 16 KiB or less is taken only if it is
   //!   among the slot_search_limit most recently freed of its size. Otherwise nothing.
   //! Returns: whether p was resized (capacity(p) then says to how much).
   //! Complexity: constant, except a free block over 16 KiB taken or a cut-off tail filed in the
   //!   tree (logarithmic) and a block outside the current region (a lookup of its region:
   //!   logarithmic in the regions).
   bool try_resize_in_place(void *p, std::size_t size) noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet(p, size);
      return resize_unguarded(p, size);
   }

   //! Returns: the bytes block p can hold (at least what was asked for it).
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t capacity(const void *p) const noexcept
   {
      const live_block b = live_block_of(p);
      return b.size - b.head;
   }

   //! Returns: the bytes block p (a live block of an arena) holds after a try_resize_in_place(p,
   //!   size) that succeeds and cuts the block to what `size` needs (a shrink keeps the block
   //!   whole when its cut-off tail could not be a block of its own). Complexity: constant.
   //!   A size no block can hold gives SIZE_MAX.
   static std::size_t resized_capacity(const void *p, std::size_t size) noexcept
   {
      const std::size_t head = is_compact_pointer(p) ? detail::arena_compact_header_size : detail::arena_header_size;
      if (size > static_cast<std::size_t>(-1) / 2) return static_cast<std::size_t>(-1);
      return block_bytes_after_resize(size, head) - head;
   }

   //! Returns: whether p points into the part of the buffer, or of a region, that the arena has
   //!   handed out.
   //! Complexity: constant inside the current region, else logarithmic in the number of regions.
   bool owns(const void *p) const noexcept
   {
      const unsigned char *c = static_cast<const unsigned char *>(p);
      const detail::arena_region *r = region_of(c);
      return r != nullptr && c >= r->begin + detail::arena_compact_header_size;
   }

   //! Returns: whether p points into the arena's buffer or one of its regions, handed out or not
   //!   (owns, and the room past the bump pointer: where the blocks of an arena emptied or
   //!   released since were). A pointer for which this is true is the arena's to check and free.
   //! Complexity: constant inside the current region, else logarithmic in the number of regions.
   bool contains(const void *p) const noexcept
   {
      const unsigned char *c = static_cast<const unsigned char *>(p);
      if (c >= begin_ && c < end_) return true;
      const detail::arena_region *r = region_from(c);
      return r != nullptr && c < r->end;
   }

   //! Effects: forgets every block, live or free, and gives every region back to the upstream:
   //!   the whole buffer is bump room again. The blocks handed out must not be used afterwards
   //!   (ASan reports it).
   //! Complexity: linear in the regions (in the blocks under valgrind).
   void release() noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet;
#if defined(BA_DETAIL_VALGRIND)
      if (initial_.begin != nullptr) {
         vg_take_back_live_blocks(initial_);
         detail::arena_vg_hide(initial_.begin, static_cast<std::size_t>(initial_.end - initial_.begin));
      }
#endif
      give_back_regions();
      forget_free_blocks();
      full_blocks_ = compact_blocks_ = lead_bytes_ = 0;
      start();
   }

   //! Effects: merges every run of adjacent free blocks of a region into one block (filed again in
   //!   its slot list or the tree), and gives a run that ends at the bump pointer back to it. Runs
   //!   never cross from one region to another; regions stay chained. Live blocks do not move. A
   //!   free block found overwritten stops the program as allocate does.
   //! Returns: what was recovered.
   //! Complexity: linear in the blocks and the regions, plus the tree's insertions (logarithmic
   //!   each).
   arena_defragment_result defragment() noexcept
   {
      detail::single_thread_guard guard(user_, "ba::arena", this);
      detail::arena_vg_quiet quiet;
      arena_defragment_result r;
      const arena_statistics before = statistics();
      r.free_blocks_before = before.free_blocks_in_slots + before.free_blocks_in_tree;
      r.largest_free_block_before = before.largest_free_block;
      forget_free_blocks();
      for (detail::arena_region &region : regions_) {
         unsigned char *const top = top_of(region);
         unsigned char *const run = merge_free_runs(region.begin, top);
         if (run == top) continue;
         if (&region == current_) {
            r.bytes_returned_to_bump = static_cast<std::size_t>(bump_ - run);
            give_back(run, r.bytes_returned_to_bump);
         } else {
            refile(run, static_cast<std::size_t>(top - run));   // no bump pointer to go back to
         }
      }
      const arena_statistics after = statistics();
      r.free_blocks_after = after.free_blocks_in_slots + after.free_blocks_in_tree;
      r.largest_free_block_after = after.largest_free_block;
      return r;
   }

   //! Returns: the free blocks of `block_bytes` bytes (a multiple of 16, header included, at most
   //!   slot_limit) in the slot table; 0 for other sizes.
   std::size_t free_blocks_of_size(std::size_t block_bytes) const noexcept
   {
      if (block_bytes % detail::arena_granule != 0 || block_bytes > slot_limit) return 0;
      return slots_[block_bytes / detail::arena_granule].count;
   }

   //! Returns: the arena's metrics. Complexity: a scan of the slot table (1025 entries) and of
   //!   the regions.
   arena_statistics statistics() const noexcept
   {
      detail::arena_vg_quiet quiet;
      arena_statistics s;
      for (const detail::arena_region &r : regions_) {
         s.buffer_size += static_cast<std::size_t>(r.end - r.begin);
         s.upstream_bytes += r.bytes;
      }
      s.regions = regions_.size();
      s.bytes_allocated = bytes_allocated();
      s.bytes_available = free_bytes() + bump_room();
      s.bytes_overhead = full_blocks_ * detail::arena_header_size + compact_blocks_ * detail::arena_compact_header_size +
                         lead_bytes_;
      s.live_blocks = live_blocks();
      s.free_blocks_in_tree = tree_blocks_;
      std::size_t largest = bump_room();
      for (std::size_t i = 0; i != detail::arena_slot_count; ++i) {
         s.free_blocks_in_slots += slots_[i].count;
         if (slots_[i].count != 0 && i * detail::arena_granule > largest) largest = i * detail::arena_granule;
      }
      if (!tree_.empty() && tree_.rbegin()->header.size > largest) largest = tree_.rbegin()->header.size;
      s.largest_free_block = largest < detail::arena_min_block ? 0 : largest - detail::arena_header_size;
      return s;
   }

   //! Returns: whether the arena's blocks are consistent: the regions are disjoint and the
   //!   current one among them; a walk of each region from its start steps exactly onto its top
   //!   (the bump pointer for the current one), finds live blocks and free blocks as counted, and
   //!   every free block is in its slot list or the tree. For tests. Complexity: linear in the
   //!   blocks and the regions.
   bool verify() const noexcept
   {
      detail::arena_vg_quiet quiet;
      walk_totals totals;
      const unsigned char *previous_end = nullptr;
      for (const detail::arena_region &r : regions_) {
         if (r.begin < previous_end || top_of(r) < r.begin || top_of(r) > r.end || !walk_region(r, totals))
            return false;
         previous_end = r.end;
      }
      if (bump_ < begin_ || bump_ > end_ || (begin_ != nullptr && regions_.find(*current_) == regions_.end()))
         return false;
      const std::size_t live = totals.live, compact = totals.compact, walked_free = totals.free_bytes,
                        allocated = totals.allocated;
      std::size_t listed = 0;
      if (!slot_lists_sound(listed)) return false;
      std::size_t in_tree = 0;
      for (const detail::arena_tree_block &t : tree_) {
         if (!tree_node_sound(tree_value_traits::to_node_ptr(const_cast<detail::arena_tree_block &>(t))) ||
             !ring_sound(t, listed, in_tree))
            return false;
      }
      return in_tree == tree_blocks_ && live == live_blocks() && compact == compact_blocks_ &&
             allocated == bytes_allocated() && walked_free == free_bytes() && listed == walked_free;
   }

private:
   // A live block as its user pointer finds it: where it starts, its size, the bytes before the
   // user pointer (its header, and its lead if any), its alignment, whether it is compact.
   struct live_block {
      unsigned char *start;
      std::size_t size;
      std::size_t head;
      std::uint16_t align_log2;
      bool compact;
   };

   struct walk_totals {
      std::size_t live = 0, compact = 0, free_bytes = 0, allocated = 0;
   };

   // verify's walk of the slot lists (their blocks are poisoned): adds their bytes to `listed`.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool slot_lists_sound(std::size_t &listed) const noexcept
   {
      for (std::size_t i = 0; i != detail::arena_slot_count; ++i) {
         std::size_t n = 0;
         for (const detail::arena_slot_block *b = slot_head(i); b != nullptr;
              b = static_cast<const detail::arena_slot_block *>(ba_detail_link_load(&b->link))) {
            if (!slot_block_sound(b, i)) return false;
            ++n;
            listed += b->header.size;
         }
         if (n != slots_[i].count || (n != 0 && !slot_list_marked(i))) return false;
      }
      return true;
   }

   // The set operations, in functions ASan instruments. A NO_ASAN function (one that reads
   // poisoned headers) must not call Boost.Intrusive itself: the set code is instrumented and
   // would write its iterators into the NO_ASAN frame, whose stack marks ASan never resets, and
   // a mark left there by an earlier frame reads as a use after scope. Not inlined into a NO_ASAN
   // caller (the sanitizer attributes differ); inlined as usual in other builds.
   void tree_insert(detail::arena_tree_block &t) noexcept { tree_.insert(t); }
   void tree_erase(detail::arena_tree_block &t) noexcept { tree_.erase(tree_.iterator_to(t)); }
   void region_insert(detail::arena_region &r) noexcept { regions_.insert(r); }
   void tree_replace(detail::arena_tree_block &old, detail::arena_tree_block &now) noexcept
   {
      tree_.replace_node(tree_.iterator_to(old), now);
   }
   static void ring_init(detail::arena_ring_links *l) noexcept { detail::arena_ring::init_header(l); }
   static void ring_link_after(detail::arena_ring_links *at, detail::arena_ring_links *l) noexcept
   {
      detail::arena_ring::link_after(at, l);
   }
   static void ring_unlink(detail::arena_ring_links *l) noexcept { detail::arena_ring::unlink(l); }
   // The links after l in its ring, read unchecked under ASan as the reads of the functions that
   // call it (circular_links::next_links is instrumented, and clang does not inline it into them).
   BOOST_ALLOCPLUS_CORE_NO_ASAN static detail::arena_ring_links *ring_next(const detail::arena_ring_links *l) noexcept
   {
      return static_cast<detail::arena_ring_links *>(l->next);
   }

   // verify's walk of the ring of tree block t (t included): every block sound and linked both
   // ways; their bytes added to `listed`, their number to `counted`.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool ring_sound(const detail::arena_tree_block &t, std::size_t &listed,
                                                std::size_t &counted) const noexcept
   {
      const detail::arena_ring_links *const first = &t.same_size;
      const detail::arena_ring_links *l = first;
      do {
         if (counted++ > tree_blocks_ || !ring_links_sound(l, t.header.size)) return false;
         if (l != first && detail::tree_block_of(const_cast<detail::arena_ring_links *>(l))->header.align_log2 != detail::arena_in_ring)
            return false;   // only the tree's block is in the tree
         listed += t.header.size;
         l = ring_next(l);
      } while (l != first);
      return true;
   }

   // verify's walk of one region: every header sound, the last block ending at the region's top.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool walk_region(const detail::arena_region &r, walk_totals &totals) const noexcept
   {
      const unsigned char *const top = top_of(r);
      for (const unsigned char *b = r.begin; b != top;) {
         if (!block_start_sound(b, top)) return false;
         const std::size_t size = block_size_at(b);
         if (is_live(b)) {
            ++totals.live;
            if (is_compact_at(b)) ++totals.compact;
            totals.allocated += size;
         } else {
            totals.free_bytes += size;
         }
         b += size;
      }
      return true;
   }

   // ---- regions: the caller's buffer and the ones chained from the upstream ----

   // The caller's buffer as the first region.
   void adopt_buffer(void *buffer, std::size_t size)
   {
      const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(buffer);
      const std::uintptr_t first = detail::align_up(raw, detail::arena_granule);
      if (buffer == nullptr || first - raw > size || (size - (first - raw)) < detail::arena_min_block)
         detail::throw_invalid_argument("ba::arena: the buffer must hold at least 32 bytes from its first "
                                        "16-byte-aligned address");
      initial_.begin = reinterpret_cast<unsigned char *>(first);
      initial_.end = initial_.begin + (size - (first - raw)) / detail::arena_granule * detail::arena_granule;
      regions_.insert(initial_);
   }

   // The constructors' common end.
   void open() noexcept
   {
      key_ = make_key();
      if (first_region_bytes_ < min_region_size) first_region_bytes_ = min_region_size;
      start();
      detail::arena_vg_create(this, initial_.begin, bump_room());
   }

   // The arena as constructed (and after release()): the buffer's region current (an empty one
   // without a buffer), its whole room past the bump pointer.
   void start() noexcept
   {
      current_ = &initial_;
      begin_ = bump_ = initial_.begin;
      end_ = initial_.end;
      next_region_bytes_ = first_region_bytes_;
      BOOST_ALLOCPLUS_ARENA_POISON(begin_, bump_room());
   }

   // Where the walks of region r stop: the bump pointer while r is current.
   unsigned char *top_of(const detail::arena_region &r) const noexcept { return &r == current_ ? bump_ : r.top; }

   // The region whose blocks [begin, top) hold c, or null: constant when it is the current
   // region, else a lookup in the regions' set (logarithmic).
   const detail::arena_region *region_of(const unsigned char *c) const noexcept
   {
      if (c >= begin_ && c < bump_) return current_;
      return region_elsewhere_of(c);
   }

   // region_of for an address outside the current region's blocks (out of line, so that
   // region_of, on the allocation fast path, stays small enough to be inlined).
   BOOST_NOINLINE const detail::arena_region *region_elsewhere_of(const unsigned char *c) const noexcept
   {
      const detail::arena_region *r = region_from(c);
      return r != nullptr && c < top_of(*r) ? r : nullptr;
   }

   // The region that begins last at or below c, or null: the one whose memory holds c if any.
   // Logarithmic in the regions.
   const detail::arena_region *region_from(const unsigned char *c) const noexcept
   {
      auto it = regions_.upper_bound(c, detail::arena_region_address_less());
      if (it == regions_.begin()) return nullptr;
      --it;
      return c >= it->begin ? &*it : nullptr;
   }

   // The bytes from b to the top of its region; 0 when b is in none.
   std::size_t bytes_to_top(const unsigned char *b) const noexcept
   {
      const detail::arena_region *r = region_of(b);
      return r == nullptr ? 0 : static_cast<std::size_t>(top_of(*r) - b);
   }

   // A region big enough for a block of `need` bytes, chained from the upstream and made current;
   // the block is taken from its bump pointer. Null without an upstream, or when it has not even
   // what the block needs (the arena is then unchanged).
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_from_new_region(std::size_t need) noexcept
   {
      // The record, and a granule in case the upstream aligns less than the arena.
      constexpr std::size_t overhead = detail::arena_region_record_bytes + detail::arena_granule;
      if (upstream_.heap() == nullptr || need > static_cast<std::size_t>(-1) / 4) return nullptr;
      const std::size_t least = need + overhead;
      std::size_t bytes = least > next_region_bytes_ ? least : next_region_bytes_;
      void *memory = upstream_.allocate_bytes(bytes);
      if (memory == nullptr && bytes != least) memory = upstream_.allocate_bytes(bytes = least);
      if (memory == nullptr) return nullptr;
      retire_current_region();
      open_region(memory, bytes);
      if (next_region_bytes_ <= static_cast<std::size_t>(-1) / 4) next_region_bytes_ *= 2;
      return take_from_bump(need);
   }

   // The current region stops growing: the room past its bump pointer becomes a free block (when
   // it can hold one; 16 bytes cannot) and its walks stop there from now on.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void retire_current_region() noexcept
   {
      unsigned char *const rest = bump_;
      const std::size_t room = bump_room();
      if (room >= detail::arena_min_block) {
         bump_ = end_;   // first: the block must lie in its region when the tree checks its path
         file_free(rest, room);
      }
      current_->top = bump_;
   }

   // The `bytes` at `memory` (from the upstream) as the current region: its record first.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void open_region(void *memory, std::size_t bytes) noexcept
   {
      detail::arena_region *r = ::new (memory) detail::arena_region();
      unsigned char *const raw = static_cast<unsigned char *>(memory);
      r->bytes = bytes;
      r->begin = reinterpret_cast<unsigned char *>(
         detail::align_up(reinterpret_cast<std::uintptr_t>(raw + detail::arena_region_record_bytes), detail::arena_granule));
      r->end = r->begin + static_cast<std::size_t>(raw + bytes - r->begin) / detail::arena_granule * detail::arena_granule;
      region_insert(*r);
      current_ = r;
      begin_ = bump_ = r->begin;
      end_ = r->end;
      BOOST_ALLOCPLUS_ARENA_POISON(begin_, bump_room());
      detail::arena_vg_add_region(this, begin_, bump_room());
   }

   // Every region from the upstream goes back to it; the set keeps only the caller's buffer.
   void give_back_regions() noexcept
   {
      regions_.clear_and_dispose([this](detail::arena_region *r) {
         if (r != &initial_) give_back_region(*r);
      });
      if (initial_.begin != nullptr) regions_.insert(initial_);
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN void give_back_region(detail::arena_region &r) noexcept
   {
      const std::size_t span = static_cast<std::size_t>(r.end - r.begin);
#if defined(BA_DETAIL_VALGRIND)
      vg_take_back_live_blocks(r);
#endif
      BOOST_ALLOCPLUS_ARENA_UNPOISON(r.begin, span);   // as the upstream handed it out
      detail::arena_vg_remove_region(this, r.begin, span);
      upstream_.deallocate_bytes(&r);
   }

#if defined(BA_DETAIL_VALGRIND)
   // memcheck forgets the blocks still live in region r (they die with it).
   BOOST_ALLOCPLUS_CORE_NO_ASAN void vg_take_back_live_blocks(const detail::arena_region &r) const noexcept
   {
      for (unsigned char *b = r.begin; b != top_of(r); b += block_size_at(b)) {
         if (!is_live(b)) continue;
         const detail::arena_header *h = reinterpret_cast<detail::arena_header *>(b);
         detail::arena_vg_take_back(b + (is_compact_at(b) ? detail::arena_compact_header_size
                                                            : h->lead + detail::arena_header_size));
      }
   }
#endif

   static constexpr std::uint16_t max_align_log2 = 30;   // the largest alignment an arena gives: 1 GiB

   // Whether `size` bytes at `alignment` get a compact block (its header one word): at 8-byte
   // alignment or less, a node (at most arena_compact_node_limit bytes: the block is as large
   // as with a full header or smaller, and its free is shorter: 67 instructions a std::map
   // node's, against 86 with a full header), or a larger size that leaves at most 8 bytes in
   // its last granule, so that the word saves a granule (a larger size that fills its last
   // granule keeps the 16-byte alignment). (A size whose block would not fit the header word's
   // 48 bits gets a full header.)
   static constexpr bool compact_request(std::size_t size, std::size_t alignment) noexcept
   {
      return detail::is_power_of_two(alignment) && alignment <= detail::arena_compact_alignment && size != 0 &&
             (size <= detail::arena_compact_node_limit ||
              (size - 1) % detail::arena_granule < detail::arena_granule - detail::arena_compact_header_size) &&
             size < detail::arena_compact_size_mask - 2 * detail::arena_granule;
   }

   // The block bytes for `size` user bytes at `alignment`: header, worst-case lead, rounding; and
   // whether the block is compact (compact_request). False for a non-power-of-two alignment or a
   // size no buffer could hold. A size of 0 counts as 1: the user pointer must lie inside its
   // block, or a block of 0 bytes at a large alignment could end where its pointer is.
   // (NO_ASAN: its callers are, and an instrumented function must not write into their frames:
   // see tree_insert.)
   BOOST_ALLOCPLUS_CORE_NO_ASAN static bool block_bytes_for(std::size_t size, std::size_t alignment, std::size_t &need,
                                                            bool &compact) noexcept
   {
      compact = compact_request(size, alignment);
      if (!compact) return full_block_bytes_for(size, alignment, need);
      need = compact_block_bytes(size);
      return true;
   }

   // block_bytes_for a request that is not compact.
   BOOST_ALLOCPLUS_CORE_NO_ASAN static bool full_block_bytes_for(std::size_t size, std::size_t alignment,
                                                                 std::size_t &need) noexcept
   {
      if (!detail::is_power_of_two(alignment)) return false;
      if (alignment < default_alignment) alignment = default_alignment;
      const std::size_t extra = detail::arena_header_size + (alignment - default_alignment) + detail::arena_granule;
      if (size > static_cast<std::size_t>(-1) - extra || alignment > (std::size_t(1) << max_align_log2)) return false;
      if (size == 0) size = 1;
      need = (size + detail::arena_header_size + (alignment - default_alignment) + detail::arena_granule - 1) /
             detail::arena_granule * detail::arena_granule;
      if (need < detail::arena_min_block) need = detail::arena_min_block;
      return true;
   }

   // block_bytes_for a compact request (its size checked).
   static constexpr std::size_t compact_block_bytes(std::size_t size) noexcept
   {
      const std::size_t need = (size + detail::arena_compact_header_size + detail::arena_granule - 1) /
                               detail::arena_granule * detail::arena_granule;
      return need < detail::arena_min_block ? detail::arena_min_block : need;
   }

   // The bytes of a block whose user bytes start `head` bytes after it (its header and lead) cut
   // to hold `size` (block_bytes_for checked it): a size of 0 counts as 1, as there.
   static std::size_t block_bytes_after_resize(std::size_t size, std::size_t head) noexcept
   {
      if (size == 0) size = 1;
      const std::size_t need = (size + head + detail::arena_granule - 1) / detail::arena_granule * detail::arena_granule;
      return need < detail::arena_min_block ? detail::arena_min_block : need;
   }

   std::size_t bump_room() const noexcept { return static_cast<std::size_t>(end_ - bump_); }

   // The live blocks' bytes: every region's blocks but the free ones. Derived, not counted, so
   // that an allocation and a free update no byte count.
   std::size_t bytes_allocated() const noexcept
   {
      std::size_t in_blocks = 0;
      for (const detail::arena_region &r : regions_) in_blocks += static_cast<std::size_t>(top_of(r) - r.begin);
      return in_blocks - free_bytes();
   }

   // The free blocks' bytes: the tree's, counted, and the slot lists', derived from their counts
   // (each list's blocks are of one size), so that the free and the allocation of a small block
   // update no byte count. Complexity: the lists that had a block since the table was last
   // emptied (slots_filled_).
   std::size_t free_bytes() const noexcept
   {
      std::size_t bytes = tree_free_bytes_;
      for (std::size_t w = 0; w != slot_words; ++w) {
         for (std::size_t bits = slots_filled_[w]; bits != 0; bits &= bits - 1) {
            const std::size_t index = w * word_bits + static_cast<std::size_t>(boost::core::countr_zero(bits));
            bytes += slots_[index].count * index * detail::arena_granule;
         }
      }
      return bytes;
   }

   // The live blocks, of either header.
   std::size_t live_blocks() const noexcept { return full_blocks_ + compact_blocks_; }

   // The slot list of `index` in slots_filled_: its bit in word index / word_bits.
   static std::size_t slot_bit(std::size_t index) noexcept { return std::size_t(1) << (index % word_bits); }
   bool slot_list_marked(std::size_t index) const noexcept { return (slots_filled_[index / word_bits] & slot_bit(index)) != 0; }

   detail::arena_slot_block *slot_head(std::size_t index) const noexcept
   {
      return reinterpret_cast<detail::arena_slot_block *>(slots_[index].head);
   }

   // A free block of exactly `need` bytes (split from a larger one if need be), or null.
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_block(std::size_t need) noexcept
   {
      if (need <= slot_limit) {
         if (unsigned char *b = take_from_slot_or_bump(need)) return b;
         if (unsigned char *b = take_from_tree(need)) return b;
         return take_from_larger_slot(need);
      }
      if (unsigned char *b = take_from_tree(need)) return b;
      return take_from_bump(need);
   }

   // A block of `need` (at most slot_limit) bytes from its slot list, else from the bump room:
   // the places a small request looks first, and all the allocation fast path looks at.
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_from_slot_or_bump(std::size_t need) noexcept
   {
      if (unsigned char *b = pop_slot(need / detail::arena_granule)) return b;
      return take_from_bump(need);
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_from_bump(std::size_t need) noexcept
   {
      if (need > bump_room()) return nullptr;
      unsigned char *b = bump_;
      bump_ += need;
      detail::arena_vg_expose(b, detail::arena_header_size);
      reinterpret_cast<detail::arena_header *>(b)->size = need;
      return b;
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *pop_slot(std::size_t index) noexcept
   {
      if (slots_[index].head == 0) return nullptr;
      detail::arena_slot_block *b = slot_head(index);
      if (BOOST_UNLIKELY(!slot_block_sound(b, index))) report_corrupted(b);
      void *next = ba_detail_link_load(&b->link);
      if (BOOST_UNLIKELY(next != nullptr && !block_in_arena(next))) report_corrupted(b);
      slots_[index].head = reinterpret_cast<std::size_t>(next);
      --slots_[index].count;
      return reinterpret_cast<unsigned char *>(b);
   }

   // The tree's block of the smallest size that fits, or another block of its ring (the tree then
   // left as it is).
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_from_tree(std::size_t need) noexcept
   {
      const tree_node found = checked_lower_bound(need);
      if (found == nullptr) return nullptr;
      detail::arena_tree_block *t = tree_value_traits::to_value_ptr(found);
      const std::size_t size = t->header.size;
      if (ring_next(&t->same_size) != &t->same_size) {
         detail::arena_ring_links *other = ring_next(&t->same_size);
         if (BOOST_UNLIKELY(other->prev != &t->same_size)) report_corrupted(t);
         check_ring_unlink(other, size, t);
         ring_unlink(other);
         t = detail::tree_block_of(other);
      } else {
         check_successor_path(found);
         check_rebalance_neighbourhood(found);
         tree_erase(*t);
      }
      --tree_blocks_;
      tree_free_bytes_ -= size;
      return split(reinterpret_cast<unsigned char *>(t), size, need);
   }

   // The last resort for a small request: the smallest larger slot class with a block.
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *take_from_larger_slot(std::size_t need) noexcept
   {
      for (std::size_t i = need / detail::arena_granule + 1; i != detail::arena_slot_count; ++i)
         if (unsigned char *b = pop_slot(i)) return split(b, i * detail::arena_granule, need);
      return nullptr;
   }

   // Keeps `need` bytes of the free block b of `size` bytes; the rest goes back to the free stores
   // when it can hold a block of its own, else stays with b (the caller sees it as capacity).
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *split(unsigned char *b, std::size_t size, std::size_t need) noexcept
   {
      reinterpret_cast<detail::arena_header *>(b)->size = split_size(b, size, need);
      return b;
   }

   // split's choice, the remainder filed: the size the block at b keeps of its `size` bytes.
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t split_size(unsigned char *b, std::size_t size, std::size_t need) noexcept
   {
      if (size - need < detail::arena_min_block) return size;
      file_free(b + need, size - need);
      return need;
   }

   // Makes the free block at `start` live for the caller: headers written and hidden, user bytes
   // addressable.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void *hand_out(unsigned char *start, std::size_t alignment) noexcept
   {
#if defined(__GNUC__)
      // Blocks start at granule multiples (every place a start comes from is one, and links and
      // leads read back are checked to be): at the default alignment the user bytes follow the
      // header, and its two copies are one store.
      start = static_cast<unsigned char *>(__builtin_assume_aligned(start, detail::arena_granule));
#endif
      // At least `need`: split() leaves a remainder too small to keep with the block.
      const std::size_t size = reinterpret_cast<detail::arena_header *>(start)->size;
      const std::uintptr_t user =
         detail::align_up(reinterpret_cast<std::uintptr_t>(start) + detail::arena_header_size, alignment);
      const std::uint32_t lead =
         static_cast<std::uint32_t>(user - detail::arena_header_size - reinterpret_cast<std::uintptr_t>(start));
      const auto align_log2 = static_cast<std::uint16_t>(detail::log2_of_power_of_two(alignment));
      const detail::arena_header header{size, lead, align_log2, live_tag(start, size, align_log2)};
      detail::arena_vg_expose(header_of(reinterpret_cast<void *>(user)), detail::arena_header_size);
      *reinterpret_cast<detail::arena_header *>(start) = header;
      *header_of(reinterpret_cast<void *>(user)) = header;
      if (lead != 0) detail::arena_vg_hide(start, detail::arena_header_size);   // (the arena's alone)
      ++full_blocks_;
      if (lead != 0) lead_bytes_ += lead;   // (0 where the fast path inlines this)
      BOOST_ALLOCPLUS_ARENA_POISON(start, user - reinterpret_cast<std::uintptr_t>(start));
      BOOST_ALLOCPLUS_ARENA_UNPOISON(reinterpret_cast<void *>(user),
                                     size - lead - detail::arena_header_size);
      detail::arena_vg_hand_out(reinterpret_cast<void *>(user), size - lead - detail::arena_header_size);
      return reinterpret_cast<void *>(user);
   }

   // hand_out for a compact block (compact_request): its header word written and hidden, the
   // user bytes from the next word on addressable.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void *hand_out_compact(unsigned char *start) noexcept
   {
      const std::size_t size = reinterpret_cast<detail::arena_header *>(start)->size;
      unsigned char *const user = start + detail::arena_compact_header_size;
      detail::arena_vg_expose(start, detail::arena_compact_header_size);
      *reinterpret_cast<std::uintptr_t *>(start) = compact_word(start, size);
      ++compact_blocks_;
      BOOST_ALLOCPLUS_ARENA_POISON(start, detail::arena_compact_header_size);
      BOOST_ALLOCPLUS_ARENA_UNPOISON(user, size - detail::arena_compact_header_size);
      detail::arena_vg_hand_out(user, size - detail::arena_compact_header_size);
      return user;
   }

   // The free block at `start`: back to the bump pointer if it ends there, else to a free store.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void give_back(unsigned char *start, std::size_t size) noexcept
   {
      if (start + size == bump_)
         move_bump_to(start);
      else
         file_free(start, size);
   }

   // Files the free block at `start` in its slot list or the tree, and hides it from the program.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void file_free(unsigned char *start, std::size_t size) noexcept
   {
      if (size <= slot_limit)
         push_slot(start, size);
      else
         file_in_tree(start, size);
   }

   // The free block at `start` (at most slot_limit bytes) at the head of its slot list.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void push_slot(unsigned char *start, std::size_t size) noexcept
   {
      detail::arena_slot_block *b = reinterpret_cast<detail::arena_slot_block *>(start);
      b->header = detail::arena_header{size, 0, 0, detail::arena_free};
      const std::size_t index = size / detail::arena_granule;
      detail::arena_slot_block *const head = slot_head(index);
      ba_detail_link_store(&b->link, head);
      b->check = check_word(b, size);
      slots_[index].head = reinterpret_cast<std::size_t>(b);
      ++slots_[index].count;
      // A list with a block has its bit (only forget_free_blocks clears bits, and it empties
      // their lists): a free onto one saves the read, modify and write of the word.
      if (head == nullptr) slots_filled_[index / word_bits] |= slot_bit(index);
      BOOST_ALLOCPLUS_ARENA_POISON(start, size);
      detail::arena_vg_hide(b, sizeof *b);   // (the header was a live one's: addressable)
   }

   // The free block at `start` (over slot_limit bytes) in the tree, or in the ring of the tree's
   // block of its size. Out of line, so that file_free stays small where it is inlined.
   BOOST_NOINLINE BOOST_ALLOCPLUS_CORE_NO_ASAN void file_in_tree(unsigned char *start, std::size_t size) noexcept
   {
      tree_free_bytes_ += size;
      BOOST_ALLOCPLUS_ARENA_UNPOISON(start, detail::arena_tree_node_bytes);
      detail::arena_vg_hide(start, detail::arena_header_size);   // (as push_slot)
      detail::arena_tree_block *t = ::new (static_cast<void *>(start)) detail::arena_tree_block();
      t->header = detail::arena_header{size, 0, 0, detail::arena_free};
      // The lower bound's walk checks every node on the path an insert of this size takes.
      const tree_node same = checked_lower_bound(size);
      if (same != nullptr && tree_value_traits::to_value_ptr(same)->header.size == size) {
         detail::arena_ring_links *at = &tree_value_traits::to_value_ptr(same)->same_size;
         check_ring_link_after(at, size);
         t->header.align_log2 = detail::arena_in_ring;
         t->check = tree_check_word(t, size, detail::arena_in_ring);
         ring_link_after(at, &t->same_size);
      } else {
         t->header.align_log2 = detail::arena_in_tree;
         t->check = tree_check_word(t, size, detail::arena_in_tree);
         ring_init(&t->same_size);
         tree_insert(*t);
      }
      ++tree_blocks_;
      BOOST_ALLOCPLUS_ARENA_POISON(start + detail::arena_tree_node_bytes, size - detail::arena_tree_node_bytes);
   }

   // Empties the slot table and the tree (the blocks stay where they are, marked free).
   void forget_free_blocks() noexcept
   {
      for (std::size_t w = 0; w != slot_words; ++w) {
         for (std::size_t bits = slots_filled_[w]; bits != 0; bits &= bits - 1)
            slots_[w * word_bits + static_cast<std::size_t>(boost::core::countr_zero(bits))] = detail::arena_slot_list();
         slots_filled_[w] = 0;
      }
      tree_.clear();
      tree_blocks_ = 0;
      tree_free_bytes_ = 0;
   }

   // Merges every run of adjacent free blocks in [begin, top) (a region's blocks) but a run that
   // ends at top, which is left to the caller. Returns: that run's first block, or top.
   BOOST_ALLOCPLUS_CORE_NO_ASAN unsigned char *merge_free_runs(unsigned char *begin, unsigned char *top) noexcept
   {
      unsigned char *run = nullptr;   // the first free block of the run being walked, if any
      for (unsigned char *b = begin; b != top;) {
         const std::size_t size = checked_walk_step(b, top);
         if (is_free_at(b)) {
            if (run == nullptr)
               run = b;
            else
               retire_free_header(b, size);   // inside the run's block from now on
         } else if (run != nullptr) {
            refile(run, static_cast<std::size_t>(b - run));
            run = nullptr;
         }
         b += size;
      }
      return run == nullptr ? top : run;
   }

   // The size of the block at b, checked before a walk (which stops at `top`) steps over it: a
   // header that cannot be the arena's, or a free block whose check word does not match, is
   // reported, never followed.
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t checked_walk_step(unsigned char *b, const unsigned char *top) const noexcept
   {
      const detail::arena_header *h = reinterpret_cast<const detail::arena_header *>(b);
      const std::size_t size = block_size_at(b);
      bool sound = size >= detail::arena_min_block && size % detail::arena_granule == 0 &&
                   size <= static_cast<std::size_t>(top - b);
      if (sound && is_free_at(b)) {
         if (size <= slot_limit) {
            sound = reinterpret_cast<const detail::arena_slot_block *>(b)->check == check_word(b, size);
         } else {
            const std::uint16_t place = h->align_log2;
            sound = place <= detail::arena_in_ring &&
                    reinterpret_cast<const detail::arena_tree_block *>(b)->check == tree_check_word(b, size, place);
         }
      } else if (!is_live(b)) {
         sound = false;
      }
      if (BOOST_UNLIKELY(!sound)) report_corrupted(b);
      return size;
   }

   // The run of free blocks at `start` (`size` bytes) filed again as one block.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void refile(unsigned char *start, std::size_t size) noexcept
   {
      detail::arena_vg_hide(start, size);   // the old blocks' links inside the run are nobody's now
      file_free(start, size);
   }

   // Live block b (user pointer p) resized to hold `size` user bytes without moving, if it can
   // be: at the bump end when there is room; elsewhere when it does not grow (the cut tail freed
   // if worth keeping), or when it grows into the free block after it (and past that, into the
   // bump room). Its header (or both) rewritten for the new size; a compact block stays compact.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool resize_in_place(void *p, const live_block &b, std::size_t size) noexcept
   {
      unsigned char *const start = b.start;
      const std::size_t old = b.size;
      const std::size_t need = block_bytes_after_resize(size, b.head);   // the lead is known now: no worst case
      if (b.compact && need > detail::arena_compact_size_mask) return false;   // the word cannot say it
      const std::size_t user_before = old - b.head;
      std::size_t kept;
      if (start + old == bump_) {
         if (need > old && need - old > bump_room()) return false;
         kept = need;
         detail::arena_vg_resize(p, user_before, kept - b.head);
         move_bump_to(start + need);
      } else if (need <= old) {
         // A cut-off tail is kept with the block unless it can be a free block of its own.
         kept = old - need >= detail::arena_min_block ? need : old;
         // (memcheck first: the tail must be outside the block before its free header is written)
         detail::arena_vg_resize(p, user_before, kept - b.head);
         if (kept != old) file_free(start + need, old - need);
      } else {
         kept = grow_into_next_block(start, old, need);
         if (kept == 0) return false;
         detail::arena_vg_resize(p, user_before, kept - b.head);
      }
      if (b.compact) {
         *reinterpret_cast<std::uintptr_t *>(start) = compact_word(start, kept);
      } else {
         detail::arena_header *h = header_of(p);
         h->size = kept;
         h->state = live_tag(start, kept, h->align_log2);
         reinterpret_cast<detail::arena_header *>(start)->size = kept;
         reinterpret_cast<detail::arena_header *>(start)->state = h->state;
      }
      BOOST_ALLOCPLUS_ARENA_UNPOISON(p, kept - b.head);
      return true;
   }

   // The bump pointer moved to `to` (a live block at the bump end resized): what it gives back is
   // hidden from the program; what it takes, the caller makes addressable.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void move_bump_to(unsigned char *to) noexcept
   {
      if (to < bump_) {
         BOOST_ALLOCPLUS_ARENA_POISON(to, static_cast<std::size_t>(bump_ - to));
         detail::arena_vg_hide(to, static_cast<std::size_t>(bump_ - to));
      }
      bump_ = to;
   }

   // The live block at `start` (`old` bytes, not at the bump end) grown to `need` bytes by taking
   // the free block that follows it: all of it, a remainder split off when it can be a block of its
   // own; if that free block ends at the bump pointer, the bump room after it counts too.
   // Returns: the block's new size; 0 if the next block is live, too small, or a small block not
   // among the first slot_search_limit of its slot list (the list is singly linked: a block deeper
   // in it cannot be unlinked at constant cost, and stays).
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t grow_into_next_block(unsigned char *start, std::size_t old, std::size_t need) noexcept
   {
      unsigned char *const next = start + old;
      const unsigned char *const top = top_of(*region_of(start));
      if (next == top) return 0;
      const std::size_t next_size = checked_walk_step(next, top);   // a forged header is reported
      if (!is_free_at(next)) return 0;
      const bool bump_follows = next + next_size == bump_;
      const std::size_t reach = old + next_size + (bump_follows ? bump_room() : 0);
      if (reach < need || !unlink_free_block(next, next_size)) return 0;
      retire_free_header(next, next_size);
      if (bump_follows) {
         move_bump_to(start + need);
         return need;
      }
      return split_size(start, old + next_size, need);
   }

   // A free block taken out of its store to become part of another block: its header stops saying
   // "free" (a link forged to it must not find a sound free block inside a live one), and memcheck
   // stops seeing the words the arena kept in it.
   BOOST_ALLOCPLUS_CORE_NO_ASAN static void retire_free_header(unsigned char *b, std::size_t size) noexcept
   {
      reinterpret_cast<detail::arena_header *>(b)->state = 0;
      detail::arena_vg_hide(b, size <= slot_limit ? sizeof(detail::arena_slot_block) : detail::arena_tree_node_bytes);
   }

   // Takes the free block at b (`size` bytes, filed in a slot list or the tree) out of its store,
   // checking what it walks and unlinks as allocate does. False if it is a slot block not among
   // the first slot_search_limit of its list.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool unlink_free_block(unsigned char *b, std::size_t size) noexcept
   {
      if (size > slot_limit) {
         unlink_tree_block(*reinterpret_cast<detail::arena_tree_block *>(b));
         tree_free_bytes_ -= size;
         return true;
      }
      const std::size_t index = size / detail::arena_granule;
      detail::arena_slot_block *before = nullptr;
      detail::arena_slot_block *x = slot_head(index);
      for (unsigned step = 0; x != nullptr && step != slot_search_limit; ++step) {
         if (BOOST_UNLIKELY(!slot_block_sound(x, index))) report_corrupted(x);
         void *after = ba_detail_link_load(&x->link);
         if (BOOST_UNLIKELY(after != nullptr && !block_in_arena(after))) report_corrupted(x);
         if (reinterpret_cast<unsigned char *>(x) == b) {
            if (before == nullptr)
               slots_[index].head = reinterpret_cast<std::size_t>(after);
            else
               ba_detail_link_store(&before->link, after);   // its check word covers its address and size only
            --slots_[index].count;
            return true;
         }
         before = x;
         x = static_cast<detail::arena_slot_block *>(after);
      }
      return false;
   }

   // Takes tree block t (checked by the caller's walk step) out of its ring, or out of the tree:
   // the next block of its ring, if any, takes its place there.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void unlink_tree_block(detail::arena_tree_block &t) noexcept
   {
      const std::size_t size = t.header.size;
      --tree_blocks_;
      if (t.header.align_log2 == detail::arena_in_ring) {
         check_ring_unlink(&t.same_size, size, &t);
         ring_unlink(&t.same_size);
         return;
      }
      const tree_node x = tree_value_traits::to_node_ptr(t);
      if (ring_next(&t.same_size) == &t.same_size) {
         check_successor_path(x);
         check_rebalance_neighbourhood(x);
         tree_erase(t);
         return;
      }
      check_tree_node(x);   // its parent and children are rewritten to point to the heir
      check_ring_unlink(&t.same_size, size, &t);
      detail::arena_tree_block *heir = detail::tree_block_of(ring_next(&t.same_size));
      heir->header.align_log2 = detail::arena_in_tree;
      heir->check = tree_check_word(heir, size, detail::arena_in_tree);
      tree_replace(t, *heir);
      ring_unlink(&t.same_size);
   }

   // ---- hardening: free blocks are checked before they are handed out, unlinked or rebalanced
   // around (a forged link or header is reported, never followed; constant work per block, every
   // build) ----

   using tree_value_traits = detail::arena_tree::value_traits;
   using tree_node_traits = detail::arena_tree::node_traits;
   using tree_node = tree_node_traits::node_ptr;

   // The per-arena key of check words: this arena's address, mixed with the process's secret where
   // the core is header-only (a value written into freed memory cannot be chosen to match it
   // without reading the process's memory). Taken once: the secret may be made later.
   std::uintptr_t make_key() const noexcept
   {
      std::uintptr_t k = ~reinterpret_cast<std::uintptr_t>(this) * static_cast<std::uintptr_t>(0x9e3779b97f4a7c15ull);
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      (void)ba_default_heap();   // the core's set-up makes the secret (an arena may come first)
      k ^= __atomic_load_n(&ba_core_v1_state.cache_secret, __ATOMIC_RELAXED);
#endif
      return k;
   }

   std::uintptr_t check_word(const void *block, std::size_t size) const noexcept
   {
      return reinterpret_cast<std::uintptr_t>(block) ^ (size * static_cast<std::uintptr_t>(0xc2b2ae3d27d4eb4full)) ^ key_;
   }

   // A tree block's: its place (the tree, or a ring) mixed in.
   std::uintptr_t tree_check_word(const void *block, std::size_t size, std::uint16_t place) const noexcept
   {
      return check_word(block, size) ^ (place * static_cast<std::uintptr_t>(0x9fb21c651e98df25ull));
   }

   // Whether `block`, read from freed memory, can be a block start: aligned, in the handed-out part
   // of a region.
   bool block_in_arena(const void *block) const noexcept
   {
      return ba_detail_link_valid(block, detail::arena_granule - 1) &&
             region_of(static_cast<const unsigned char *>(block)) != nullptr;
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN bool slot_block_sound(const detail::arena_slot_block *b, std::size_t index) const noexcept
   {
      return b->header.state == detail::arena_free && b->header.size == index * detail::arena_granule &&
             b->check == check_word(b, b->header.size);
   }

   static const unsigned char *block_of(tree_node x) noexcept
   {
      return reinterpret_cast<const unsigned char *>(tree_value_traits::to_value_ptr(x));
   }
   tree_node tree_header() const noexcept { return const_cast<detail::arena_tree &>(tree_).end().pointed_node(); }

   // Whether x, read from a tree link, names a node in the arena (read before anything else of it).
   bool tree_node_in_arena(tree_node x) const noexcept
   {
      const unsigned char *b = block_of(x);
      return ba_detail_link_valid(b, detail::arena_granule - 1) && bytes_to_top(b) > detail::arena_slot_limit;
   }

   // Whether tree node x is a free block of this arena (check word) linked as glibc checks on
   // unlink: its parent points back to it, its children's parents are it.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool tree_node_sound(tree_node x) const noexcept
   {
      if (!tree_node_in_arena(x)) return false;
      const detail::arena_tree_block *t = tree_value_traits::to_value_ptr(x);
      if (t->header.state != detail::arena_free || t->header.size <= slot_limit ||
          t->header.size > bytes_to_top(block_of(x)) || t->header.align_log2 != detail::arena_in_tree ||
          t->check != tree_check_word(t, t->header.size, detail::arena_in_tree))
         return false;
      const tree_node header = tree_header();
      const tree_node parent = tree_node_traits::get_parent(x);
      if (parent == header) {
         if (tree_node_traits::get_parent(header) != x) return false;
      } else if (!tree_node_in_arena(parent) ||
                 (tree_node_traits::get_left(parent) != x && tree_node_traits::get_right(parent) != x)) {
         return false;
      }
      return child_sound(tree_node_traits::get_left(x), x) && child_sound(tree_node_traits::get_right(x), x);
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN bool child_sound(tree_node child, tree_node x) const noexcept
   {
      return child == nullptr || (tree_node_in_arena(child) && tree_node_traits::get_parent(child) == x);
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN void check_tree_node(tree_node x) const noexcept
   {
      if (BOOST_UNLIKELY(!tree_node_sound(x))) report_corrupted(block_of(x));
   }

   // The tree's lower_bound, every node on the way checked: the nodes an erase rebalances around
   // are these and their children.
   BOOST_ALLOCPLUS_CORE_NO_ASAN tree_node checked_lower_bound(std::size_t need) const noexcept
   {
      tree_node best = nullptr;
      unsigned depth = 0;
      for (tree_node x = tree_node_traits::get_parent(tree_header()); x != nullptr;) {
         check_tree_node(x);
         check_depth(++depth, x);
         if (tree_value_traits::to_value_ptr(x)->header.size < need) {
            x = tree_node_traits::get_right(x);
         } else {
            best = x;
            x = tree_node_traits::get_left(x);
         }
      }
      return best;
   }

   // An erase of x with two children moves its successor (the leftmost of its right subtree) up.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void check_successor_path(tree_node x) const noexcept
   {
      unsigned depth = 0;
      for (x = tree_node_traits::get_right(x); x != nullptr; x = tree_node_traits::get_left(x)) {
         check_tree_node(x);
         check_depth(++depth, x);
      }
   }

   // A red-black tree of blocks in an address space of 64 bits is never deeper than 2 * 64: a
   // walk that goes further follows a cycle forged into free memory.
   static void check_depth(unsigned depth, tree_node x) noexcept
   {
      if (BOOST_UNLIKELY(depth > tree_depth_limit)) report_corrupted(block_of(x));
   }
   static constexpr unsigned tree_depth_limit = 2 * 64;

   // An erase rebalances from the place a node leaves (x's, or its successor's when x has two
   // children) up to the root, rotating around the siblings of the nodes on the way and moving
   // the siblings' children: every node on the way and every sibling is checked, and a sibling's
   // check covers its children (in the arena, pointing back). A tree deeper than a red-black tree
   // of the arena's blocks can be (a cycle forged into free memory) is corruption too.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void check_rebalance_neighbourhood(tree_node x) const noexcept
   {
      tree_node y = x;
      if (tree_node_traits::get_left(x) != nullptr && tree_node_traits::get_right(x) != nullptr) {
         unsigned descent = 0;
         for (y = tree_node_traits::get_right(x); tree_node_traits::get_left(y) != nullptr;) {
            check_depth(++descent, x);
            y = tree_node_traits::get_left(y);
         }
      }
      const tree_node header = tree_header();
      for (unsigned depth = 0;; ++depth) {
         check_depth(depth, x);
         check_tree_node(y);
         const tree_node parent = tree_node_traits::get_parent(y);
         if (parent == header) return;
         const tree_node sibling = tree_node_traits::get_left(parent) == y ? tree_node_traits::get_right(parent)
                                                                           : tree_node_traits::get_left(parent);
         if (sibling != nullptr) check_tree_node(sibling);
         y = parent;
      }
   }

   // Whether links l, read from a ring of blocks of `size` bytes, are a free tree block of this
   // arena of that size, in the tree or in a ring (its check word for that place). Read before
   // anything else of it: the links are in the arena.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool ring_member_sound(const detail::arena_ring_links *l, std::size_t size) const noexcept
   {
      const detail::arena_tree_block *t = detail::tree_block_of(const_cast<detail::arena_ring_links *>(l));
      if (!ba_detail_link_valid(t, detail::arena_granule - 1) || bytes_to_top(reinterpret_cast<const unsigned char *>(t)) < size)
         return false;
      const std::uint16_t place = t->header.align_log2;
      return t->header.state == detail::arena_free && t->header.size == size && place <= detail::arena_in_ring &&
             t->check == tree_check_word(t, size, place);
   }

   // ring_member_sound, and linked both ways with its neighbours (as glibc checks on unlink).
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool ring_links_sound(const detail::arena_ring_links *l, std::size_t size) const noexcept
   {
      if (!ring_member_sound(l, size)) return false;
      const detail::arena_ring_links *next = ring_next(l), *prev = l->prev;
      return ring_member_sound(next, size) && ring_member_sound(prev, size) && next->prev == l &&
             ring_next(prev) == l;
   }

   // Before l leaves its ring: it and its neighbours, whose links the unlink rewrites. Reported
   // at `via`, the block whose link led to l (l's own when it was found another way).
   BOOST_ALLOCPLUS_CORE_NO_ASAN void check_ring_unlink(const detail::arena_ring_links *l, std::size_t size,
                                                       const void *via) const noexcept
   {
      if (BOOST_UNLIKELY(!ring_links_sound(l, size))) report_corrupted(via);
   }

   // Before a block joins the ring after `at` (the tree's block of its size): `at` and its next,
   // whose links the link rewrites.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void check_ring_link_after(const detail::arena_ring_links *at, std::size_t size) const noexcept
   {
      const detail::arena_ring_links *next = ring_next(at);
      if (BOOST_UNLIKELY(!ring_member_sound(next, size) || next->prev != at))
         report_corrupted(detail::tree_block_of(const_cast<detail::arena_ring_links *>(at)));
   }

   // The common request: at most the default alignment and a block of at most slot_limit bytes,
   // from its slot list or else the bump room (take_from_slot_or_bump). Null otherwise,
   // and when neither has a block: allocate_unguarded then looks further (and refuses what it
   // must). Kept small, and the rest out of line, so that the compiler inlines it where a
   // container allocates and folds a constant size and alignment into it (not under ASan, where
   // the sanitizer attributes differ): with the general path inlined too, whether it did
   // depended on the caller's size, and the checked builds' thread guard tipped it to not.
   BOOST_ALLOCPLUS_CORE_NO_ASAN void *try_allocate_small(std::size_t size, std::size_t alignment) noexcept
   {
      if (compact_request(size, alignment)) {
         if (size > slot_limit - detail::arena_compact_header_size) return nullptr;
         unsigned char *start = take_from_slot_or_bump(compact_block_bytes(size));
         return start == nullptr ? nullptr : hand_out_compact(start);
      }
      std::size_t need;
      if (alignment > default_alignment || size > slot_limit - detail::arena_header_size ||
          !full_block_bytes_for(size, alignment, need))
         return nullptr;
      unsigned char *start = take_from_slot_or_bump(need);
      return start == nullptr ? nullptr : hand_out(start, default_alignment);
   }

   // The bodies of the public calls, which take the guard first: the guard's frame must not be
   // an uninstrumented function's (see the note on BOOST_ALLOCPLUS_CORE_NO_ASAN above).
   // (allocate_unguarded: out of line, as try_allocate_small says.)
   BOOST_NOINLINE BOOST_ALLOCPLUS_CORE_NO_ASAN void *allocate_unguarded(std::size_t size, std::size_t alignment) noexcept
   {
      std::size_t need;
      bool compact;
      if (!block_bytes_for(size, alignment, need, compact)) return nullptr;
      unsigned char *start = take_block(need);
      if (start == nullptr && (start = take_from_new_region(need)) == nullptr) return nullptr;
      if (compact) return hand_out_compact(start);
      return hand_out(start, alignment < default_alignment ? default_alignment : alignment);
   }

   // The common free: a block of at most slot_limit bytes in the current region, not at the bump
   // end, to the head of its slot list. False otherwise, nothing changed: deallocate_unguarded
   // then does the rest, and reports what is unsound. Kept small, and the rest out of line, for
   // the reason try_allocate_small gives; forced into deallocate (GCC 12 kept it a call of its
   // own once the free's counts were fewer: 80 instructions a std::list node's free, 75 inlined).
   BA_DETAIL_ALWAYS_INLINE BOOST_ALLOCPLUS_CORE_NO_ASAN bool try_deallocate_small(void *p) noexcept
   {
      if (is_compact_pointer(p)) return try_deallocate_compact(p);
      if (!full_block_sound(p, begin_, bump_)) return false;
      const live_block b = full_block_of(p);
      if (b.size > slot_limit || b.start + b.size == bump_) return false;
      if (BOOST_UNLIKELY(retire_live_block(p, b)))
         give_back_last(b.start, b.size);
      else
         push_slot(b.start, b.size);
      return true;
   }

   // try_deallocate_small for a compact block: its own path, so that the free of a small node
   // tests its kind once. (push_slot writes a free header over its word; the free of the last
   // live block clears the word's flag first: the block's bytes go back to the bump room, and a
   // block handed out later may hold them where a stale pointer would still find the word.)
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool try_deallocate_compact(void *p) noexcept
   {
      const std::size_t size = sound_compact_block_size(p, begin_, bump_);
      unsigned char *const start = static_cast<unsigned char *>(p) - detail::arena_compact_header_size;
      if (size == 0 || size > slot_limit || start + size == bump_) return false;
      detail::arena_vg_take_back(p);
      // (Tested as it is decremented, as retire_live_block does.)
      if (BOOST_UNLIKELY(--compact_blocks_ == 0) && full_blocks_ == 0) {   // (no other live block)
         *reinterpret_cast<std::uintptr_t *>(start) = size;
         give_back_last(start, size);
      } else {
         push_slot(start, size);
      }
      return true;
   }

   BOOST_NOINLINE BOOST_ALLOCPLUS_CORE_NO_ASAN void deallocate_unguarded(void *p) noexcept
   {
      if (p == nullptr) return;
      const live_block b = checked_block(p, "ba::arena::deallocate: a block freed twice, not from this arena, or its "
                                            "header overwritten");
      if (retire_live_block(p, b))
         give_back_last(b.start, b.size);
      else
         give_back(b.start, b.size);
   }

   // The free of the arena's last live block (at `start`, `size` bytes): in an arena of one
   // region, every block is free, and the region is bump room again, its free stores emptied (a
   // container built and destroyed over and over takes its nodes from the bump pointer, in
   // address order, every time); in an arena of several, give_back (their free blocks are filed
   // in the same stores, and regions are given back by release() only). Instrumented under ASan,
   // unlike the free's other steps: it calls the tree's clear() (see tree_insert).
   BOOST_NOINLINE void give_back_last(unsigned char *start, std::size_t size) noexcept
   {
      if (regions_.size() != 1) return give_back(start, size);   // (one region: the current one)
      forget_free_blocks();
      move_bump_to(begin_);
   }

   // Live block p (b) stops being live, in its header and in the counts. (A compact block's word
   // keeps its size without the flag and tag: no longer a live block's, nor a free one's.)
   // Returns: whether it was the last live block. (Each count is tested as it is decremented: a
   // subtraction from memory and a branch on its flags.)
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool retire_live_block(void *p, const live_block &b) noexcept
   {
      detail::arena_vg_take_back(p);
      if (b.compact) {
         *reinterpret_cast<std::uintptr_t *>(b.start) = b.size;
         return --compact_blocks_ == 0 && full_blocks_ == 0;
      }
      const bool last = --full_blocks_ == 0 && compact_blocks_ == 0;
      header_of(p)->state = detail::arena_free;
      detail::arena_vg_hide(header_of(p), detail::arena_header_size);   // (the free's filing hides the start's)
      const std::size_t lead = b.head - detail::arena_header_size;
      if (lead != 0) lead_bytes_ -= lead;
      return last;
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN void *reallocate_unguarded(void *p, std::size_t size) noexcept
   {
      if (p == nullptr) return allocate_unguarded(size, default_alignment);
      const live_block b = checked_block(p, "ba::arena::reallocate: a block freed, not from this arena, or its header "
                                            "overwritten");
      const std::size_t alignment = std::size_t(1) << b.align_log2;
      std::size_t need;
      bool compact;
      if (!block_bytes_for(size, alignment, need, compact)) return nullptr;
      if (resize_in_place(p, b, size)) return p;
      void *q = allocate_unguarded(size, alignment);
      if (q == nullptr) return nullptr;
      const std::size_t old_bytes = capacity(p);
      std::memcpy(q, p, old_bytes < size ? old_bytes : size);
      deallocate_unguarded(p);
      return q;
   }

   BOOST_ALLOCPLUS_CORE_NO_ASAN bool resize_unguarded(void *p, std::size_t size) noexcept
   {
      const live_block b = checked_block(p, "ba::arena::try_resize_in_place: a block freed, not from this arena, or "
                                            "its header overwritten");
      std::size_t need;
      bool compact;
      return block_bytes_for(size, std::size_t(1) << b.align_log2, need, compact) && resize_in_place(p, b, size);
   }

   [[noreturn]] static void report_corrupted(const void *block) noexcept
   {
      detail::report_usage_error("ba::arena: a free block is overwritten (a write after free, or an overflow?)", block);
   }

   // The full header just before user pointer p (of a block that is not compact).
   static detail::arena_header *header_of(const void *p) noexcept
   {
      return reinterpret_cast<detail::arena_header *>(const_cast<unsigned char *>(static_cast<const unsigned char *>(p)) -
                                                      detail::arena_header_size);
   }

   // Whether user pointer p is a compact block's: 8 mod 16 (every other block's is 0 mod 16).
   static bool is_compact_pointer(const void *p) noexcept
   {
      return reinterpret_cast<std::uintptr_t>(p) % detail::arena_granule == detail::arena_compact_header_size;
   }

   // The live block of user pointer p, as its header says (checked by the caller, or trusted).
   BOOST_ALLOCPLUS_CORE_NO_ASAN static live_block live_block_of(const void *p) noexcept
   {
      if (is_compact_pointer(p)) {
         unsigned char *const start =
            const_cast<unsigned char *>(static_cast<const unsigned char *>(p)) - detail::arena_compact_header_size;
         return {start, *reinterpret_cast<const std::uintptr_t *>(start) & detail::arena_compact_size_mask,
                 detail::arena_compact_header_size, detail::arena_compact_align_log2, true};
      }
      return full_block_of(p);
   }

   // live_block_of for a pointer known not to be a compact block's.
   BOOST_ALLOCPLUS_CORE_NO_ASAN static live_block full_block_of(const void *p) noexcept
   {
      const detail::arena_header *h = header_of(p);
      return {const_cast<unsigned char *>(static_cast<const unsigned char *>(p)) - detail::arena_header_size - h->lead,
              h->size, detail::arena_header_size + h->lead, h->align_log2, false};
   }

   // The header word of a live compact block at `start` of `size` bytes.
   std::uintptr_t compact_word(const unsigned char *start, std::size_t size) const noexcept
   {
      return size | detail::arena_compact_flag |
             static_cast<std::uintptr_t>(live_tag(start, size, detail::arena_compact_align_log2))
                << detail::arena_compact_tag_shift;
   }

   // What the first word of the block at b says: whether it is a live compact block's header
   // (checked by is_live), the block's size (either header's), whether it is a free block.
   BOOST_ALLOCPLUS_CORE_NO_ASAN static bool is_compact_at(const unsigned char *b) noexcept
   {
      return (*reinterpret_cast<const std::uintptr_t *>(b) & detail::arena_compact_flag) != 0;
   }
   BOOST_ALLOCPLUS_CORE_NO_ASAN static std::size_t block_size_at(const unsigned char *b) noexcept
   {
      const std::uintptr_t word = *reinterpret_cast<const std::uintptr_t *>(b);
      return (word & detail::arena_compact_flag) != 0 ? word & detail::arena_compact_size_mask : word;
   }
   BOOST_ALLOCPLUS_CORE_NO_ASAN static bool is_free_at(const unsigned char *b) noexcept
   {
      return !is_compact_at(b) && reinterpret_cast<const detail::arena_header *>(b)->state == detail::arena_free;
   }

   // Live block p, once p is checked to be one (live_header_sound) in the region that holds it,
   // followed by a block. Every build, at constant cost, as glibc checks a chunk given back. A
   // pointer into no region is foreign; a block followed by none names where the next should
   // start.
   BOOST_ALLOCPLUS_CORE_NO_ASAN live_block checked_block(void *p, const char *what) const noexcept
   {
      const detail::arena_region *r = region_of(static_cast<const unsigned char *>(p));
      BOOST_ALLOCPLUS_ARENA_CHECK(r != nullptr && live_header_sound(p, r->begin, top_of(*r)), what, p);
      const live_block b = live_block_of(p);
      if (BOOST_UNLIKELY(!block_ends_at_a_block(b.start, b.size, top_of(*r)))) report_no_block_after(b.start + b.size);
      return b;
   }

   // Where a live block's header says the next block starts, no block does.
   [[noreturn]] static void report_no_block_after(const void *end) noexcept
   {
      detail::report_usage_error("ba::arena: no block starts where the block before says it ends (a header "
                                 "overwritten by an overflow, or a write after free?)", end);
   }

   // A live block's header tag (the state of both its headers): its start, size and alignment
   // mixed with the arena's key, odd (a free block's state is even). An overrun that rewrites a
   // header, or a stale or forged pointer whose bytes before it look like one, fails to match it
   // but for one chance in 32768 (the key is not in the arena's memory), so the free of a block
   // checks its own header, at constant cost, instead of reading its neighbour's (a cache line
   // the free would not touch otherwise: a third of a random-order erase's time in a map). The
   // start (with the key) is multiplied before the size and alignment are mixed in, and the
   // whole again: in one product of their exclusive or, a start moved by d << 20 (through the
   // lead) and a size changed by d would cancel out, whatever the key.
   std::uint16_t live_tag(const unsigned char *start, std::size_t size, std::uint16_t align_log2) const noexcept
   {
      std::uintptr_t mixed =
         (reinterpret_cast<std::uintptr_t>(start) ^ key_) * static_cast<std::uintptr_t>(0x9e3779b97f4a7c15ull);
      // (A sound size is below 2^56: the alignment's bits do not meet its own.)
      mixed = (mixed ^ size ^ (static_cast<std::uintptr_t>(align_log2) << 56)) *
              static_cast<std::uintptr_t>(0xc2b2ae3d27d4eb4full);
      return static_cast<std::uint16_t>(mixed >> (8 * sizeof(std::uintptr_t) - 16)) | 1u;
   }

   // Whether the header at b (a block's start) is a live block's (a compact block's word exactly
   // as hand_out_compact writes it).
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool is_live(const unsigned char *b) const noexcept
   {
      if (is_compact_at(b)) return *reinterpret_cast<const std::uintptr_t *>(b) == compact_word(b, block_size_at(b));
      const detail::arena_header *h = reinterpret_cast<const detail::arena_header *>(b);
      return h->state == live_tag(b, h->size, h->align_log2);
   }

   // Whether p is a pointer the arena could have handed out from the blocks [begin, top) of a
   // region, its block live, and (checked builds) followed by a block (block_ends_at_a_block):
   // what checked_block checks, in a form the free's fast paths can branch on, one for each kind
   // of block (the caller knows which: is_compact_pointer), so that each stays small enough to
   // be inlined.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool full_block_sound(const void *p, const unsigned char *begin,
                                                      const unsigned char *top) const noexcept
   {
      if (!full_header_sound(p, begin, top)) return false;
#if BOOST_ALLOCPLUS_CHECKED
      const live_block b = full_block_of(p);
      return block_ends_at_a_block(b.start, b.size, top);
#else
      return true;
#endif
   }
   // (For a compact block, its size when sound, else 0: the free's fast path uses the size the
   // check read.)
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t sound_compact_block_size(const void *p, const unsigned char *begin,
                                                                     const unsigned char *top) const noexcept
   {
      const std::size_t size = compact_header_size_if_sound(reinterpret_cast<std::uintptr_t>(p), begin, top);
#if BOOST_ALLOCPLUS_CHECKED
      if (size != 0 && !block_ends_at_a_block(static_cast<const unsigned char *>(p) - detail::arena_compact_header_size,
                                              size, top))
         return 0;
#endif
      return size;
   }

   // Whether p is a pointer the arena could have handed out from the blocks [begin, top) of a
   // region (p within them), its block live (its tag matches), and the block its header describes
   // within them (full_header_sound or compact_header_sound, as p says).
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool live_header_sound(const void *p, const unsigned char *begin,
                                                       const unsigned char *top) const noexcept
   {
      if (is_compact_pointer(p)) return compact_header_sound(reinterpret_cast<std::uintptr_t>(p), begin, top);
      return full_header_sound(p, begin, top);
   }

   // live_header_sound for a block with a full header: the block its header describes within
   // [begin, top), its lead below its alignment (a header that matches its tag by chance must
   // still not make the free file a block elsewhere). Size and lead must be whole granules: the
   // block then starts on one, which hand_out relies on.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool full_header_sound(const void *p, const unsigned char *begin,
                                                       const unsigned char *top) const noexcept
   {
      const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
      const std::uintptr_t first_user = reinterpret_cast<std::uintptr_t>(begin) + detail::arena_header_size;
      if (a < first_user || a >= reinterpret_cast<std::uintptr_t>(top) || a % detail::arena_granule != 0) return false;
      const detail::arena_header *h = header_of(p);
      const unsigned char *start = reinterpret_cast<const unsigned char *>(h) - h->lead;
      return h->state == live_tag(start, h->size, h->align_log2) && (h->size | h->lead) % detail::arena_granule == 0 &&
             h->size >= detail::arena_min_block && h->align_log2 <= max_align_log2 &&
             h->lead < (std::size_t(1) << h->align_log2) && h->lead <= a - first_user &&
             h->size <= static_cast<std::size_t>(top - start);
   }

   // live_header_sound for a compact block's user pointer (at address a): its word exactly as
   // hand_out_compact writes it, and its block within [begin, top).
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool compact_header_sound(std::uintptr_t a, const unsigned char *begin,
                                                          const unsigned char *top) const noexcept
   {
      return compact_header_size_if_sound(a, begin, top) != 0;
   }

   // compact_header_sound, saying the block's size when sound (else 0). The word is read once:
   // one equal to compact_word has the compact flag, so the flag needs no test of its own.
   BOOST_ALLOCPLUS_CORE_NO_ASAN std::size_t compact_header_size_if_sound(std::uintptr_t a, const unsigned char *begin,
                                                                         const unsigned char *top) const noexcept
   {
      const std::uintptr_t start = a - detail::arena_compact_header_size;
      if (start < reinterpret_cast<std::uintptr_t>(begin) || a >= reinterpret_cast<std::uintptr_t>(top)) return 0;
      const unsigned char *const b = reinterpret_cast<const unsigned char *>(start);
      const std::uintptr_t word = *reinterpret_cast<const std::uintptr_t *>(b);
      const std::size_t size = word & detail::arena_compact_size_mask;
      const bool sound = size >= detail::arena_min_block && size <= static_cast<std::size_t>(top - b) &&
                         word == compact_word(b, size);
      return sound ? size : 0;
   }

   // Whether the block [start, start + size) ends at top or where another block starts, as glibc
   // checks the chunk after one freed: the header after it rewritten by an overrun of this block
   // is found at this block's free, before that block's own free would find it. (Checked builds
   // on the free's fast path, and every build where the free has to look up the region.)
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool block_ends_at_a_block(const unsigned char *start, std::size_t size,
                                                           const unsigned char *top) const noexcept
   {
      return start + size == top || block_start_sound(start + size, top);
   }

   // Whether the bytes at b (a granule below top) start a block: a live or free header whose
   // size keeps the block below top.
   BOOST_ALLOCPLUS_CORE_NO_ASAN bool block_start_sound(const unsigned char *b, const unsigned char *top) const noexcept
   {
      const std::size_t size = block_size_at(b);
      return size % detail::arena_granule == 0 && size >= detail::arena_min_block &&
             size <= static_cast<std::size_t>(top - b) && (is_free_at(b) || is_live(b));
   }

   const char *live_blocks_message() const noexcept
   {
      static thread_local char text[128];
      std::snprintf(text, sizeof text, "ba::arena: destroyed with %zu live blocks (%zu bytes)", live_blocks(),
                    bytes_allocated());
      return text;
   }

   unsigned char *buffer_;        // the caller's, as given
   detail::single_thread_user user_;   // (checked builds: the thread inside the arena)
   std::size_t buffer_bytes_;
   detail::heap_reference_source upstream_;   // of the regions; its heap null: the arena never grows
   detail::arena_region initial_;             // the caller's buffer (empty without one)
   detail::arena_region *current_ = &initial_;   // the region bumped from
   detail::arena_region_set regions_;         // every region with blocks, by address
   std::size_t first_region_bytes_ = 0;       // the first region's size after construction or release()
   std::size_t next_region_bytes_ = 0;        // doubles with each region
   unsigned char *begin_ = nullptr;           // the current region's begin and end, and the bump pointer
   unsigned char *end_ = nullptr;
   unsigned char *bump_ = nullptr;
   // The live blocks with a full header, and (below) with a compact one: counted apart, so that
   // the free of a block updates one count (each a load and a store the next free waits on: with
   // a count of all live blocks updated beside, and the free bytes counted, a std::list's
   // pop_front took 1.1x the time).
   std::size_t full_blocks_ = 0;
   std::size_t lead_bytes_ = 0;   // the live blocks' leads (the bytes their alignment skipped)
   std::size_t tree_free_bytes_ = 0;   // the tree's free blocks' (free_bytes: the slot lists' are derived)
   std::uintptr_t key_ = 0;   // of the check words of free blocks (make_key)
   // (Not next to full_blocks_: GCC merged two counts the same calls updated into one 16-byte
   // load and store, which the frees' 8-byte stores then kept from forwarding, and a list's node
   // allocation took 10% longer.)
   std::size_t compact_blocks_ = 0;
   detail::arena_tree tree_;                  // one free block of each size over slot_limit
   std::size_t tree_blocks_ = 0;              // those and the blocks in their rings
   detail::arena_slot_list slots_[detail::arena_slot_count] = {};   // the slot table, by size / 16
   // A bit for each slot list that had a block since forget_free_blocks last emptied the table:
   // what it clears, so that an arena emptied often (give_back_last) does not clear the whole
   // table (16 KiB) each time.
   static constexpr std::size_t word_bits = 8 * sizeof(std::size_t);
   static constexpr std::size_t slot_words = (detail::arena_slot_count + word_bits - 1) / word_bits;
   std::size_t slots_filled_[slot_words] = {};
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ARENA_HPP
