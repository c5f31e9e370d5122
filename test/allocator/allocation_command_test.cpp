// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/allocation_command.hpp: one command reaches Boost.Container, the C core
// and our allocators alike.

#define BOOST_TEST_MODULE allocplus allocation_command
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/container/detail/allocation_type.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <type_traits>

namespace ba = boost::allocplus;
namespace bc = boost::container;

BOOST_AUTO_TEST_CASE(allocation_type_is_unsigned_as_in_boost_container)
{
   static_assert(std::is_same<ba::allocation_type, unsigned>::value, "");
   static_assert(std::is_same<ba::allocation_type, bc::allocation_type>::value, "");
   BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(command_values_are_boost_containers_and_the_cores)
{
   BOOST_TEST(ba::allocate_new == bc::allocate_new);
   BOOST_TEST(ba::expand_fwd == bc::expand_fwd);
   BOOST_TEST(ba::expand_bwd == bc::expand_bwd);
   BOOST_TEST(ba::shrink_in_place == bc::shrink_in_place);
   BOOST_TEST(ba::nothrow_allocation == bc::nothrow_allocation);
   BOOST_TEST(ba::zero_memory == bc::zero_memory);
   BOOST_TEST(ba::try_shrink_in_place == bc::try_shrink_in_place);
   BOOST_TEST(ba::allocate_new == BA_ALLOCATE_NEW);
   BOOST_TEST(ba::expand_fwd == BA_EXPAND_FWD);
   BOOST_TEST(ba::expand_bwd == BA_EXPAND_BWD);
   BOOST_TEST(ba::shrink_in_place == BA_SHRINK_IN_PLACE);
   BOOST_TEST(ba::nothrow_allocation == BA_NOTHROW_ALLOCATION);
   BOOST_TEST(ba::zero_memory == BA_ZERO_MEMORY);
   BOOST_TEST(ba::try_shrink_in_place == BA_TRY_SHRINK_IN_PLACE);
}

BOOST_AUTO_TEST_CASE(commands_are_distinct_bits_that_combine)
{
   const ba::allocation_type all[] = {ba::allocate_new, ba::expand_fwd, ba::expand_bwd, ba::shrink_in_place,
                                      ba::nothrow_allocation, ba::zero_memory, ba::try_shrink_in_place};
   ba::allocation_type seen = 0;
   for (ba::allocation_type c : all) {
      BOOST_TEST((c & (c - 1)) == 0u);   // one bit
      BOOST_TEST((seen & c) == 0u);      // not seen before
      seen |= c;
   }
   BOOST_TEST(seen == 0x7Fu);
}

BOOST_AUTO_TEST_CASE(a_command_built_for_boost_container_works_on_our_allocator)
{
   // Written as Boost.Container's vector writes it, with its constants.
   const bc::allocation_type command = bc::allocate_new | bc::expand_fwd | bc::expand_bwd | bc::nothrow_allocation;
   ba::allocator<int> a;
   int *reuse = nullptr;
   std::size_t pref = 100;
   int *p = a.allocation_command(command, 10, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(pref >= 100u);
   a.deallocate(p, pref);
}

BOOST_AUTO_TEST_CASE(the_constants_are_usable_in_constant_expressions)
{
   constexpr ba::allocation_type grow = ba::expand_fwd | ba::expand_bwd;
   static_assert(grow == 6u, "");
   static_assert((ba::allocator<int, 2, grow>::version::value) == 2, "");
   BOOST_TEST(grow == 6u);
}
