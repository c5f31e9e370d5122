// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_NODE_POOL_HPP
#define BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_NODE_POOL_HPP

// The engine of the adaptive pools: nodes of one size carved from aligned blocks of the core
// (adaptive_pool_geometry.hpp), each block keeping its own free nodes and their count in a header
// that a node finds by masking its address. Nothing is stored per node, and a block whose nodes
// are all free is known the moment its last node comes back, so it can go back to the core.
//
// - Blocks with free nodes sit in lists bucketed by their free-node count (32 buckets, a bit of a
//   word each telling which are not empty): a node is taken from a block among those with the
//   fewest free nodes, so that the others drain. A block moves to a lower bucket as nodes are
//   taken, and to a higher one only when an allocation meets it first in a bucket below its
//   count's (so a range given back does not move its block every few nodes; one allocation may
//   then move every block that got nodes back since). Allocating (amortized) and freeing a node
//   are constant time; a block made or given back also costs its place in the tree of blocks
//   (logarithmic), and a kept block taken again whose free list may be out of address order is
//   relinked (linear in its nodes, once for the nodes it then hands out).
// - Completely free blocks are kept, up to MaxFreeBlocks, the lowest in memory: a block emptied
//   beyond that, or the highest kept if it lies below it, goes back to the core at once (and to
//   the system when the core trims, which a block kept at the top of the heap would prevent). The
//   lowest kept block is taken again first, and hands its nodes out in address order, as a new
//   block does, whatever order they were freed in.
// - Nodes given back together (a burst: a range erased, a thread's bin flushed) are taken in runs
//   of one sub-block: the header is found and checked once a run.
// - A block's free list is the core's hardened list (core/detail/free_list.h): a link read is
//   checked to be aligned as a node is and to stay inside the block, so a write after free is
//   reported instead of becoming an allocation at the writer's address. Each header carries a check
//   word (its address, its pool's and the process's secret mixed): a node given back whose header
//   does not carry it is not this pool's, reported at constant cost in every build. A free node of
//   two words or more carries the pool's mark in its second word, as node_pool's do (a double
//   free is reported). Checked builds (level 1) check, at constant cost, that a pointer given
//   back is aligned as the nodes are and lies inside the span of the pool's blocks (before its
//   header is read; in a burst, once a sub-block). Level 2 also looks every pointer up in the tree
//   of the blocks by address (logarithmic; the tree is kept in every build: owns() and check()
//   need it), so that a pointer in no block, or inside a block but not at a node's start, is
//   named before anything of it is read, and keeps a byte per pointer's width of a block (beside
//   the block: the header is the same in every build), so that every double free is reported.
// - ASan: free nodes are poisoned. Valgrind: every node handed out is a block for memcheck inside
//   the pool's blocks (a mempool's superblocks).
//
// One pool is not for use from two threads at once: the private allocator owns one per node size,
// the shared one puts a lock and per-thread magazines in front (shared_node_pool.hpp).

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/detail/adaptive_pool_geometry.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/pool_node_checks.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/set.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <type_traits>

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#endif

namespace boost { namespace allocplus {

//! What an adaptive pool holds (adaptive_pool and private_adaptive_pool statistics).
struct adaptive_pool_statistics : node_pool_statistics {
   std::size_t free_blocks = 0;      //!< blocks held whose nodes are all free
   std::size_t nodes_per_block = 0;  //!< nodes a block holds
   std::size_t block_alignment = 0;  //!< alignment of a block and of its sub-blocks
   std::size_t overhead_bytes = 0;   //!< bytes of the blocks held that hold no node (headers,
                                     //!< the core's own, tails too short for a node)

   //! Effects: adds the counts of s (the pools of one set, summed).
   void add(const adaptive_pool_statistics &s) noexcept
   {
      node_pool_statistics::add(s);
      free_blocks += s.free_blocks;
      nodes_per_block = s.nodes_per_block;
      block_alignment = s.block_alignment;
      overhead_bytes += s.overhead_bytes;
   }
};

namespace detail {

class BOOST_SYMBOL_VISIBLE adaptive_node_pool : public pool_node_checks {
   struct block_header;
   struct in_use_map;

public:
   //! The parameters of a pool besides its node size and alignment.
   struct parameters {
      std::size_t nodes_per_block;    //!< the fewest nodes a block holds
      std::size_t max_free_blocks;    //!< completely free blocks kept
      std::size_t overhead_percent;   //!< most of a block's bytes that hold no node (0: align only)
   };
   using statistics_type = adaptive_pool_statistics;
   static constexpr bool keeps_depot = false;   // no depot: nodes held back from a block keep it from draining

