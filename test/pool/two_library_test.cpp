// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A program and two shared libraries built with hidden visibility, each with its own copy of the
// header-only library, share one ba::node_allocator pool and one ba::adaptive_pool pool per node
// size: nodes cross every boundary, and each side's statistics are the same pool's. (The
// libraries hide their inline functions too, as -fvisibility-inlines-hidden does.) (In checked builds a node freed into
// another pool than its own would stop the program as a pointer from elsewhere.)
#define BOOST_TEST_MODULE pool_two_library
#include <boost/test/unit_test.hpp>

#include "two_library_lib.hpp"

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/node_allocator.hpp>

#include <vector>

namespace ba = boost::allocplus;

namespace {
struct node24 {
   char bytes[24];
};
using allocator_24 = ba::node_allocator<node24>;
using adaptive_24 = ba::adaptive_pool<node24>;

const void *program_pool_address()
{
   return &ba::detail::shared_node_pool_for<24, alignof(node24), 256>();
}
} // namespace

BOOST_AUTO_TEST_CASE(one_pool_in_the_process)
{
   BOOST_TEST(library_a_pool_address() == program_pool_address());
   BOOST_TEST(library_b_pool_address() == program_pool_address());
}

BOOST_AUTO_TEST_CASE(nodes_cross_both_libraries_and_the_program)
{
   std::vector<void *> from_a, from_program;
   for (int i = 0; i < 1000; ++i) from_a.push_back(library_a_allocate_node());
   for (int i = 0; i < 1000; ++i) from_program.push_back(allocator_24().allocate(1));
   const ba::node_pool_statistics during = allocator_24::statistics();
   BOOST_TEST(library_a_statistics().nodes_in_use == during.nodes_in_use);
   BOOST_TEST(library_b_statistics().blocks == during.blocks);
   BOOST_TEST(during.nodes_in_use >= 2000u);
   for (void *p : from_a) library_b_deallocate_node(p);
   for (void *p : from_program) library_a_deallocate_node(p);
   // Every node back; the pool hands them out again whoever asks.
   ba::node_pool_statistics after = library_b_statistics();
   BOOST_TEST(after.blocks == during.blocks);
   void *again = library_b_allocate_node();
   allocator_24().deallocate(static_cast<node24 *>(again), 1);
   BOOST_TEST(allocator_24::statistics().blocks == during.blocks);
}

BOOST_AUTO_TEST_CASE(adaptive_nodes_cross_both_libraries_and_the_program)
{
   std::vector<void *> from_a, from_program;
   for (int i = 0; i < 1000; ++i) from_a.push_back(library_a_allocate_adaptive_node());
   for (int i = 0; i < 1000; ++i) from_program.push_back(adaptive_24().allocate(1));
   const ba::adaptive_pool_statistics during = adaptive_24::statistics();
   BOOST_TEST(during.nodes_in_use >= 2000u);
   BOOST_TEST(library_a_adaptive_statistics().nodes_in_use == during.nodes_in_use);
   BOOST_TEST(library_b_adaptive_statistics().blocks == during.blocks);
   for (void *p : from_a) library_b_deallocate_adaptive_node(p);
   for (void *p : from_program) library_a_deallocate_adaptive_node(p);
   ba_thread_cache_flush();   // the bins back to the pool: the blocks drain
   BOOST_TEST(library_b_adaptive_statistics().nodes_in_use == 0u);
   BOOST_TEST(adaptive_24::statistics().nodes_in_use == 0u);
}
