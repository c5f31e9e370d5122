// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_ALLOCATOR_ALLOCATOR_TEST_SUPPORT_HPP
#define BOOST_ALLOCPLUS_TEST_ALLOCATOR_ALLOCATOR_TEST_SUPPORT_HPP

// What the tests of allocator.hpp and heap.hpp share: the two "subjects" a test template runs on
// (ba::allocator over the default heap, ba::heap_allocator over a heap of the test's own), block
// arrangements that in-place expansion needs, and a guard that restores the default heap's
// footprint limit.

#include "core/core_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace allocplus_test {

namespace ba = boost::allocplus;

//! ba::allocator over the process's default heap.
struct default_heap_subject {
   template <class T, unsigned V = 2>
   using alloc = ba::allocator<T, V>;
   template <class T, unsigned V = 2>
   alloc<T, V> make() const { return alloc<T, V>(); }
   ba_heap *heap() const { return ba_default_heap(); }
   static const char *name() { return "ba::allocator"; }
};

//! ba::heap_allocator over a heap created for the test (requests of 1 MiB and more are huge).
struct own_heap_subject {
   ba::heap h;
   own_heap_subject() { BOOST_REQUIRE(h.set_option(BA_OPTION_MMAP_THRESHOLD, 1 * MiB)); }
   ~own_heap_subject() { ALLOCPLUS_CHECK_HEAP(h.native_handle()); }
   template <class T, unsigned V = 2>
   using alloc = ba::heap_allocator<T, V>;
   template <class T, unsigned V = 2>
   alloc<T, V> make() { return alloc<T, V>(h); }
   ba_heap *heap() const { return h.native_handle(); }
   static const char *name() { return "ba::heap_allocator"; }
};

using both_subjects = boost::mpl::list<default_heap_subject, own_heap_subject>;

//! Whether block b starts right after block a's chunk.
inline bool follows(const void *a, const void *b)
{
   std::ptrdiff_t d = distance(a, b);
   std::size_t u = ba_usable_size(a);
   return d >= static_cast<std::ptrdiff_t>(u) && d <= static_cast<std::ptrdiff_t>(u + 4 * sizeof(void *));
}

//! The core heap allocator a allocates from.
template <class A>
ba_heap *heap_of(const A &a)
{
   if constexpr (std::is_same_v<decltype(std::declval<const A &>().native_heap()), ba_heap *>) return a.native_heap();
   else return ba_default_heap();
}
template <class T, unsigned V>
ba_heap *heap_of(const ba::allocator<T, V> &) { return ba_default_heap(); }

//! Three blocks of allocator A laid out one after the other in memory: before, middle, after.
//! They are taken from the heap itself, not from the thread's cache, whose blocks of one size
//! come from magazines of that size, never next to blocks of another.
//! On a heap where earlier allocations left free chunks, a try may place them elsewhere; such
//! tries are kept allocated (they use those chunks up) until three consecutive blocks come out.
template <class A>
struct three_in_a_row {
   using T = typename A::value_type;
   A &a;
   T *before = nullptr, *middle = nullptr, *after = nullptr;
   std::size_t nb, nm, na;
   std::vector<T *> spare;

   three_in_a_row(A &alloc, std::size_t n_before, std::size_t n_middle, std::size_t n_after)
      : a(alloc), nb(n_before), nm(n_middle), na(n_after)
   {
      for (int attempt = 0; attempt != 200; ++attempt) {
         T *x = from_heap(nb), *y = from_heap(nm), *z = from_heap(na);
         if (follows(x, y) && follows(y, z)) {
            before = x;
            middle = y;
            after = z;
            break;
         }
         spare.push_back(x);
         spare.push_back(y);
         spare.push_back(z);
      }
      BOOST_REQUIRE_MESSAGE(middle != nullptr, "could not lay three blocks out one after the other");
   }
   T *from_heap(std::size_t n)
   {
      void *p = ba_heap_malloc(heap_of(a), n * sizeof(T));
      BOOST_REQUIRE(p != nullptr);
      return static_cast<T *>(p);
   }
   three_in_a_row(const three_in_a_row &) = delete;
   three_in_a_row &operator=(const three_in_a_row &) = delete;
   ~three_in_a_row()
   {
      for (T *p : spare) a.deallocate(p, 1);
      if (before) a.deallocate(before, nb);
      if (middle) a.deallocate(middle, nm);
      if (after) a.deallocate(after, na);
   }
   //! Frees the block before the middle one (room for a backward expansion). A small block freed
   //! to the default heap stays in the thread's cache, in use to the heap: it is flushed, so that
   //! the heap can expand into it.
   void free_before() { a.deallocate(before, nb), before = nullptr, ba_thread_cache_flush(); }
   //! Frees the block after the middle one (room for a forward expansion), flushed as above.
   void free_after() { a.deallocate(after, na), after = nullptr, ba_thread_cache_flush(); }
   //! The middle block was replaced by the result of an allocation command.
   void middle_is(T *p) { middle = p; }
};

//! Restores the footprint limit of a heap (the default heap, shared by every test) when it goes.
class footprint_limit_guard {
public:
   footprint_limit_guard(ba_heap *h, std::size_t limit) : h_(h), previous_(ba_heap_set_footprint_limit(h, limit)) {}
   footprint_limit_guard(const footprint_limit_guard &) = delete;
   footprint_limit_guard &operator=(const footprint_limit_guard &) = delete;
   ~footprint_limit_guard() { ba_heap_set_footprint_limit(h_, previous_); }

private:
   ba_heap *h_;
   std::size_t previous_;
};

//! An object size that is not a multiple of the core's 16-byte alignment.
struct twelve_bytes {
   std::uint32_t a, b, c;
};
static_assert(sizeof(twelve_bytes) == 12, "twelve_bytes must be 12 bytes");

//! An over-aligned object.
struct alignas(64) aligned64 {
   unsigned char bytes[64];
};

} // namespace allocplus_test

#endif
