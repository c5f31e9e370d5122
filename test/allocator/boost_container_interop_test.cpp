// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Boost.Container 1.81 on our allocators: boost::container::vector grows forward and backward in
// place and shrinks in place through allocation_command; list and stable_vector take their nodes
// in bursts; deque runs (it uses only the version-1 interface in 1.81). Every claim is counted
// through the test kit's counting_allocator, so a container silently falling back to plain
// allocation fails here.

#define BOOST_TEST_MODULE allocplus boost container interop
#include "allocator/allocator_test_support.hpp"
#include "support/allocator_test_kit.hpp"
#include "support/grown_buffer_placement.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/container/allocator.hpp>
#include <boost/container/deque.hpp>
#include <boost/container/detail/dlmalloc.hpp>
#include <boost/container/list.hpp>
#include <boost/container/slist.hpp>
#include <boost/container/stable_vector.hpp>
#include <boost/container/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <iterator>
#include <numeric>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;
namespace bc = boost::container;

namespace {

template <class T>
using counted = counting_allocator<ba::allocator<T>>;

//! An element like the seed's MyInt, whose move never throws (so backward expansion is allowed).
using elem = tracked<struct interop_elem, 8, true>;

template <class Vector>
bool holds_iota(const Vector &v)
{
   for (std::size_t i = 0; i != v.size(); ++i)
      if (static_cast<std::size_t>(v[i]) != i) return false;
   return true;
}
template <class Vector>
bool holds_iota_elems(const Vector &v)
{
   for (std::size_t i = 0; i != v.size(); ++i)
      if (static_cast<std::size_t>(v[i].value()) != i) return false;
   return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(vector)

BOOST_AUTO_TEST_CASE(push_back_expands_in_place_forward)
{
   ba::heap h;
   allocation_counters c;
   using A = counting_allocator<ba::heap_allocator<int>>;
   {
      bc::vector<int, A> v(A(c, ba::heap_allocator<int>(h)));
      for (int i = 0; i != 10000; ++i) v.push_back(i);
      BOOST_TEST(holds_iota(v));
   }
   // Alone on its heap, the vector's block always has the top after it.
   BOOST_TEST(c.allocations == 1u);
   BOOST_TEST(c.expansions_fwd > 5u);
   BOOST_TEST(c.expansions_bwd == 0u);
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(push_back_expands_in_place_on_the_default_heap)
{
   allocation_counters c;
   {
      bc::vector<int, counted<int>> v((counted<int>(c)));
      for (int i = 0; i != 100000; ++i) v.push_back(i);
      BOOST_TEST(holds_iota(v));
   }
   BOOST_TEST(c.expansions_fwd > 0u);
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(the_received_size_saves_allocations)
{
   // Version 2 without expansion still learns each block's real size (the seed: 4 calls instead
   // of 6 for 10 elements).
   allocation_counters v1, v2;
   {
      bc::vector<int, counting_allocator<ba::allocator<int, 1>>> a((counting_allocator<ba::allocator<int, 1>>(v1)));
      using M = counting_allocator<ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>>;
      bc::vector<int, M> b((M(v2)));
      for (int i = 0; i != 10; ++i) {
         a.push_back(i);
         b.push_back(i);
      }
      BOOST_TEST(holds_iota(b));
   }
   BOOST_TEST(v2.expansions() == 0u);
   BOOST_TEST(v2.calls() < v1.calls());
   BOOST_TEST_MESSAGE("10 push_backs: version 1 " << v1.calls() << " calls, version 2 (no expansion) " << v2.calls());
}

BOOST_AUTO_TEST_CASE(push_back_expands_backward_where_only_backward_is_possible)
{
   expansion_arena arena;
   allocation_counters c;
   elem::counters().reset();
   using A = counting_allocator<backward_expansion_allocator<elem>>;
   {
      bc::vector<elem, A> v(A(c, backward_expansion_allocator<elem>(arena)));
      for (int i = 0; i != 1000; ++i) v.push_back(elem(i));
      BOOST_TEST(holds_iota_elems(v));
      BOOST_TEST(elem::counters().live == 1000);
   }
   BOOST_TEST(c.expansions_bwd > 0u);
   BOOST_TEST(c.expansions_fwd == 0u);
   BOOST_TEST(elem::counters().live == 0);
   BOOST_TEST(arena.live_blocks() == 0u);
   BOOST_TEST(arena.bad_frees() == 0u);
}

BOOST_AUTO_TEST_CASE(push_back_expands_forward_where_only_forward_is_possible)
{
   expansion_arena arena;
   allocation_counters c;
   using A = counting_allocator<forward_expansion_allocator<int>>;
   {
      bc::vector<int, A> v(A(c, forward_expansion_allocator<int>(arena)));
      for (int i = 0; i != 1000; ++i) v.push_back(i);
      BOOST_TEST(holds_iota(v));
   }
   BOOST_TEST(c.expansions_fwd > 0u);
   BOOST_TEST(c.expansions_bwd == 0u);
   BOOST_TEST(arena.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(push_back_expands_backward_into_free_memory_on_a_heap)
{
   ba::heap h;
   ba::heap_allocator<char> bytes(h);
   allocation_counters c;
   elem::counters().reset();
   using A = counting_allocator<ba::heap_allocator<elem>>;
   {
      char *before = bytes.allocate(8000);
      bc::vector<elem, A> v(A(c, ba::heap_allocator<elem>(h)));
      v.reserve(100);
      char *after = bytes.allocate(64);
      BOOST_REQUIRE(follows(before, v.data()));
      BOOST_REQUIRE(follows(v.data(), after));
      bytes.deallocate(before, 8000);   // room below the vector, none above
      const std::size_t cap = v.capacity();
      for (std::size_t i = 0; i != cap + 1; ++i) v.push_back(elem(static_cast<int>(i)));
      BOOST_TEST(c.expansions_bwd == 1u);
      BOOST_TEST(c.expansions_fwd == 0u);
      BOOST_TEST(c.allocations == 1u);   // the reserve only
      BOOST_TEST(static_cast<void *>(v.data()) < static_cast<void *>(after));
      BOOST_TEST(holds_iota_elems(v));
      bytes.deallocate(after, 64);
   }
   BOOST_TEST(elem::counters().live == 0);
   BOOST_TEST(h.check());
}

BOOST_AUTO_TEST_CASE(a_masked_allocator_expands_backward_only)
{
   // The seed's backward-expansion row: ba::allocator<T, 2, expand_fwd>.
   if (const char *why = allocplus_test::why_grown_buffers_go_through_the_cache()) {
      BOOST_TEST_MESSAGE(why);
      return;
   }
   using A = counting_allocator<ba::allocator<elem, 2, ba::expand_fwd>>;
   allocation_counters c;
   {
      // A block the vector means to grow comes from the heap itself, not the thread's cache: here
      // after a block of the heap's own, which is then freed.
      std::vector<char *> spare;
      char *before = nullptr;
      bc::vector<elem, A> v((A(c)));
      for (int attempt = 0; attempt != 200 && before == nullptr; ++attempt) {
         char *x = static_cast<char *>(ba_malloc(8000));
         BOOST_REQUIRE(x != nullptr);
         bc::vector<elem, A> w((A(c)));
         w.reserve(2);
         if (follows(x, w.data())) {
            before = x;
            v.swap(w);
         } else {
            spare.push_back(x);
         }
      }
      BOOST_REQUIRE_MESSAGE(before != nullptr, "could not lay the vector's block out after another");
      const std::size_t allocations = c.allocations;
      ba_free(before);   // room below the vector
      for (int i = 0; i != 200; ++i) v.push_back(elem(i));
      BOOST_TEST(holds_iota_elems(v));
      BOOST_TEST(c.allocations == allocations, "every growth a backward expansion");
      for (char *x : spare) ba_free(x);
   }
   BOOST_TEST(c.expansions_bwd > 0u);
   BOOST_TEST(c.expansions_fwd == 0u);
}

BOOST_AUTO_TEST_CASE(shrink_to_fit_shrinks_in_place)
{
   ba::heap h;
   allocation_counters c;
   using A = counting_allocator<ba::heap_allocator<int>>;
   bc::vector<int, A> v(A(c, ba::heap_allocator<int>(h)));
   v.reserve(1000);
   for (int i = 0; i != 10; ++i) v.push_back(i);
   const int *data = v.data();
   const std::size_t in_use = h.stats().in_use_bytes;
   v.shrink_to_fit();
   BOOST_TEST(c.shrinks == 1u);
   BOOST_TEST(v.data() == data);   // nothing moved
   BOOST_TEST(v.capacity() >= 10u);
   BOOST_TEST(v.capacity() < 1000u);
   BOOST_TEST(h.stats().in_use_bytes < in_use);   // the tail went back to the heap
   BOOST_TEST(holds_iota(v));
   BOOST_TEST(c.allocations == 1u);
}

BOOST_AUTO_TEST_CASE(a_mask_of_both_expansions_never_expands)
{
   allocation_counters c;
   using A = counting_allocator<ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd>>;
   {
      bc::vector<int, A> v((A(c)));
      for (int i = 0; i != 10000; ++i) v.push_back(i);
      BOOST_TEST(holds_iota(v));
   }
   BOOST_TEST(c.expansions() == 0u);
   BOOST_TEST(c.allocations > 5u);
}

BOOST_AUTO_TEST_CASE(element_types_of_awkward_size_and_alignment)
{
   bc::vector<twelve_bytes, ba::allocator<twelve_bytes>> v12;
   bc::vector<aligned64, ba::allocator<aligned64>> v64;
   for (std::uint32_t i = 0; i != 3000; ++i) {
      v12.push_back(twelve_bytes{i, i, i});
      v64.push_back(aligned64{});
      v64.back().bytes[0] = static_cast<unsigned char>(i);
   }
   for (std::uint32_t i = 0; i != 3000; ++i) {
      BOOST_TEST(v12[i].b == i);
      BOOST_TEST(v64[i].bytes[0] == static_cast<unsigned char>(i));
   }
   BOOST_TEST(is_aligned(v64.data(), 64));
   v12.erase(v12.begin() + 10, v12.end());
   v12.shrink_to_fit();
   BOOST_TEST(v12.size() == 10u);
}

BOOST_AUTO_TEST_CASE(a_failed_growth_leaves_the_vector_as_it_was)
{
   failure_plan plan;
   elem::counters().reset();
   using A = failing_allocator<ba::allocator<elem>>;
   bc::vector<elem, A> v((A(plan)));
   for (int i = 0; i != 100; ++i) v.push_back(elem(i));
   while (v.size() < v.capacity()) v.push_back(elem(static_cast<int>(v.size())));
   const std::size_t size = v.size();
   const elem *data = v.data();
   plan.fail_from(1);
   BOOST_CHECK_THROW(v.push_back(elem(-1)), std::bad_alloc);
   BOOST_TEST(plan.fired());
   BOOST_TEST(v.size() == size);
   BOOST_TEST(v.data() == data);
   BOOST_TEST(holds_iota_elems(v));
   plan.never_fail();
   v.push_back(elem(static_cast<int>(size)));
   BOOST_TEST(holds_iota_elems(v));
}

BOOST_AUTO_TEST_CASE(ours_calls_the_allocator_no_more_than_boost_containers_own)
{
   for (int n : {10, 100, 1000, 10000}) {
      allocation_counters ours, theirs;
      {
         bc::vector<int, counted<int>> a((counted<int>(ours)));
         using B = counting_allocator<bc::allocator<int, 2>>;
         bc::vector<int, B> b((B(theirs)));
         for (int i = 0; i != n; ++i) {
            a.push_back(i);
            b.push_back(i);
         }
      }
      BOOST_TEST(ours.calls() <= theirs.calls(), n << " push_backs: ours " << ours.calls() << " calls, "
                                                     << "boost::container::allocator<int, 2> " << theirs.calls());
   }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(node_containers)

BOOST_AUTO_TEST_CASE(list_takes_its_nodes_in_bursts)
{
   allocation_counters c;
   {
      bc::list<int, counted<int>> l(1000, 7, counted<int>(c));
      BOOST_TEST(c.bursts == 1u);
      BOOST_TEST(c.burst_nodes == 1000u);
      BOOST_TEST(c.allocations == 0u);
      l.insert(l.end(), 500, 3);
      BOOST_TEST(c.bursts == 2u);
      std::vector<int> src(300);
      std::iota(src.begin(), src.end(), 0);
      l.insert(l.begin(), src.begin(), src.end());
      BOOST_TEST(c.bursts == 3u);
      bc::list<int, counted<int>> copy(l);
      BOOST_TEST(c.bursts == 4u);
      BOOST_TEST(copy.size() == 1800u);
      BOOST_TEST(c.allocations == 0u);
      // Erasing a range and clearing give the nodes back in bursts too.
      auto last = l.begin();
      std::advance(last, 300);
      l.erase(l.begin(), last);
      BOOST_TEST(c.burst_deallocations == 1u);
      BOOST_TEST(c.deallocations == 300u);
      l.clear();
      BOOST_TEST(c.burst_deallocations == 2u);
      BOOST_TEST(c.deallocations == 1800u);
      l.push_back(1);   // one node: one allocation
      BOOST_TEST(c.allocations == 1u);
   }
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(ba_list_runs_on_boost_containers_version_2_allocator)
{
   // The other way round: Boost.Container's allocator, whose chain is its own type (not ours:
   // ba::list links the nodes it frees with that chain's push_back), under ba::list.
   const std::size_t before = bc::dlmalloc_in_use_memory();
   {
      ba::list<int, bc::allocator<int, 2>> l(100, 7);
      std::iota(l.begin(), l.end(), 0);
      l.erase(std::next(l.begin(), 10), std::next(l.begin(), 90));
      BOOST_TEST(l.size() == 20u);
      BOOST_TEST(l.front() == 0);
      BOOST_TEST(*std::next(l.begin(), 10) == 90);
      l.insert(l.end(), 50, 5);
      l.resize(30);
      BOOST_TEST(l.size() == 30u);
      BOOST_TEST(l.back() == 5);
      l.clear();
      BOOST_TEST(l.empty());
      l.push_back(1);
   }
   BOOST_TEST(bc::dlmalloc_in_use_memory() == before);   // every node went back
}

BOOST_AUTO_TEST_CASE(slist_takes_its_nodes_in_bursts)
{
   allocation_counters c;
   {
      bc::slist<int, counted<int>> l(100, 1, counted<int>(c));
      BOOST_TEST(c.bursts == 1u);
      BOOST_TEST(c.burst_nodes == 100u);
   }
   BOOST_TEST(c.burst_deallocations >= 1u);
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(stable_vector_takes_its_nodes_in_bursts)
{
   allocation_counters c;
   {
      bc::stable_vector<int, counted<int>> sv(1000, 5, counted<int>(c));
      BOOST_TEST(c.bursts >= 1u);
      BOOST_TEST(c.burst_nodes >= 1000u);
      for (int i = 0; i != 1000; ++i) sv.push_back(i);
      sv.erase(sv.begin(), sv.begin() + 500);
      BOOST_TEST(sv.size() == 1500u);
      BOOST_TEST(sv[0] == 5);
      BOOST_TEST(sv.back() == 999);
   }
   BOOST_TEST(c.burst_deallocations >= 1u);
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(deque_runs_on_every_version)
{
   allocation_counters c;
   {
      bc::deque<int, counted<int>> d((counted<int>(c)));
      bc::deque<int, ba::allocator<int, 1>> d1;
      for (int i = 0; i != 10000; ++i) {
         d.push_back(i);
         d.push_front(-i);
         d1.push_back(i);
      }
      BOOST_TEST(d.size() == 20000u);
      BOOST_TEST(d.front() == -9999);
      BOOST_TEST(d.back() == 9999);
      BOOST_TEST(d1[5000] == 5000);
      BOOST_TEST(c.allocations > 0u);
   }
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(a_failed_burst_leaves_the_list_as_it_was)
{
   failure_plan plan;
   allocation_counters c;
   using A = counting_allocator<failing_allocator<ba::allocator<int>>>;
   {
      bc::list<int, A> l(10, 1, A(c, failing_allocator<ba::allocator<int>>(plan)));
      plan.fail_on(1);
      BOOST_CHECK_THROW(l.insert(l.end(), 100, 2), std::bad_alloc);
      BOOST_TEST(plan.fired());
      BOOST_TEST(l.size() == 10u);
      BOOST_TEST(c.live_blocks() == 10u);
   }
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(an_element_that_throws_mid_burst_gives_the_rest_of_the_burst_back)
{
   allocation_counters c;
   elem::counters().reset();
   using A = counting_allocator<ba::allocator<elem>>;
   {
      bc::list<elem, A> l((A(c)));
      elem x(42);
      elem::counters().throw_on_copy(50);
      BOOST_CHECK_THROW(l.insert(l.end(), 100, x), tracked_exception);
      // Basic guarantee (Boost.Container inserts each node as it is built): the 49 built stay,
      // and the 50 nodes of the burst not reached yet go back in one deallocate_individual.
      BOOST_TEST(l.size() == 49u);
      BOOST_TEST(elem::counters().live == 50);   // x and the list's
      BOOST_TEST(c.burst_deallocations == 1u);
      // The node whose element threw is lost by Boost.Container 1.81 itself
      // (node_alloc_holder::allocate_many_and_construct never hands it to its deallocator), so
      // 49 or 50 blocks remain, never more.
      BOOST_TEST(c.live_blocks() - l.size() <= 1u);
      elem::counters().never_throw();
   }
   BOOST_TEST(elem::counters().live == 0);
   BOOST_TEST(c.live_blocks() <= 1u);
}

BOOST_AUTO_TEST_SUITE_END()
