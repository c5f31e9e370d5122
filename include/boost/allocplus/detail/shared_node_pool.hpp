// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_SHARED_NODE_POOL_HPP
#define BOOST_ALLOCPLUS_DETAIL_SHARED_NODE_POOL_HPP

// The shared pools (node_allocator's, adaptive_pool's, synchronized_pool_resource's): one per
// (node size, alignment, block parameters) in the process, shared by every thread. An engine
// (node_pool.hpp, adaptive_node_pool.hpp) under a lock, with per-thread magazines
// from the core's thread cache engine (core/detail/pool_cache.h): a thread allocates from and
// frees into a bin of its own, without the lock; an empty bin takes a magazine from the pool, a
// full one gives one back, each under the lock once. A node freed by another thread than the one
// that allocated it goes to the freeing thread's bin (nodes have no owner).
//
// Between the bins and the pool, a node pool keeps a depot of whole magazines (Bonwick's depot,
// as the core's thread caches have): a full bin's older magazine goes there, and an empty bin
// takes the magazine parked last, each a list moved whole under the lock, its nodes neither
// walked nor put back one by one on the pool's list. The depot has a lane for each thread
// (eight; more threads share them): a thread takes back the magazines it parked before any
// other thread's, and another's only when its own lane is empty and the other holds more than a
// reserve (depot_lane); nodes from the pool and from another's lane come to a thread in runs of
// up to 64 KiB, parked in its lane, while threads take from the pool in turn (park_run_locked,
// take_run_from_other_lane_locked), so that each thread's nodes lie in pages of their own. A
// lane that has taken more than 1 MiB of nodes since it was last ordered, half of what it holds
// or more, and holds as many nodes as its thread has in use, is put in address order when its
// thread next takes from it, out of the depot and without the lock
// (put_lane_in_order_outside_lock). Nodes
// a bin takes from the pool go into it last first, so that the bin hands them out in the pool's
// order (a new block's: address order; handed out reversed, a bin's worth at a time, they made a
// list churn over the shared pool 1.6x slower to walk). A burst (version 2) is made under the lock
// from the depot's nodes first, walked off its magazines (a magazine partly taken stays, shorter,
// and a bin that takes it is topped up from the next ones), then from the pool; while threads
// contend for the lock, through the threads' bins (bursts_through_bins). The depot's nodes
// are free nodes like the list's (it is an array of magazines from the core, grown as needed;
// without memory for it, a magazine goes back node by node); release_free_blocks() puts them back
// on the list first. The adaptive pools keep none: their blocks must drain for memory to go back.
// A depot that holds most of a mostly free pool, and more than a cache (a long-lived pool whose
// containers died), goes back to the pool at the next refill of a thread whose lane is empty
// (or the next burst), in one walk, and the pool hands all its free nodes out in address order
// from then on (give_depot_back_in_order_locked).
//
// A free node carries the pool's mark wherever it waits (a thread's bin, the depot, the pool's
// list), so a node freed twice is reported at constant cost in every build (glibc's tcache key).
//
// Immortal: made on first use in static storage and never destroyed, so that a static container
// destroyed at exit still frees into a live pool. One per process across shared libraries (an
// inline function's static object, with default visibility). Survives fork: the core's fork
// handlers take its lock, and the child takes back the bins of the threads it does not have.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/detail/address_order.hpp>
#include <boost/allocplus/detail/node_burst.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace boost { namespace allocplus { namespace detail {

//! Pool: the engine (node_pool or adaptive_node_pool): try_allocate, try_allocate_many, deallocate,
//! deallocate_many, next_free, mark_free, unmark_free, check_not_free, poison, unpoison, owns,
//! check_given_back, statistics, release_free_blocks, report, node_size, node_alignment, the
//! constant keeps_depot, and the types parameters and statistics_type.
template <class Pool>
class BOOST_SYMBOL_VISIBLE shared_pool {
public:
   using parameters = typename Pool::parameters;
   using statistics_type = typename Pool::statistics_type;
   static constexpr std::size_t magazine_bytes = 8192;   //!< about what a magazine's nodes take
   //! The most nodes a magazine holds. Checking level 2 searches the thread's bin on every free:
   //! there bins stay small (256 nodes a magazine made a list churn 3.6x slower at level 2).
   static constexpr unsigned magazine_max_nodes = BOOST_ALLOCPLUS_CHECKED_EXPENSIVE ? 64 : 256;

   //! Effects: an empty pool that registers itself with the core's thread caches (when the core
   //!   is header-only and a class is free; otherwise every call takes the lock).
   shared_pool(const char *owner, std::size_t node_size, std::size_t node_alignment,
               const parameters &params) noexcept
      : pool_(owner, node_size, node_alignment, params)
   {
      if constexpr (keeps_depot) pool_.note_free_nodes_wait_elsewhere();
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      (void)ba_default_heap();   // the core's set-up (its fork handlers) first
      cls_ = ba_detail_pool_class_register(&give_back, this, &lock_, batch(), pool_.node_alignment() - 1);
#endif
   }
   shared_pool(const shared_pool &) = delete;
   shared_pool &operator=(const shared_pool &) = delete;

   //! Returns: the nodes of a magazine for nodes of node_size bytes: about 8 KiB of them, 8 to
   //!   magazine_max_nodes (256; 64 at checking level 2). A thread's bin holds two magazines;
   //!   the pool's lock is taken once a magazine.
   //!   (With magazines of 4 KiB and at most 64 nodes, two threads churning lists over one
   //!   pool took 1.23x-1.53x the time a node, sets and maps 1.05x-1.27x: each refill and
   //!   give-back is a lock and the pool's lines moved between the cores. One thread alone:
   //!   within 3%. bench/results/2026-11-30-vm-pool-magazines-ab.md.)
   static constexpr unsigned magazine_nodes(std::size_t node_size) noexcept
   {
      const std::size_t n = magazine_bytes / node_size;
      return static_cast<unsigned>(n < 8 ? 8 : n > magazine_max_nodes ? magazine_max_nodes : n);
   }

   //! Returns: a node. Throws: std::bad_alloc when memory is out.
   //! Complexity: constant (a magazine of nodes under the lock when the thread's bin is empty).
   void *allocate()
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      if (void *node = ba_detail_pool_cache_pop(cls_, pool_.node_alignment() - 1)) {
         pool_.unpoison(node);
         pool_.unmark_free(node);
         return node;
      }
#endif
      return allocate_slow();
   }

   //! Requires: node came from this pool. Effects: gives it back (to the thread's bin). A node
   //!   freed twice is reported (a node of one word: when it is the last one the thread freed).
   //!   Checked builds report, before the bin takes it, a pointer that cannot be a node of the
   //!   pool (the engine's check_given_back, constant time); level 2 sends every node through the
   //!   slow path, which looks it up in the pool and walks the bin.
   void deallocate(void *node) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      if (!BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && bins_usable()) {
         if (BOOST_ALLOCPLUS_CHECKED) pool_.check_given_back(node);
         pool_.check_not_free(node);
         if (ba_detail_pool_cache_push(cls_, node)) {
            pool_.mark_free(node);
            pool_.poison(node);
            return;
         }
      }
