// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_VECTOR_ANNOTATION_HPP
#define BOOST_ALLOCPLUS_DETAIL_VECTOR_ANNOTATION_HPP

// AddressSanitizer's contiguous-container annotation, through which ba::vector marks its spare
// capacity unaddressable, so that reading or writing past size() is reported like an overflow.
// Without ASan annotate_contiguous() does nothing and costs nothing.

#include <cstddef>
#include <cstdint>

// On by default under ASan; -DBOOST_ALLOCPLUS_ANNOTATE_CONTAINERS=0 turns it off. Every
// translation unit that touches the same vectors must agree: a vector grown by code built without
// ASan (a prebuilt library) leaves marks that an ASan unit would misread, as with libstdc++'s
// _GLIBCXX_SANITIZE_VECTOR.
#if !defined(BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS)
#  if defined(__SANITIZE_ADDRESS__)
#    define BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS 1
#  elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
#      define BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS 1
#    endif
#  endif
#endif
#if !defined(BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS)
#  define BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS 0
#endif

#if BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS
#  include <sanitizer/asan_interface.h>
#  include <sanitizer/common_interface_defs.h>
#endif

namespace boost { namespace allocplus { namespace detail {

//! Whether the spare capacity of containers is annotated (an ASan build).
constexpr bool annotates_containers() noexcept
{
#if BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS
   return true;
#else
   return false;
#endif
}

//! Effects: under ASan, tells it that of the buffer [start, start + capacity) the objects
//!   [0, new_size) are addressable and the rest is not, where [0, old_size) was addressable
//!   before (the annotation only changes the shadow between the two). Only the whole 8-byte
//!   granules of the buffer are annotated: ASan would mark the bytes after an unaligned end as
//!   well, and they are not the container's (a later expansion would find them poisoned). A
//!   buffer whose start is not 8-aligned (which ASan's runtime refuses) is never annotated.
//! Throws: nothing.
template <class T>
void annotate_contiguous(const T *start, std::size_t capacity, std::size_t old_size, std::size_t new_size) noexcept
{
#if BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS
   constexpr std::size_t granule = 8;
   if (!start || reinterpret_cast<std::uintptr_t>(start) % granule != 0) return;
   const std::size_t bytes = capacity * sizeof(T) / granule * granule;
   if (bytes == 0) return;
   const char *const first = reinterpret_cast<const char *>(start);
   const auto at = [first, bytes](std::size_t n) {
      const std::size_t b = n * sizeof(T);
      return first + (b < bytes ? b : bytes);
   };
   const char *const old_mid = at(old_size);
   const char *const new_mid = at(new_size);
   if (old_mid != new_mid) __sanitizer_annotate_contiguous_container(first, first + bytes, old_mid, new_mid);
#else
   (void)start, (void)capacity, (void)old_size, (void)new_size;
#endif
}

//! Effects: under ASan, makes all of [start, start + capacity) addressable, whatever marked it
//!   before: the container's own annotation, or the allocator's (the core poisons the bytes of a
//!   block beyond those requested, and allocate_at_least / allocation_command hand out more).
//!   The capacity the allocator reported is the container's to use.
//! Throws: nothing.
template <class T>
void unpoison_buffer(const T *start, std::size_t capacity) noexcept
{
#if BOOST_ALLOCPLUS_ANNOTATE_CONTAINERS
   if (start && capacity) __asan_unpoison_memory_region(start, capacity * sizeof(T));
#else
   (void)start, (void)capacity;
#endif
}

//! Effects: under ASan, annotates [start, start + capacity) from scratch: [0, size) addressable,
//!   the rest not. Throws: nothing.
template <class T>
void annotate_from_scratch(const T *start, std::size_t capacity, std::size_t size) noexcept
{
   unpoison_buffer(start, capacity);
   annotate_contiguous(start, capacity, capacity, size);
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_VECTOR_ANNOTATION_HPP
