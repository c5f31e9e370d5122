// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_NODE_POOL_HPP
#define BOOST_ALLOCPLUS_DETAIL_NODE_POOL_HPP

// Simple segregated storage: the engine of the node pools. A pool hands out nodes of one size and
// alignment, carved from blocks of NodesPerBlock nodes that come from the C core; a freed node goes
// on the pool's free list and is the next one handed out. Nothing per node: a block is a header
// and its nodes, back to back.
//
// - A new block is carved lazily (a bump pointer through it), so that making a block touches one
//   page, not all of them, and the nodes of a fresh block come out in address order.
// - The free list is the core's hardened list (core/detail/free_list.h): links are protected, and
//   a pop checks that the link it reads is aligned as every node is, so a write after free into a
//   node is reported instead of becoming an allocation at the writer's address.
// - A free node of two words or more carries the pool's mark in its second word: freeing a node
//   that carries it is a double free (reported, at constant cost, in every build). Checked builds
//   (BOOST_ALLOCPLUS_CHECKED, level 1) add what costs a comparison or two: a pointer freed that is
//   not aligned as the nodes are or lies outside the span of the pool's blocks is reported. Level 2
//   (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE) keeps a bit per node in its block and finds the block of
//   every pointer allocated and freed in the tree of the blocks by address (logarithmic), so it
//   reports every double free and every pointer that did not come from the pool. (The tree is kept
//   in every build: release_free_blocks() walks it in address order, owns() searches it.)
// - A pool's free list is the order of earlier frees, and after a long life it is scattered over
//   the blocks. A pool with no node in use starts over, in constant time, as a new one (its
//   blocks carved again in address order); a pool mostly free after scattered frees hands its
//   free list out in address order (consider_setting_aside): found by reading its blocks for
//   the nodes that carry the mark, or by a walk of the list, whole or a slice at a time.
// - release_free_blocks() gives back to the core every block whose nodes are all free: the free
//   nodes are sorted by address once (O(n log n) for n free nodes) and matched against the blocks
//   in address order.
// - Under valgrind (level-2 builds where its header exists, or BOOST_ALLOCPLUS_VALGRIND=1) every
//   node handed out is a block of its own for memcheck, inside the pool's blocks, which memcheck
//   sees as a pool's superblocks instead of the core's blocks: it reports nodes leaked, freed
//   twice, or used after they were freed.
//
// One pool is not for use from two threads at once: the private allocators own one each, the
// shared ones put a lock or per-thread magazines in front of it.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/address_order.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/detail/pool_node_checks.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <boost/intrusive/set.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <utility>
#include <vector>

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#endif

namespace boost { namespace allocplus {

//! What a node pool holds (node_allocator and private_node_allocator statistics).
struct node_pool_statistics {
   std::size_t node_size = 0;      //!< bytes a node takes (the size asked for, rounded up)
   std::size_t blocks = 0;         //!< blocks held from the core
   std::size_t nodes_in_use = 0;   //!< nodes handed out and not given back
   std::size_t free_nodes = 0;     //!< nodes ready to be handed out (freed, or never carved)
   std::size_t bytes_held = 0;     //!< bytes of the blocks held from the core

   //! Effects: adds the counts of s (the pools of one set, summed); node_size becomes s's.
   void add(const node_pool_statistics &s) noexcept
   {
      node_size = s.node_size;
      blocks += s.blocks;
      nodes_in_use += s.nodes_in_use;
      free_nodes += s.free_nodes;
      bytes_held += s.bytes_held;
   }
};

namespace detail {

//! The sum and the XOR of the addresses of a set of nodes, kept as nodes come and go: a pool's
//! free lists' (a read of the blocks for the marked nodes must find the same).
struct address_digest {
   std::uintptr_t sum = 0;
   std::uintptr_t x = 0;

   void add(const void *node) noexcept
   {
      const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(node);
      sum += a;
      x ^= a;
   }
   void remove(const void *node) noexcept
   {
      const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(node);
      sum -= a;
      x ^= a;
   }
   friend bool operator==(const address_digest &a, const address_digest &b) noexcept { return a.sum == b.sum && a.x == b.x; }
   friend bool operator!=(const address_digest &a, const address_digest &b) noexcept { return !(a == b); }
};

class BOOST_SYMBOL_VISIBLE node_pool : public pool_node_checks {
public:
   using parameters = std::size_t;   // the nodes a block holds
   using statistics_type = node_pool_statistics;
   static constexpr bool keeps_depot = true;   // whole magazines wait in the shared pool's depot (shared_node_pool.hpp)
   //! The most nodes put in address order at once (an array of them and their bits, in one
   //! step): a bigger list is ordered a slice at a time, a bigger depot lane not at all.
   static constexpr std::size_t order_whole_nodes = std::size_t(1) << 22;