   //! Returns: the bytes of a block header: the same in every build (level 2's map of the nodes
   //!   in use is allocated beside the block), so a type's blocks have one shape at every checking level.
   static constexpr std::size_t header_bytes() noexcept { return sizeof(block_header); }
   //! Returns: the node size for objects of `size` bytes and `alignment` (at least a pointer).
   static constexpr std::size_t node_size_for(std::size_t size, std::size_t alignment) noexcept
   {
      const std::size_t a = node_alignment_for(alignment);
      return adaptive_pool_layout::round_up(size < sizeof(void *) ? sizeof(void *) : size, a);
   }
   static constexpr std::size_t node_alignment_for(std::size_t alignment) noexcept
   {
      return alignment < alignof(void *) ? alignof(void *) : alignment;
   }
   //! Returns: the geometry of the blocks of a pool of (size, alignment, params).
   static constexpr adaptive_pool_geometry geometry_for(std::size_t size, std::size_t alignment,
                                                        const parameters &params) noexcept
   {
      return adaptive_pool_layout::compute(node_size_for(size, alignment), node_alignment_for(alignment),
                                           params.nodes_per_block, params.overhead_percent, header_bytes());
   }

   //! Requires: node_alignment is a power of two; a geometry exists for the arguments (the
   //!   allocators check it at compile time). Effects: an empty pool. Takes no memory.
   adaptive_node_pool(const char *owner, std::size_t node_size, std::size_t node_alignment,
                      const parameters &params) noexcept
      : pool_node_checks(owner, node_size, node_alignment), max_free_blocks_(params.max_free_blocks), geometry_(geometry_for(node_size, node_alignment, params)),
        bucket_shift_(bucket_shift_for(geometry_.nodes_per_block))
   {
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_CREATE_MEMPOOL_EXT(this, 0, 0, VALGRIND_MEMPOOL_METAPOOL | VALGRIND_MEMPOOL_AUTO_FREE);
#endif
   }
   adaptive_node_pool(const adaptive_node_pool &) = delete;
   adaptive_node_pool &operator=(const adaptive_node_pool &) = delete;

   //! Effects: gives every block back to the core. In checked builds a pool destroyed with nodes
   //!   still in use reports how many (they are freed with their blocks).
   ~adaptive_node_pool()
   {
#if BOOST_ALLOCPLUS_CHECKED
      if (in_use_ != 0) report_leak(in_use_);
#endif
      for (auto &bucket : buckets_) bucket.clear();
      free_blocks_.clear();
      blocks_.clear_and_dispose([this](block_header *b) { free_block(b); });
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_DESTROY_MEMPOOL(this);
#endif
   }

   std::size_t node_size() const noexcept { return node_size_; }
   std::size_t node_alignment() const noexcept { return align_; }
   const adaptive_pool_geometry &geometry() const noexcept { return geometry_; }

   //! Returns: a node from the block with the fewest free nodes, or null when the core has no
   //!   memory for a new block. Complexity: amortized constant (a kept free block relinked: linear
   //!   in its nodes, once for the nodes it then hands out).
   void *try_allocate() noexcept
   {
      block_header *b = block_to_allocate_from();
      if (BOOST_UNLIKELY(!b)) return nullptr;
      void *node = b->free_head;
      unpoison(node);
      b->free_head = next_free_in(b, node);
      const std::size_t was = b->free_count--;
      if (was == geometry_.nodes_per_block) {
         if (b->free_count != 0) insert_in_bucket(b);   // a free or new block: in no list yet
      } else {
         moved_down(b);
      }
      clear_mark(node);
      ++in_use_;
      note_allocated(in_use_of(b), node);
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MALLOCLIKE_BLOCK(node, node_size_, 0, 0);
#endif
      return node;
   }

   //! Effects: calls push(node) for up to n nodes, taken block by block (the fewest free first),
   //!   each block's list and bucket updated once for all the nodes taken from it.
   //! Returns: the nodes pushed: n, or fewer when the core has no memory for a new block.
   //! Complexity: linear in n.
   template <class Push>
   std::size_t try_allocate_many(std::size_t n, Push push) noexcept
   {
      std::size_t got = 0;
      while (got != n) {
         block_header *b = block_to_allocate_from();
         if (BOOST_UNLIKELY(!b)) break;
         const std::size_t was = b->free_count;
         const std::size_t take = n - got < was ? n - got : was;
         void *head = b->free_head;
         const in_use_map in_use = in_use_of(b);
         for (std::size_t i = 0; i != take; ++i) {
            void *node = head;
            unpoison(node);
            head = next_free_in(b, node);
            clear_mark(node);
            note_allocated(in_use, node);
#if defined(BA_DETAIL_VALGRIND)
            VALGRIND_MALLOCLIKE_BLOCK(node, node_size_, 0, 0);
#endif
            push(node);
         }
         b->free_head = head;
         b->free_count = static_cast<std::uint32_t>(was - take);
         in_use_ += take;
         got += take;
         if (was == geometry_.nodes_per_block) {
            if (b->free_count != 0) insert_in_bucket(b);   // a free or new block: in no list yet
         } else {
            moved_down(b);
         }
      }
      return got;
   }

   //! Returns: a node. Throws: std::bad_alloc when the core has no memory for a new block.
   void *allocate()
   {
      void *node = try_allocate();
      if (BOOST_UNLIKELY(!node)) throw_bad_alloc();
      return node;
   }

