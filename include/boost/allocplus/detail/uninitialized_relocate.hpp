// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_UNINITIALIZED_RELOCATE_HPP
#define BOOST_ALLOCPLUS_DETAIL_UNINITIALIZED_RELOCATE_HPP

// Moving a vector's elements: to a new buffer (transfer_n: memcpy for relocatable types, else a
// move-if-noexcept construction that is undone on an exception), within one buffer (relocate_within:
// memmove, else move + destroy, in the order that is safe for overlapping ranges), and the
// temporary a vector builds a value in before it moves the element it may have been made from.

#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/config.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus { namespace detail {

//! Whether T moves by memcpy (ba::is_trivially_relocatable).
template <class T>
constexpr bool relocates_bitwise() noexcept
{
   return is_trivially_relocatable<T>::value;
}

//! Whether T can be moved within a buffer without any chance of an exception: what a backward
//! expansion needs to keep the strong guarantee.
template <class T>
constexpr bool relocates_nothrow() noexcept
{
   return relocates_bitwise<T>() || std::is_nothrow_move_constructible<T>::value;
}

//! Effects: destroys [p, p + n) through the allocator. Throws: nothing.
template <class A, class T>
void destroy_n(A &a, T *p, std::size_t n) noexcept
{
   if constexpr (!std::is_trivially_destructible<T>::value) {
      for (; n; --n, ++p) std::allocator_traits<A>::destroy(a, p);
   } else {
      (void)a, (void)p, (void)n;
   }
}

//! Runs step(i) for i in [0, n), four to an iteration. The element loops of a vector's growth
//! (a copy or move per element) are most of its cost for small elements, and a loop of one
//! element per iteration ran up to 30% slower or faster with where its code fell (measured in
//! the backward-expansion benchmark); four per iteration amortize the loop's own cost. Inlined
//! (forced): as a call of its own the loop lost what unrolling gained.
template <class Step>
BOOST_FORCEINLINE void for_each_index_unrolled(std::size_t n, Step step) noexcept
{
   std::size_t i = 0;
   for (; n - i >= 4; i += 4) {
      step(i);
      step(i + 1);
      step(i + 2);
      step(i + 3);
   }
   for (; i != n; ++i) step(i);
}

//! Runs build(dst + i) for i in [0, n); on an exception destroys dst[0, i) and rethrows.
template <class A, class T, class Build>
void construct_each(A &a, T *dst, std::size_t n, Build build)
{
   std::size_t i = 0;
#if !defined(BOOST_NO_EXCEPTIONS)
   try {
#endif
      for (; i != n; ++i) build(dst + i);
#if !defined(BOOST_NO_EXCEPTIONS)
   } catch (...) {
      destroy_n(a, dst, i);
      throw;
   }
#else
   (void)a;
#endif
}

//! Effects: builds copies (or moves, when T's move cannot throw or T cannot be copied) of
//!   [src, src + n) in the raw memory [dst, dst + n); with bitwise relocation, one memcpy after
//!   which the sources must be forgotten, not destroyed.
//! Throws: what T's copy (or move) throws; then nothing is left constructed in dst, and the
//!   sources are intact (after copies).
template <class A, class T>
void transfer_n(A &a, T *src, std::size_t n, T *dst)
{
   if constexpr (relocates_bitwise<T>()) {
      (void)a;
      if (n) std::memcpy(static_cast<void *>(dst), static_cast<const void *>(src), n * sizeof(T));
   } else if constexpr (noexcept(std::allocator_traits<A>::construct(a, dst, std::move_if_noexcept(*src)))) {
      for_each_index_unrolled(n, [&a, src, dst](std::size_t i) noexcept {
         std::allocator_traits<A>::construct(a, dst + i, std::move_if_noexcept(src[i]));
      });
   } else {
      construct_each(a, dst, n, [&a, src, dst](T *p) {
         std::allocator_traits<A>::construct(a, p, std::move_if_noexcept(src[p - dst]));
      });
   }
}

//! Effects: after transfer_n, ends the sources' lifetime (destroys them unless they were
//!   relocated bitwise). Throws: nothing.
template <class A, class T>
void end_transferred(A &a, T *src, std::size_t n) noexcept
{
   if constexpr (!relocates_bitwise<T>()) destroy_n(a, src, n);
   else (void)a, (void)src, (void)n;
}

//! Requires: relocates_nothrow<T>(); [dst, dst + n) is raw memory except where it overlaps
//!   [src, src + n).
//! Effects: moves the n objects at src to dst (memmove, or move construction + destruction of
//!   each source, in the order that never overwrites a live object), within one buffer.
//! Throws: nothing.
template <class A, class T>
void relocate_within(A &a, T *src, T *dst, std::size_t n) noexcept
{
   static_assert(relocates_nothrow<T>(), "relocate_within needs a nothrow move");
   if (src == dst || n == 0) return;
   if constexpr (relocates_bitwise<T>()) {
      (void)a;
      std::memmove(static_cast<void *>(dst), static_cast<const void *>(src), n * sizeof(T));
   } else if (std::less<T *>()(dst, src)) {
      for_each_index_unrolled(n, [&a, src, dst](std::size_t i) noexcept {
         std::allocator_traits<A>::construct(a, dst + i, std::move(src[i]));
         std::allocator_traits<A>::destroy(a, src + i);
      });
   } else {
      for_each_index_unrolled(n, [&a, src, dst, n](std::size_t i) noexcept {
         std::allocator_traits<A>::construct(a, dst + (n - 1 - i), std::move(src[n - 1 - i]));
         std::allocator_traits<A>::destroy(a, src + (n - 1 - i));
      });
   }
}

//! A T built through allocator A in storage of its own (not an element of any container), as a
//! vector needs when the value it inserts may be one of its elements that is about to move.
//! Destroyed at the end of its scope unless it was relocated away (release()).
template <class A, class T>
class temporary_value {
public:
   template <class... Args>
   temporary_value(A &a, Args &&...args) : a_(a)
   {
      std::allocator_traits<A>::construct(a_, ptr(), std::forward<Args>(args)...);
   }
   temporary_value(const temporary_value &) = delete;
   temporary_value &operator=(const temporary_value &) = delete;
   ~temporary_value()
   {
      if (live_) std::allocator_traits<A>::destroy(a_, ptr());
   }

   T *ptr() noexcept { return std::launder(reinterpret_cast<T *>(&storage_)); }
   T &get() noexcept { return *ptr(); }

   //! Requires: relocates_nothrow<T>(). Effects: moves the value into the raw memory at dst and
   //!   ends its own lifetime (bitwise, or a move construction and a destruction).
   void relocate_to(T *dst) noexcept
   {
      if constexpr (relocates_bitwise<T>()) {
         std::memcpy(static_cast<void *>(dst), static_cast<const void *>(ptr()), sizeof(T));
      } else {
         std::allocator_traits<A>::construct(a_, dst, std::move(get()));
         std::allocator_traits<A>::destroy(a_, ptr());
      }
      live_ = false;
   }

private:
   A &a_;
   std::aligned_storage_t<sizeof(T), alignof(T)> storage_;
   bool live_ = true;
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_UNINITIALIZED_RELOCATE_HPP