#endif
      deallocate_slow(node);
   }

   //! Effects: calls push(node) for n nodes, taken under one lock (a burst): first from the
   //!   depot's magazines (nodes freed one by one and parked there), then from the pool. While
   //!   threads contend for the lock, first from the thread's bin, without the lock, and the bin
   //!   is refilled when the lock is taken (bursts_through_bins). Throws: std::bad_alloc when
   //!   memory is out, after giving back the nodes it took (push is then not called).
   //! Complexity: linear in n; one lock at most.
   template <class Push>
   BOOST_FORCEINLINE void allocate_burst(std::size_t n, Push push)
   {
      void *taken = nullptr;
      const bool routed = BOOST_UNLIKELY(bursts_through_bins());
      thread_bin *bin = routed ? burst_bin() : nullptr;
      const std::size_t got = bin ? take_from_bin(bin, n, taken) : 0;
      if (got != n && BOOST_UNLIKELY(!take_locked(n - got, taken, bin, routed))) throw_bad_alloc();
      push_taken(taken, push);
   }

   //! Effects: gives back to the pool every node pop() returns until it returns null, under one
   //!   lock (a burst). While threads contend for the lock, into the thread's bin, without the
   //!   lock; when the bin is full, its nodes and the rest of the burst go to the pool under one
   //!   lock (bursts_through_bins).
   //! Complexity: linear in the nodes; one lock at most.
   template <class Pop>
   void deallocate_burst(Pop pop) noexcept
   {
      const bool routed = BOOST_UNLIKELY(bursts_through_bins());
      if (routed) {
         if (thread_bin *bin = burst_bin()) {
            deallocate_burst_into_bin(*bin, pop);
            return;
         }
      }
      const int locked = lock();
      note_how_locked(locked, routed);
      pool_.deallocate_many(pop);
      unlock(locked);
   }

   //! Returns: whether bursts go through the threads' bins now (threads contended for the lock
   //!   lately). Effects (route_bursts_through_bins, for tests): they do until the lock has been
   //!   taken `steps` times by bursts without a wait.
   bool bursts_through_bins() const noexcept { return __atomic_load_n(&bin_steps_left_, __ATOMIC_RELAXED) != 0; }
   void route_bursts_through_bins(unsigned steps) noexcept
   {
      const int locked = lock();
      __atomic_store_n(&bin_steps_left_, steps, __ATOMIC_RELAXED);
      unlock(locked);
   }

   //! Effects: gives the pool's free blocks back to the core (nodes in threads' bins stay, and
   //!   those of a lane its thread is putting in order at that moment; the depot's go back to
   //!   the pool first).
   std::size_t release_free_blocks() noexcept
   {
      const int taken = lock();
      empty_depot_locked();
      std::size_t released = pool_.release_free_blocks();
      unlock(taken);
      return released;
   }

   //! Returns: whether p is a node of the pool's blocks. Logarithmic in the blocks.
   bool owns(const void *p) const noexcept
   {
      const int taken = lock();
      const bool owned = pool_.owns(p);
      unlock(taken);
      return owned;
   }

   //! Returns: what the pool holds (nodes in threads' bins count as in use, the depot's as free,
   //!   those of a lane its thread is putting in order at that moment as in use).
   statistics_type statistics() const noexcept
   {
      const int taken = lock();
      statistics_type s = pool_.statistics();
      if constexpr (keeps_depot) {
         s.nodes_in_use -= depot_nodes_;
         s.free_nodes += depot_nodes_;
      }
      unlock(taken);
      return s;
   }

   //! Returns: null when every invariant of the engine holds, else the first broken one (a
   //!   sentence). Complexity: linear in what the pool holds (nodes in threads' bins are in use).
   template <class P = Pool>
   auto check() const noexcept -> decltype(std::declval<const P &>().check())
   {
      const int taken = lock();
      const char *broken = pool_.check();   // (the adaptive pools: they keep no depot)
      unlock(taken);
      return broken;
   }

private:
   static constexpr bool keeps_depot = Pool::keeps_depot;

   // A list of nodes linked as in a bin, whole.
   struct magazine {
      void *first;
      std::size_t length;
   };

   // The depot's lanes: a thread parks its magazines in a lane of its own and takes them back
   // first, so that the nodes a thread frees are the nodes it gets back, in the lines and pages
   // of its own containers. Magazines taken in any thread's order gave each thread nodes lying
   // between the other's live ones: two threads churning lists over one pool took 5-6 times
   // mimalloc's time a node from the second round on (the lines moved between the cores at
   // every write, and the pool's list, walked under the lock, missed at every node). A thread
   // whose lane is empty takes from the fullest lane when it holds more than a reserve (a thread
   // that only frees feeds one that only allocates), a run of it at a time (runs, below);
   // threads beyond the lanes share them.
   // (bench/results/2026-12-01-vm-depot-lanes-ab.md)
   struct depot_lane {
      const void *owner = nullptr;     // the bin (of a thread) whose lane it is; null: nobody's
      magazine *slots = nullptr;       // (from the core; immortal, as the pool)
      std::size_t size = 0;            // magazines it has room for
      std::size_t count = 0;           // magazines in it
      std::size_t nodes = 0;           // the nodes they hold
      std::size_t parked_unordered = 0;   // nodes parked since the lane was last put in order
      // The nodes its thread's bin took in refills less those it gave back (0 when it gave back
      // more): about the nodes the thread has in use, at a refill.
      std::size_t thread_nodes = 0;
      bool ordering = false;   // its thread orders its magazines, taken out of it, without the lock
   };
   static constexpr std::size_t lane_count = 8;

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   using thread_bin = ba_detail_cache_bin;
#else
   struct thread_bin {};   // (no thread caches: a burst never has one)
#endif

   // Bursts through the threads' bins (bursts_through_bins). A burst made under the lock takes
   // its nodes from the pool and gives them back there at once, one lock for the whole range: a
   // thread's bin would hold them on the way (each node written and read once more), and the
   // nodes it keeps would stop a pool whose nodes all came back from starting over (node_pool's
   // start_over: the next nodes are carved, in address order, instead of taken off a list).
   // Where two threads make bursts at once, they take turns at the lock for every range (a list
   // of ranges of 10 erased over node_allocator while another thread did the same: 45 ns a node,
   // against 13 for single frees, which go through the bins). So a burst that had to wait for
   // the lock sends the bursts after it through the threads' bins, which take the lock once for
   // every bin's worth of nodes, until `bin_steps_after_wait` takes of the lock by them found
   // nobody holding it. Written under the lock, read without it (a hint: relaxed).
   static constexpr unsigned bin_steps_after_wait = 256;
   mutable unsigned bin_steps_left_ = 0;

   // Precondition: the lock is held; `taken` is lock()'s result, and `routed` whether the burst
   // that took it found bursts routed through the bins (whether or not the thread had a bin: one
   // without counts down too, so that the route ends).
   void note_how_locked(int taken, bool routed) const noexcept
   {
      if (BOOST_UNLIKELY(taken == 2)) {
         __atomic_store_n(&bin_steps_left_, bin_steps_after_wait, __ATOMIC_RELAXED);
      } else if (routed) {
         const unsigned left = __atomic_load_n(&bin_steps_left_, __ATOMIC_RELAXED);
         if (left != 0) __atomic_store_n(&bin_steps_left_, left - 1, __ATOMIC_RELAXED);
      }
   }

   // Returns: the calling thread's bin of this pool, for a burst while threads contend for the
   // lock; null where a burst goes to the pool under its lock (no contention, no thread caches,
   // valgrind, checking level 2: the pool checks each node).
   BOOST_NOINLINE thread_bin *burst_bin() const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      if (!BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && bins_usable() && bursts_through_bins())
         return ba_detail_pool_cache_bin(cls_);