   //! Requires: node_alignment is a power of two; nodes_per_block > 0; owner (the allocator's
   //!   name, for reports) outlives the pool.
   //! Effects: an empty pool of nodes of node_size bytes (at least a pointer, rounded up to a
   //!   multiple of the alignment, at least a pointer's), aligned to node_alignment. Takes no memory.
   node_pool(const char *owner, std::size_t node_size, std::size_t node_alignment,
             std::size_t nodes_per_block) noexcept
      : pool_node_checks(owner, node_size, node_alignment), nodes_per_block_(nodes_per_block),
        first_node_(round_up(sizeof(block_header) + bitmap_bytes(nodes_per_block), align_))
   {
#if defined(BA_DETAIL_VALGRIND)
      // A leaked node is lost with its block's memory: a block given back frees what is left in it.
      VALGRIND_CREATE_MEMPOOL_EXT(this, 0, 0, VALGRIND_MEMPOOL_METAPOOL | VALGRIND_MEMPOOL_AUTO_FREE);
#endif
   }

   node_pool(const node_pool &) = delete;
   node_pool &operator=(const node_pool &) = delete;

   //! Effects: gives every block back to the core. In checked builds a pool destroyed with nodes
   //!   still in use reports how many (they are freed with their blocks).
   ~node_pool()
   {
#if BOOST_ALLOCPLUS_CHECKED
      if (in_use_ != 0) report_leak(in_use_);
#endif
      blocks_.clear_and_dispose([this](block_header *b) { free_block(b); });
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_DESTROY_MEMPOOL(this);
#endif
   }

   std::size_t node_alignment() const noexcept { return align_; }

   //! Returns: a node, or null when the core has no memory for a new block.
   //! Complexity: constant.
   void *try_allocate() noexcept
   {
      void *node;
      if (BOOST_LIKELY(free_head_ != nullptr)) {
         node = take_free();
      } else if (BOOST_LIKELY(carve_next_ != carve_end_)) {
         node = take_carved();
      } else if ((node = take_set_aside()) == nullptr && (node = carve_held_block()) == nullptr
                 && (node = allocate_from_new_block()) == nullptr) {
         return nullptr;
      }
      // A node handed out never carries the mark: not even a carved one, whose memory may hold a
      // node a pool at the same address freed before.
      clear_mark(node);
      ++in_use_;
      note_allocated(node);
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MALLOCLIKE_BLOCK(node, node_size_, 0, 0);
#endif
      return node;
   }

