// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// detail/address_order.hpp: nodes put in address order, with a bit for each place of a range
// (address_bits) or, spread too far for the bits, an array sorted.

#define BOOST_TEST_MODULE address_order
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/detail/address_order.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace detail = boost::allocplus::detail;

namespace {

constexpr std::size_t granule = 8;
alignas(64) char arena[4096 * granule];   // the range the tests' nodes lie in

// Every 3rd to 5th place of the arena, shuffled.
std::vector<char *> scattered_nodes()
{
   std::vector<char *> nodes;
   for (std::size_t place = 0; place < 4096; place += 3 + place % 3) nodes.push_back(arena + place * granule);
   std::shuffle(nodes.begin(), nodes.end(), std::mt19937(30));
   return nodes;
}

std::vector<char *> sorted_descending(std::vector<char *> nodes)
{
   std::sort(nodes.begin(), nodes.end(), std::greater<char *>());
   return nodes;
}

std::uintptr_t address(const void *p) { return reinterpret_cast<std::uintptr_t>(p); }

} // namespace

BOOST_AUTO_TEST_CASE(bits_visit_the_nodes_marked_highest_first)
{
   const std::vector<char *> nodes = scattered_nodes();
   detail::address_bits bits(address(arena), address(arena + sizeof arena), granule, 64);
   BOOST_REQUIRE(!bits.empty());
   for (char *n : nodes) BOOST_TEST(bits.mark(n));
   std::vector<char *> visited;
   bits.visit_descending([&](char *n) { visited.push_back(n); });
   BOOST_TEST((visited == sorted_descending(nodes)));
}

BOOST_AUTO_TEST_CASE(bits_tell_a_node_marked_twice)
{
   detail::address_bits bits(address(arena), address(arena + sizeof arena), granule, 64);
   BOOST_TEST(bits.mark(arena + 40 * granule));
   BOOST_TEST(bits.mark(arena + 41 * granule));
   BOOST_TEST(!bits.mark(arena + 40 * granule));
}

BOOST_AUTO_TEST_CASE(bits_cover_only_the_granules_of_their_range)
{
   detail::address_bits bits(address(arena + granule), address(arena + 100 * granule), granule, 64);
   BOOST_TEST(bits.covers(arena + granule));
   BOOST_TEST(bits.covers(arena + 99 * granule));
   BOOST_TEST(!bits.covers(arena));                      // below
   BOOST_TEST(!bits.covers(arena + 100 * granule));      // at the end
   BOOST_TEST(!bits.covers(arena + 2 * granule + 1));    // between two granules
}

BOOST_AUTO_TEST_CASE(bits_for_too_wide_a_range_are_none)
{
   // 4096 places take 64 words of 64 bits: one word fewer is too few.
   BOOST_TEST(detail::address_bits(address(arena), address(arena + sizeof arena), granule, 63).empty());
   BOOST_TEST(!detail::address_bits(address(arena), address(arena + sizeof arena), granule, 64).empty());
   BOOST_TEST(detail::address_bits(address(arena), address(arena), granule, 64).empty());   // no range
}

BOOST_AUTO_TEST_CASE(an_array_is_visited_highest_first_with_bits_or_sorted)
{
   // Close together: the bits. Two far apart (the arena and the stack): the sort.
   std::vector<char *> close = scattered_nodes();
   const std::vector<char *> close_expected = sorted_descending(close);
   std::vector<char *> visited;
   detail::visit_in_descending_address_order(close, granule, [&](char *n) { visited.push_back(n); },
                                             [](char *) { BOOST_ERROR("no node is listed twice"); });
   BOOST_TEST((visited == close_expected));

   alignas(granule) char elsewhere[granule];
   std::vector<char *> far = {arena + 8 * granule, elsewhere, arena};
   const std::vector<char *> far_expected = sorted_descending(far);
   visited.clear();
   detail::visit_in_descending_address_order(far, granule, [&](char *n) { visited.push_back(n); },
                                             [](char *) { BOOST_ERROR("no node is listed twice"); });
   BOOST_TEST((visited == far_expected));
}

BOOST_AUTO_TEST_CASE(an_array_with_a_node_twice_is_reported)
{
   for (bool far : {false, true}) {
      alignas(granule) char elsewhere[granule];
      std::vector<char *> nodes = {arena + 3 * granule, arena + 5 * granule, arena + 3 * granule};
      if (far) nodes.push_back(elsewhere);
      char *twice = nullptr;
      // (The callback must not return: it throws here, as the pools' reports stop the program.)
      try {
         detail::visit_in_descending_address_order(nodes, granule, [](char *) {}, [&](char *n) {
            twice = n;
            throw 0;
         });
      } catch (int) {
      }
      BOOST_TEST(twice == arena + 3 * granule);
   }
}
