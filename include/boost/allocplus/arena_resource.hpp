// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ARENA_RESOURCE_HPP
#define BOOST_ALLOCPLUS_ARENA_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus {

//! A std::pmr resource over a ba::arena: what std::pmr::monotonic_buffer_resource does over a
//! buffer, with real frees (a block freed is reused, a block at the bump end goes back to it).
//! What the arena has no room for goes to the upstream resource, std::pmr::null_memory_resource()
//! unless another is given (then an exhausted arena throws std::bad_alloc, as the arena does).
//! An arena that grows from a heap (arena(buffer, size, upstream)) takes a region from it first:
//! the resource's upstream sees only what that heap cannot give.
//!
//! Not thread-safe (neither is the arena): one thread at a time. Stateful: equal only to itself.
class arena_resource final : public std::pmr::memory_resource {
public:
   //! Requires: a outlives the resource and every block allocated from it.
   //! Effects: a resource over arena a, with upstream for what a has no room for.
   explicit arena_resource(allocplus::arena &a, std::pmr::memory_resource *upstream = std::pmr::null_memory_resource()) noexcept
      : arena_(a), upstream_(upstream)
   {
   }
   arena_resource(const arena_resource &) = delete;
   arena_resource &operator=(const arena_resource &) = delete;

   //! Returns: the arena (for its metrics, defragment, release).
   allocplus::arena &arena() const noexcept { return arena_; }
   //! Returns: the resource what the arena has no room for goes to.
   std::pmr::memory_resource *upstream_resource() const noexcept { return upstream_; }
   //! Returns: the arena's metrics (what went upstream is not counted).
   arena_statistics statistics() const noexcept { return arena_.statistics(); }

private:
   //! Returns: a block from the arena, or from upstream when the arena has no room.
   //! Throws: std::bad_alloc when neither has room, or the alignment is not a power of two.
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      if (BOOST_UNLIKELY(!detail::is_power_of_two(alignment))) detail::throw_bad_alloc();
      if (void *p = arena_.try_allocate(bytes, alignment)) return p;
      return upstream_->allocate(bytes, alignment);
   }

   //! Effects: gives p back to the arena if it points into the arena's memory (the arena's checks
   //!   apply: a block freed twice is reported, also when the arena was emptied since), else to
   //!   upstream.
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      if (arena_.contains(p)) arena_.deallocate(p);
      else upstream_->deallocate(p, bytes, alignment);
   }

   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

   allocplus::arena &arena_;
   std::pmr::memory_resource *const upstream_;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ARENA_RESOURCE_HPP