   //! Effects: calls push(node) for up to n nodes. Returns: the nodes pushed: n, or fewer when
   //!   the core has no memory for a new block. Complexity: linear in n.
   template <class Push>
   std::size_t try_allocate_many(std::size_t n, Push push) noexcept
   {
      std::size_t got = 0;
      for (void *node; got != n && (node = try_allocate()) != nullptr; ++got) push(node);
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
   //! Effects: puts node on the free list. A node freed twice is reported: in every build when it
   //!   is the node freed last, or a node of two words or more; at checking level 2 always. A
   //!   pointer from elsewhere is reported at level 1 when it is misaligned or outside the span of
   //!   the pool's blocks, at level 2 always.
   //! Complexity: constant (logarithmic in the blocks at checking level 2).
   void deallocate(void *node) noexcept
   {
      freeing_in_place f = in_place();
      put_freed(f, node);
      if (BOOST_UNLIKELY(in_use_ == 0))
         start_over();
      else if (BOOST_UNLIKELY(free_count_ % order_check_period == 0))
         consider_setting_aside();
   }

   //! Effects: deallocate(node) for every node pop() returns until it returns null; the pool
   //!   asks once, after the last, whether to start over or to order its free list (so that a
   //!   list given back whole is ordered whole, not from where a periodic check fell in it).
   //! Returns: the nodes given back. Complexity: linear in the nodes.
   template <class Pop>
   std::size_t deallocate_many(Pop pop) noexcept
   {
      return deallocate_walked([pop = std::move(pop)](auto give) mutable {   // (held by value: in registers)
         while (void *node = pop()) give(node);
      });
   }

   //! Effects: deallocate_many for the nodes walk hands over (walk(give) calls give(node) for
   //!   each): the pool asks once, after the last, whether to start over or to order.
   //! Returns: the nodes given back. Complexity: linear in the nodes.
   template <class Walk>
   std::size_t deallocate_walked(Walk walk) noexcept
   {
      freeing f = begin_freeing();
      const std::size_t before = f.free_count;
      walk([&f, this](void *node) { put_freed(f, node); });
      end_freeing(f);
      const std::size_t freed = f.free_count - before;
      if (freed != 0) finish_freeing();
      return freed;
   }

   //! Effects: gives back, as deallocate would, every node walk hands over (walk(give) calls
   //!   give(node) for each of `count` nodes), and puts every free node of the pool in address
   //!   order at once: they go out lowest first. For a shared pool's depot given back whole: each
   //!   node is read once, by the walk, not again to be ordered. When they are all the nodes in
   //!   use, the pool starts over instead; when the pool would order over 4M nodes, or has no
   //!   memory for an array of them, it orders as deallocate_many does.
   //! Complexity: linear in the nodes given back and the free nodes (a sort when they lie far
   //!   apart).
   template <class Walk>
   void deallocate_all_in_order(std::size_t count, Walk walk) noexcept
   {
      std::vector<char *> nodes;
      bool whole = count != in_use_ && free_count_ + count <= order_whole_nodes;
      if (whole) {
         try {
            nodes.reserve(free_count_ + count);
         } catch (...) {
            whole = false;
         }
      }
      if (!whole) {
         deallocate_walked(walk);
         return;
      }
      freeing f = begin_freeing();
      walk([&](void *node) {
         check_freed(f, node);
         set_mark(node, f.marks);   // (given twice: reported at the second)
         --f.in_use;
         nodes.push_back(static_cast<char *>(node));
      });
      end_freeing(f);
      take_all_free(nodes);
      // (in_use_ may be 0 here only after a node of one word given twice, which the ordering
      // reports.)
      free_count_ = nodes.size();
      if (!nodes.empty()) put_in_address_order(nodes);
   }

   //! Returns: the free nodes on the pool's lists (not those of blocks not carved yet).
   std::size_t listed_free_nodes() const noexcept { return free_count_; }

   //! Effects: the pool is told that nodes it handed out wait, marked as free, where it cannot
   //!   see them (a shared pool's threads' bins and depot): it no longer reads its blocks for
   //!   the free nodes, it walks its list.
   void note_free_nodes_wait_elsewhere() noexcept { free_nodes_wait_elsewhere_ = true; }

   //! Returns: the nodes handed out and not given back (constant time).
   std::size_t nodes_in_use() const noexcept { return in_use_; }

   //! Returns: whether a pool with `free` nodes waiting and `in_use` in use is mostly free (the
   //!   threshold at which it orders a scattered free list; the shared pool's depot uses it too).
   static constexpr bool mostly_free(std::size_t free, std::size_t in_use) noexcept { return free >= 8 * in_use; }

   //! Effects: gives back to the core every block none of whose nodes is in use.
   //! Returns: the blocks given back.
   //! Complexity: O(n log n) for n free nodes, plus the blocks. Needs memory for an array of the
   //!   free nodes; when there is none, gives nothing back.
   std::size_t release_free_blocks() noexcept;

   //! Returns: what the pool holds.
   node_pool_statistics statistics() const noexcept
   {
      node_pool_statistics s;
      s.node_size = node_size_;
      s.blocks = blocks_.size();
      s.nodes_in_use = in_use_;
      s.free_nodes = free_count_ + static_cast<std::size_t>(carve_end_ - carve_next_) / node_size_
                   + uncarved_blocks_ * nodes_per_block_;
      s.bytes_held = blocks_.size() * block_bytes();
      return s;
   }

   //! Returns: whether p is a node of one of the pool's blocks (in use or not). Logarithmic.
   bool owns(const void *p) const noexcept { return block_of(p) != nullptr; }

   //! Effects: the constant-time checks of checking level 1 on a node given back
   //!   (check_could_be_node); shared_pool makes them before a thread's bin takes the node.
   void check_given_back(const void *node) const noexcept { check_could_be_node(node); }

private:
   // The free list and the counts a free changes, copied out of the pool for the frees of a
   // burst (or one free) and written back once at its end: a burst's copies stay in registers,
   // where the members, read through `this`, are read again after every store into a node (a
   // word of the same type), and each free waited on the stores of the one before.
   struct freeing {
      void *head;
      std::size_t free_count;
      std::size_t in_use;
      std::size_t far_frees;
      address_digest listed;
      marking marks;
      node_span span;   // checked builds' (check_freed)
   };
   freeing begin_freeing() const noexcept
   {
      return {free_head_, free_count_, in_use_, far_frees_, listed_, marking_now(),
              BOOST_ALLOCPLUS_CHECKED ? span_now() : node_span{}};
   }
   void end_freeing(const freeing &f) noexcept
   {
      free_head_ = f.head;
      free_count_ = f.free_count;
      in_use_ = f.in_use;
      far_frees_ = f.far_frees;
      listed_ = f.listed;
   }
   // The same fields as references to the members, for one free (deallocate): copied out and
   // written back, they cost a list's push and pop over a private pool a tenth more.
   struct freeing_in_place {
      void *&head;
      std::size_t &free_count;
      std::size_t &in_use;
      std::size_t &far_frees;
      address_digest &listed;
      marking marks;
   };
   freeing_in_place in_place() noexcept { return {free_head_, free_count_, in_use_, far_frees_, listed_, marking_now()}; }

   // Level 1's check of a node freed: against the span a burst read once, or for one free, read now.
   void check_could_be_node_in(const freeing &f, const void *node) const noexcept { check_could_be_node(node, f.span); }
   void check_could_be_node_in(const freeing_in_place &, const void *node) const noexcept { check_could_be_node(node); }

   // What deallocate checks of a node given back (the node is then unpoisoned).
   template <class Freeing>
   BOOST_FORCEINLINE void check_freed(const Freeing &f, void *node) noexcept
   {
      note_given_back(node);   // (memcheck, ASan: before the pool's own checks)
      if (BOOST_ALLOCPLUS_CHECKED) check_could_be_node_in(f, node);
      note_freed(node);
      // The node freed last is checked for every size (glibc's fast bins do the same); a node of
      // two words or more carries the mark while it is free, wherever it is in the list. With
      // nothing in use, any free is one too many.
      if (freed_twice(node, f.head, f.marks) || BOOST_UNLIKELY(f.in_use == 0)) report_double_free(node);
   }

   // deallocate without its last step (finish_freeing): the node checked, put on the free list
   // and counted, in f (a freeing or a freeing_in_place).
   template <class Freeing>
   BOOST_FORCEINLINE void put_freed(Freeing &f, void *node) noexcept
   {
      check_freed(f, node);
      f.far_frees += far_apart(node, f.head);
      ba_detail_link_store(node, f.head);
      set_mark(node, f.marks);
      f.head = node;
      ++f.free_count;
      f.listed.add(node);
      poison(node);
      --f.in_use;
   }

   // After nodes are freed in a burst: the pool starts over when none is in use, else asks once
   // whether to order its free list (so that a list given back whole is ordered whole, not from
   // where a periodic check fell in it).
   void finish_freeing() noexcept
   {
      if (in_use_ == 0)
         start_over();
      else
         consider_setting_aside();
   }

   // The header of a block, first in it: its place in the tree of blocks (by address), and, at
   // checking level 2, a bit per node (set while the node is in use) after it.
   struct block_header : boost::intrusive::set_base_hook<boost::intrusive::optimize_size<true>> {
   };
   struct by_address {
      bool operator()(const block_header &a, const block_header &b) const noexcept
      {
         return std::less<const block_header *>()(&a, &b);
      }
      bool operator()(const void *p, const block_header &b) const noexcept
      {
         return std::less<const void *>()(p, &b);
      }
      bool operator()(const block_header &a, const void *p) const noexcept
      {
         return std::less<const void *>()(&a, p);
      }
   };
   using block_tree = boost::intrusive::set<block_header, boost::intrusive::compare<by_address>,
                                            boost::intrusive::constant_time_size<true>>;

   static constexpr std::size_t round_up(std::size_t n, std::size_t to) noexcept { return (n + to - 1) & ~(to - 1); }
   static constexpr std::size_t bitmap_bytes(std::size_t nodes) noexcept
   {
      return BOOST_ALLOCPLUS_CHECKED_EXPENSIVE ? (nodes + 7) / 8 : 0;
   }

   std::size_t block_bytes() const noexcept { return first_node_ + nodes_per_block_ * node_size_; }
   char *first_node_of(block_header *b) const noexcept { return reinterpret_cast<char *>(b) + first_node_; }
   unsigned char *bitmap_of(block_header *b) const noexcept
   {
      return reinterpret_cast<unsigned char *>(b) + sizeof(block_header);
   }


   block_header *block_of(const void *p) const noexcept
   {
      auto it = blocks_.upper_bound(p, by_address());
      if (it == blocks_.begin()) return nullptr;
      --it;
      block_header *b = const_cast<block_header *>(&*it);
      const char *first = first_node_of(b), *c = static_cast<const char *>(p);
      if (c < first || c >= first + nodes_per_block_ * node_size_) return nullptr;
      if (static_cast<std::size_t>(c - first) % node_size_ != 0) return nullptr;
      return b;
   }

   // Checking level 2: the node's in-use bit goes on (allocated) and off (freed); a free of a node
   // whose bit is off, or of a pointer no block holds, is reported. (A search of the tree on every
   // node allocated and freed: not at level 1, which only adds constant-time checks.)
   void note_allocated(void *node) noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      block_header *b = block_of(node);
      std::size_t i = static_cast<std::size_t>(static_cast<char *>(node) - first_node_of(b)) / node_size_;
      bitmap_of(b)[i / 8] = static_cast<unsigned char>(bitmap_of(b)[i / 8] | (1u << (i % 8)));
#else
      (void)node;
#endif
   }
   void note_freed(void *node) noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
      block_header *b = block_of(node);
      if (!b) report("a pointer that did not come from this pool is freed", node);
      std::size_t i = static_cast<std::size_t>(static_cast<char *>(node) - first_node_of(b)) / node_size_;
      if (!(bitmap_of(b)[i / 8] & (1u << (i % 8)))) report_double_free(node);
      bitmap_of(b)[i / 8] = static_cast<unsigned char>(bitmap_of(b)[i / 8] & ~(1u << (i % 8)));
#endif
      unpoison(node);
   }

