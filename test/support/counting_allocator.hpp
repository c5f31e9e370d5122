// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_COUNTING_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_COUNTING_ALLOCATOR_HPP

// counting_allocator<A>: A, counting what a container asks of it: new blocks, blocks given
// back, allocation_command calls and what each did (a new block, a forward or a backward
// expansion, a shrink, a failure), bursts and their nodes.
//
//   allocplus_test::allocation_counters c;
//   boost::container::vector<int, counting_allocator<ba::allocator<int>>> v(
//      counting_allocator<ba::allocator<int>>(c));
//   ... BOOST_TEST(c.expansions_fwd > 0);
//
// Copies and rebinds count into the same counters. Not synchronized: one thread at a time.

#include "support/hooked_allocator.hpp"

#include <cstddef>

namespace allocplus_test {

struct allocation_counters {
   std::size_t allocations = 0;         // new blocks: allocate, allocate_one, allocate_at_least, new by command
   std::size_t deallocations = 0;       // blocks given back, one by one or in bursts
   std::size_t commands = 0;            // allocation_command calls
   std::size_t expansions_fwd = 0;      // commands that grew `reuse` keeping its start
   std::size_t expansions_bwd = 0;      // commands that grew `reuse` moving its start down
   std::size_t shrinks = 0;             // shrink_in_place commands that succeeded
   std::size_t failed_commands = 0;     // commands that returned null or threw
   std::size_t bursts = 0;              // allocate_individual / allocate_many calls
   std::size_t burst_nodes = 0;         // blocks those calls produced
   std::size_t burst_deallocations = 0; // deallocate_individual / deallocate_many calls

   void reset() { *this = allocation_counters(); }

   //! The calls that obtained or resized memory (a new block, an expansion, a shrink, a burst):
   //! what the seed counts as allocator calls.
   std::size_t calls() const { return allocations + expansions() + shrinks + bursts; }
   std::size_t expansions() const { return expansions_fwd + expansions_bwd; }
   //! Blocks handed out and not given back.
   std::size_t live_blocks() const { return allocations + burst_nodes - deallocations; }
};

struct counting_hooks : null_hooks<allocation_counters> {
   static allocation_counters &default_state()
   {
      static allocation_counters c;
      return c;
   }
   static void allocated(allocation_counters &c, std::size_t n) { c.allocations += n; }
   static void deallocated(allocation_counters &c, std::size_t n) { c.deallocations += n; }
   static void command_done(allocation_counters &c, ba::allocation_type command, const void *old,
                            const void *result, const void *reuse_after)
   {
      ++c.commands;
      if (!result) ++c.failed_commands;
      else if (!reuse_after) ++c.allocations;
      else if (command & ba::shrink_in_place) ++c.shrinks;
      else if (command & ba::try_shrink_in_place) {}
      else if (result == old) ++c.expansions_fwd;
      else ++c.expansions_bwd;
   }
   static void burst_allocated(allocation_counters &c, std::size_t n)
   {
      ++c.bursts;
      c.burst_nodes += n;
   }
   static void burst_deallocated(allocation_counters &c, std::size_t n)
   {
      ++c.burst_deallocations;
      c.deallocations += n;
   }
};

template <class A>
using counting_allocator = hooked_allocator<A, counting_hooks>;

} // namespace allocplus_test

#endif