#endif
      return nullptr;
   }

   // Takes n more nodes onto the list `taken` (linked through first words) under the lock: from
   // the depot's magazines first, then from the pool; then refills `bin` (the thread's, emptied by
   // the burst; null: none). `routed`: as note_how_locked's. Returns: true; false when memory ran
   // out, after giving back to the pool every node of the list (`taken` null).
   BOOST_FORCEINLINE bool take_locked(std::size_t n, void *&taken, thread_bin *bin, bool routed)
   {
      int locked = lock();
      note_how_locked(locked, routed);
      if (depot_count_ != 0 && depot_holds_a_mostly_free_pool_locked()) give_depot_back_in_order_locked();
      const std::size_t from_depot = depot_count_ != 0 ? take_from_depot_locked(n, taken, bin) : 0;
      const bool whole = take_more_nodes(pool_, n - from_depot, taken);
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      if (whole && bin) refill_bin_locked(bin, locked);
#endif
      unlock(locked);
      return whole;
   }

   // Takes up to n nodes off the thread's bin onto the list `taken` (linked through first words),
   // in the bin's order. Returns: the nodes taken.
   BOOST_NOINLINE std::size_t take_from_bin(thread_bin *bin, std::size_t n, void *&taken) const noexcept
   {
      std::size_t got = 0;
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      // The bin is detached (left empty) before its nodes are written, and what is left of it
      // put back after: a fork meanwhile leaves the child an empty bin, whose nodes it loses,
      // never a bin whose first link a store below has overwritten (the child would follow it).
      // The copy also keeps the bin's fields in registers across the stores into nodes.
      thread_bin walked = *bin;
      bin->head = nullptr;
      bin->room = bin->limit;
      __atomic_signal_fence(__ATOMIC_SEQ_CST);   // (stores kept in this order: a compiler barrier)
      const std::uintptr_t align_mask = pool_.node_alignment() - 1;
      for (; got != n; ++got) {
         void *node = ba_detail_pool_bin_pop(&walked, align_mask);
         if (!node) break;
         pool_.unpoison(node);
         pool_.unmark_free(node);
         *static_cast<void **>(node) = taken;
         taken = node;
      }
      __atomic_signal_fence(__ATOMIC_SEQ_CST);   // (stores kept in this order: a compiler barrier)
      *bin = walked;
#else
      (void)bin, (void)n, (void)taken;
#endif
      return got;
   }

   // deallocate_burst through the thread's bin: when it is full, its nodes and the rest of the
   // burst go back to the pool, under the lock once, and it is empty again. (Not to the depot:
   // the pool takes them back in one walk, and starts over when they were all its nodes in use;
   // magazines parked would have to be put back in address order, a walk and a sort.) pop must
   // not call into this pool (the bin is written back at the end: a chain's walk).
   template <class Pop>
   BOOST_NOINLINE void deallocate_burst_into_bin(thread_bin &bin, Pop &pop) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      thread_bin filled = bin;   // (in registers: see take_from_bin)
      while (void *node = pop()) {
         if (BOOST_ALLOCPLUS_CHECKED) pool_.check_given_back(node);
         pool_.check_not_free(node);
         if (BOOST_UNLIKELY(!ba_detail_pool_bin_push(&filled, node))) {
            bin.head = nullptr;
            bin.room = bin.limit;
            const int locked = lock();
            note_how_locked(locked, true);
            pool_.deallocate_many([this, &pop, node, walk = parked_walk{filled.head, filled.limit - filled.room}]() mutable {
               if (void *parked = take_parked(walk)) return parked;
               void *next = node ? node : pop();
               node = nullptr;
               return next;
            });
            unlock(locked);
            return;
         }
         pool_.mark_free(node);
         pool_.poison(node);
      }
      bin = filled;
#else
      (void)bin, (void)pop;
#endif
   }

   // Returns: whether the lane has room for one more magazine, its array grown if need be.
   // Precondition: the lock is held.
   bool lane_has_room_locked(depot_lane &lane) noexcept { return keeps_depot && reserve_slots(lane, lane.count + 1); }

   // Returns: whether the lane's array has room for `wanted` magazines, grown (doubled, at
   // least 64) if need be.
   static bool reserve_slots(depot_lane &lane, std::size_t wanted) noexcept
   {
      if (wanted <= lane.size) return true;
      std::size_t size = lane.size ? 2 * lane.size : 64;
      while (size < wanted) size *= 2;
      auto *grown = static_cast<magazine *>(ba_malloc(size * sizeof(magazine)));
      if (!grown) return false;
      if (lane.count) std::memcpy(static_cast<void *>(grown), lane.slots, lane.count * sizeof(magazine));
      ba_free(lane.slots);
      lane.slots = grown;
      lane.size = size;
      return true;
   }

   // The lane a thread's bin parks its magazines in: its own, else one nobody's magazines are in
   // (made its own), else one shared with another thread. Precondition: the lock is held.
   depot_lane *lane_to_park_in_locked(const void *bin) noexcept
   {
      // (An empty lane nobody owns first: an empty one may be a live thread's, its count and all.)
      depot_lane *empty = nullptr;
      for (depot_lane &lane : lanes_) {
         if (lane.owner == bin) return &lane;
         if (lane.count == 0 && !lane.ordering && (!empty || (empty->owner && !lane.owner))) empty = &lane;
      }
      if (empty) {
         empty->owner = bin;
         empty->parked_unordered = empty->thread_nodes = 0;
         return empty;
      }
      // (A thread's bins lie at one offset in a record of pages of its own: the page's number,
      // mixed, picks the lane.)
      const std::uint64_t mixed = (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(bin)) >> 12) * 0x9E3779B97F4A7C15u;
      return &lanes_[(mixed >> 56) % lane_count];
   }

   // The lane a thread's bin (null: none, a burst's under the lock) takes magazines from: its own when
   // it holds any, else the one holding the most nodes; null when the depot is empty.
   // Precondition: the lock is held.
   depot_lane *lane_to_take_from_locked(const void *bin) noexcept
   {
      depot_lane *fullest = nullptr;
      for (depot_lane &lane : lanes_) {
         if (lane.count == 0) continue;
         if (bin && lane.owner == bin) return &lane;
         if (!fullest || lane.nodes > fullest->nodes) fullest = &lane;
      }
      return fullest;
   }

   void park_locked(depot_lane &lane, const magazine &m) noexcept
   {
      put_on_lane(lane, m);
      ++depot_count_;
      depot_nodes_ += m.length;
   }

   // Under valgrind the threads' bins stay empty: every node goes to and from the pool, where
   // memcheck is told of it (node_pool.hpp). The core's quick lists do the same.
   static bool bins_usable() noexcept
   {
#if defined(BA_DETAIL_VALGRIND)
      return !RUNNING_ON_VALGRIND;
#else
      return true;
#endif
   }

   unsigned batch() const noexcept { return magazine_nodes(pool_.node_size()); }

   // Takes up to n nodes from the depot's magazines, the one parked last first, from the lane of
   // `bin` (a thread's; null: none) while it has any, else from the fullest (a magazine partly
   // taken stays, shorter), onto the list `taken` (linked through first words).
   // Returns: the nodes taken. Precondition: the lock is held.
   BOOST_NOINLINE std::size_t take_from_depot_locked(std::size_t n, void *&taken, const void *bin = nullptr) noexcept
   {
      std::size_t got = 0;
      while (got != n && depot_count_ != 0) {
         depot_lane &lane = *lane_to_take_from_locked(bin);
         magazine &m = lane.slots[lane.count - 1];
         for (; got != n && m.length != 0; ++got) {
            void *node = m.first;
            m.first = --m.length != 0 ? pool_.next_free(node) : nullptr;
            --lane.nodes;
            --depot_nodes_;
            pool_.unpoison(node);
            pool_.unmark_free(node);
            *static_cast<void **>(node) = taken;
            taken = node;
         }
         if (m.length == 0) {
            --lane.count;
            --depot_count_;
         }
      }
      return got;
   }

   int lock() const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      return ba_detail_pool_lock(&lock_);
