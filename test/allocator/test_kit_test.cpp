// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of the shared test kit (test/support/): every later test trusts these tools, so each
// promise of theirs is checked here.

#define BOOST_TEST_MODULE allocplus test kit
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

BOOST_AUTO_TEST_SUITE(tracked_elements)

using t = tracked<struct kit_t>;
using t12 = tracked<struct kit_t12, 12, true>;
using t64 = tracked<struct kit_t64, 8, false, 64>;

BOOST_AUTO_TEST_CASE(they_count_instances_and_operations)
{
   t::counters().reset();
   {
      t a(1), b(a), c(std::move(a));
      t d;
      d = b;
      d = std::move(c);
      BOOST_TEST(t::counters().live == 4);
      BOOST_TEST(t::counters().constructions == 2);
      BOOST_TEST(t::counters().copies == 1);
      BOOST_TEST(t::counters().moves == 1);
      BOOST_TEST(t::counters().copy_assignments == 1);
      BOOST_TEST(t::counters().move_assignments == 1);
      BOOST_TEST(d.value() == 1);
   }
   BOOST_TEST(t::counters().live == 0);
   BOOST_TEST(t::counters().destructions == 4);
   BOOST_TEST(t::counters().max_live == 4);
}

BOOST_AUTO_TEST_CASE(size_alignment_and_noexcept_are_as_asked)
{
   static_assert(sizeof(t12) == 12, "");
   static_assert(alignof(t64) == 64, "");
   static_assert(std::is_nothrow_move_constructible<t12>::value, "");
   static_assert(!std::is_nothrow_move_constructible<t>::value, "");
   static_assert(!std::is_nothrow_copy_constructible<t12>::value, "");
   BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(the_kth_copy_move_or_construction_throws_once)
{
   t::counters().reset();
   t a(1);
   t::counters().throw_on_copy(3);
   t b(a), c(a);
   BOOST_CHECK_THROW(t d(a), tracked_exception);
   t e(a);   // disarmed after firing
   t::counters().throw_on_move(1);
   BOOST_CHECK_THROW(t f(std::move(e)), tracked_exception);
   t::counters().throw_on_construction(2);
   t g(5);
   BOOST_CHECK_THROW(t h(6), tracked_exception);
   BOOST_TEST(t::counters().live == 5);   // a b c e g: the failed ones never lived
   t12::counters().throw_on_move(1);
   t12 x(1);
   t12 y(std::move(x));                   // a noexcept move never throws
   BOOST_TEST(y.value() == 1);
   t12::counters().never_throw();
}

BOOST_AUTO_TEST_CASE(an_object_never_built_is_noticed)
{
   // What a container that lost track of its elements would hand out: bytes, not an object.
   alignas(t) unsigned char storage[sizeof(t)];
   std::memset(storage, 0, sizeof storage);
   const t *p = std::launder(reinterpret_cast<const t *>(storage));
   BOOST_TEST(!p->alive());
   BOOST_CHECK_THROW((void)p->value(), std::logic_error);
   t live(1);
   BOOST_TEST(live.alive());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(adaptors)

BOOST_AUTO_TEST_CASE(failing_allocator_fails_the_kth_attempt)
{
   failure_plan plan;
   failing_allocator<ba::allocator<int>> a(plan);
   plan.fail_on(2);
   int *p = a.allocate(1);
   BOOST_CHECK_THROW((void)a.allocate(1), std::bad_alloc);
   BOOST_TEST(plan.fired());
   int *q = a.allocate(100);   // only the 2nd
   int *reuse = p;
   std::size_t pref = 10;
   plan.fail_on(1);
   BOOST_TEST(a.allocation_command(ba::expand_fwd | ba::allocate_new | ba::nothrow_allocation, 10, pref, reuse)
              == nullptr);
   BOOST_TEST(reuse == nullptr);
   BOOST_TEST(pref == a.size(p));
   plan.fail_from(1);
   ba::multiallocation_chain<int> chain;
   BOOST_CHECK_THROW(a.allocate_individual(3, chain), std::bad_alloc);
   BOOST_CHECK_THROW((void)a.allocate_one(), std::bad_alloc);
   // A shrink never allocates: it does not fail.
   reuse = q;
   pref = 10;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, a.size(q), pref, reuse) == q);
   plan.never_fail();
   a.deallocate(p, 1);
   a.deallocate(q, pref);
   BOOST_TEST(plan.failures == 4u);
}

BOOST_AUTO_TEST_CASE(counting_allocator_tells_new_blocks_from_expansions_and_shrinks)
{
   ba::heap h;
   allocation_counters c;
   counting_allocator<ba::heap_allocator<int>> a(c, ba::heap_allocator<int>(h));
   int *p = a.allocate(10);
   int *reuse = p;
   std::size_t pref = 1000;
   BOOST_TEST(a.allocation_command(ba::expand_fwd, 1000, pref, reuse) == p);   // top follows p
   BOOST_TEST(c.expansions_fwd == 1u);
   pref = 10;
   BOOST_TEST(a.allocation_command(ba::shrink_in_place, 1000, pref, reuse) == p);
   BOOST_TEST(c.shrinks == 1u);
   reuse = nullptr;
   pref = 5;
   int *q = a.allocation_command(ba::allocate_new, 5, pref, reuse);
   BOOST_TEST(c.allocations == 2u);
   reuse = p;
   pref = 1u << 30;
   BOOST_TEST(a.allocation_command(ba::expand_bwd | ba::nothrow_allocation, 1u << 30, pref, reuse) == nullptr);
   BOOST_TEST(c.failed_commands == 1u);
   BOOST_TEST(c.commands == 4u);
   ba::multiallocation_chain<int> chain;
   a.allocate_individual(7, chain);
   BOOST_TEST(c.bursts == 1u);
   BOOST_TEST(c.burst_nodes == 7u);
   a.deallocate_individual(chain);
   BOOST_TEST(c.burst_deallocations == 1u);
   a.deallocate(p, 10);
   a.deallocate(q, 5);
   BOOST_TEST(c.live_blocks() == 0u);
   BOOST_TEST(c.calls() == 2u + 1u + 1u + 1u);   // 2 new blocks, 1 expansion, 1 shrink, 1 burst
}

