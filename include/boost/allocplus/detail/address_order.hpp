// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_ADDRESS_ORDER_HPP
#define BOOST_ALLOCPLUS_DETAIL_ADDRESS_ORDER_HPP

// Free nodes put in address order, for the pools that hand their free nodes out lowest first
// (node_pool's free list, shared_pool's depot): a container built from them has its neighbours
// side by side, where nodes taken in the order of earlier frees lie scattered over the blocks.

#include <boost/allocplus/detail/config.hpp>
#include <boost/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace boost { namespace allocplus { namespace detail {

//! A bit for every granule (a power of two) of an address range: nodes marked one by one, in any
//! order, then visited highest address first. Linear in the nodes and the range, with no array of
//! the nodes: a walk of a free list can mark each node as it goes.
class address_bits {
public:
   //! Effects: bits for the granules of [low, high) when they take at most max_words words of 64
   //!   and memory for them is there; none otherwise (empty()).
   address_bits(std::uintptr_t low, std::uintptr_t high, std::size_t granule, std::size_t max_words) noexcept
      : low_(low), high_(high), shift_(static_cast<unsigned>(__builtin_ctzll(granule)))
   {
      const std::size_t words = high > low ? ((high - low - 1) >> shift_) / 64 + 1 : 0;
      if (words == 0 || words > max_words) return;
      try {
         words_.resize(words);
      } catch (...) {   // no memory for the bits: empty
      }
   }

   //! Returns: whether there are no bits (the range too wide, or no memory).
   bool empty() const noexcept { return words_.empty(); }

   //! Returns: whether node lies in the range, on a granule.
   bool covers(const void *node) const noexcept
   {
      const std::uintptr_t n = reinterpret_cast<std::uintptr_t>(node);
      return n >= low_ && n < high_ && ((n - low_) & ((std::uintptr_t(1) << shift_) - 1)) == 0;
   }

   //! Requires: !empty(), covers(node). Effects: marks node. Returns: false when it was marked
   //!   already (listed twice).
   bool mark(const void *node) noexcept
   {
      const std::size_t place = (reinterpret_cast<std::uintptr_t>(node) - low_) >> shift_;
      const std::uint64_t bit = std::uint64_t(1) << (place % 64);
      std::uint64_t &word = words_[place / 64];
      const bool first = (word & bit) == 0;
      word |= bit;
      return first;
   }

   //! Effects: calls visit(node) for every node marked, highest address first.
   template <class Visit>
   void visit_descending(Visit visit) const
   {
      for (std::size_t w = words_.size(); w-- != 0;) {
         for (std::uint64_t bits = words_[w]; bits != 0;) {
            const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(bits));
            bits &= ~(std::uint64_t(1) << top);
            visit(reinterpret_cast<char *>(low_ + ((w * 64 + top) << shift_)));
         }
      }
   }

private:
   std::uintptr_t low_, high_;
   unsigned shift_;   // log2 of the granule (a shift: the compiler cannot know it is a power of two)
   std::vector<std::uint64_t> words_;
};

//! Requires: nodes is not empty; every node lies on a multiple of `granule` (a power of two) from
//!   the lowest.
//! Effects: calls visit(node) for every node, highest address first, or duplicate(node) (which
//!   must not return) for a node listed twice. nodes is left in an unspecified order.
//! Complexity: linear in the nodes and their span (a bit for every granule of it) when the span
//!   holds at most 512 granules a node and memory for its bits is there; else a sort.
template <class Visit, class Duplicate>
void visit_in_descending_address_order(std::vector<char *> &nodes, std::size_t granule, Visit visit, Duplicate duplicate)
{
   const auto range = std::minmax_element(nodes.begin(), nodes.end(), std::less<char *>());
   address_bits places(reinterpret_cast<std::uintptr_t>(*range.first), reinterpret_cast<std::uintptr_t>(*range.second) + 1,
                       granule, 8 * nodes.size());
   if (places.empty()) {
      std::sort(nodes.begin(), nodes.end(), std::less<char *>());
      const auto twice = std::adjacent_find(nodes.begin(), nodes.end());
      if (BOOST_UNLIKELY(twice != nodes.end())) duplicate(*twice);
      for (auto n = nodes.rbegin(); n != nodes.rend(); ++n) visit(*n);
      return;
   }
   for (char *n : nodes)
      if (BOOST_UNLIKELY(!places.mark(n))) duplicate(n);
   places.visit_descending(visit);
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ADDRESS_ORDER_HPP