   BOOST_NOINLINE void *allocate_from_new_block() noexcept
   {
      if (nodes_per_block_ > (static_cast<std::size_t>(-1) - first_node_) / node_size_) return nullptr;
      const std::size_t bytes = block_bytes();
      void *memory = align_ > BA_MALLOC_ALIGNMENT ? ba_memalign(align_, bytes) : ba_malloc(bytes);
      if (!memory) return nullptr;
#if defined(BA_DETAIL_VALGRIND)
      // For memcheck the block is no longer the core's but a superblock of this pool's nodes.
      VALGRIND_FREELIKE_BLOCK(memory, 0);
      VALGRIND_MEMPOOL_ALLOC(this, memory, bytes);
      // (The tree's insertion keeps bits of the header's old words: memory, not news.)
      VALGRIND_MAKE_MEM_DEFINED(memory, first_node_);
#endif
      block_header *b = ::new (memory) block_header;
      if (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE) std::memset(bitmap_of(b), 0, bitmap_bytes(nodes_per_block_));
      blocks_.insert(*b);
      char *first = first_node_of(b);
      widen_block_span(first, first + nodes_per_block_ * node_size_);
      // (Called when the newest block is carved to its end: nothing of it is dropped.)
      set_carving(b);
      return take_carved();
   }