   //! Requires: node came from this pool and is in use.
   //! Effects: gives node back to its block; a block whose nodes are now all free is kept if the
   //!   pool keeps fewer than MaxFreeBlocks such blocks, else the highest of the kept blocks and
   //!   it goes back to the core (keep_or_release). A pointer
   //!   whose block header is not this pool's is reported (every build), and so is a node freed
   //!   twice (every build: the node freed last in its block, a node of two words or more, or
   //!   a node given back to a block whose nodes are all free; checking level 2: always).
   //! Complexity: constant (logarithmic in the blocks at checking level 2); a block emptied adds
   //!   a look at the MaxFreeBlocks kept and, given back, logarithmic in the blocks.
   void deallocate(void *node) noexcept
   {
      prepare_free(node);
      block_header *b = block_of(node);
      const std::size_t was = b->free_count;
      void *head = b->free_head;
      std::uint16_t in_order = b->in_address_order;
      note_freed(in_use_of(b), b, node);
      link_freed(node, head, in_order, marking_now());
      b->free_head = head;
      b->free_count = static_cast<std::uint32_t>(was + 1);
      b->in_address_order = in_order;
      --in_use_;
      moved_up(b, was);
   }

   //! Effects: gives back every node pop() returns until it returns null, as deallocate does
   //!   one by one; the nodes of a run that share a sub-block (a container's range, freed in
   //!   order) find their header once, and their block's count is checked once the run ends: a
   //!   run that gives a block more nodes than it holds is reported (every build).
   //! Returns: the nodes given back. Complexity: linear in the nodes.
   template <class Pop>
   std::size_t deallocate_many(Pop pop) noexcept
   {
      const marking marks = marking_now();
      if (marks.carried) return free_in_runs(pop, known_marking<true>{marks.mark});
      return free_in_runs(pop, known_marking<false>{marks.mark});
   }

   //! Effects: gives back to the core every block whose nodes are all free.
   //! Returns: the blocks given back. Complexity: linear in those blocks.
   std::size_t release_free_blocks() noexcept
   {
      std::size_t released = 0;
      while (!free_blocks_.empty()) {
         block_header &b = free_blocks_.front();
         free_blocks_.pop_front();
         release_block(&b);
         ++released;
      }
      return released;
   }

   //! Returns: what the pool holds.
   adaptive_pool_statistics statistics() const noexcept
   {
      adaptive_pool_statistics s;
      s.node_size = node_size_;
      s.blocks = blocks_.size();
      s.nodes_in_use = in_use_;
      s.free_nodes = blocks_.size() * geometry_.nodes_per_block - in_use_;
      s.bytes_held = blocks_.size() * geometry_.footprint();
      s.free_blocks = free_blocks_.size();
      s.nodes_per_block = geometry_.nodes_per_block;
      s.block_alignment = geometry_.alignment;
      s.overhead_bytes = blocks_.size() * geometry_.overhead_bytes(node_size_);
      return s;
   }

   //! Effects: the constant-time checks of checking level 1 on a node given back, made by
   //!   shared_pool before a thread's bin takes it: aligned as the nodes are and inside the span
   //!   of the pool's blocks (check_could_be_node). Its block's header is not read here (a
   //!   cache line more a free: 1.2x the time of a node freed one by one at level 1); the pool
   //!   checks it when the bin gives the node back to the pool, at every level. A pointer inside
   //!   the span that is no node of the pool, taken out of the bin again by the same thread, is
   //!   not checked (as at level 0, and as node_allocator's; level 2 looks every pointer up).
   void check_given_back(const void *node) const noexcept { check_could_be_node(node); }

   //! Returns: whether p is a node of one of the pool's blocks (in use or not). Logarithmic.
   bool owns(const void *p) const noexcept
   {
      auto it = blocks_.upper_bound(p, by_address());
      if (it == blocks_.begin()) return false;
      --it;
      const block_header *b = &*it;
      return index_in(b, p) != not_a_node;
   }

   //! Returns: null when every invariant of every block holds, else the first broken one (a
   //!   sentence): each header's check word, each free list (length, links inside the block, on
   //!   node boundaries, marked), each block in a bucket its count's or below, the buckets' bits, the
   //!   count of completely free blocks and of nodes in use. Complexity: linear in the blocks
   //!   and their free nodes.
   const char *check() const noexcept;


private:
   using bucket_hook = boost::intrusive::list_member_hook<>;
   using address_hook = boost::intrusive::set_member_hook<boost::intrusive::optimize_size<true>>;

