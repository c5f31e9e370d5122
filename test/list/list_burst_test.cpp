// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Burst allocation, counted through the test kit's counting_allocator: with a version-2
// allocator every operation that makes many nodes makes exactly one allocate_individual call,
// and every one that frees many makes exactly one deallocate_individual call; with a version-1
// allocator (through the traits' fallback) nodes come one at a time and no burst is made.

#define BOOST_TEST_MODULE allocplus list bursts
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <iterator>
#include <list>
#include <sstream>
#include <string>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

using A2 = counting_allocator<ba::allocator<int, 2>>;
using A1 = counting_allocator<ba::allocator<int, 1>>;
using L2 = ba::list<int, A2>;
using L1 = ba::list<int, A1>;

struct expect {
   std::size_t bursts;            // allocate_individual calls
   std::size_t burst_nodes;       // nodes they gave
   std::size_t allocations;       // single nodes (allocate / allocate_one)
   std::size_t burst_frees;       // deallocate_individual calls
   std::size_t freed;             // nodes given back, by any call
};

//! Runs op on a list of `initial` elements made before counting starts, then checks the counts.
template <class L, class Alloc>
void check(const char *what, std::size_t initial, const std::function<void(L &)> &op, expect e)
{
   allocation_counters c;
   {
      L l{Alloc(c)};
      for (std::size_t i = 0; i != initial; ++i) l.push_back(static_cast<int>(i));
      const allocation_counters s = c;
      op(l);
      BOOST_TEST_CONTEXT(what)
      {
         BOOST_TEST(c.bursts - s.bursts == e.bursts);
         BOOST_TEST(c.burst_nodes - s.burst_nodes == e.burst_nodes);
         BOOST_TEST(c.allocations - s.allocations == e.allocations);
         BOOST_TEST(c.burst_deallocations - s.burst_deallocations == e.burst_frees);
         BOOST_TEST(c.deallocations - s.deallocations == e.freed);
      }
   }
   BOOST_TEST(c.live_blocks() == 0u);   // what destruction freed, nothing leaked
}

const std::vector<int> hundred(100, 3);

} // namespace

BOOST_AUTO_TEST_CASE(multi_node_insertions_make_one_burst_with_a_version_2_allocator)
{
   check<L2, A2>("range insert", 10, [](L2 &l) { l.insert(std::next(l.begin()), hundred.begin(), hundred.end()); },
                 {1, 100, 0, 0, 0});
   check<L2, A2>("n-insert", 10, [](L2 &l) { l.insert(l.end(), 50, 7); }, {1, 50, 0, 0, 0});
   check<L2, A2>("initializer list", 0, [](L2 &l) { l.insert(l.end(), {1, 2, 3, 4}); }, {1, 4, 0, 0, 0});
   check<L2, A2>("growing resize", 10, [](L2 &l) { l.resize(70); }, {1, 60, 0, 0, 0});
   check<L2, A2>("growing resize with a value", 10, [](L2 &l) { l.resize(70, 1); }, {1, 60, 0, 0, 0});
   check<L2, A2>("growing assign", 10, [](L2 &l) { l.assign(hundred.begin(), hundred.end()); }, {1, 90, 0, 0, 0});
   check<L2, A2>("growing assign n", 10, [](L2 &l) { l.assign(40, 1); }, {1, 30, 0, 0, 0});
   check<L2, A2>("copy construction", 30, [](L2 &l) { L2 copy(l); BOOST_TEST(copy.size() == 30u); },
                 {1, 30, 0, 1, 30});
   check<L2, A2>("copy assignment", 30,
                 [](L2 &l) {
                    L2 other{l.get_allocator()};
                    other = l;
                    BOOST_TEST(other.size() == 30u);
                    other.clear();
                 },
                 {1, 30, 0, 1, 30});
   check<L2, A2>("n construction", 0, [](L2 &l) { L2 made(25, 1, l.get_allocator()); made.clear(); },
                 {1, 25, 0, 1, 25});
}

