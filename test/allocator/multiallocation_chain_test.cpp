// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/multiallocation_chain.hpp: every member Boost.Container calls on an
// allocator's chain, the layout (a node is exactly a block's first word, so the C core's chains
// convert in O(1)), and the same code running on Boost.Container's own chain types.

#define BOOST_TEST_MODULE allocplus multiallocation_chain
#include "core/core_test_kit.hpp"

#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/core/dlmalloc.h>
#include <boost/container/detail/multiallocation_chain.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

struct node {
   void *link;   // where the chain keeps its next pointer while the block is in a chain
   int value;
};

//! Blocks for the chain, owned by the test (the chain never owns them).
struct blocks {
   std::vector<node> storage;
   explicit blocks(std::size_t n) : storage(n) {}
   node *operator[](std::size_t i) { return &storage[i]; }
};

//! The values of the nodes in chain order (values are written after linking: the link is the
//! first word only, the value stays).
template <class Chain>
std::vector<node *> nodes_of(Chain &c)
{
   std::vector<node *> r;
   for (auto it = c.begin(); it != c.end(); ++it) r.push_back(&*it);
   return r;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_new_chain_is_empty)
{
   ba::multiallocation_chain<node> c;
   BOOST_TEST(c.empty());
   BOOST_TEST(c.size() == 0u);
   BOOST_TEST((c.begin() == c.end()));
   BOOST_TEST((c.last() == c.before_begin()));
   auto d = c.extract_data();
   BOOST_TEST(d.first == nullptr);
   BOOST_TEST(d.second == nullptr);
}

BOOST_AUTO_TEST_CASE(push_pop_and_iterate_in_order)
{
   blocks b(4);
   ba::multiallocation_chain<node> c;
   c.push_back(b[1]);
   c.push_back(b[2]);
   c.push_front(b[0]);
   c.push_back(b[3]);
   BOOST_TEST(c.size() == 4u);
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[1], b[2], b[3]}));
   BOOST_TEST(&*c.last() == b[3]);
   BOOST_TEST(c.last()->link == nullptr);     // iterators give T: the link is visible as node::link
   BOOST_TEST(c.pop_front() == b[0]);
   BOOST_TEST(c.size() == 3u);
   BOOST_TEST(c.pop_front() == b[1]);
   BOOST_TEST(c.pop_front() == b[2]);
   BOOST_TEST(c.pop_front() == b[3]);
   BOOST_TEST(c.empty());
}

BOOST_AUTO_TEST_CASE(a_node_is_exactly_the_first_word_of_a_block)
{
   static_assert(sizeof(ba::detail::chain_node) == sizeof(void *), "");
   blocks b(3);
   ba::multiallocation_chain<node> c;
   c.push_back(b[0]);
   c.push_back(b[1]);
   c.push_back(b[2]);
   BOOST_TEST(b[0]->link == static_cast<void *>(b[1]));
   BOOST_TEST(b[1]->link == static_cast<void *>(b[2]));
   BOOST_TEST(b[2]->link == nullptr);   // null-terminated, like the core's chains
   // And ba_chain_next reads the same links.
   BOOST_TEST(ba_chain_next(b[0]) == static_cast<void *>(b[1]));
}

BOOST_AUTO_TEST_CASE(iterators_are_forward_iterators_to_T)
{
   using it = ba::multiallocation_chain<node>::iterator;
   static_assert(std::is_same<std::iterator_traits<it>::iterator_category, std::forward_iterator_tag>::value, "");
   static_assert(std::is_same<decltype(*std::declval<it>()), node &>::value, "");
   static_assert(std::is_same<decltype(std::declval<it>().operator->()), node *>::value, "");
   blocks b(2);
   ba::multiallocation_chain<node> c;
   c.push_back(b[0]);
   c.push_back(b[1]);
   it i = c.begin();
   it j = i++;
   BOOST_TEST(&*j == b[0]);
   BOOST_TEST(&*i == b[1]);
   BOOST_TEST((++i == c.end()));
   BOOST_TEST(&*ba::multiallocation_chain<node>::iterator_to(b[1]) == b[1]);
   BOOST_TEST((c.before_begin().base() == static_cast<ba::basic_multiallocation_chain &>(c).before_begin()));
}