   // Nodes freed one after the other more than this far apart count as scattered frees (a walk
   // from one to the other leaves the hardware prefetcher's stream).
   static constexpr std::uintptr_t far = 256;
   static bool far_apart(const void *node, const void *previous) noexcept
   {
      const std::uintptr_t d = reinterpret_cast<std::uintptr_t>(node) - reinterpret_cast<std::uintptr_t>(previous);
      return d + far > 2 * far;
   }
   // How often (in free nodes) a free asks whether the free list should be put in order.
   static constexpr std::size_t order_check_period = 4096;

   // A pool that is mostly free after scattered frees (a long-lived pool whose containers died in
   // an order of their own, a few nodes still in use) would hand its next container nodes all
   // over its blocks, and every walk of that container would miss the cache: the order degrades
   // with every reuse (a std::list churn ran 16x slower after ten). Such a free list is set
   // aside, in constant time, and handed out in address order when the free list next runs out
   // (take_set_aside): not at once, since a pool that is being destroyed orders nothing.
   // "Mostly free": at least 8 nodes free for one in use. "Scattered": since the list was last
   // in order, a sixteenth as many frees as there are free nodes, or more, were over 256 bytes
   // from the node freed before them. (A sample of the nodes freed last, instead of the count,
   // missed the churns whose last frees were in order.)
   //
   // A pool whose nodes carry the mark finds its free nodes by reading its blocks in address
   // order (order_by_reading_blocks): a stream, 4 to 9 ms for the blocks of 466 000 nodes,
   // however scattered the list. Otherwise ordering walks the list, and each far link is a
   // cache miss: a list with few of them (one ordered a few reuses ago: the steady state of a
   // churn) is ordered whole, a pause of a few milliseconds for 500 000 nodes; a list with many
   // (a big std::set freed in key order) is ordered a slice at a time, so that no allocation
   // waits for more than a slice's misses (about 2 ms for 4096 at worst). Each costs a few steps
   // for each scattered free.
   BOOST_NOINLINE void consider_setting_aside() noexcept
   {
      if (set_aside_ || !mostly_free(free_count_, in_use_) || 16 * far_frees_ < free_count_) return;
      set_aside_ = free_head_;
      set_aside_count_ = free_count_;
      reading_blocks_failed_ = false;
      order_in_slices_ = far_frees_ > order_whole_far_links || free_count_ > order_whole_nodes;
      free_head_ = nullptr;
      far_frees_ = 0;
   }