   // The header of a block, at its start.
   struct block_header {
      // First, so that the first word of every sub-block is written only when the block is made
      // and when it goes back to the core (no node of it in use then), never when the block's
      // hooks are relinked: block_of reads it first. (Even here, odd in a sub-block's link.)
      std::uintptr_t check_word;     // the pool's, for this header
      bucket_hook in_bucket;
      address_hook by_address;       // in the tree of every block
      void *free_head = nullptr;     // the block's free nodes (protected links)
      unsigned char *in_use_flags = nullptr;  // level 2: a byte per 8 bytes (note_allocated)
      std::uint32_t free_count = 0;
      std::uint16_t in_address_order = 0;     // the free list runs up in address (in the padding)
      std::uint16_t bucket = 0;               // the bucket it is in, when in one (bucket_of: at most its count's)
   };
   static_assert(std::is_standard_layout<block_header>::value && offsetof(block_header, check_word) == 0,
                 "block_of reads the check word as the first word of a block");
   struct by_address {
      bool operator()(const block_header &a, const block_header &b) const noexcept
      {
         return std::less<const block_header *>()(&a, &b);
      }
      bool operator()(const void *p, const block_header &b) const noexcept { return std::less<const void *>()(p, &b); }
      bool operator()(const block_header &a, const void *p) const noexcept { return std::less<const void *>()(&a, p); }
   };
   using block_list = boost::intrusive::list<block_header,
                                             boost::intrusive::member_hook<block_header, bucket_hook, &block_header::in_bucket>,
                                             boost::intrusive::constant_time_size<true>>;
   using bucket_list = boost::intrusive::list<block_header,
                                              boost::intrusive::member_hook<block_header, bucket_hook, &block_header::in_bucket>,
                                              boost::intrusive::constant_time_size<false>>;
   using block_tree = boost::intrusive::set<block_header,
                                            boost::intrusive::member_hook<block_header, address_hook, &block_header::by_address>,
                                            boost::intrusive::compare<by_address>, boost::intrusive::constant_time_size<true>>;

   static constexpr unsigned bucket_count = 32;
   static constexpr std::size_t not_a_node = static_cast<std::size_t>(-1);

   // Buckets are 2^shift counts wide: counts 1 .. nodes-1 fill at most bucket_count of them.
   static unsigned bucket_shift_for(std::size_t nodes) noexcept
   {
      unsigned shift = 0;
      while (nodes > 1 && ((nodes - 2) >> shift) >= bucket_count) ++shift;
      return shift;
   }
   unsigned bucket_of(std::size_t free_count) const noexcept { return static_cast<unsigned>((free_count - 1) >> bucket_shift_); }

   // What a node given back goes through before its block is read: the engines' first steps,
   // and in checked builds, a pointer outside the span of the blocks (level 1: constant) or in no
   // block (level 2: a search of the tree) is reported.
   void prepare_free(void *node) const noexcept
   {
      note_given_back(node);
      if (BOOST_ALLOCPLUS_CHECKED) check_could_be_node(node);
      if (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && !owns(node))
         report("a pointer that did not come from this pool is freed", node);
   }

   // deallocate_many's loop, with whether nodes carry the mark known at compile time.
   template <class Pop, class Marking>
   std::size_t free_in_runs(Pop &pop, const Marking marks) noexcept
   {
      const std::uintptr_t subblock_mask = ~(geometry_.alignment - 1);
      const std::size_t nodes_per_block = geometry_.nodes_per_block;   // (held, as marks are)
      const std::uintptr_t misaligned = align_ - 1;   // (held: the stores through nodes alias align_)
      std::size_t freed = 0;
      void *node = pop();
      while (node) {
         // A run: node and the nodes after it in its sub-block, freed into its block, whose
         // list, count and order flag are held here and written back when the run ends.
         prepare_free(node);
         block_header *const b = block_of(node);
         const in_use_map in_use = in_use_of(b);
         const std::uintptr_t subblock = reinterpret_cast<std::uintptr_t>(node) & subblock_mask;
         void *head = b->free_head;
         const std::size_t was = b->free_count;
         std::size_t count = was + 1;
         std::uint16_t in_order = b->in_address_order;
         note_freed(in_use, b, node);
         link_freed(node, head, in_order, marks);
         // The later nodes: in the sub-block of a node checked whole (inside the span, its header
         // the pool's), what is left to check at level 1 is their alignment (level 2 sends each
         // node through the whole check, its in-use flag too). The count is checked once the run
         // ends: a block that had all its nodes free before the run's last node took one of them
         // twice (a node of two words or more is caught at once, by its mark).
         while ((node = pop()) != nullptr && !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
                && (reinterpret_cast<std::uintptr_t>(node) & subblock_mask) == subblock) {
            note_given_back(node);
            if (BOOST_ALLOCPLUS_CHECKED && BOOST_UNLIKELY((reinterpret_cast<std::uintptr_t>(node) & misaligned) != 0))
               report("a pointer that did not come from this pool is freed", node);
            note_freed(in_use, b, node);
            link_freed_in_run(node, head, marks);
            ++count;
         }
         if (BOOST_UNLIKELY(count > nodes_per_block))
            report("a burst's run of nodes ending here gives their block more nodes than it holds (one was given back twice)", head);
         // A run of several nodes is taken as leaving the list out of address order (even
         // when they came highest first, which keeps it in order): the block is put in order
         // again if it drains (relink_in_address_order), which costs less than a comparison on
         // every node of every run.
         if (count - was > 1) in_order = 0;
         b->free_head = head;
         b->free_count = static_cast<std::uint32_t>(count);
         b->in_address_order = in_order;
         in_use_ -= count - was;
         freed += count - was;
         moved_up(b, was);
      }
      return freed;
   }

