// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP
#define BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP

// The size classes of the pool resources (synchronized_pool_resource, unsynchronized_pool_resource,
// and the adaptive pool resource to come): class 0 holds 8-byte nodes aligned to 8, class k > 0
// nodes of 16 * k bytes aligned to 16, up to 512 bytes (class 32). A request goes to the smallest
// class whose nodes are as big and as aligned; one bigger than the largest class in use or
// aligned to more than 16 goes upstream. Computed, not searched: deallocate finds the class from
// the size and alignment it is given, as std::pmr::memory_resource guarantees they are the
// allocation's.

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus { namespace detail {

struct pool_resource_classes {
   static constexpr std::size_t count = 33;
   static constexpr std::size_t largest_node = 512;
   static constexpr std::size_t node_alignment = 16;   // every class but the first
   static constexpr std::size_t upstream = static_cast<std::size_t>(-1);   // not a class

   static constexpr std::size_t node_size_of(std::size_t cls) noexcept { return cls == 0 ? 8 : 16 * cls; }
   static constexpr std::size_t alignment_of(std::size_t cls) noexcept { return cls == 0 ? 8 : 16; }

   //! Returns: the class of (bytes, alignment) among the classes up to `last`, or upstream.
   static constexpr std::size_t class_of(std::size_t bytes, std::size_t alignment, std::size_t last) noexcept
   {
      if (alignment > node_alignment) return upstream;
      if (bytes <= 8 && alignment <= 8) return 0;
      const std::size_t cls = bytes == 0 ? 1 : (bytes + 15) / 16;
      return cls <= last ? cls : upstream;
   }

   //! Returns: the last class in use for options (largest_required_pool_block: 0 for the largest
   //!   class; beyond it is capped there; otherwise rounded up to a class).
   static constexpr std::size_t last_class_for(const std::pmr::pool_options &options) noexcept
   {
      const std::size_t largest = options.largest_required_pool_block;
      if (largest == 0 || largest >= largest_node) return count - 1;
      return largest <= 8 ? 0 : (largest + 15) / 16;
   }

   //! Returns: nodes per block of the pools for options (max_blocks_per_chunk: 0 for 256; capped
   //!   to 1..4096).
   static constexpr std::size_t nodes_per_block_for(const std::pmr::pool_options &options) noexcept
   {
      const std::size_t n = options.max_blocks_per_chunk;
      return n == 0 ? 256 : n > 4096 ? 4096 : n;
   }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP
