// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_HEAP_RESOURCE_HPP
#define BOOST_ALLOCPLUS_HEAP_RESOURCE_HPP

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/heap.hpp>

#include <cstddef>
#include <memory_resource>
#include <utility>

namespace boost { namespace allocplus {

//! A std::pmr::memory_resource with an independent heap of its own (a ba::heap): from the system,
//! or entirely inside a buffer of the caller's. Serves every size and every power-of-two alignment
//! itself, so it has no upstream: a heap over a buffer that is full throws std::bad_alloc.
//! Destroying the resource gives all its memory back at once (destroy the containers first).
//!
//! Stateful: equal only to itself. Thread-safe unless made with locked = false.
class heap_resource final : public std::pmr::memory_resource {
public:
   //! Effects: a resource over a new heap from the system (as ba::heap(capacity, locked)).
   //! Throws: std::bad_alloc when the system refuses.
   explicit heap_resource(std::size_t capacity = 0, bool locked = true) : heap_(capacity, locked) {}

   //! Effects: a resource over a new heap inside [buffer, buffer + size), which must outlive it.
   //! Throws: std::bad_alloc when the buffer is under ba::heap::min_buffer_size.
   heap_resource(void *buffer, std::size_t size, bool locked = true) : heap_(buffer, size, locked) {}

   heap_resource(const heap_resource &) = delete;
   heap_resource &operator=(const heap_resource &) = delete;

   //! Returns: the heap (for trim, check, set_footprint_limit...).
   allocplus::heap &heap() noexcept { return heap_; }
   const allocplus::heap &heap() const noexcept { return heap_; }

   //! Returns: the heap's statistics. Complexity: linear in the heap's chunks.
   ba_heap_stats stats() const noexcept { return heap_.stats(); }

private:
   void *do_allocate(std::size_t bytes, std::size_t alignment) override { return heap_.allocate(bytes, alignment); }
   void do_deallocate(void *p, std::size_t, std::size_t) override { heap_.deallocate(p); }
   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }

   allocplus::heap heap_;
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_HEAP_RESOURCE_HPP