BOOST_AUTO_TEST_CASE(adaptors_share_their_state_with_copies_and_rebinds)
{
   allocation_counters c1, c2;
   counting_allocator<ba::allocator<int>> a(c1), b(c2);
   counting_allocator<ba::allocator<double>> r(a);
   BOOST_TEST((a == r));
   BOOST_TEST((a != b));
   r.deallocate(r.allocate(1), 1);
   BOOST_TEST(c1.allocations == 1u);
   static_assert(ba::allocator_version<decltype(r)>::value == 2, "");
   static_assert(ba::allocator_version<counting_allocator<std::allocator<int>>>::value == 1, "");
   counting_allocator<ba::allocator<int>> d;   // default: the default counters
   BOOST_TEST(&d.state() == &counting_hooks::default_state());
}

BOOST_AUTO_TEST_CASE(stateful_allocators_notice_a_free_by_another_identity)
{
   stateful_registry &reg = stateful_registry::instance();
   reg.reset_mismatches();
   propagating_allocator<int> a(1), b(2);
   non_propagating_allocator<int, 2> c(3);
   static_assert(std::allocator_traits<propagating_allocator<int>>::propagate_on_container_swap::value, "");
   static_assert(!std::allocator_traits<non_propagating_allocator<int>>::propagate_on_container_copy_assignment::value,
                 "");
   static_assert(ba::allocator_version<non_propagating_allocator<int, 2>>::value == 2, "");
   BOOST_TEST((a != b));
   BOOST_TEST((a == propagating_allocator<long>(propagating_allocator<int>(1))));
   int *p = a.allocate(3);
   BOOST_TEST(reg.live(1) == 1u);
   b.deallocate(p, 3);   // the wrong identity
   BOOST_TEST(reg.mismatches() == 1u);
   ba::multiallocation_chain<int> chain;
   c.allocate_individual(4, chain);
   BOOST_TEST(reg.live(3) == 4u);
   c.deallocate_individual(chain);
   BOOST_TEST(reg.live(3) == 0u);
   // A container that ignores propagation is caught: swap of non-propagating unequal allocators
   // is not allowed, but propagating ones travel with their memory.
   std::vector<int, propagating_allocator<int>> v1(10, 1, propagating_allocator<int>(4)),
      v2(5, 2, propagating_allocator<int>(5));
   v1.swap(v2);
   BOOST_TEST(v1.get_allocator().id() == 5);
   v1 = v2;
   BOOST_TEST(v1.get_allocator().id() == 4);
   reg.reset_mismatches();
}

BOOST_AUTO_TEST_CASE(expansion_limited_allocators_expand_only_as_allowed)
{
   expansion_arena arena(4, 0);   // a slab of exactly 4 x the first request
   forward_expansion_allocator<int> f(arena);
   backward_expansion_allocator<int> b(arena);
   int *p = f.allocate(10);
   int *reuse = p;
   std::size_t pref = 40;
   BOOST_TEST(f.allocation_command(ba::expand_fwd | ba::expand_bwd, 40, pref, reuse) == p);
   BOOST_TEST(pref == 40u);
   pref = 41;   // beyond the slab (4 x 10 objects)
   BOOST_TEST(f.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 41, pref, reuse) == nullptr);
   int *q = b.allocate(10);
   for (int i = 0; i != 10; ++i) q[i] = i;
   reuse = q;
   pref = 30;
   BOOST_TEST(b.allocation_command(ba::expand_fwd | ba::nothrow_allocation, 30, pref, reuse) == nullptr);
   reuse = q;
   pref = 30;
   int *r = b.allocation_command(ba::expand_bwd, 30, pref, reuse);
   BOOST_TEST(r == q - 20);   // whole objects down
   BOOST_TEST(reuse == q);
   BOOST_TEST(b.size(r) == 30u);
   BOOST_TEST(r[20 + 9] == 9);   // the objects stayed
   pref = 5;
   reuse = r;   // the block starts at r now
   BOOST_TEST(b.allocation_command(ba::shrink_in_place, 30, pref, reuse) == r);
   BOOST_TEST(b.size(r) == 5u);
   f.deallocate(p, 40);
   b.deallocate(r, 5);
   b.deallocate(q, 5);   // no longer a block start
   BOOST_TEST(arena.bad_frees() == 1u);
   BOOST_TEST(arena.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(adaptors_compose)
{
   failure_plan plan;
   allocation_counters c;
   using A = counting_allocator<failing_allocator<ba::allocator<int>>>;
   A a(c, failing_allocator<ba::allocator<int>>(plan));
   plan.fail_on(1);
   BOOST_CHECK_THROW((void)a.allocate(1), std::bad_alloc);
   BOOST_TEST(c.allocations == 0u);   // the failure is not counted as a block
   a.deallocate(a.allocate(1), 1);
   BOOST_TEST(c.allocations == 1u);
   BOOST_TEST(c.live_blocks() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
