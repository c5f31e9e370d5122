// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_POOL_NODE_CHECKS_HPP
#define BOOST_ALLOCPLUS_DETAIL_POOL_NODE_CHECKS_HPP

// What both pool engines (node_pool.hpp, adaptive_node_pool.hpp) do with a free node, in one
// place: its size and alignment, the read of its protected link (a link not aligned as a node is,
// a write after free, is reported, never followed), the pool's mark in its second word (a node
// carrying it is free: freeing it again is a double free), its poisoning under ASan and valgrind,
// and the reports, each naming the allocator that owns the pool.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#endif

namespace boost { namespace allocplus { namespace detail {

//! Returns: the process's secret where the core is header-only (0 elsewhere), which the pools mix
//! into the values they check (a value a program stores cannot be chosen to match one without
//! reading the process's memory).
inline std::uintptr_t pool_secret() noexcept
{
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
   return __atomic_load_n(&ba_core_v1_state.cache_secret, __ATOMIC_RELAXED);
#else
   return 0;
#endif
}

class pool_node_checks {
public:
   //! Returns: the bytes a node takes: the size asked for, at least a pointer, rounded up to the
   //!   node alignment.
   std::size_t node_size() const noexcept { return node_size_; }
   //! Returns: the nodes' alignment (at least a pointer's).
   std::size_t node_alignment() const noexcept { return align_; }

   //! Returns: the node after `node` in a list of free nodes (the pool's, or a thread's bin of
   //!   it), read from its protected link; a link that is not aligned as every node is (a write
   //!   after free) is reported, never followed.
   void *next_free(const void *node) const noexcept
   {
      void *next = ba_detail_link_load(node);
      if (BOOST_UNLIKELY(!ba_detail_link_valid(next, align_ - 1))) report_corrupted(node);
      return next;
   }

   //! Under ASan and valgrind: a free node is poisoned (a use after free is reported) while the
   //! pool does not touch it. Elsewhere nothing.
   void poison(void *node) const noexcept
   {
      (void)node;
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      ASAN_POISON_MEMORY_REGION(node, node_size_);
#endif
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MAKE_MEM_NOACCESS(node, node_size_);
#endif
   }
   void unpoison(void *node) const noexcept
   {
      (void)node;
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      ASAN_UNPOISON_MEMORY_REGION(node, node_size_);
#endif
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_MAKE_MEM_DEFINED(node, node_size_);
#endif
   }

   //! Effects: what every engine does first with a node given back: memcheck is told it is freed
   //!   (and reports a node freed twice); under ASan a poisoned node, free already, is reported
   //!   as a double free, whatever its size.
   void note_given_back(void *node) const noexcept
   {
      (void)node;
#if defined(BA_DETAIL_VALGRIND)
      VALGRIND_FREELIKE_BLOCK(node, 0);
      VALGRIND_MAKE_MEM_DEFINED(node, node_size_);
#endif
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      if (BOOST_UNLIKELY(__asan_address_is_poisoned(node))) report_double_free(node);
#endif
   }

   //! Effects: reports a double free when node, given back, is free already: it carries the
   //!   pool's mark (every free node of two words or more does, in a thread's bin, the pool's
   //!   depot or its list), or, under ASan, it is poisoned. Constant time, every build.
   void check_not_free(const void *node) const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
      // (A free node is poisoned: its mark is not read.)
      if (BOOST_UNLIKELY(__asan_address_is_poisoned(node))) report_double_free(node);
#endif
      if (carries_marks() && BOOST_UNLIKELY(marked(node))) report_double_free(node);
   }
   //! Effects: reports a pointer that cannot be a node of the pool: one not aligned as its nodes
   //!   are, or outside the span of its blocks (from the lowest block's start to the highest
   //!   one's end). Constant time: checking level 1 calls it on every node given back (the
   //!   adaptive pools: on the first node of each run of a burst in one sub-block, the later ones
   //!   checked by their alignment; a pointer inside the span that is not a node is left to level
   //!   2's lookup). Needs no lock: every
   //!   span stored between a block's making and its return to the core holds that block (it
   //!   widens when a block is made and is set anew from the blocks kept when some go back), so
   //!   a read of it, even one mixing two updates, holds the block of every node in use, and a
   //!   node of the pool is never reported.
   void check_could_be_node(const void *node) const noexcept
   {
      if (BOOST_UNLIKELY(outside_span(node, __atomic_load_n(&span_low_, __ATOMIC_RELAXED),
                                      __atomic_load_n(&span_high_, __ATOMIC_RELAXED), align_ - 1)))
         report("a pointer that did not come from this pool is freed", node);
   }

   //! What check_could_be_node compares a pointer with, read once: the span of the blocks and the
   //! nodes' alignment. node_pool holds it for all the nodes of a burst freed under its lock (its
   //! span changes only when blocks are made or released, never within a burst's frees; an
   //! adaptive pool gives blocks back within a burst, and reads it again per run): the loads are
   //! atomic, which a compiler makes again for every node.
   struct node_span {
      std::uintptr_t low, high, misaligned;
   };
   node_span span_now() const noexcept
   {
      return {__atomic_load_n(&span_low_, __ATOMIC_RELAXED), __atomic_load_n(&span_high_, __ATOMIC_RELAXED), align_ - 1};
   }
   //! Effects: check_could_be_node against a span read before.
   void check_could_be_node(const void *node, const node_span &span) const noexcept
   {
      if (BOOST_UNLIKELY(outside_span(node, span.low, span.high, span.misaligned)))
         report("a pointer that did not come from this pool is freed", node);
   }