   // The most far links of a list ordered whole; the nodes of a slice.
   static constexpr std::size_t order_whole_far_links = 65536;
   static constexpr std::size_t order_slice = 4096;

   // The list set aside by consider_setting_aside, or its next slice, in address order on the
   // free list; the first of them. (Nodes freed after it was set aside went out first.)
   BOOST_NOINLINE void *take_set_aside() noexcept
   {
      if (!set_aside_) return nullptr;
      if (order_by_reading_blocks()) return take_free();
      const std::size_t count = order_in_slices_ ? std::min(set_aside_count_, order_slice) : set_aside_count_;
      std::vector<char *> nodes;
      try {
         nodes.reserve(count);
      } catch (...) {   // no memory to order with: the list as it is
         free_head_ = set_aside_;
         set_aside_ = nullptr;
         set_aside_count_ = 0;
         return take_free();
      }
      set_aside_ = take_nodes(set_aside_, count, nodes);
      set_aside_count_ -= nodes.size();
      if (set_aside_count_ == 0 || nodes.empty()) {
         set_aside_ = nullptr;
         set_aside_count_ = 0;
      }
      if (nodes.empty()) return nullptr;
      put_in_address_order(nodes);
      return take_free();
   }

   // Puts every free node on the free list in address order by reading the blocks in order,
   // instead of the list set aside: a free node carries the mark and a node in use does not, and
   // a read of the blocks streams where a walk of a scattered list waits for each node in turn
   // (94 ms for 459 000 shuffled nodes). Only where every marked node is on the pool's lists
   // (not a shared pool's: its threads' bins and depot hold marked nodes too), nodes carry marks
   // (two words or more), and free nodes may be read (not under ASan or memcheck). Returns:
   // whether it did. It does not when the marks it finds are not the free nodes the pool counts
   // (a node in use whose second word holds the mark, a free node's overwritten): the list is
   // walked then. Requires: the free list is empty (all free nodes are set aside).
   bool order_by_reading_blocks() noexcept
   {
      if (reading_blocks_failed_ || !free_nodes_readable_in_blocks()) return false;
      const std::uintptr_t pool_mark = mark();
      const auto is_marked = [pool_mark](const char *node) {
         return static_cast<const std::uintptr_t *>(static_cast<const void *>(node))[1] == pool_mark;
      };
      // The marked nodes must be the listed ones: as many, the same sum and XOR of addresses (a
      // mark copied into a node in use and one cleared in a free node do not balance them).
      std::size_t marked_nodes = 0;
      address_digest marked;
      for_each_carved_node_downwards([&](char *node) {
         if (!is_marked(node)) return;
         ++marked_nodes;
         marked.add(node);
      });
      if (marked_nodes != free_count_ || marked != listed_) {
         reading_blocks_failed_ = true;   // (not again for this list: it is walked)
         return false;
      }
      // Pushed from the highest, so that the lowest goes out first.
      for_each_carved_node_downwards([&](char *node) {
         if (!is_marked(node)) return;
         ba_detail_link_store(node, free_head_);
         free_head_ = node;
      });
      set_aside_ = nullptr;
      set_aside_count_ = 0;
      return true;
   }

   // Reading the blocks reads nodes in use too: not under a sanitizer (ASan and memcheck report
   // reads of free nodes, TSan reports reads of nodes another thread writes), not for nodes
   // without marks, not for a shared pool, nor for pools of over 4M nodes (the pause).
   bool free_nodes_readable_in_blocks() const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_ASAN) || defined(BA_DETAIL_TSAN)
      return false;
#else
#  if defined(BA_DETAIL_VALGRIND)
      if (RUNNING_ON_VALGRIND) return false;
#  endif
      return carries_marks() && !free_nodes_wait_elsewhere_ && blocks_.size() * nodes_per_block_ <= order_whole_nodes;
#endif
   }

