// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of boost/allocplus/allocator_traits.hpp: the version of any allocator, the version-2
// interface reached directly (ours and Boost.Container's allocators) and the fallbacks every
// other allocator gets.

#define BOOST_TEST_MODULE allocplus allocator_traits
#include "core/core_test_kit.hpp"
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/container/allocator.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;
namespace bc = boost::container;

namespace {

struct node {
   void *link;
   long payload[3];
};

//! A minimal C++17 allocator: nothing but value_type, allocate and deallocate.
template <class T>
struct minimal_allocator {
   using value_type = T;
   minimal_allocator() = default;
   template <class U>
   minimal_allocator(const minimal_allocator<U> &) noexcept
   {}
   T *allocate(std::size_t n) { return static_cast<T *>(::operator new(n * sizeof(T))); }
   void deallocate(T *p, std::size_t) noexcept { ::operator delete(p); }
   friend bool operator==(const minimal_allocator &, const minimal_allocator &) { return true; }
   friend bool operator!=(const minimal_allocator &, const minimal_allocator &) { return false; }
};

//! A version-1 allocator with its own allocate_at_least (C++23 style).
template <class T>
struct at_least_allocator : minimal_allocator<T> {
   template <class U>
   struct rebind {
      using other = at_least_allocator<U>;
   };
   ba::allocation_result<T *> allocate_at_least(std::size_t n) { return {this->allocate(n + 3), n + 3}; }
};

} // namespace