   //! A node that goes into a thread's bin or comes out of one: it carries the mark while it is
   //! there, as in the pool's list.
   void mark_free(void *node) const noexcept { set_mark(node); }
   void unmark_free(void *node) const noexcept { clear_mark(node); }

   //! Effects: reports "<owner>: <what>" at node through the diagnostic handler (the pool's
   //!   owner, named once for every engine over the pool).
   [[noreturn]] BOOST_NOINLINE void report(const char *what, const void *node) const noexcept
   {
      char message[160];
      std::snprintf(message, sizeof message, "%s: %s", owner_, what);
      report_usage_error(message, node);
   }

protected:
   static bool outside_span(const void *node, std::uintptr_t low, std::uintptr_t high, std::uintptr_t misaligned) noexcept
   {
      const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(node);
      return (p & misaligned) != 0 || p - low >= high - low;
   }

   //! Requires: node_alignment is a power of two; owner outlives the pool.
   pool_node_checks(const char *owner, std::size_t node_size, std::size_t node_alignment) noexcept
      : owner_(owner), align_(node_alignment < alignof(void *) ? alignof(void *) : node_alignment),
        node_size_(((node_size < sizeof(void *) ? sizeof(void *) : node_size) + align_ - 1) & ~(align_ - 1))
   {
   }
   pool_node_checks(const pool_node_checks &) = delete;
   pool_node_checks &operator=(const pool_node_checks &) = delete;
   ~pool_node_checks() = default;

   // The mark of a free node of two words or more: this pool's (a node of another pool does not
   // carry it), mixed with the process's secret.
   std::uintptr_t mark() const noexcept { return ~reinterpret_cast<std::uintptr_t>(this) ^ pool_secret(); }
   bool marked(const void *node) const noexcept { return static_cast<const std::uintptr_t *>(node)[1] == mark(); }
   bool carries_marks() const noexcept { return node_size_ >= 2 * sizeof(void *); }

   // The mark and whether nodes carry it, read once for a burst of frees: the secret is an
   // atomic's, and the pool's fields, read through `this`, are read again after every store
   // into a node (a word of the same type).
   struct marking {
      std::uintptr_t mark;
      bool carried;
   };
   marking marking_now() const noexcept { return {mark(), carries_marks()}; }
   // The same with whether nodes carry it known at compile time: a burst's loop is compiled
   // once for each, without the test in it.
   template <bool Carried>
   struct known_marking {
      std::uintptr_t mark;
      static constexpr bool carried = Carried;
   };

   void set_mark(void *node) const noexcept { set_mark(node, marking_now()); }
   template <class Marking>
   void set_mark(void *node, const Marking &m) const noexcept
   {
      if (m.carried) static_cast<std::uintptr_t *>(node)[1] = m.mark;
   }
   void clear_mark(void *node) const noexcept
   {
      if (carries_marks()) static_cast<std::uintptr_t *>(node)[1] = 0;
   }
   //! Returns: whether node, given back, is known to be free already: it is `head` (the node freed
   //!   last), or it carries the mark. Constant time, every build.
   template <class Marking>
   bool freed_twice(const void *node, const void *head, const Marking &m) const noexcept
   {
      return BOOST_UNLIKELY(node == head)
          || (m.carried && BOOST_UNLIKELY(static_cast<const std::uintptr_t *>(node)[1] == m.mark));
   }
   //! The same where head is known to carry the mark when nodes do (a burst's node freed just
   //! before): the mark alone then finds a node freed twice.
   template <class Marking>
   bool freed_twice_after_marked(const void *node, const void *head, const Marking &m) const noexcept
   {
      if (m.carried) return BOOST_UNLIKELY(static_cast<const std::uintptr_t *>(node)[1] == m.mark);
      return BOOST_UNLIKELY(node == head);
   }

   // The span of the pool's blocks (check_could_be_node): widened when a block is made, set anew
   // (from the lowest and highest blocks left) when blocks go back to the core; empty without
   // blocks. (Stored as relaxed atomics: a shared pool's threads read it without the lock.)
   void widen_block_span(const void *start, const void *end) noexcept
   {
      const std::uintptr_t s = reinterpret_cast<std::uintptr_t>(start), e = reinterpret_cast<std::uintptr_t>(end);
      const std::uintptr_t low = span_low_, high = span_high_;
      set_block_span(low == high || s < low ? s : low, low == high || e > high ? e : high);
   }
   void set_block_span(std::uintptr_t low, std::uintptr_t high) noexcept
   {
      __atomic_store_n(&span_low_, low, __ATOMIC_RELAXED);
      __atomic_store_n(&span_high_, high, __ATOMIC_RELAXED);
   }

   [[noreturn]] void report_double_free(const void *node) const noexcept { report("double free of a node", node); }
   [[noreturn]] void report_corrupted(const void *node) const noexcept
   {
      report("a free node's link is overwritten (a write after free?)", node);
   }
   // A leak is reported, not fatal: the nodes go back to the core with their blocks.
   BOOST_NOINLINE void report_leak(std::size_t in_use) const noexcept
   {
      std::fprintf(stderr, "allocplus: %s: a pool destroyed with %zu node(s) still in use at %p\n", owner_, in_use,
                   static_cast<const void *>(this));
      std::fflush(stderr);
   }

   const char *const owner_;   // the allocator, named in reports
   const std::size_t align_;
   const std::size_t node_size_;
   std::uintptr_t span_low_ = 0;    // the span of the blocks: [low, high); empty when equal
   std::uintptr_t span_high_ = 0;
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_POOL_NODE_CHECKS_HPP