#else
      while (__atomic_exchange_n(&lock_, 1, __ATOMIC_ACQUIRE)) {
      }
      return 1;
#endif
   }
   void unlock(int taken) const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      ba_detail_pool_unlock(&lock_, taken);
#else
      if (taken) __atomic_store_n(&lock_, 0, __ATOMIC_RELEASE);
#endif
   }

   BOOST_NOINLINE void *allocate_slow()
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      // The thread's bin is empty (the pop failed): it is refilled, and the node comes from it.
      // (ba_detail_pool_cache_bin made the thread's cache current: the pop reads that bin.)
      if (ba_detail_cache_bin *bin = bins_usable() ? ba_detail_pool_cache_bin(cls_) : nullptr) {
         int taken = lock();
         refill_bin_locked(bin, taken);
         unlock(taken);
         void *node = ba_detail_pool_cache_pop(cls_, pool_.node_alignment() - 1);
         if (BOOST_UNLIKELY(!node)) throw_bad_alloc();
         pool_.unpoison(node);
         pool_.unmark_free(node);
         return node;
      }
#endif
      const int taken = lock();
      void *node = pool_.try_allocate();
      unlock(taken);
      if (BOOST_UNLIKELY(!node)) throw_bad_alloc();
      return node;
   }

   BOOST_NOINLINE void deallocate_slow(void *node) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      ba_detail_cache_bin *bin = bins_usable() ? ba_detail_pool_cache_bin(cls_) : nullptr;
      if (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && bin) {
         // Checking level 2: what the pool checks when a node comes back to it (a search of its
         // blocks, logarithmic), checked before the bin takes it, and a walk of the bin (linear).
         if (!owns(node)) pool_.report("a pointer that did not come from this pool is freed", node);
         check_not_in_bin(bin, node);
      }
      if (bin) pool_.check_not_free(node);
      if (bin && bin->room == 0) {
         // Full: the older magazine (deeper in the list) goes to the depot, or back to the pool,
         // in one locked step.
         const int taken = lock();
         give_back_older_half(bin);
         unlock(taken);
      }
      if (bin && ba_detail_pool_cache_push(cls_, node)) {
         pool_.mark_free(node);
         pool_.poison(node);
         return;
      }
