// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_HEAP_SOURCE_HPP
#define BOOST_ALLOCPLUS_DETAIL_HEAP_SOURCE_HPP

// Heap sources: how an allocator over the C core reaches its heap. core_allocator_base is written
// once against this interface; `default_heap_source` (empty, so ba::allocator stays stateless)
// calls the default heap's functions, `heap_reference_source` those of one independent heap.
//
//   void *allocate_bytes(n)                  ba_malloc
//   void *allocate_growable_bytes(n)         a block a container means to grow in place
//                                            (allocation_command): from the heap itself, not
//                                            from a thread's cache, whose blocks sit between
//                                            cached blocks of their size (but a small one in a
//                                            process with threads: core/detail/thread_cache.h)
//   void *allocate_aligned(alignment, n)     ba_memalign
//   void deallocate_bytes(p)                 ba_free
//   void deallocate_grown_bytes(p)           ba_free for a block from allocate_growable_bytes
//                                            (or grown from one): in a process of one thread,
//                                            to the heap it came from when it ends at the top
//                                            or the thread's cache has no room for it
//   ba_command_ret command(...)              ba_allocation_command (kept a call)
//   ba_command_ret command_inline(...)       the same command, its short paths forced inline
//   int burst_nodes(n, bytes, chain)         ba_multialloc_nodes (default contiguity)
//   int burst_arrays(n, lengths, size, chain) ba_multialloc_arrays (default contiguity)
//   void burst_deallocate(chain)             ba_multidealloc
//   ba_heap *heap()                          the heap itself
//
// All of them are noexcept and report failure with null / 0, as the core does.

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/config.hpp>

#include <cstddef>

namespace boost { namespace allocplus { namespace detail {

//! The process's default heap. Empty: an allocator holding it has no state.
struct default_heap_source {
   static void *allocate_bytes(std::size_t n) noexcept { return ba_malloc(n); }
   static void *allocate_growable_bytes(std::size_t n) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      // From the heap, or (a small block in a process with threads) from the thread's cache.
      return ::boost::allocplus::ba_detail_default_malloc_growable(n);
#else
      return ba_heap_malloc(ba_default_heap(), n);
#endif
   }
   static void *allocate_aligned(std::size_t alignment, std::size_t n) noexcept { return ba_memalign(alignment, n); }
   static void deallocate_bytes(void *p) noexcept { ba_free(p); }
   static void deallocate_grown_bytes(void *p) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      ::boost::allocplus::ba_detail_default_free_growable(p);
#else
      ba_free(p);
#endif
   }
   // Kept a call (noinline): inlined, the command's paths would make a container's growth
   // function larger, which is what the call is for (doc/allocator.md).
   BOOST_NOINLINE static ba_command_ret command(unsigned command, std::size_t size, std::size_t alignment,
                                                std::size_t limit, std::size_t preferred, std::size_t *received,
                                                void *reuse) noexcept
   {
      return ba_allocation_command(command, size, alignment, limit, preferred, received, reuse);
   }
   BOOST_FORCEINLINE static ba_command_ret command_inline(unsigned command, std::size_t size,
                                                          std::size_t alignment, std::size_t limit,
                                                          std::size_t preferred, std::size_t *received,
                                                          void *reuse) noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      return ::boost::allocplus::ba_detail_inline_command(::boost::allocplus::ba_detail_default(), command, size,
                                                          alignment, limit, preferred, received, reuse);
#else
      return ba_allocation_command(command, size, alignment, limit, preferred, received, reuse);
#endif
   }
   static int burst_nodes(std::size_t n, std::size_t bytes, ba_chain *chain) noexcept
   {
      return ba_multialloc_nodes(n, bytes, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, chain);
   }
   static int burst_arrays(std::size_t n, const std::size_t *lengths, std::size_t size, ba_chain *chain) noexcept
   {
      return ba_multialloc_arrays(n, lengths, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, chain);
   }
   static void burst_deallocate(ba_chain *chain) noexcept { ba_multidealloc(chain); }
   static ba_heap *heap() noexcept { return ba_default_heap(); }
};

//! One independent heap, by reference (the allocator does not own it).
class heap_reference_source {
public:
   explicit heap_reference_source(ba_heap *h) noexcept : heap_(h) {}

   void *allocate_bytes(std::size_t n) const noexcept { return ba_heap_malloc(heap_, n); }
   void *allocate_growable_bytes(std::size_t n) const noexcept { return ba_heap_malloc(heap_, n); }
   void *allocate_aligned(std::size_t alignment, std::size_t n) const noexcept
   {
      return ba_heap_memalign(heap_, alignment, n);
   }
   void deallocate_bytes(void *p) const noexcept { ba_heap_free(heap_, p); }
   void deallocate_grown_bytes(void *p) const noexcept { ba_heap_free(heap_, p); }
   BOOST_NOINLINE ba_command_ret command(unsigned command, std::size_t size, std::size_t alignment,
                                         std::size_t limit, std::size_t preferred, std::size_t *received,
                                         void *reuse) const noexcept
   {
      return ba_heap_allocation_command(heap_, command, size, alignment, limit, preferred, received, reuse);
   }
   BOOST_FORCEINLINE ba_command_ret command_inline(unsigned command, std::size_t size, std::size_t alignment,
                                                   std::size_t limit, std::size_t preferred,
                                                   std::size_t *received, void *reuse) const noexcept
   {
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
      return ::boost::allocplus::ba_detail_inline_command(heap_, command, size, alignment, limit, preferred,
                                                          received, reuse);
#else
      return ba_heap_allocation_command(heap_, command, size, alignment, limit, preferred, received, reuse);
#endif
   }
   int burst_nodes(std::size_t n, std::size_t bytes, ba_chain *chain) const noexcept
   {
      return ba_heap_multialloc_nodes(heap_, n, bytes, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, chain);
   }
   int burst_arrays(std::size_t n, const std::size_t *lengths, std::size_t size, ba_chain *chain) const noexcept
   {
      return ba_heap_multialloc_arrays(heap_, n, lengths, size, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, chain);
   }
   void burst_deallocate(ba_chain *chain) const noexcept { ba_heap_multidealloc(heap_, chain); }
   ba_heap *heap() const noexcept { return heap_; }

private:
   ba_heap *heap_;
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_HEAP_SOURCE_HPP