BOOST_AUTO_TEST_CASE(multi_node_erasures_make_one_burst_with_a_version_2_allocator)
{
   check<L2, A2>("range erase", 100,
                 [](L2 &l) { l.erase(std::next(l.begin(), 10), std::next(l.begin(), 90)); }, {0, 0, 0, 1, 80});
   check<L2, A2>("clear", 100, [](L2 &l) { l.clear(); }, {0, 0, 0, 1, 100});
   check<L2, A2>("shrinking resize", 100, [](L2 &l) { l.resize(30); }, {0, 0, 0, 1, 70});
   check<L2, A2>("shrinking assign", 100, [](L2 &l) { l.assign(hundred.begin(), hundred.begin() + 20); },
                 {0, 0, 0, 1, 80});
   check<L2, A2>("shrinking assign n", 100, [](L2 &l) { l.assign(5, 1); }, {0, 0, 0, 1, 95});
   check<L2, A2>("remove", 100, [](L2 &l) { l.remove(l.front()); }, {0, 0, 0, 1, 1});
   check<L2, A2>("remove_if", 100, [](L2 &l) { l.remove_if([](int x) { return x % 2 == 0; }); },
                 {0, 0, 0, 1, 50});
   check<L2, A2>("unique", 100, [](L2 &l) { l.unique([](int, int x) { return x % 10 != 0; }); }, {0, 0, 0, 1, 90});
   check<L2, A2>("destruction", 0, [](L2 &l) { L2 gone(40, 1, l.get_allocator()); }, {1, 40, 0, 1, 40});
   check<L2, A2>("an erase that finds nothing frees nothing", 100,
                 [](L2 &l) { l.remove(-1); l.erase(l.begin(), l.begin()); }, {0, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(single_node_operations_use_single_calls)
{
   check<L2, A2>("emplace", 5, [](L2 &l) { l.emplace(l.begin(), 1); }, {0, 0, 1, 0, 0});
   check<L2, A2>("erase one", 5, [](L2 &l) { l.erase(l.begin()); }, {0, 0, 0, 0, 1});
}

BOOST_AUTO_TEST_CASE(version_1_allocators_get_one_node_at_a_time)
{
   check<L1, A1>("range insert", 10, [](L1 &l) { l.insert(l.end(), hundred.begin(), hundred.end()); },
                 {0, 0, 100, 0, 0});
   check<L1, A1>("range erase", 100, [](L1 &l) { l.erase(std::next(l.begin()), l.end()); }, {0, 0, 0, 0, 99});
   check<L1, A1>("clear", 100, [](L1 &l) { l.clear(); }, {0, 0, 0, 0, 100});
}

BOOST_AUTO_TEST_CASE(input_iterators_allocate_one_node_at_a_time)
{
   // The length of an input range is unknown before it is read: no burst.
   check<L2, A2>("input range insert", 0,
                 [](L2 &l) {
                    std::istringstream in("1 2 3 4 5");
                    l.insert(l.end(), std::istream_iterator<int>(in), std::istream_iterator<int>());
                    BOOST_TEST(l.size() == 5u);
                 },
                 {0, 0, 5, 0, 0});
}

BOOST_AUTO_TEST_CASE(a_burst_gives_adjacent_nodes)
{
   // ba::allocator<T, 2> carves a burst from runs of adjacent blocks: most neighbours in the
   // list are neighbours in memory, one node size apart (what the seed's cache argument needs).
   ba::list<int> l;
   l.insert(l.end(), 200, 1);
   std::size_t adjacent = 0;
   const char *prev = nullptr;
   std::ptrdiff_t step = 0;
   for (const int &x : l) {
      const char *p = reinterpret_cast<const char *>(&x);
      if (prev && step == 0) step = p - prev;
      if (prev && p - prev == step) ++adjacent;
      prev = p;
   }
   BOOST_TEST(step > 0);
   BOOST_TEST(adjacent >= 150u);
}

namespace {

//! The nodes a recording_allocator handed out one at a time, in order; the blocks of every
//! chain given back to it, in chain order; and each chain's size().
std::vector<const void *> nodes_made;
std::vector<const void *> chained_back;
std::vector<std::size_t> chain_sizes;

//! ba::allocator<T, 2> that records nodes_made and chained_back.
template <class T>
struct recording_allocator : ba::allocator<T, 2> {
   using base = ba::allocator<T, 2>;
   template <class U>
   struct rebind {
      using other = recording_allocator<U>;
   };
   recording_allocator() = default;
   template <class U>
   recording_allocator(const recording_allocator<U> &) noexcept {}

   T *allocate_one()
   {
      T *const p = base::allocate_one();
      nodes_made.push_back(p);
      return p;
   }
   void deallocate_individual(typename base::multiallocation_chain &chain) noexcept
   {
      chain_sizes.push_back(chain.size());
      for (T &block : chain) chained_back.push_back(&block);
      base::deallocate_individual(chain);
   }
};

using recorded_list = ba::list<int, recording_allocator<int>>;

//! A list of 0..n-1, its nodes made one by one and recorded in nodes_made.
void fill(recorded_list &l, int n)
{
   nodes_made.clear();
   chained_back.clear();
   chain_sizes.clear();
   for (int i = 0; i != n; ++i) l.push_back(i);
   BOOST_TEST_REQUIRE(nodes_made.size() == static_cast<std::size_t>(n));
}

std::vector<const void *> made(std::size_t first, std::size_t last)
{
   return std::vector<const void *>(nodes_made.begin() + first, nodes_made.begin() + last);
}

} // namespace

BOOST_AUTO_TEST_CASE(erased_nodes_reach_the_allocator_as_one_chain_in_list_order)
{
   // A node's own `next` is the chain's link: the chain must hold exactly the erased nodes, in
   // the list's order, and end after the last of them (not run on into the list).
   {
      recorded_list l;
      fill(l, 50);
      l.erase(std::next(l.begin(), 10), std::next(l.begin(), 40));
      BOOST_TEST(chained_back == made(10, 40), boost::test_tools::per_element());
      BOOST_TEST(chain_sizes == std::vector<std::size_t>{30}, boost::test_tools::per_element());
      BOOST_TEST(l.size() == 20u);
      int expected = 0;
      for (int x : l) {
         BOOST_TEST(x == expected);
         expected = expected == 9 ? 40 : expected + 1;
      }
   }
   {
      recorded_list l;
      fill(l, 30);
      l.erase(std::next(l.begin(), 5), l.end());   // the last node's next was the list's header
      BOOST_TEST(chained_back == made(5, 30), boost::test_tools::per_element());
      BOOST_TEST(l.size() == 5u);
      BOOST_TEST(l.back() == 4);
      chained_back.clear();
      l.erase(std::next(l.begin(), 2), std::next(l.begin(), 3));   // a range of one node
      BOOST_TEST(chained_back == made(2, 3), boost::test_tools::per_element());
      chained_back.clear();
      l.clear();
      BOOST_TEST(chained_back == std::vector<const void *>({nodes_made[0], nodes_made[1], nodes_made[3], nodes_made[4]}),
                 boost::test_tools::per_element());
      BOOST_TEST(chain_sizes == std::vector<std::size_t>({25, 1, 4}), boost::test_tools::per_element());
   }
   {
      recorded_list l;
      fill(l, 40);
      l.remove_if([](int x) { return x % 3 == 0; });   // scattered nodes, gathered first
      std::vector<const void *> expected;
      for (std::size_t i = 0; i < 40; i += 3) expected.push_back(nodes_made[i]);
      BOOST_TEST(chained_back == expected, boost::test_tools::per_element());
      BOOST_TEST(chain_sizes == std::vector<std::size_t>{expected.size()}, boost::test_tools::per_element());
      BOOST_TEST(l.size() == 26u);
   }
}