#endif
      const int taken = lock();
      pool_.deallocate(node);
      unlock(taken);
   }

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   // Fills the thread's empty bin up to half: with the magazine its lane (else the fullest lane)
   // parked last, whole; topped up from the next magazines when that one was left short by a
   // burst; then with nodes from the pool. Precondition: the lock is held.
   // A lane of the thread's own that wants order (lane_wants_order_locked) is put in order first,
   // with the lock let go meanwhile (put_lane_in_order_outside_lock: `taken`, the lock's token,
   // is then its new one).
   void refill_bin_locked(ba_detail_cache_bin *bin, int &taken) noexcept
   {
      const unsigned held_before = bin->limit - bin->room;
      if (bin->head == nullptr) adopt_lane_of_ended_thread_locked(bin);
      depot_lane *lane = bin->head == nullptr ? lane_to_take_from_locked(bin) : nullptr;
      if (lane && lane->owner != bin && depot_holds_a_mostly_free_pool_locked()) {
         give_depot_back_in_order_locked();
         lane = nullptr;
      }
      if (lane && lane->owner != bin) lane = take_run_from_other_lane_locked(bin, *lane);
      if (lane) {
         if (lane->owner == bin && lane_wants_order_locked(*lane)) taken = put_lane_in_order_outside_lock(*lane, taken);
         const magazine m = pop_magazine_locked(*lane);
         bin->head = m.first;
         bin->room = bin->limit - static_cast<unsigned>(m.length);
      }
      const unsigned half = bin->limit / 2;
      unsigned held = bin->limit - bin->room;
      if (held < half && depot_count_ != 0 && may_take_from_depot_locked(bin)) {
         top_up_from_depot_locked(bin, half - held);
         held = bin->limit - bin->room;
      }
      if (held < half) {
         // The pool hands nodes out in its order (a new block's: address order): they go into the
         // bin last first, so that the bin hands them out in that order too.
         void *taken = nullptr;
         const std::size_t wanted = half - held;
         const std::size_t got = pool_.try_allocate_many(wanted, [&](void *node) {
            *static_cast<void **>(node) = taken;
            taken = node;
         });
         while (taken) put_in_bin(bin, pop_taken(taken));
         if (got == wanted) {
            park_run_locked(bin);
         } else if (depot_count_ != 0) {
            top_up_from_depot_locked(bin, wanted - got);   // memory is out: the depot's nodes, whoever's, first
         }
      }
      count_thread_nodes_locked(bin, bin->limit - bin->room - held_before, 0);
   }

   // Puts up to n nodes from the depot into the thread's bin (take_from_depot_locked's lanes).
   // Precondition: the lock is held.
   void top_up_from_depot_locked(ba_detail_cache_bin *bin, std::size_t n) noexcept
   {
      void *taken = nullptr;
      take_from_depot_locked(n, taken, bin);
      while (taken) put_in_bin(bin, pop_taken(taken));
   }

   // Runs: the nodes a thread takes from the pool, and from another thread's lane, come in runs
   // of up to run_bytes, each parked whole in the thread's own lane, so that a thread's nodes lie
   // in pages of their own. Bins refilled a magazine at a time, in turn, from one pool made the
   // blocks of two threads churning lists alternate (each thread's nodes on 1.56 times the pages
   // they fill, 78% of them holding the other's nodes too): every walk of a list left the
   // prefetcher's stream at each of the other's blocks, and the two threads took 1.9 times the
   // time of one a node. A thread takes another's lane only when it holds more than a few runs
   // (lane_reserve_bytes) and more than its thread_nodes (is_others_reserve): otherwise it is
   // the reserve of a thread at work, whose nodes lie in its pages and cache lines; the pool
   // grows instead (see is_others_reserve for by how much).
   static constexpr std::size_t run_bytes = std::size_t(64) << 10;
   static constexpr std::size_t lane_reserve_bytes = 4 * run_bytes;

   // A thread whose own lane is empty (or who has none) makes the lane of a thread that ended
   // its own, whole, when one holds nodes: the nodes that thread parked, in its pages and in
   // the order it left them (a program whose threads come and go, each doing the work of the one
   // before, goes on where the last left off); its own empty lane is then nobody's. Not when
   // the depot holds a mostly free pool: the refill gives it back to the pool, whole.
   // Precondition: the lock is held.
   void adopt_lane_of_ended_thread_locked(const ba_detail_cache_bin *bin) noexcept
   {
      if constexpr (keeps_depot) {
         if (!ended_lane_may_hold_nodes_ || depot_count_ == 0 || depot_holds_a_mostly_free_pool_locked()) return;
         depot_lane *own = nullptr, *ended = nullptr;
         for (depot_lane &lane : lanes_) {
            if (lane.owner == bin) own = &lane;
            else if (lane.owner == nullptr && lane.count != 0 && !lane.ordering && (!ended || lane.nodes > ended->nodes)) ended = &lane;
         }
         ended_lane_may_hold_nodes_ = ended != nullptr;
         if (!ended || (own && own->count != 0)) return;
         if (own) own->owner = nullptr;
         ended->owner = bin;
         ended->thread_nodes = 0;
      }
   }

   // Returns: whether `lane` is the reserve of a thread at work other than the one of `bin`: it
   // has an owner, not that bin, and holds no more than lane_reserve_bytes of nodes, or no more
   // than its thread_nodes (about what it has in use). A thread that frees about as many nodes
   // as it keeps is churning: it builds its next nodes from those, which lie between its live
   // ones, in its cache lines. Another thread that took them put its own nodes in those lines:
   // after one round of two threads' list churn (push 1M, erase every 3rd, push 1M, ...),
   // 35-41% of each thread's cache lines held the other's nodes too, each write to one moving
   // the line between the cores. A lane larger than that (a thread that frees what another made, or
   // whose containers shrank) is taken, a run at a time. The cost: the pool grows by up to a
   // reserve's nodes while another thread needs nodes. thread_nodes only counts the nodes a
   // thread's bin took less those it parked or gave back: the nodes of a thread that others
   // free, or that it frees by bursts or at its exit, are never taken off, so a thread that
   // made many nodes others freed, then freed some of others', keeps those as its reserve while
   // it lives (a one-time excess, up to what it made; memory out takes every lane first). And
   // a refill looks at the fullest lane only: a reserve hides the smaller lanes behind it.
   bool is_others_reserve(const depot_lane &lane, const ba_detail_cache_bin *bin) const noexcept
   {
      return lane.owner != nullptr && lane.owner != bin &&
             (lane.nodes * pool_.node_size() <= lane_reserve_bytes || lane.nodes <= lane.thread_nodes);
   }

   // Returns: whether the thread of `bin` may top its bin up from the depot: not from another
   // thread's reserve while it has a lane of its own (threads beyond the lanes take as they
   // find). Precondition: the lock is held; the depot is not empty.
   bool may_take_from_depot_locked(const ba_detail_cache_bin *bin) noexcept
   {
      return !is_others_reserve(*lane_to_take_from_locked(bin), bin) || lane_to_park_in_locked(bin)->owner != bin;
   }

   // The thread of `bin`, whose own lane is empty, would take from `other`, another thread's
   // (or nobody's: its thread ended): a run of its magazines moves to the thread's own lane, in
   // the order they were in, and that lane is returned; null when `other` is another thread's
   // reserve (the thread takes from the pool). `other` itself when the thread has no lane of its
   // own (more threads than lanes) or no memory for the run. Precondition: the lock is held;
   // `other` is not empty.
   depot_lane *take_run_from_other_lane_locked(const ba_detail_cache_bin *bin, depot_lane &other) noexcept
   {
      depot_lane &own = *lane_to_park_in_locked(bin);
      if (own.owner != bin || &own == &other) return &other;
      if (is_others_reserve(other, bin)) return nullptr;
      constexpr std::size_t most = 64;   // magazines moved at once (of 8 nodes at least)
      std::size_t count = 0, nodes = 0;
      while (count != most && count != other.count && nodes * pool_.node_size() < run_bytes)
         nodes += other.slots[other.count - 1 - count++].length;
      if (!reserve_slots(own, own.count + count)) return &other;
      // (The topmost of `other` stays the topmost: taken next.)
      std::memcpy(static_cast<void *>(own.slots + own.count), other.slots + (other.count - count), count * sizeof(magazine));
      own.count += count;
      own.nodes += nodes;
      own.parked_unordered += nodes;
      other.count -= count;
      other.nodes -= nodes;
      other.parked_unordered -= std::min(other.parked_unordered, nodes);
      return &own;
   }

   // After a refill that took nodes from the pool, when another thread's bin took from it last
   // (the two would take turns and their nodes alternate): as many more as the thread has in
   // use, up to a run, also from the pool, parked in the thread's own lane as magazines of a
   // batch, the lowest on top (a new block's nodes: in address order), so that the thread's next
   // refills take its pages, not pages the pool hands out meanwhile to the other. None without
   // a lane of its own (threads beyond the lanes), or for a thread with few nodes in use; none
   // while one thread alone takes from the pool (nothing is held ahead). Precondition: the lock
   // is held.
   void park_run_locked(const ba_detail_cache_bin *bin) noexcept
   {
      if constexpr (keeps_depot) {
         const void *last = last_taker_;
         last_taker_ = bin;
         if (last == bin || last == nullptr) return;
         depot_lane &own = *lane_to_park_in_locked(bin);
         if (own.owner != bin) return;
         const std::size_t per = batch();
         const std::size_t wanted = std::min(own.thread_nodes, run_bytes / pool_.node_size());
         constexpr std::size_t most = 64;   // magazines a run (of 512 bytes at least: 32 KiB then)
         const std::size_t count = std::min(wanted / per, most);
         if (count == 0 || !reserve_slots(own, own.count + count)) return;
         magazine made[most];
         std::size_t made_count = 0;
         while (made_count != count) {
            const magazine m = take_magazine_from_pool_locked(per);
            if (m.length == 0) break;
            made[made_count++] = m;
            if (m.length != per) break;
         }
         // (Highest first: the lowest ends on top, taken first.)
         while (made_count != 0) park_locked(own, made[--made_count]);
      }
   }

   // Up to `per` nodes from the pool as a magazine (its list in the pool's order: a new block's,
   // address order), each node waiting as in the depot (marked, poisoned). A magazine of no
   // nodes when memory is out. Precondition: the lock is held.
   magazine take_magazine_from_pool_locked(std::size_t per) noexcept
   {
      void *first = nullptr, *last = nullptr;
      const std::size_t length = pool_.try_allocate_many(per, [&](void *node) {
         ba_detail_link_store(node, nullptr);
         pool_.mark_free(node);
         if (last) {
            pool_.unpoison(last);
            ba_detail_link_store(last, node);
            pool_.poison(last);
         } else {
            first = node;
         }
         pool_.poison(node);
         last = node;
      });
      return magazine{first, length};
   }

   // The thread's own lane (made its own when a lane is empty) counts `taken` more nodes taken
   // by its bin and `given` more given back. Precondition: the lock is held.
   void count_thread_nodes_locked(const ba_detail_cache_bin *bin, std::size_t taken, std::size_t given) noexcept
   {
      if (!keeps_depot) return;   // (no lane is ever put in order)
      depot_lane &lane = *lane_to_park_in_locked(bin);
      if (lane.owner != bin) return;   // (a lane shared with other threads: no count of its own)
      lane.thread_nodes += taken;
      lane.thread_nodes -= std::min(lane.thread_nodes, given);
   }

   // Node (taken from the pool, not free) waits in the thread's bin, free.
   void put_in_bin(ba_detail_cache_bin *bin, void *node) noexcept
   {
      ba_detail_link_store(node, bin->head);
      pool_.mark_free(node);
      bin->head = node;
      --bin->room;
      pool_.poison(node);
   }

   // Checking level 2: a node freed while it waits in the thread's bin is a double free.
   void check_not_in_bin(const ba_detail_cache_bin *bin, const void *node) const noexcept
   {
      unsigned held = bin->limit - bin->room;
      for (void *n = bin->head; held-- && n; n = held ? pool_.next_free(n) : nullptr)
         if (n == node) pool_.report("double free of a node (held in a thread's bin)", node);
   }

   // Moves the older half of the thread's full bin to the depot, or to the pool when the depot
   // has no room (an adaptive pool's, or no memory for it). Precondition: the lock is held.
   void give_back_older_half(ba_detail_cache_bin *bin) noexcept
   {
      const unsigned keep = bin->limit - bin->limit / 2;
      void *last_kept = bin->head;
      for (unsigned i = 1; i < keep; ++i) last_kept = pool_.next_free(last_kept);
      void *older = pool_.next_free(last_kept);
      ba_detail_link_store(last_kept, nullptr);
      const std::size_t count = bin->limit - keep;
      depot_lane *lane = older ? lane_to_park_in_locked(bin) : nullptr;
      if (lane && lane_has_room_locked(*lane)) {
         // (Its links are checked as its nodes come out of a bin again, one by one.)
         park_locked(*lane, magazine{older, count});
         lane->parked_unordered += count;
         bin->room += static_cast<unsigned>(count);
      } else {
         bin->room += static_cast<unsigned>(return_nodes_locked(older, count));
      }
      if (older) count_thread_nodes_locked(bin, 0, count);
   }

