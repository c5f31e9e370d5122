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
   const std::uintptr_t low = reinterpret_cast<std::uintptr_t>(*range.first);
   const std::size_t words = (reinterpret_cast<std::uintptr_t>(*range.second) - low) / granule / 64 + 1;
   std::vector<std::uint64_t> places;
   if (words <= 8 * nodes.size()) {
      try {
         places.resize(words);
      } catch (...) {   // no memory for the bits: the sort below
      }
   }
   if (places.empty()) {
      std::sort(nodes.begin(), nodes.end(), std::less<char *>());
      const auto twice = std::adjacent_find(nodes.begin(), nodes.end());
      if (BOOST_UNLIKELY(twice != nodes.end())) duplicate(*twice);
      for (auto n = nodes.rbegin(); n != nodes.rend(); ++n) visit(*n);
      return;
   }
   for (char *n : nodes) {
      const std::size_t place = (reinterpret_cast<std::uintptr_t>(n) - low) / granule;
      const std::uint64_t bit = std::uint64_t(1) << (place % 64);
      if (BOOST_UNLIKELY(places[place / 64] & bit)) duplicate(n);
      places[place / 64] |= bit;
   }
   for (std::size_t w = words; w-- != 0;) {
      for (std::uint64_t bits = places[w]; bits != 0;) {
         const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(bits));
         bits &= ~(std::uint64_t(1) << top);
         visit(reinterpret_cast<char *>(low + (w * 64 + top) * granule));
      }
   }
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ADDRESS_ORDER_HPP
