// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP
#define BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP

// The size classes of the pool resources (synchronized_pool_resource, unsynchronized_pool_resource,
// and their adaptive twins): 8 to 128 bytes by 8 (classes 0 to 15), then 144 to 512
// by 16 (classes 16 to 39), as fine as std's pools where most nodes are (a std::list<int> node of
// 24 bytes takes 24, not 32). A class's nodes are aligned to 16 when its size is a multiple of 16,
// else to 8. A request goes to the smallest class whose nodes are as big and as aligned; one
// bigger than the largest class in use or aligned to more than 16 goes upstream. Computed, not
// searched: deallocate finds the class from the size and alignment it is given, as
// std::pmr::memory_resource guarantees they are the allocation's.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>

#include <cstddef>
#include <memory_resource>

namespace boost { namespace allocplus { namespace detail {

struct pool_resource_classes {
   static constexpr std::size_t count = 40;
   static constexpr std::size_t fine_limit = 128;   // the classes by 8 end here
   static constexpr std::size_t largest_node = 512;
   static constexpr std::size_t max_alignment = 16;
   static constexpr std::size_t upstream = static_cast<std::size_t>(-1);   // not a class

   static constexpr std::size_t node_size_of(std::size_t cls) noexcept
   {
      return cls < 16 ? 8 * (cls + 1) : fine_limit + 16 * (cls - 15);
   }
   static constexpr std::size_t alignment_of(std::size_t cls) noexcept { return node_size_of(cls) % 16 == 0 ? 16 : 8; }

   //! Returns: the class of the smallest node size at least `bytes`: the size is a multiple of 8
   //!   (up to 128) or 16.
   static constexpr std::size_t class_of_node_size(std::size_t bytes) noexcept
   {
      return bytes <= fine_limit ? (bytes == 0 ? 0 : (bytes - 1) / 8) : 15 + (bytes - fine_limit + 15) / 16;
   }

   //! Returns: the class of (bytes, alignment) among the classes up to `last`, or upstream.
   static constexpr std::size_t class_of(std::size_t bytes, std::size_t alignment, std::size_t last) noexcept
   {
      if (alignment > max_alignment || bytes > largest_node) return upstream;
      // An alignment of 16 needs a node size that is a multiple of 16.
      const std::size_t cls = class_of_node_size(alignment == 16 ? (bytes == 0 ? 16 : (bytes + 15) & ~std::size_t(15)) : bytes);
      return cls <= last ? cls : upstream;
   }

   //! Returns: the last class in use for options (largest_required_pool_block: 0 for the largest
   //!   class; beyond it is capped there; otherwise rounded up to a class).
   static constexpr std::size_t last_class_for(const std::pmr::pool_options &options) noexcept
   {
      const std::size_t largest = options.largest_required_pool_block;
      if (largest == 0 || largest >= largest_node) return count - 1;
      return class_of_node_size(largest);
   }

   //! Returns: nodes per block of the pools for options (max_blocks_per_chunk: 0 for 256; capped
   //!   to 1..4096).
   static constexpr std::size_t nodes_per_block_for(const std::pmr::pool_options &options) noexcept
   {
      const std::size_t n = options.max_blocks_per_chunk;
      return n == 0 ? 256 : n > 4096 ? 4096 : n;
   }
};

//! Throws: std::bad_alloc when a resource is asked for an alignment that is not a power of two.
inline void check_resource_alignment(std::size_t alignment)
{
   if (BOOST_UNLIKELY((alignment & (alignment - 1)) != 0 || alignment == 0)) throw_bad_alloc();
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_POOL_RESOURCE_CLASSES_HPP