#endif

   // Nodes parked free (a bin's or a magazine's list: `left` of them from `node`), walked one by
   // one for the pool to take back.
   struct parked_walk {
      void *node;
      std::size_t left;
   };

   // The walk's next node, left as it waits (its link checked before it is followed), or null
   // at the walk's end.
   void *next_parked(parked_walk &walk) const noexcept
   {
      if (walk.left == 0 || !walk.node) return nullptr;
      void *node = walk.node;
      walk.node = --walk.left != 0 ? pool_.next_free(node) : nullptr;
      return node;
   }

   // The walk's next node, ready for the pool's deallocate, or null at the walk's end.
   void *take_parked(parked_walk &walk) const noexcept
   {
      void *given = next_parked(walk);
      if (!given) return nullptr;
      pool_.unpoison(given);
      pool_.unmark_free(given);   // (the pool marks it again, once it has checked it is not marked)
      return given;
   }

   // Frees `count` nodes of a list from `first` into the pool, in one burst. Returns: the nodes
   // freed. Precondition: the lock is held.
   std::size_t return_nodes_locked(void *first, std::size_t count) noexcept
   {
      // (The walk held by value: the engine keeps it in registers.)
      return pool_.deallocate_many([this, walk = parked_walk{first, count}]() mutable { return take_parked(walk); });
   }

   // Gives the depot's magazines back to the pool, which hands all its free nodes out in address
   // order from then on (or starts over). Precondition: the lock is held.
   void give_depot_back_in_order_locked() noexcept
   {
      if constexpr (keeps_depot) {
         pool_.deallocate_all_in_order(depot_nodes_, [&](auto give) {
            while (depot_count_ != 0) walk_magazines_locked(give);
         });
      }
   }

   // Calls give(node) for every node of the depot's last eight magazines, which it takes off the
   // depot, each node taken out of the depot (unpoisoned, unmarked: a free node the pool takes
   // back). Precondition: the lock is held.
   template <class Give>
   void walk_magazines_locked(Give give) noexcept
   {
      walk_eight_magazines([this] { return depot_count_ != 0 ? pop_magazine_locked() : magazine{nullptr, 0}; },
                                  [this, &give](void *node) {
                                     pool_.unpoison(node);
                                     pool_.unmark_free(node);
                                     give(node);
                                  });
   }

   // Calls visit(node) for every node of up to eight magazines taken by pop() (a magazine of no
   // nodes: none left), the nodes left as they wait (marked, poisoned). The magazines are walked
   // side by side, each next node fetched while the others' are read: a walk of one list at a
   // time waits for every node in turn. Precondition: the magazines are the caller's (the lock
   // is held, or they are out of the depot).
   template <class Pop, class Visit>
   void walk_eight_magazines(Pop pop, Visit visit) noexcept
   {
      constexpr std::size_t ways = 8;
      parked_walk walks[ways];
      std::size_t used = 0;
      for (magazine m; used != ways && (m = pop()).length != 0; ++used) walks[used] = parked_walk{m.first, m.length};
      for (bool more = true; more;) {
         more = false;
         for (std::size_t i = 0; i != used; ++i) {
            if (void *node = next_parked(walks[i])) {
               __builtin_prefetch(walks[i].node);
               visit(node);
               more = true;
            }
         }
      }
   }

   // The magazine parked last in the lane (the no-argument form: in the fullest lane), taken off
   // the depot. Precondition: the lock is held; the lane (the depot) is not empty.
   magazine pop_magazine_locked(depot_lane &lane) noexcept
   {
      const magazine m = take_off_lane(lane);
      --depot_count_;
      depot_nodes_ -= m.length;
      return m;
   }
   magazine pop_magazine_locked() noexcept { return pop_magazine_locked(*lane_to_take_from_locked(nullptr)); }

   // A lane's own count of its magazines and nodes, without the depot's: on top of it, magazine m
   // (the lane has room); off it, the magazine on top (the lane is not empty).
   static void put_on_lane(depot_lane &lane, const magazine &m) noexcept
   {
      lane.slots[lane.count++] = m;
      lane.nodes += m.length;
   }
   static magazine take_off_lane(depot_lane &lane) noexcept
   {
      const magazine m = lane.slots[--lane.count];
      lane.nodes -= m.length;
      return m;
   }

   // A lane of a thread's own is put in order when the nodes parked in it since it was last
   // ordered are more than a cache holds (1 MiB) and at least half of it (each node parked is
   // ordered about twice at most), and it holds at least as many nodes as its thread has in use
   // (a container died and the next will be built from its nodes; a lane that feeds a container
   // that stays is used in the order its nodes were freed, the last freed, still in the cache,
   // first: ordering it cost lists of shared_ptr 1.16x the time a node). The thread's nodes
   // (thread_nodes), not the pool's: with the pool's, a thread whose list died found another
   // thread's list alive as often as not, and built its next list from its lane in the order of
   // the frees (two threads churning lists took 1.07x the time a node). thread_nodes is a guess
   // (a thread whose nodes other threads free is never credited with them; a new thread whose
   // bin has a dead one's place inherits its lane and count): never more than the pool's.
   // Precondition: the lock is held.
   bool lane_wants_order_locked(const depot_lane &lane) const noexcept
   {
      if constexpr (keeps_depot) {
         return lane.parked_unordered * pool_.node_size() >= depot_return_bytes && lane.nodes <= Pool::order_whole_nodes
             && 2 * lane.parked_unordered >= lane.nodes
             && lane.nodes >= std::min(lane.thread_nodes, pool_.nodes_in_use() - depot_nodes_);
      } else {
         (void)lane;
         return false;   // (no lane holds anything)
      }
   }

   // Puts the nodes of a lane in address order, as magazines of a batch: the lowest
   // magazine on top, each one's list running up in address. The nodes stay where they are (the
   // lane's, free, marked). A bit for every place of a node in the pool's blocks marks the
   // nodes as the walk of the lane meets them, and the bits are read back in address order: no
   // array of the nodes (19 MB for 2.4M of them, which glibc maps afresh and the kernel zeroes
   // page by page: a list churn over the shared pool took 2.2x the time a node in its second
   // round). Where the blocks lie too far apart for the bits, an array of the nodes, sorted;
   // without memory for either, the lane stays as it is. A node found twice was parked twice
   // (freed twice), one outside the blocks was never the pool's: both reported. Its nodes end
   // in as few magazines of a batch as hold them, fewer than it had when some were short.
   // Precondition: the lane is out of the depot (put_lane_in_order_outside_lock).
   void put_lane_in_order(depot_lane &lane) noexcept
   {
      lane.parked_unordered = 0;
      // Magazines of a batch (what a bin's refill takes at once), and no more of them than the
      // lane had: its array has room for those.
      const std::size_t had = lane.count, nodes = lane.nodes;
      const std::size_t per_magazine = std::max<std::size_t>(batch(), (nodes + had - 1) / had);
      // (The highest magazine is parked first: it takes what does not fill one, so that every
      // magazine a refill takes, lowest first, is whole.)
      std::size_t wanted = nodes % per_magazine != 0 ? nodes % per_magazine : per_magazine;
      void *first = nullptr;
      std::size_t length = 0;
      auto link = [&](char *node) {
         // (Highest first: each node goes in front of the one above it.)
         pool_.unpoison(node);
         ba_detail_link_store(node, first);
         pool_.poison(node);
         first = node;
         if (++length == wanted) {
            put_on_lane(lane, magazine{first, length});
            first = nullptr;
            length = 0;
            wanted = per_magazine;
         }
      };
      auto parked_twice = [this](const void *node) { pool_.report("double free of a node (parked twice in the depot)", node); };
      const auto span = pool_.span_now();
      // (At most a word of bits a node: never more memory than the array of the nodes.)
      address_bits places(span.low, span.high, pool_.node_alignment(), nodes);
      if (!places.empty()) {
         walk_lane(lane, [&](void *node) {
            if (BOOST_UNLIKELY(!places.covers(node)))
               pool_.report("a pointer that did not come from this pool is freed (found in the depot)", node);
            if (BOOST_UNLIKELY(!places.mark(node))) parked_twice(node);
         });
         places.visit_descending(link);
      } else {
         std::vector<char *> listed;
         try {
            listed.reserve(nodes);
         } catch (...) {
            return;
         }
         walk_lane(lane, [&](void *node) { listed.push_back(static_cast<char *>(node)); });
         visit_in_descending_address_order(listed, pool_.node_alignment(), link, parked_twice);
      }
      if (length != 0) put_on_lane(lane, magazine{first, length});
   }

   // Calls visit(node) for every node of the lane's magazines, which it takes off the lane (the
   // lane's counts only: the caller puts them back), the nodes left as they wait. Precondition:
   // as put_lane_in_order's.
   template <class Visit>
   void walk_lane(depot_lane &lane, Visit visit) noexcept
   {
      while (lane.count != 0)
         walk_eight_magazines([&] { return lane.count != 0 ? take_off_lane(lane) : magazine{nullptr, 0}; }, visit);
   }

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   // Puts the thread's own lane in order with the lock let go meanwhile: its magazines are taken
   // out of the depot (the lane, empty, stays the thread's), put in order, and put back under
   // the lock, above any that another thread parked there meanwhile (threads that share a lane).
   // Another thread's refill or burst takes other nodes meanwhile instead of waiting: ordering
   // 2.4M nodes takes some 15 ms, and under the lock two threads churning lists over one pool
   // spent most of their time waiting for it. (A fork meanwhile: the child does not have the
   // lane's nodes, never hands them out, and its lane stays marked `ordering`: no thread of the
   // child makes it its own, threads that share lanes still park there.) Returns: the lock's
   // token, taken again.
   // Precondition: the lock is held (`taken`).
   int put_lane_in_order_outside_lock(depot_lane &lane, int taken) noexcept
   {
      depot_lane out = lane;
      depot_count_ -= out.count;
      depot_nodes_ -= out.nodes;
      lane.slots = nullptr;
      lane.size = lane.count = lane.nodes = lane.parked_unordered = 0;
      lane.ordering = true;
      unlock(taken);
      put_lane_in_order(out);
      taken = lock();
      put_lane_back_locked(lane, out);
      return taken;
   }

   // The lane's magazines, out of the depot, come back into it, above those parked there
   // meanwhile (which go back to the pool when there is no memory for them all in one array).
   // Precondition: the lock is held.
   void put_lane_back_locked(depot_lane &lane, depot_lane &out) noexcept
   {
      lane.ordering = false;
      const std::size_t back_count = out.count, back_nodes = out.nodes;   // (those parked meanwhile are counted)
      if (lane.count != 0 && !reserve_slots(out, out.count + lane.count)) {
         while (lane.count != 0) {
            const magazine m = pop_magazine_locked(lane);
            return_nodes_locked(m.first, m.length);
         }
      }
      if (lane.count != 0) {
         std::memmove(static_cast<void *>(out.slots + lane.count), out.slots, out.count * sizeof(magazine));
         std::memcpy(static_cast<void *>(out.slots), lane.slots, lane.count * sizeof(magazine));
         out.count += lane.count;
         out.nodes += lane.nodes;
      }
      ba_free(lane.slots);
      out.parked_unordered = lane.parked_unordered;
      out.owner = lane.owner;
      lane = out;
      depot_count_ += back_count;
      depot_nodes_ += back_nodes;
   }