   // The step of every free: node (checked, and at level 2 its in-use flag cleared) pushed
   // on the free list whose head and address-order flag the caller holds (its block's, or a
   // run's copy written back later); a node freed twice is reported. The block's count and place
   // in the lists are left to the caller.
   template <class Marking>
   BOOST_FORCEINLINE void link_freed(void *node, void *&head, std::uint16_t &in_order, const Marking &marks) noexcept
   {
      if (freed_twice(node, head, marks)) report_double_free(node);
      in_order = still_in_address_order(in_order, node, head);
      push_freed(node, head, marks);
   }
   // The same for a run's later node: head is the run's node freed just before, not null and
   // marked when nodes carry marks, so the mark alone finds a node freed twice. The order flag is
   // the run's to set, once (free_in_runs).
   template <class Marking>
   BOOST_FORCEINLINE void link_freed_in_run(void *node, void *&head, const Marking &marks) noexcept
   {
      if (freed_twice_after_marked(node, head, marks)) report_double_free(node);
      push_freed(node, head, marks);
   }
   template <class Marking>
   BOOST_FORCEINLINE void push_freed(void *node, void *&head, const Marking &marks) noexcept
   {
      ba_detail_link_store(node, head);
      set_mark(node, marks);
      head = node;
      poison(node);
   }

   // The block to take a node from: the first of the lowest bucket not empty, else a completely
   // free block (the lowest kept: the highest are the first to go back), else a new one (these
   // two in no list), or null when the core has no memory. A block whose nodes came back since
   // it was put in its bucket may sit too low (moved_up): met first, it moves up, behind the
   // blocks already there, and the next first is looked at; so the block returned is one of
   // those with the fewest free nodes, as if every free had moved its block at once. (Amortized
   // constant: each move up is one a free left undone.)
   block_header *block_to_allocate_from() noexcept
   {
      while (BOOST_LIKELY(nonempty_ != 0)) {
         const unsigned i = static_cast<unsigned>(__builtin_ctz(nonempty_));
         block_header &b = buckets_[i].front();
         if (BOOST_LIKELY(bucket_of(b.free_count) == i)) return &b;
         remove_from_bucket(&b);
         insert_in_bucket(&b, false);
      }
      if (!free_blocks_.empty()) {
         block_header &b = free_blocks_.front();
         free_blocks_.pop_front();
         relink_in_address_order(&b);
         return &b;
      }
      return new_block();
   }

   // A completely free block taken again hands its nodes out in address order, as a new block
   // does: its list ran in the order its nodes were freed, and a container built from it would
   // have its neighbours scattered over the block (walks that miss the cache at every step).
   // Linear in the block's nodes, and only when its list may be out of order (a burst's run of
   // two nodes or more clears the flag, free_in_runs): a block that drains and refills one node
   // at a time (a container around a block's boundary) keeps its order.
   void relink_in_address_order(block_header *b) noexcept
   {
      if (b->in_address_order) return;
#if defined(BOOST_ALLOCPLUS_CORE_ASAN) || defined(BA_DETAIL_VALGRIND)
      // (Every node is written: the poisoned ones are opened first. The walk is bounded: a list
      // made a cycle by a double free memcheck reported does not hold it.)
      std::size_t walked = 0;
      for (void *n = b->free_head; n; ++walked) {
         if (walked == geometry_.nodes_per_block) report_corrupted(b->free_head);
         unpoison(n);
         n = next_free_in(b, n);
      }
#endif
      b->free_head = linked_nodes(block_start(b));
      b->in_address_order = 1;
   }

   // Whether a free list that was in address order (`was`) still is once `node` goes on it
   // before `head`: the list pops its head first, so it runs up from there.
   static std::uint16_t still_in_address_order(std::uint16_t was, const void *node, const void *head) noexcept
   {
      return head == nullptr || (was && std::less<const void *>()(node, head));
   }

   void insert_in_bucket(block_header *b, bool front = true) noexcept
   {
      const unsigned i = bucket_of(b->free_count);
      if (front) buckets_[i].push_front(*b);
      else buckets_[i].push_back(*b);
      b->bucket = static_cast<std::uint16_t>(i);
      nonempty_ |= 1u << i;
   }
   void remove_from_bucket(block_header *b) noexcept
   {
      const unsigned i = b->bucket;
      buckets_[i].erase(buckets_[i].iterator_to(*b));
      if (buckets_[i].empty()) nonempty_ &= ~(1u << i);
   }

   // Nodes were taken from b, block_to_allocate_from's from a bucket (the one of its count
   // before: a block whose nodes were all free is in no list, and the callers put it in one).
   void moved_down(block_header *b) noexcept
   {
      if (b->free_count == 0) {
         remove_from_bucket(b);   // full: in no list until a node comes back
      } else if (bucket_of(b->free_count) != b->bucket) {
         remove_from_bucket(b);
         insert_in_bucket(b);     // the front: the next node comes from it again
      }
   }