   // Calls f(node) for every node of the blocks handed out since its block was last carved (in
   // use or free), from the highest address down.
   template <class F>
   void for_each_carved_node_downwards(F f) const noexcept
   {
      for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
         const carved_nodes carved = carved_nodes_of(const_cast<block_header *>(&*it));
         for (char *node = carved.end; node != carved.first;) f(node -= node_size_);
      }
   }

   // The nodes of a block handed out since it was last carved: all of them, but those of the
   // block being carved up to carve_next_, and none of a block not begun again since start_over.
   struct carved_nodes {
      char *first;
      char *end;
   };
   carved_nodes carved_nodes_of(block_header *b) const noexcept
   {
      char *first = first_node_of(b), *end = first + nodes_per_block_ * node_size_;
      if (end == carve_end_) return {first, carve_next_};
      if (uncarved_blocks_ != 0 && std::less<const char *>()(carve_end_, first)) return {first, first};
      return {first, end};
   }

   // The first node of the free list. Requires: free_head_ != nullptr.
   void *take_free() noexcept
   {
      void *node = free_head_;
      unpoison(node);
      free_head_ = next_free(node);
      --free_count_;
      listed_.remove(node);
      return node;
   }

   // Puts nodes (taken from a free list or given back, not poisoned; at least one) on
   // the free list, lowest address first out. Linear when they lie close together: a bit per
   // node place from the lowest to the highest marks them, and the bits are read back in
   // address order. Otherwise (or with no memory for the bits) a sort. A node found twice was
   // freed twice (reported).
   void put_in_address_order(std::vector<char *> &nodes) noexcept
   {
      visit_in_descending_address_order(
         nodes, align_, [this](char *n) { push_free(n); }, [this](char *n) { report_double_free(n); });
   }

   // Moves every node of the free list and of the list set aside into nodes (unmarked), and
   // leaves both lists empty (free_count_ is the caller's). Requires: nodes has room for them.
   void take_all_free(std::vector<char *> &nodes) noexcept
   {
      take_nodes(set_aside_, set_aside_count_, nodes);
      take_nodes(free_head_, free_count_ - set_aside_count_, nodes);
      set_aside_ = free_head_ = nullptr;
      set_aside_count_ = 0;
      far_frees_ = 0;
   }

   // Moves up to `count` free nodes of the list at head into nodes (unmarked). Returns: the rest
   // of the list. Requires: nodes has room for them (reserved).
   void *take_nodes(void *head, std::size_t count, std::vector<char *> &nodes) noexcept
   {
      for (; head && count != 0; --count) {
         unpoison(head);
         void *next = next_free(head);
         clear_mark(head);
         listed_.remove(head);
         nodes.push_back(static_cast<char *>(head));
         head = next;
      }
      return head;
   }

   // Puts a free node (unmarked, not poisoned) first on the free list.
   void push_free(char *node) noexcept
   {
      ba_detail_link_store(node, free_head_);
      set_mark(node);
      free_head_ = node;
      listed_.add(node);
      poison(node);
   }

   // Puts nodes (in address order; null ones skipped) on the free list, the lowest first out.
   // Returns: how many.
   std::size_t put_back_in_order(const std::vector<char *> &nodes) noexcept
   {
      std::size_t pushed = 0;
      for (auto n = nodes.rbegin(); n != nodes.rend(); ++n)
         if (*n) {
            push_free(*n);
            ++pushed;
         }
      return pushed;
   }

   // With no node in use, the free list (the order of every earlier free: after a long life,
   // scattered over the blocks) is dropped and the blocks are carved again, lowest address first,
   // as a new pool's would be, so that the next container's nodes lie in address order. Constant
   // time: the blocks are carved one at a time as they are needed (carve_held_block). Free nodes
   // keep the mark, so freeing one of them again is still reported.
   // (A node was in use: the pool holds a block.)
   BOOST_NOINLINE void start_over() noexcept
   {
      far_frees_ = 0;
      free_head_ = set_aside_ = nullptr;
      set_aside_count_ = 0;
      free_count_ = 0;
      listed_ = address_digest{};
      reading_blocks_failed_ = false;
      set_carving(&*blocks_.begin());
      uncarved_blocks_ = blocks_.size() - 1;
   }

   // After start_over: the next held block in address order, carved as a new one is.
   BOOST_NOINLINE void *carve_held_block() noexcept
   {
      if (uncarved_blocks_ == 0) return nullptr;
      --uncarved_blocks_;
      // carve_end_ is the end of the last block carved; the next one in the tree is after it.
      auto it = blocks_.upper_bound(static_cast<const void *>(carve_end_ - 1), by_address());
      set_carving(&*it);
      return take_carved();
   }

   // The nodes of block b are carved next, in address order; none of them may be touched until
   // it is carved (poisoned under ASan and memcheck).
   void set_carving(block_header *b) noexcept
   {
      carve_next_ = first_node_of(b);
      carve_end_ = carve_next_ + nodes_per_block_ * node_size_;
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      ASAN_POISON_MEMORY_REGION(carve_next_, static_cast<std::size_t>(carve_end_ - carve_next_));
#endif
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MAKE_MEM_NOACCESS(carve_next_, static_cast<std::size_t>(carve_end_ - carve_next_));
#endif
   }

   // The next node of the block being carved. Requires: carve_next_ != carve_end_.
   void *take_carved() noexcept
   {
      char *node = carve_next_;
      carve_next_ += node_size_;
      unpoison(node);
      return node;
   }

   // A block goes back to the core (memcheck is told it is the core's block again).
   void free_block(block_header *b) noexcept
   {
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MEMPOOL_FREE(this, b);
      VALGRIND_MALLOCLIKE_BLOCK(b, block_bytes(), 0, 0);
      // (The core's checks of a freed block read its first words.)
      VALGRIND_MAKE_MEM_DEFINED(b, block_bytes());
#endif
      ba_free(b);
   }

   const std::size_t nodes_per_block_;
   const std::size_t first_node_;      // offset of a block's first node
   void *free_head_ = nullptr;         // the free list (protected links)
   std::size_t free_count_ = 0;
   char *carve_next_ = nullptr;        // the newest block's nodes not carved yet
   char *carve_end_ = nullptr;
   std::size_t in_use_ = 0;
   std::size_t uncarved_blocks_ = 0;   // after start_over: held blocks above the one carved, not begun
   void *set_aside_ = nullptr;         // a free list to be put in order (counted in free_count_)
   std::size_t set_aside_count_ = 0;   // its nodes
   bool order_in_slices_ = false;      // its ordering: whole, or a slice at a time
   bool free_nodes_wait_elsewhere_ = false;   // marked nodes outside its lists (a shared pool's bins)
   bool reading_blocks_failed_ = false;   // the list set aside did not match the marks read: walked
   address_digest listed_;             // of the nodes on the free lists
   std::size_t far_frees_ = 0;         // frees far from the node freed before, since the list was in order
   block_tree blocks_;
};