#endif

   // Gives the depot's magazines back to the pool, in one burst: the pool then orders them, or
   // starts over, as it would any list given back at once. Precondition: the lock is held.
   void empty_depot_locked() noexcept
   {
      if constexpr (keeps_depot) {
         pool_.deallocate_walked([&](auto give) {
            while (depot_count_ != 0) walk_magazines_locked(give);
         });
      }
   }

   // The depot's nodes are most of the free nodes of a pool that is mostly free, and more than a
   // cache holds (a long-lived pool whose containers died, each node parked in the order it was
   // freed): the pool should have them back, to hand them out in address order (node_pool.hpp's
   // consider_setting_aside) instead of magazine by magazine in the order of earlier frees
   // (a std::list churn over a long-lived synchronized_pool_resource took 254 ns a node, 20.5
   // once its depot went back).
   // The depot holds at least as many nodes as the pool's list, so that ordering costs a few
   // steps for each node parked, each parked once. Smaller depots stay, and save the walk.
   // (A depot of more nodes than are in use holds a node of one word freed twice: the walk
   // reports it.) Precondition: the lock is held.
   bool depot_holds_a_mostly_free_pool_locked() const noexcept
   {
      if constexpr (keeps_depot) {
         const std::size_t in_use = pool_.nodes_in_use();
         return depot_nodes_ * pool_.node_size() >= depot_return_bytes && depot_nodes_ >= pool_.listed_free_nodes()
             && (depot_nodes_ >= in_use || Pool::mostly_free(depot_nodes_, in_use - depot_nodes_));
      } else {
         return false;
      }
   }
   static constexpr std::size_t depot_return_bytes = std::size_t(1) << 20;