   // Nodes came back to b, which had `was` free nodes. A block with some free already stays in
   // its bucket, which may now be too low for its count: block_to_allocate_from moves it up if
   // it meets it first (a list's range erased node by node, or run by run, would otherwise move
   // its block at every few nodes).
   void moved_up(block_header *b, std::size_t was) noexcept
   {
      if (BOOST_UNLIKELY(b->free_count >= geometry_.nodes_per_block)) {
         // (A node of one word carries no mark: given back twice into a block whose nodes were
         // all free already, it is found here. The node given back last heads the list.)
         if (BOOST_UNLIKELY(was >= geometry_.nodes_per_block)) report_double_free(b->free_head);
         if (was != 0) remove_from_bucket(b);
         keep_or_release(b);
      } else if (was == 0) {
         insert_in_bucket(b, false);   // behind the blocks that were fuller before
      }
   }

   // Block b's nodes are all free (b in no list): the pool keeps it while it keeps fewer than
   // MaxFreeBlocks such blocks; otherwise it keeps the lowest of them and b, and gives the highest
   // back to the core. A block kept high in the heap keeps the heap from giving back what lies
   // below it (the core trims from the top), and the blocks a container frees last are often its
   // highest: a list's last nodes, or a thread's bin refilled from a new block and never used (a
   // list of 1M nodes then left 23 MiB with the system after a quiet second, where it now leaves
   // 0.15 MiB).
   // The kept blocks stay in address order: the lowest is taken first, the highest given back.
   // Linear in MaxFreeBlocks, once a block.
   void keep_or_release(block_header *b) noexcept
   {
      const auto above = std::find_if(free_blocks_.begin(), free_blocks_.end(), [b](const block_header &kept) {
         return std::less<const block_header *>()(b, &kept);
      });
      free_blocks_.insert(above, *b);
      if (free_blocks_.size() > max_free_blocks_) {
         block_header &highest = free_blocks_.back();
         free_blocks_.pop_back();
         release_block(&highest);
      }
   }

   // (Even: told apart from a sub-block's link, odd.)
   std::uintptr_t check_word_of(const block_header *b) const noexcept
   {
      return (reinterpret_cast<std::uintptr_t>(b) ^ ~reinterpret_cast<std::uintptr_t>(this) ^ pool_secret()) & ~std::uintptr_t(1);
   }
   // The word at the start of each sub-block but the first of a block of several: the header's
   // address, mixed with the sub-block's and the secret (a forged one leads to a header whose
   // check fails), and odd (the first sub-block starts with the header, whose first word is its
   // check word: even).
   std::uintptr_t subblock_link(const char *subblock, const block_header *b) const noexcept
   {
      return (reinterpret_cast<std::uintptr_t>(b) ^ reinterpret_cast<std::uintptr_t>(subblock) ^ pool_secret()) | 1u;
   }

   char *block_start(const block_header *b) const noexcept
   {
      return const_cast<char *>(reinterpret_cast<const char *>(b)) - geometry_.header_offset;
   }

   // The header of the block of `node`: its sub-block by masking, then (several sub-blocks) the
   // word at the sub-block's start. A header that does not carry the pool's check word is
   // reported: the pointer is not a node of this pool.
   block_header *block_of(const void *node) const noexcept
   {
      const std::uintptr_t subblock = reinterpret_cast<std::uintptr_t>(node) & ~(geometry_.alignment - 1);
      block_header *b;
      if (geometry_.subblocks == 1) {
         b = reinterpret_cast<block_header *>(subblock);
      } else if (const std::uintptr_t link = *reinterpret_cast<const std::uintptr_t *>(subblock); !(link & 1u)) {
         b = reinterpret_cast<block_header *>(subblock);   // the first sub-block
      } else {
         b = reinterpret_cast<block_header *>((link ^ subblock ^ pool_secret()) & ~std::uintptr_t(1));
         // A header is at a block's start (aligned) at most subblocks - 1 sub-blocks below: a
         // forged word leads nowhere else, so the check word read next is read near `node`.
         const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(b) - geometry_.header_offset;
         if (BOOST_UNLIKELY((start & (geometry_.alignment - 1)) != 0 || start > subblock
                            || subblock - start >= geometry_.footprint()))
            report("a pointer that did not come from this pool is freed", node);
      }
      if (BOOST_UNLIKELY(b->check_word != check_word_of(b)))
         report("a pointer that did not come from this pool is freed", node);
      return b;
   }

   // The index of p among b's nodes, or not_a_node when p is not at a node's start in b.
   std::size_t index_in(const block_header *b, const void *p) const noexcept
   {
      const char *start = block_start(b), *c = static_cast<const char *>(p);
      if (c < start || c >= start + geometry_.footprint()) return not_a_node;
      const std::size_t offset = static_cast<std::size_t>(c - start);
      const std::size_t sub = offset / geometry_.alignment, in_sub = offset % geometry_.alignment;
      const std::size_t first = first_node_offset(sub), count = nodes_in_subblock(sub);
      if (in_sub < first || (in_sub - first) % node_size_ != 0 || (in_sub - first) / node_size_ >= count) return not_a_node;
      const std::size_t before = sub == 0 ? 0 : geometry_.nodes_first + (sub - 1) * geometry_.nodes_middle;
      return before + (in_sub - first) / node_size_;
   }

