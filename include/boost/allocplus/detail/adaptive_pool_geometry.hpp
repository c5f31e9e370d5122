// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_POOL_GEOMETRY_HPP
#define BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_POOL_GEOMETRY_HPP

// The shape of an adaptive pool's blocks, computed at compile time from the node size, the
// nodes' alignment, the fewest nodes a block holds and the overhead allowed.
//
// A block is `subblocks` sub-blocks of `alignment` bytes each (a power of two), asked of the core
// as subblocks * alignment - BA_CHUNK_OVERHEAD bytes aligned to `alignment`: the core's header of
// the next chunk then ends exactly where the block does, so blocks taken one after the other sit
// end to end, every one aligned. A node finds its sub-block by masking its address; nodes never
// cross a sub-block's end.
//
// - One sub-block (the align-only shape, OverheadPercent 0, or a block whose one sub-block already
//   holds enough nodes): the block header is at the start, the nodes after it.
// - Several: the first sub-block starts with the header, each other with a word that leads to
//   it. A node costs one more load to find its header.
//
// With an overhead allowed, the sub-block is at least a page (4 KiB: a block's headers are few
// and its nodes many) and doubles until the bytes of a block that hold no node (the core's
// header, the block and sub-block headers, the tail of each sub-block too short for a node) are
// within the percentage; the sub-blocks are then as few as hold NodesPerBlock nodes.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/core/dlmalloc.h>

#include <cstddef>

namespace boost { namespace allocplus { namespace detail {

struct adaptive_pool_geometry {
   std::size_t alignment = 0;          // of a block and of each sub-block: a power of two
   std::size_t subblocks = 0;          // in a block
   std::size_t header_offset = 0;      // of the block header in the first sub-block
   std::size_t first_offset = 0;       // of the first node in the first sub-block
   std::size_t other_offset = 0;       // of the first node in the other sub-blocks
   std::size_t nodes_first = 0;        // nodes in the first sub-block
   std::size_t nodes_middle = 0;       // in each sub-block between the first and the last
   std::size_t nodes_last = 0;         // in the last (when there are two or more)
   std::size_t nodes_per_block = 0;    // in a block: at least what was asked for
   std::size_t request_bytes = 0;      // asked of the core: subblocks * alignment - its overhead

   //! Returns: whether the shape is usable (a geometry was found).
   constexpr bool valid() const noexcept { return nodes_per_block != 0; }
   //! Returns: the bytes a block takes from the core, the core's own header included.
   constexpr std::size_t footprint() const noexcept { return subblocks * alignment; }
   //! Returns: the bytes of a block that hold no node.
   constexpr std::size_t overhead_bytes(std::size_t node_size) const noexcept
   {
      return footprint() - nodes_per_block * node_size;
   }
};

struct adaptive_pool_layout {
   static constexpr std::size_t round_up(std::size_t n, std::size_t to) noexcept { return (n + to - 1) / to * to; }
   static constexpr std::size_t pow2_at_least(std::size_t n) noexcept
   {
      std::size_t p = 1;
      while (p < n) p *= 2;
      return p;
   }
   static constexpr std::size_t largest_alignment = std::size_t(1) << 26;   // 64 MiB: beyond, none is found

   //! Returns: the geometry of a block of `subblocks` sub-blocks of `alignment` bytes, for nodes of
   //!   node_size bytes (a multiple of node_align) after a block header of `header` bytes; nodes 0
   //!   when a sub-block holds none.
   static constexpr adaptive_pool_geometry shape(std::size_t node_size, std::size_t node_align, std::size_t header,
                                                 std::size_t alignment, std::size_t subblocks) noexcept
   {
      adaptive_pool_geometry g;
      // (A block starts with its header, so that a memory checker sees the pool's pointers to
      // a block as pointers to its start; only the other sub-blocks start with a link.)
      g.alignment = alignment;
      g.subblocks = subblocks;
      g.header_offset = 0;
      g.first_offset = round_up(header, node_align);
      g.other_offset = round_up(sizeof(void *), node_align);
      g.request_bytes = subblocks * alignment - BA_CHUNK_OVERHEAD;
      const std::size_t first_end = subblocks > 1 ? alignment : alignment - BA_CHUNK_OVERHEAD;
      if (first_end < g.first_offset + node_size) return adaptive_pool_geometry{};
      g.nodes_first = (first_end - g.first_offset) / node_size;
      if (subblocks > 1) {
         g.nodes_middle = (alignment - g.other_offset) / node_size;
         g.nodes_last = (alignment - BA_CHUNK_OVERHEAD - g.other_offset) / node_size;
         if (g.nodes_last == 0) return adaptive_pool_geometry{};
      }
      g.nodes_per_block = g.nodes_first + (subblocks > 2 ? (subblocks - 2) * g.nodes_middle : 0)
                        + (subblocks > 1 ? g.nodes_last : 0);
      return g;
   }

   //! Returns: the fewest sub-blocks of `alignment` bytes that hold nodes_per_block nodes, as a
   //!   geometry (invalid when there is none up to nodes_per_block + 2 sub-blocks).
   static constexpr adaptive_pool_geometry fewest_subblocks(std::size_t node_size, std::size_t node_align,
                                                            std::size_t header, std::size_t alignment,
                                                            std::size_t nodes_per_block) noexcept
   {
      for (std::size_t k = 1; k <= nodes_per_block + 2; ++k) {
         const adaptive_pool_geometry g = shape(node_size, node_align, header, alignment, k);
         if (k > 1 && !g.valid()) return g;
         if (g.valid() && g.nodes_per_block >= nodes_per_block) return g;
      }
      return adaptive_pool_geometry{};
   }

   //! Returns: the geometry for nodes of node_size bytes (a multiple of node_align, a power of
   //!   two), at least nodes_per_block a block, with a block header of `header` bytes and at most
   //!   overhead_percent percent of a block's bytes holding no node (0: one sub-block, as small as
   //!   holds the nodes); invalid when there is none.
   static constexpr adaptive_pool_geometry compute(std::size_t node_size, std::size_t node_align,
                                                   std::size_t nodes_per_block, std::size_t overhead_percent,
                                                   std::size_t header) noexcept
   {
      if (node_size == 0 || nodes_per_block == 0 || overhead_percent >= 100) return adaptive_pool_geometry{};
      if (overhead_percent == 0) {
         for (std::size_t a = pow2_at_least(node_size + BA_CHUNK_OVERHEAD); a <= largest_alignment; a *= 2) {
            const adaptive_pool_geometry g = shape(node_size, node_align, header, a, 1);
            if (g.valid() && g.nodes_per_block >= nodes_per_block) return g;
         }
         return adaptive_pool_geometry{};
      }
      std::size_t start = pow2_at_least(node_size + 2 * sizeof(void *));
      if (start < 4096) start = 4096;
      for (std::size_t a = start; a <= largest_alignment; a *= 2) {
         const adaptive_pool_geometry g = fewest_subblocks(node_size, node_align, header, a, nodes_per_block);
         if (g.valid() && g.overhead_bytes(node_size) * 100 <= overhead_percent * g.footprint()) return g;
      }
      return adaptive_pool_geometry{};
   }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ADAPTIVE_POOL_GEOMETRY_HPP