#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   // The core's callback: a thread's bin (count nodes from first) comes back (thread exit, flush,
   // fork child). `ended`: the bin of a thread that ends (null on a flush): its lane is nobody's
   // from then on, its magazines anyone's, and it takes no run any more.
   static void give_back(void *self, void *first, std::size_t count, const void *ended)
   {
      shared_pool &p = *static_cast<shared_pool *>(self);
      const int taken = p.lock();
      if (count) p.return_nodes_locked(first, count);
      if (ended) p.forget_bin_locked(ended);
      p.unlock(taken);
   }

   // The thread of `bin` ended: its lane is nobody's (other threads take its magazines, and an
   // empty one becomes another thread's), and a refill no longer finds it took last.
   // Precondition: the lock is held.
   void forget_bin_locked(const void *bin) noexcept
   {
      for (depot_lane &lane : lanes_) {
         if (lane.owner != bin) continue;
         lane.owner = nullptr;
         lane.thread_nodes = 0;
         if (lane.count != 0) ended_lane_may_hold_nodes_ = true;
      }
      if (last_taker_ == bin) last_taker_ = nullptr;
   }
#endif

   mutable int lock_ = 0;
   unsigned cls_ = 0;   // the core's class: the threads' bins of this pool (0: none)
   Pool pool_;
   depot_lane lanes_[lane_count];   // the depot, under lock_
   std::size_t depot_count_ = 0;    // magazines in it (every lane's)
   std::size_t depot_nodes_ = 0;    // the nodes they hold
   const void *last_taker_ = nullptr;   // the bin whose refill took nodes from the pool last (park_run_locked)
   // A lane of a thread that ended may hold nodes (set when one is forgotten holding some,
   // cleared when a look finds none): refills look for one to adopt only then.
   bool ended_lane_may_hold_nodes_ = false;
};

using shared_node_pool = shared_pool<node_pool>;

//! The users of a family of shared pools: node_allocator's; Owner::name names them in reports.
//! (Visible: a template instantiated with a hidden type is hidden, and each shared library built
//! with hidden visibility would have pools of its own.)
struct BOOST_SYMBOL_VISIBLE node_allocator_pools {
   static constexpr const char *name = "ba::node_allocator";
};

//! Where the shared pool of a family, node size, alignment and engine parameters lives: static
//! data members of a visible class template, which every shared library that uses the pool binds
//! to one object (unique global symbols), whatever visibility it is built with. (A function's
//! static objects are not enough: -fvisibility-inlines-hidden makes those of an inline function
//! local to each library, and each library had a pool of its own.) Constant-initialized, so that
//! a pool is usable from any static initializer.
template <class SharedPool, class Owner, std::size_t Size, std::size_t Align, std::size_t... Params>
struct BOOST_SYMBOL_VISIBLE immortal_pool_storage {
   alignas(SharedPool) static inline unsigned char bytes[sizeof(SharedPool)] = {};
   static inline SharedPool *pool = nullptr;   // set, with release, once the pool is made
   static inline int making = 0;               // 1 while a thread makes it

   //! Makes the pool, once, whichever threads call it at once. Returns: the pool.
   static BOOST_NOINLINE SharedPool &make() noexcept
   {
      // (A wait here is rare: a pool is made once.)
      while (__atomic_exchange_n(&making, 1, __ATOMIC_ACQUIRE)) std::this_thread::yield();
      SharedPool *p = __atomic_load_n(&pool, __ATOMIC_ACQUIRE);
      if (!p) {
         p = ::new (static_cast<void *>(bytes))
            SharedPool(Owner::name, Size, Align, typename SharedPool::parameters{Params...});
         __atomic_store_n(&pool, p, __ATOMIC_RELEASE);
      }
      __atomic_store_n(&making, 0, __ATOMIC_RELEASE);
      return *p;
   }
};

//! The shared pool (a SharedPool: a shared_pool<engine>) of nodes of Size bytes and Align
//! alignment of Owner's family, its engine's parameters made of Params (each family has pools of
//! its own, so that its statistics and reports are its own): made on first use (thread-safe),
//! never destroyed, one in the process.
template <class SharedPool, class Owner, std::size_t Size, std::size_t Align, std::size_t... Params>
BOOST_FORCEINLINE SharedPool &immortal_shared_pool() noexcept
{
   using storage = immortal_pool_storage<SharedPool, Owner, Size, Align, Params...>;
   if (SharedPool *p = __atomic_load_n(&storage::pool, __ATOMIC_ACQUIRE)) return *p;
   return storage::make();
}

//! The node pool of nodes of Size bytes, Align alignment and NodesPerBlock nodes a block of
//! Owner's family.
template <std::size_t Size, std::size_t Align, std::size_t NodesPerBlock, class Owner = node_allocator_pools>
BOOST_FORCEINLINE shared_node_pool &shared_node_pool_for() noexcept
{
   return immortal_shared_pool<shared_node_pool, Owner, Size, Align, NodesPerBlock>();
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_SHARED_NODE_POOL_HPP