inline std::size_t node_pool::release_free_blocks() noexcept
{
   if (blocks_.empty()) return 0;
   std::vector<char *> free_nodes;
   try {
      free_nodes.reserve(free_count_);
   } catch (...) {
      return 0;
   }
   take_all_free(free_nodes);
   free_count_ = 0;
   std::sort(free_nodes.begin(), free_nodes.end(), std::less<char *>());
   // Walk the blocks and the sorted free nodes together; a block whose free nodes and uncarved
   // nodes make all of its nodes goes back to the core.
   std::size_t released = 0;
   auto node = free_nodes.begin();
   for (auto it = blocks_.begin(); it != blocks_.end();) {
      block_header *b = &*it;
      char *first = first_node_of(b), *end = first + nodes_per_block_ * node_size_;
      auto block_first = std::lower_bound(node, free_nodes.end(), first, std::less<char *>());
      auto block_last = std::lower_bound(block_first, free_nodes.end(), end, std::less<char *>());
      const bool carving = carve_end_ == end;
      // (Nodes not carved yet are free too.)
      std::size_t idle = static_cast<std::size_t>(block_last - block_first)
                       + static_cast<std::size_t>(end - carved_nodes_of(b).end) / node_size_;
      if (idle == nodes_per_block_) {
         std::fill(block_first, block_last, nullptr);   // not to be put back
         if (carving) carve_next_ = carve_end_ = nullptr;
         it = blocks_.erase(it);
         free_block(b);
         ++released;
      } else {
         ++it;
      }
      node = block_last;
   }
   uncarved_blocks_ = 0;
   if (blocks_.empty()) {
      set_block_span(0, 0);
   } else {
      block_header *low = &*blocks_.begin(), *high = &*blocks_.rbegin();
      set_block_span(reinterpret_cast<std::uintptr_t>(first_node_of(low)),
                     reinterpret_cast<std::uintptr_t>(first_node_of(high) + nodes_per_block_ * node_size_));
   }
   // The nodes of the blocks kept go back on the list, the lowest first out.
   free_count_ = put_back_in_order(free_nodes);
   return released;
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_NODE_POOL_HPP