   // A link read from a free node of b: aligned as a node is, and (not null) inside b.
   void *next_free_in(const block_header *b, const void *node) const noexcept
   {
      void *next = next_free(node);
      if (next) {
         const char *start = block_start(b), *n = static_cast<const char *>(next);
         if (BOOST_UNLIKELY(n < start || n >= start + geometry_.footprint())) report_corrupted(node);
      }
      return next;
   }


   // Level 2: a byte per pointer's width of the block (the least node alignment), beside
   // it (at a node's start: 1 while the node is in use), found with a constant shift, not a
   // division by the node size (index_in's). A node given back whose byte is 0 is a double free,
   // or a pointer inside the block that is not a node's start (told apart by index_in when it is
   // reported). A byte each, not a bit: the nodes of a burst change their flags one after another,
   // and bits sharing a byte would make each change wait for the store of the one before (a range
   // erased took 1.3x its time). Level 2, not 1: even a byte is a cache line more per node
   // allocated and freed, 1.1x-1.2x the time of a range erased; level 1 keeps to the checks that
   // read only what the free reads anyway.
   static constexpr unsigned in_use_unit_shift = sizeof(void *) == 8 ? 3 : 2;
   static_assert(std::size_t(1) << in_use_unit_shift == sizeof(void *), "a node is aligned at least as a pointer");
   struct in_use_map {
      unsigned char *flags;
      std::uintptr_t start;   // the block's
      unsigned char &flag_of(const void *node) const noexcept
      {
         return flags[(reinterpret_cast<std::uintptr_t>(node) - start) >> in_use_unit_shift];
      }
   };
   // (Taken once for the nodes of one block: the loops over them hold it in locals, which the
   // stores through the nodes cannot alias, so the compiler need not read it again per node.)
   in_use_map in_use_of(block_header *b) const noexcept
   {
      return {b->in_use_flags, reinterpret_cast<std::uintptr_t>(block_start(b))};
   }
   std::size_t in_use_map_bytes() const noexcept { return geometry_.footprint() >> in_use_unit_shift; }
   static void note_allocated(const in_use_map &map, void *node) noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      map.flag_of(node) = 1;
#else
      (void)map, (void)node;
#endif
   }
   // (Requires: node is aligned as the nodes are and inside b's sub-blocks: checked by prepare_free
   // and block_of, or for the later nodes of a burst's run, by its alignment and its sub-block.)
   void note_freed(const in_use_map &map, const block_header *b, void *node) const noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      unsigned char &flag = map.flag_of(node);
      if (BOOST_UNLIKELY(flag == 0)) report_not_in_use(b, node);
      flag = 0;
#else
      (void)map, (void)b, (void)node;
#endif
   }
   [[noreturn]] BOOST_NOINLINE void report_not_in_use(const block_header *b, const void *node) const noexcept
   {
      if (index_in(b, node) == not_a_node) report("a pointer that did not come from this pool is freed", node);
      report_double_free(node);
   }

   std::size_t first_node_offset(std::size_t sub) const noexcept
   {
      return sub == 0 ? geometry_.first_offset : geometry_.other_offset;
   }
   std::size_t nodes_in_subblock(std::size_t sub) const noexcept
   {
      return sub == 0 ? geometry_.nodes_first : sub + 1 == geometry_.subblocks ? geometry_.nodes_last : geometry_.nodes_middle;
   }

   // A new block from the core, its nodes linked in address order (the lowest comes out first),
   // in no list yet; null when the core has no memory.
   BOOST_NOINLINE block_header *new_block() noexcept
   {
      // (A pool whose parameters have no geometry, made at run time by a resource, has no blocks.)
      void *memory = geometry_.valid() ? ba_memalign(geometry_.alignment, geometry_.request_bytes) : nullptr;
      if (!memory) return nullptr;
      unsigned char *flags = nullptr;
      if (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE) {
         flags = static_cast<unsigned char *>(ba_calloc(1, in_use_map_bytes()));
         if (!flags) {
            ba_free(memory);
            return nullptr;
         }
      }
      char *start = static_cast<char *>(memory);
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_FREELIKE_BLOCK(memory, 0);
      VALGRIND_MEMPOOL_ALLOC(this, memcheck_chunk(start), geometry_.request_bytes - offsetof(block_header, in_bucket));
      VALGRIND_MAKE_MEM_DEFINED(memory, geometry_.request_bytes);
#endif
      block_header *b = ::new (static_cast<void *>(start + geometry_.header_offset)) block_header;
      b->check_word = check_word_of(b);
      b->in_use_flags = flags;
      for (std::size_t sub = 1; sub < geometry_.subblocks; ++sub) {
         char *sb = start + sub * geometry_.alignment;
         *reinterpret_cast<std::uintptr_t *>(sb) = subblock_link(sb, b);
      }
      b->free_head = linked_nodes(start);
      b->in_address_order = 1;
      b->free_count = static_cast<std::uint32_t>(geometry_.nodes_per_block);
      blocks_.insert(*b);
      widen_block_span(start, start + geometry_.footprint());
      return b;
   }