BOOST_AUTO_TEST_CASE(the_version_is_read_as_boost_container_reads_it)
{
   static_assert(ba::allocator_version<std::allocator<int>>::value == 1, "no nested version: 1");
   static_assert(ba::allocator_version<minimal_allocator<int>>::value == 1, "");
   static_assert(ba::allocator_version<ba::allocator<int, 1>>::value == 1, "");
   static_assert(ba::allocator_version<ba::allocator<int>>::value == 2, "");
   static_assert(ba::allocator_version<ba::heap_allocator<int>>::value == 2, "");
   static_assert(ba::allocator_version<bc::allocator<int, 2>>::value == 2, "Boost.Container's version_type");
   static_assert(ba::allocator_version<bc::allocator<int, 1>>::value == 1, "");
   static_assert(ba::allocator_version_v<counting_allocator<ba::allocator<int>>> == 2, "adaptors keep the version");
   static_assert(ba::allocator_traits<std::allocator<int>>::version::value == 1, "");
   static_assert(ba::allocator_traits<ba::allocator<int>>::is_version_2, "");
   // And Boost.Container agrees with us about ours.
   static_assert(bc::dtl::version<ba::allocator<int>>::value == 2, "");
   static_assert(bc::dtl::version<ba::allocator<int, 1>>::value == 1, "");
   BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(the_chain_type_is_the_allocators_own_or_ours)
{
   static_assert(std::is_same<ba::allocator_traits<std::allocator<node>>::multiallocation_chain,
                              ba::multiallocation_chain<node>>::value,
                 "");
   static_assert(std::is_same<ba::allocator_traits<ba::allocator<node>>::multiallocation_chain,
                              ba::allocator<node>::multiallocation_chain>::value,
                 "");
   static_assert(std::is_same<ba::allocator_traits<bc::allocator<node, 2>>::multiallocation_chain,
                              bc::allocator<node, 2>::multiallocation_chain>::value,
                 "");
   BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(every_std_allocator_traits_member_is_there)
{
   using traits = ba::allocator_traits<ba::allocator<int>>;
   static_assert(std::is_same<traits::rebind_alloc<long>, ba::allocator<long>>::value, "");
   static_assert(std::is_same<traits::rebind_traits<long>, ba::allocator_traits<ba::allocator<long>>>::value, "");
   static_assert(traits::is_always_equal::value, "");
   ba::allocator<int> a;
   int *p = traits::allocate(a, 2);
   traits::construct(a, p, 41);
   BOOST_TEST(*p == 41);
   traits::destroy(a, p);
   traits::deallocate(a, p, 2);
   BOOST_TEST(traits::max_size(a) == a.max_size());
   BOOST_TEST((traits::select_on_container_copy_construction(a) == a));
}

BOOST_AUTO_TEST_CASE(allocate_at_least_uses_the_member_or_allocates_exactly)
{
   std::allocator<int> s;
   auto r = ba::allocator_traits<std::allocator<int>>::allocate_at_least(s, 10);
   BOOST_TEST(r.count == 10u);
   s.deallocate(r.ptr, r.count);
   at_least_allocator<int> m;
   auto r2 = ba::allocator_traits<at_least_allocator<int>>::allocate_at_least(m, 10);
   BOOST_TEST(r2.count == 13u);
   m.deallocate(r2.ptr, r2.count);
   ba::allocator<char, 1> ours;
   auto r3 = ba::allocator_traits<ba::allocator<char, 1>>::allocate_at_least(ours, 1);
   // The core's smallest block holds more than one char (under ASan, the core exposes only what
   // was asked for).
   BOOST_TEST(r3.count >= 1u);
   BOOST_TEST(r3.count == ba_usable_size(r3.ptr));
   ours.deallocate(r3.ptr, r3.count);
}

BOOST_AUTO_TEST_CASE(allocation_command_of_a_version_1_allocator_allocates_new_blocks)
{
   using traits = ba::allocator_traits<std::allocator<int>>;
   std::allocator<int> a;
   int *old = a.allocate(4);
   int *reuse = old;
   std::size_t pref = 100;
   int *p = traits::allocation_command(a, ba::allocate_new | ba::expand_fwd | ba::expand_bwd, 10, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(p != old);
   BOOST_TEST(reuse == nullptr);   // never expanded
   BOOST_TEST(pref == 100u);       // what was allocated
   a.deallocate(p, pref);
   // limit above preferred: the limit is what is allocated
   reuse = nullptr;
   pref = 5;
   p = traits::allocation_command(a, ba::allocate_new, 50, pref, reuse);
   BOOST_TEST(pref == 50u);
   a.deallocate(p, pref);
   a.deallocate(old, 4);
}

BOOST_AUTO_TEST_CASE(allocation_command_of_a_version_1_allocator_cannot_expand_or_shrink)
{
   using traits = ba::allocator_traits<std::allocator<int>>;
   std::allocator<int> a;
   int *old = a.allocate(4);
   int *reuse = old;
   std::size_t pref = 100;
   BOOST_TEST(traits::allocation_command(a, ba::expand_fwd | ba::expand_bwd | ba::nothrow_allocation, 100, pref,
                                         reuse) == nullptr);
   BOOST_TEST(reuse == nullptr);
   reuse = old;
   BOOST_CHECK_THROW((void)traits::allocation_command(a, ba::expand_fwd, 100, pref, reuse), std::bad_alloc);
   reuse = old;
   pref = 1;
   BOOST_TEST(traits::allocation_command(a, ba::shrink_in_place | ba::nothrow_allocation, 4, pref, reuse) == nullptr);
   a.deallocate(old, 4);
}

BOOST_AUTO_TEST_CASE(allocation_command_of_a_version_1_allocator_zeroes_and_falls_back_to_the_limit)
{
   failure_plan plan;
   allocation_counters counts;
   using inner = failing_allocator<std::allocator<unsigned char>>;
   counting_allocator<inner> a(counts, inner(plan));
   using traits = ba::allocator_traits<counting_allocator<inner>>;
   static_assert(traits::version::value == 1, "");
   plan.fail_on(1);   // the preferred size fails, the limit succeeds
   unsigned char *reuse = nullptr;
   std::size_t pref = 1000;
   unsigned char *p = traits::allocation_command(a, ba::allocate_new | ba::zero_memory, 10, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(plan.fired());
   BOOST_TEST(pref == 10u);
   BOOST_TEST(all_zero(p, 10));
   a.deallocate(p, pref);
   plan.fail_from(1);   // nothing succeeds
   pref = 1000;
   BOOST_TEST(traits::allocation_command(a, ba::allocate_new | ba::nothrow_allocation, 10, pref, reuse) == nullptr);
   BOOST_CHECK_THROW((void)traits::allocation_command(a, ba::allocate_new, 10, pref, reuse), std::bad_alloc);
   plan.never_fail();
   BOOST_TEST(counts.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(allocate_individual_of_a_version_1_allocator_is_a_loop)
{
   allocation_counters counts;
   counting_allocator<std::allocator<node>> a(counts);
   using traits = ba::allocator_traits<counting_allocator<std::allocator<node>>>;
   traits::multiallocation_chain chain;
   node *mine = traits::allocate_one(a);
   chain.push_back(mine);
   traits::allocate_individual(a, 50, chain);
   BOOST_TEST(chain.size() == 51u);
   BOOST_TEST(counts.allocations == 51u);   // one allocate(1) per node
   BOOST_TEST(counts.bursts == 0u);
   BOOST_TEST(&*chain.last() == mine);      // new nodes in front, as a burst puts them
   std::set<node *> distinct;
   for (auto it = chain.begin(); it != chain.end(); ++it) distinct.insert(&*it);
   BOOST_TEST(distinct.size() == 51u);
   traits::deallocate_individual(a, chain);
   BOOST_TEST(chain.empty());
   BOOST_TEST(counts.deallocations == 51u);
}

BOOST_AUTO_TEST_CASE(a_failing_loop_gives_back_what_it_took_and_leaves_the_chain)
{
   failure_plan plan;
   allocation_counters counts;
   using inner = failing_allocator<std::allocator<node>>;
   counting_allocator<inner> a(counts, inner(plan));
   using traits = ba::allocator_traits<counting_allocator<inner>>;
   traits::multiallocation_chain chain;
   traits::allocate_individual(a, 3, chain);
   plan.fail_on(20);
   BOOST_CHECK_THROW(traits::allocate_individual(a, 100, chain), std::bad_alloc);
   BOOST_TEST(plan.fired());
   BOOST_TEST(chain.size() == 3u);            // strong guarantee
   BOOST_TEST(counts.live_blocks() == 3u);    // the 19 that succeeded went back
   traits::deallocate_individual(a, chain);
   BOOST_TEST(counts.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(a_version_2_allocator_is_called_directly)
{
   allocation_counters counts;
   counting_allocator<ba::allocator<node>> a(counts);
   using traits = ba::allocator_traits<counting_allocator<ba::allocator<node>>>;
   traits::multiallocation_chain chain;
   traits::allocate_individual(a, 40, chain);
   BOOST_TEST(counts.bursts == 1u);          // one burst, not 40 allocations
   BOOST_TEST(counts.burst_nodes == 40u);
   BOOST_TEST(counts.allocations == 0u);
   node *one = traits::allocate_one(a);
   traits::deallocate_one(a, one);
   const std::size_t sizes[] = {1, 2, 3};
   traits::allocate_many(a, sizes, 3, chain);
   traits::allocate_many(a, 4, 5, chain);
   BOOST_TEST(chain.size() == 48u);
   BOOST_TEST(counts.bursts == 3u);
   traits::deallocate_many(a, chain);
   BOOST_TEST(counts.burst_deallocations == 1u);
   node *reuse = nullptr;
   std::size_t pref = 10;
   node *p = traits::allocation_command(a, ba::allocate_new, 10, pref, reuse);
   BOOST_TEST(counts.commands == 1u);
   BOOST_TEST(traits::size(a, p) == pref);
   a.deallocate(p, pref);
   BOOST_TEST(counts.live_blocks() == 0u);
}

BOOST_AUTO_TEST_CASE(boost_containers_own_version_2_allocator_works_through_the_traits)
{
   using A = bc::allocator<node, 2>;
   using traits = ba::allocator_traits<A>;
   A a;
   traits::multiallocation_chain chain;
   traits::allocate_individual(a, 10, chain);
   BOOST_TEST(chain.size() == 10u);
   traits::deallocate_individual(a, chain);
   node *p = a.allocate(1);
   node *reuse = p;
   std::size_t pref = 50;
   node *q = traits::allocation_command(a, ba::allocate_new | ba::expand_fwd, 50, pref, reuse);
   BOOST_REQUIRE(q != nullptr);
   BOOST_TEST(pref >= 50u);
   if (!reuse) a.deallocate(p, 1);
   a.deallocate(q, pref);
}

namespace {

//! One step of a command script: what a command returned, as offsets into its heap's buffer.
struct command_outcome {
   std::ptrdiff_t block;   // -1: null
   std::ptrdiff_t reuse;   // -1: null
   std::size_t received;
   bool operator==(const command_outcome &o) const
   {
      return block == o.block && reuse == o.reuse && received == o.received;
   }
};

//! Runs the same pseudo-random script of commands (every kind, on blocks that are live, with and
//! without nothrow) over heap_allocator<long> on a heap over `buffer`, through the allocator's
//! member (`through_traits` false) or through ba::allocator_traits, which reaches our allocators'
//! command with its growth's short paths inline: the two must do the same thing.
std::vector<command_outcome> run_command_script(unsigned char *buffer, std::size_t size, bool through_traits)
{
   using A = ba::heap_allocator<long>;
   using traits = ba::allocator_traits<A>;
   ba::heap h(buffer, size);
   A a(h);
   const auto offset = [&](const void *p) { return p ? static_cast<const unsigned char *>(p) - buffer : -1; };
   const ba::allocation_type kinds[] = {
      ba::allocate_new, ba::expand_fwd, ba::expand_bwd, ba::expand_fwd | ba::expand_bwd,
      ba::allocate_new | ba::expand_fwd, ba::allocate_new | ba::expand_bwd,
      ba::allocate_new | ba::expand_fwd | ba::expand_bwd, ba::shrink_in_place, ba::try_shrink_in_place,
      ba::allocate_new | ba::expand_fwd | ba::zero_memory};
   std::vector<std::pair<long *, std::size_t>> live;
   std::vector<command_outcome> outcomes;
   std::uint64_t state = 12345;
   const auto next = [&] { state = state * 6364136223846793005ull + 1442695040888963407ull; return state >> 33; };
   for (int step = 0; step != 3000; ++step) {
      const ba::allocation_type command = kinds[next() % 10] | ba::nothrow_allocation;
      const bool shrinking = (command & (ba::shrink_in_place | ba::try_shrink_in_place)) != 0;
      std::size_t slot = live.empty() ? 0 : next() % live.size();
      const bool allocating_only = command == (ba::allocate_new | ba::nothrow_allocation);
      long *reuse = (live.empty() || allocating_only) ? nullptr : live[slot].first;
      const std::size_t held = reuse ? live[slot].second : 0;
      std::size_t limit, preferred;
      if (shrinking) {
         limit = held ? held - next() % held : 0;
         preferred = limit ? next() % (limit + 1) : 0;
      } else {
         limit = 1 + next() % 700;
         preferred = limit + next() % 300;
      }
      long *p = through_traits ? traits::allocation_command(a, command, limit, preferred, reuse)
                               : a.allocation_command(command, limit, preferred, reuse);
      outcomes.push_back({offset(p), offset(reuse), preferred});
      // In place (forward, backward or shrunk): the slot takes the new start and size. After
      // try_shrink_in_place (a report) the recorded size is below the block's: harmless, it only
      // bounds later shrinks, and deallocate does not read it.
      if (p && reuse) live[slot] = {p, preferred};
      else if (p) live.push_back({p, preferred});
      if (!live.empty() && (live.size() > 40 || next() % 4 == 0)) {
         slot = next() % live.size();
         a.deallocate(live[slot].first, live[slot].second);
         live.erase(live.begin() + static_cast<std::ptrdiff_t>(slot));
      }
   }
   for (auto &b : live) a.deallocate(b.first, b.second);
   BOOST_TEST(h.check());
   return outcomes;
}

} // namespace

BOOST_AUTO_TEST_CASE(our_allocators_command_does_the_same_through_the_traits_as_through_the_member)
{
   static_assert(ba::detail::inline_allocation_command::applies<ba::allocator<long>>, "");
   static_assert(ba::detail::inline_allocation_command::applies<ba::allocator<long, 2, ba::expand_fwd>>, "");
   static_assert(ba::detail::inline_allocation_command::applies<ba::heap_allocator<long>>, "");
   static_assert(!ba::detail::inline_allocation_command::applies<ba::allocator<long, 1>>, "");
   static_assert(!ba::detail::inline_allocation_command::applies<bc::allocator<long, 2>>, "");
   static_assert(!ba::detail::inline_allocation_command::applies<counting_allocator<ba::allocator<long>>>, "");
   constexpr std::size_t size = 4u << 20;
   std::unique_ptr<unsigned char[]> member_buffer(new unsigned char[size + 4096]);
   std::unique_ptr<unsigned char[]> traits_buffer(new unsigned char[size + 4096]);
   // The same alignment for both buffers, so that the two heaps lay out their blocks alike.
   const auto page = [](unsigned char *p) {
      return p + (4096 - reinterpret_cast<std::uintptr_t>(p) % 4096) % 4096;
   };
   const std::vector<command_outcome> by_member = run_command_script(page(member_buffer.get()), size, false);
   const std::vector<command_outcome> by_traits = run_command_script(page(traits_buffer.get()), size, true);
   BOOST_REQUIRE_EQUAL(by_member.size(), by_traits.size());
   std::size_t in_place = 0, new_block = 0, failed = 0;
   for (std::size_t i = 0; i != by_member.size(); ++i) {
      BOOST_TEST_REQUIRE((by_member[i] == by_traits[i]), "step " << i << " differs");
      if (by_member[i].block < 0) ++failed;
      else if (by_member[i].reuse >= 0) ++in_place;   // expanded or shrunk
      else ++new_block;
   }
   // The script reached every outcome: in place, new block, failure.
   BOOST_TEST(in_place > 100u);
   BOOST_TEST(new_block > 100u);
   BOOST_TEST(failed > 10u);
}

namespace {

//! Derived from ours with its own allocation_command: the traits must call it.
template <class T>
struct logging_allocator : ba::allocator<T> {
   template <class U>
   struct rebind {
      using other = logging_allocator<U>;
   };
   int *calls = nullptr;
   T *allocation_command(ba::allocation_type command, std::size_t limit, std::size_t &prefer, T *&reuse)
   {
      ++*calls;
      return ba::allocator<T>::allocation_command(command, limit, prefer, reuse);
   }
};

//! Ours as a private base, the interface re-exported.
template <class T>
struct private_allocator : private ba::allocator<T> {
   using typename ba::allocator<T>::value_type;
   using typename ba::allocator<T>::version;
   using ba::allocator<T>::allocate;
   using ba::allocator<T>::deallocate;
   using ba::allocator<T>::allocation_command;
   using ba::allocator<T>::size;
};

} // namespace

BOOST_AUTO_TEST_CASE(the_traits_call_a_derived_allocators_own_command)
{
   static_assert(!ba::detail::inline_allocation_command::applies<logging_allocator<long>>, "");
   static_assert(!ba::detail::inline_allocation_command::applies<private_allocator<long>>, "");
   int calls = 0;
   logging_allocator<long> a;
   a.calls = &calls;
   long *reuse = nullptr;
   std::size_t pref = 8;
   long *p = ba::allocator_traits<logging_allocator<long>>::allocation_command(a, ba::allocate_new, 8, pref, reuse);
   BOOST_TEST(calls == 1);
   a.deallocate(p, pref);
   private_allocator<long> b;
   pref = 8;
   p = ba::allocator_traits<private_allocator<long>>::allocation_command(b, ba::allocate_new, 8, pref, reuse);
   BOOST_REQUIRE(p != nullptr);
   BOOST_TEST(pref >= 8u);
   b.deallocate(p, pref);
}

BOOST_AUTO_TEST_CASE(the_inline_path_keeps_the_mask_and_the_errors_of_the_member)
{
   using A = ba::allocator<long, 2, ba::expand_fwd>;   // forward expansion masked
   using traits = ba::allocator_traits<A>;
   A a;
   for (bool through_traits : {false, true}) {
      const auto command = [&](ba::allocation_type c, std::size_t limit, std::size_t &pref, long *&reuse) {
         return through_traits ? traits::allocation_command(a, c, limit, pref, reuse)
                               : a.allocation_command(c, limit, pref, reuse);
      };
      long *block = a.allocate(4);
      long *reuse = block;
      std::size_t pref = 64;
      // Forward expansion is masked: never in place forward, whatever lies after the block.
      long *p = command(ba::expand_fwd | ba::nothrow_allocation, 64, pref, reuse);
      BOOST_TEST(p == nullptr);
      BOOST_TEST(reuse == nullptr);
      reuse = block;
      pref = 64;
      p = command(ba::expand_fwd | ba::allocate_new, 64, pref, reuse);
      BOOST_REQUIRE(p != nullptr);
      BOOST_TEST(p != block);
      BOOST_TEST(reuse == nullptr);
      a.deallocate(p, pref);
      reuse = block;
      pref = 1;
      BOOST_CHECK_THROW(command(ba::allocate_new | ba::expand_bwd, a.max_size() + 1, pref, reuse),
                        std::bad_array_new_length);
      BOOST_TEST(reuse == nullptr);
      reuse = block;
      pref = 1;
      BOOST_TEST(command(ba::allocate_new | ba::nothrow_allocation, a.max_size() + 1, pref, reuse) == nullptr);
      a.deallocate(block, 4);
   }
}
