// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DEFAULT_HEAP_RESOURCE_HPP
#define BOOST_ALLOCPLUS_DEFAULT_HEAP_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <memory_resource>
#include <typeinfo>

namespace boost { namespace allocplus {

//! A std::pmr::memory_resource over the core's default heap (ba_malloc / ba_memalign / ba_free,
//! with their per-thread caches): what std::pmr::new_delete_resource() is for operator new.
//! Serves every size and every power-of-two alignment itself, so it has no upstream. Thread-safe.
//!
//! Stateless: every default_heap_resource compares equal to every other (a block of one may be
//! freed through another). Use default_heap_resource() for the process-wide one.
class default_heap_resource_type final : public std::pmr::memory_resource {
public:
   //! Returns: the default heap's statistics (system bytes, bytes in use, peaks, free chunks...).
   //! Complexity: linear in the heap's chunks.
   static ba_heap_stats stats() noexcept
   {
      ba_heap_stats s;
      ba_heap_stats_get(ba_default_heap(), &s);
      return s;
   }

private:
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      if (alignment == 0 || (alignment & (alignment - 1)) != 0) detail::throw_bad_alloc();
      void *p = alignment <= BA_MALLOC_ALIGNMENT ? ba_malloc(bytes) : ba_memalign(alignment, bytes);
      if (!p) detail::throw_bad_alloc();
      return p;
   }
   void do_deallocate(void *p, std::size_t, std::size_t) override { ba_free(p); }
   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override
   {
      return this == &other || typeid(other) == typeid(default_heap_resource_type);
   }
};

//! Returns: the process-wide resource over the core's default heap (never destroyed, so a static
//!   container destroyed at exit may still free into it).
inline default_heap_resource_type *default_heap_resource() noexcept
{
   alignas(default_heap_resource_type) static unsigned char storage[sizeof(default_heap_resource_type)];
   static default_heap_resource_type *const resource = ::new (static_cast<void *>(storage)) default_heap_resource_type();
   return resource;
}

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_DEFAULT_HEAP_RESOURCE_HPP