   // Links the nodes of the block at `start` from the highest down, so that the list runs in
   // address order. Returns: its head.
   void *linked_nodes(char *start) noexcept
   {
      void *head = nullptr;
      for (std::size_t sub = geometry_.subblocks; sub-- != 0;) {
         char *sb = start + sub * geometry_.alignment;
         const std::size_t first = first_node_offset(sub), count = nodes_in_subblock(sub);
         for (std::size_t i = count; i-- != 0;) {
            char *node = sb + first + i * node_size_;
            ba_detail_link_store(node, head);
            set_mark(node);
            head = node;
            poison(node);
         }
      }
      return head;
   }

   // b (all of its nodes free, in no list) goes back to the core.
   void release_block(block_header *b) noexcept
   {
      blocks_.erase(blocks_.iterator_to(*b));
      free_block(b);
      if (blocks_.empty()) set_block_span(0, 0);
      else
         set_block_span(reinterpret_cast<std::uintptr_t>(block_start(&*blocks_.begin())),
                        reinterpret_cast<std::uintptr_t>(block_start(&*blocks_.rbegin()) + geometry_.footprint()));
   }
#if defined(BA_DETAIL_VALGRIND)
   // The superblock memcheck is told of starts at the header's bucket hook, past the check word:
   // the pool's pointers to a block (its bucket list's) then point at a chunk's start, so that a
   // block the pool keeps is not reported as possibly lost.
   static char *memcheck_chunk(char *start) noexcept { return start + offsetof(block_header, in_bucket); }
#endif
   void free_block(block_header *b) noexcept
   {
      char *start = block_start(b);
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      ASAN_UNPOISON_MEMORY_REGION(start, geometry_.request_bytes);
#endif
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MEMPOOL_FREE(this, memcheck_chunk(start));
      VALGRIND_MALLOCLIKE_BLOCK(start, geometry_.request_bytes, 0, 0);
      VALGRIND_MAKE_MEM_DEFINED(start, geometry_.request_bytes);
#endif
      b->check_word = 0;   // a stale pointer into the block is no longer this pool's
      ba_free(b->in_use_flags);
      ba_free(start);
   }


   const std::size_t max_free_blocks_;
   const adaptive_pool_geometry geometry_;
   const unsigned bucket_shift_;
   std::uint32_t nonempty_ = 0;        // bit i: buckets_[i] is not empty
   std::size_t in_use_ = 0;
   bucket_list buckets_[bucket_count];  // blocks with some nodes free, by their count
   block_list free_blocks_;            // blocks with every node free (at most max_free_blocks_), lowest first
   block_tree blocks_;                 // every block, by address
};

inline const char *adaptive_node_pool::check() const noexcept
{
   std::size_t free_total = 0, completely_free = 0;
   for (const block_header &b : blocks_) {
      if (b.check_word != check_word_of(&b)) return "a block header's check word is overwritten";
      std::size_t listed = 0;
      for (const void *n = b.free_head; n; ++listed) {
         if (listed > geometry_.nodes_per_block) return "a block's free list is longer than its nodes (a cycle?)";
         if (index_in(&b, n) == not_a_node) return "a block's free list holds a pointer that is not one of its nodes";
         const_cast<adaptive_node_pool *>(this)->unpoison(const_cast<void *>(n));
         const bool mark_ok = !carries_marks() || marked(n);
         const void *next = ba_detail_link_load(n);
         const_cast<adaptive_node_pool *>(this)->poison(const_cast<void *>(n));
         if (!mark_ok) return "a free node's mark is overwritten (a write after free?)";
         if (!ba_detail_link_valid(next, align_ - 1)) return "a free node's link is overwritten (a write after free?)";
         n = next;
      }
      if (listed != b.free_count) return "a block's free count is not the length of its free list";
      free_total += listed;
      const bool linked = b.in_bucket.is_linked();
      if (b.free_count == 0 && linked) return "a full block is in a list";
      if (b.free_count != 0 && !linked) return "a block with free nodes is in no list";
      if (b.free_count == geometry_.nodes_per_block) ++completely_free;
   }
   for (unsigned i = 0; i < bucket_count; ++i) {
      if (buckets_[i].empty() == ((nonempty_ >> i) & 1u)) return "a bucket's bit does not say whether it is empty";
      for (const block_header &b : buckets_[i])
         if (b.free_count == 0 || b.free_count >= geometry_.nodes_per_block || b.bucket != i || bucket_of(b.free_count) < i)
            return "a block is in a bucket above its free count's, or not in the one it names";
   }
   const block_header *previous = nullptr;
   for (const block_header &b : free_blocks_) {
      if (b.free_count != geometry_.nodes_per_block) return "a block in the free blocks has nodes in use";
      if (previous && !std::less<const block_header *>()(previous, &b)) return "the free blocks are not in address order";
      previous = &b;
   }
   if (completely_free != free_blocks_.size()) return "a completely free block is not in the free blocks";
   if (free_blocks_.size() > max_free_blocks_) return "more completely free blocks are kept than MaxFreeBlocks";
   if (blocks_.size() * geometry_.nodes_per_block - free_total != in_use_) return "the nodes in use are miscounted";
   return nullptr;
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_NODE_POOL_HPP