BOOST_AUTO_TEST_CASE(insert_and_erase_after)
{
   blocks b(4);
   ba::multiallocation_chain<node> c;
   c.push_back(b[0]);
   c.push_back(b[3]);
   auto it = c.insert_after(c.begin(), b[1]);
   c.insert_after(it, b[2]);
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[1], b[2], b[3]}));
   c.erase_after(c.begin(), c.last(), 2);   // forgets b[1] and b[2]
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[3]}));
   BOOST_TEST(c.size() == 2u);
}

BOOST_AUTO_TEST_CASE(splice_after_moves_ranges_and_whole_chains)
{
   blocks b(6);
   ba::multiallocation_chain<node> x, y;
   for (std::size_t i = 0; i != 3; ++i) x.push_back(b[i]);
   for (std::size_t i = 3; i != 6; ++i) y.push_back(b[i]);
   // Boost.Container's form: the n nodes after before_b up to before_e.
   x.splice_after(x.before_begin(), y, y.before_begin(), ++y.begin(), 2);
   BOOST_TEST((nodes_of(x) == std::vector<node *>{b[3], b[4], b[0], b[1], b[2]}));
   BOOST_TEST((nodes_of(y) == std::vector<node *>{b[5]}));
   BOOST_TEST(x.size() == 5u);
   BOOST_TEST(y.size() == 1u);
   x.splice_after(x.last(), y);
   BOOST_TEST(y.empty());
   BOOST_TEST(x.size() == 6u);
   BOOST_TEST(&*x.last() == b[5]);
}

BOOST_AUTO_TEST_CASE(incorporate_after_adopts_linked_blocks_in_constant_time)
{
   blocks b(5);
   // Link b[1] -> b[2] -> b[3] by hand, as the core does (first word = next).
   b[1]->link = b[2];
   b[2]->link = b[3];
   b[3]->link = reinterpret_cast<void *>(std::uintptr_t(0xBAD));   // overwritten by incorporate_after
   ba::multiallocation_chain<node> c;
   c.push_back(b[0]);
   c.push_back(b[4]);
   c.incorporate_after(c.begin(), b[1], b[3], 3);
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[1], b[2], b[3], b[4]}));
   BOOST_TEST(c.size() == 5u);
   // n == 0 with null pointers (what boost::container::stable_vector does with an empty pool).
   c.incorporate_after(c.before_begin(), nullptr, nullptr, 0);
   BOOST_TEST(c.size() == 5u);
}

BOOST_AUTO_TEST_CASE(incorporate_after_cuts_a_buffer_into_units)
{
   alignas(16) unsigned char buffer[5 * 32];
   ba::basic_multiallocation_chain c;
   void *end = c.incorporate_after(c.before_begin(), buffer, 32, 5);
   BOOST_TEST(end == static_cast<void *>(buffer + 160));
   BOOST_REQUIRE(c.size() == 5u);
   std::size_t i = 0;
   for (auto it = c.begin(); it != c.end(); ++it, ++i)
      BOOST_TEST(static_cast<void *>(&*it) == static_cast<void *>(buffer + 32 * i));
   BOOST_TEST(c.incorporate_after(c.last(), buffer, 32, 0) == static_cast<void *>(buffer));   // no unit
   ba::multiallocation_chain<node> typed;
   node *e = typed.incorporate_after(typed.before_begin(), reinterpret_cast<node *>(buffer), 32, 2);
   BOOST_TEST(static_cast<void *>(e) == static_cast<void *>(buffer + 64));
   BOOST_TEST(typed.size() == 2u);
}

BOOST_AUTO_TEST_CASE(extract_data_hands_the_linked_nodes_out_and_empties)
{
   blocks b(3);
   ba::multiallocation_chain<node> c;
   for (std::size_t i = 0; i != 3; ++i) c.push_back(b[i]);
   ba::multiallocation_chain<node>::pointer_pair d = c.extract_data();
   BOOST_TEST(d.first == b[0]);
   BOOST_TEST(d.second == b[2]);
   BOOST_TEST(c.empty());
   BOOST_TEST(b[0]->link == static_cast<void *>(b[1]));   // still linked
   // And back in: the pair is what incorporate_after takes.
   c.incorporate_after(c.before_begin(), d.first, d.second, 3);
   BOOST_TEST(c.size() == 3u);
}

BOOST_AUTO_TEST_CASE(blocks_linked_one_by_one_go_in_whole_after_the_last)
{
   blocks b(5);
   ba::multiallocation_chain<node> c;
   c.push_back(b[0]);
   ba::multiallocation_chain<node>::link_blocks(b[1], b[2]);
   ba::multiallocation_chain<node>::link_blocks(b[2], b[3]);
   b[3]->link = reinterpret_cast<void *>(std::uintptr_t(0xBAD));   // overwritten by incorporate_after
   c.incorporate_after(c.last(), b[1], b[3], 3);
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[1], b[2], b[3]}));
   BOOST_TEST(c.size() == 4u);
   c.push_back(b[4]);   // the last block was found: push_back goes after it
   BOOST_TEST((nodes_of(c) == std::vector<node *>{b[0], b[1], b[2], b[3], b[4]}));
}

BOOST_AUTO_TEST_CASE(a_walk_hands_each_extracted_block_out_in_order)
{
   // (detail::chain_walk: how the pools take a chain given back.)
   blocks b(4);
   ba::multiallocation_chain<node> c;
   for (std::size_t i = 0; i != 4; ++i) c.push_back(b[i]);
   ba::detail::chain_walk walk(c.extract_data().first);
   BOOST_TEST(c.empty());
   for (std::size_t i = 0; i != 4; ++i) {
      BOOST_TEST(walk.peek() == static_cast<void *>(b[i]));
      void *block = walk();
      BOOST_TEST(block == static_cast<void *>(b[i]));
      static_cast<node *>(block)->link = nullptr;   // the caller may overwrite the link it was handed
   }
   BOOST_TEST(walk.peek() == nullptr);
   BOOST_TEST(walk() == nullptr);
   BOOST_TEST(walk() == nullptr);   // and stays at the end
   ba::multiallocation_chain<node> none;
   ba::detail::chain_walk empty_walk(none.extract_data().first);
   BOOST_TEST(empty_walk() == nullptr);
}

BOOST_AUTO_TEST_CASE(swap_and_move)
{
   blocks b(3);
   ba::multiallocation_chain<node> x, y;
   x.push_back(b[0]);
   y.push_back(b[1]);
   y.push_back(b[2]);
   x.swap(y);
   BOOST_TEST(x.size() == 2u);
   BOOST_TEST(y.size() == 1u);
   swap(x, y);
   BOOST_TEST(x.size() == 1u);
   ba::multiallocation_chain<node> z(std::move(y));
   BOOST_TEST(z.size() == 2u);
   BOOST_TEST(y.empty());
   x = std::move(z);
   BOOST_TEST(x.size() == 2u);
   static_assert(!std::is_copy_constructible<ba::multiallocation_chain<node>>::value, "move-only, like Boost's");
   static_assert(std::is_nothrow_move_constructible<ba::multiallocation_chain<node>>::value, "");
   ba::basic_multiallocation_chain untyped(static_cast<void *>(b[0]), static_cast<void *>(b[0]), 1);
   ba::multiallocation_chain<node> from_untyped(std::move(untyped));
   BOOST_TEST(from_untyped.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_core_burst_becomes_a_chain_and_goes_back_in_constant_time)
{
   scoped_heap h;
   const std::size_t in_use = stats_of(h).in_use_bytes;
   ba_chain core;
   ba_chain_init(&core);
   BOOST_REQUIRE(ba_heap_multialloc_nodes(h, 100, sizeof(node), BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &core) == 1);
   std::vector<void *> order;
   for (void *p = core.first; p; p = ba_chain_next(p)) order.push_back(p);
   ba::multiallocation_chain<node> c;
   c.incorporate_after(c.before_begin(), static_cast<node *>(core.first), static_cast<node *>(core.last), core.size);
   BOOST_TEST(c.size() == 100u);
   std::size_t i = 0;
   for (auto it = c.begin(); it != c.end(); ++it) BOOST_TEST(static_cast<void *>(&*it) == order[i++]);
   // Some nodes of our own join the chain, then everything goes back to the core in one call.
   c.push_front(static_cast<node *>(ba_heap_malloc(h, sizeof(node))));
   c.push_back(static_cast<node *>(ba_heap_malloc(h, 500)));
   ba_chain back;
   back.size = c.size();
   ba::multiallocation_chain<node>::pointer_pair d = c.extract_data();
   back.first = d.first;
   back.last = d.second;
   ba_heap_multidealloc(h, &back);
   BOOST_TEST(stats_of(h).in_use_bytes == in_use);
   ALLOCPLUS_CHECK_HEAP(h.get());
}

BOOST_AUTO_TEST_CASE(a_chain_of_void_can_be_named_and_used)
{
   ba::multiallocation_chain<void> c;
   void *block[2] = {nullptr, nullptr};   // a block must hold at least the link
   c.push_back(block);
   BOOST_TEST(c.size() == 1u);
   BOOST_TEST(c.pop_front() == static_cast<void *>(block));
}

namespace {

//! What Boost.Container 1.81's containers and allocators do with an allocator's chain, written
//! once; it runs on our chain and on Boost.Container's (transform_multiallocation_chain), so the
//! two interfaces cannot drift apart.
template <class Chain>
std::size_t exercise(Chain &c, node *n)
{
   typedef typename Chain::iterator iterator;
   typedef typename Chain::pointer_pair pointer_pair;
   typedef typename Chain::size_type size_type;
   // node_alloc_holder::allocate_many_and_construct
   c.push_back(n + 0);
   c.push_back(n + 1);
   c.push_back(n + 2);
   iterator itbeg = c.begin();
   iterator itlast = c.last();
   c.clear();
   node *p = &*itbeg;   // what boost::movelib::iterator_to_raw_pointer does
   ++itbeg;
   (void)p;
   c.incorporate_after(c.last(), &*itbeg, &*itlast, size_type(2));
   // stable_vector's pool
   Chain holder;
   holder.incorporate_after(holder.before_begin(), n + 3, n + 3, 1);
   holder.push_front(n + 4);
   holder.splice_after(holder.before_begin(), c, c.before_begin(), c.last(), c.size());
   pointer_pair data(holder.extract_data());
   holder.incorporate_after(holder.before_begin(), data.first, data.second, 4);
   node *front = holder.pop_front();
   (void)front;
   // destroyers: push_back while erasing
   holder.push_back(n + 5);
   bool e = holder.empty();
   (void)e;
   return holder.size();
}

} // namespace

BOOST_AUTO_TEST_CASE(boost_containers_use_of_a_chain_runs_on_ours_and_theirs_alike)
{
   typedef boost::container::dtl::basic_multiallocation_chain<void *> their_void_chain;
   typedef boost::container::dtl::transform_multiallocation_chain<their_void_chain, node> their_chain;
   blocks b1(6), b2(6);
   ba::multiallocation_chain<node> ours;
   their_chain theirs;
   const std::size_t with_ours = exercise(ours, b1[0]);
   const std::size_t with_theirs = exercise(theirs, b2[0]);
   BOOST_TEST(with_ours == with_theirs);
   BOOST_TEST(with_ours == 4u);
}
