// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The std::pmr resources (memory_resource.hpp): the memory_resource requirements on each one
// (alignment of every result, is_equal, deallocation with the size and alignment given), what the
// pool resources send upstream, an upstream that runs out, std::pmr containers and ba::vector /
// ba::list over polymorphic_allocator on each, and the engines' misuse checks through them.

#define BOOST_TEST_MODULE allocplus memory_resource
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/list.hpp>
#include <boost/allocplus/memory_resource.hpp>
#include <boost/allocplus/vector.hpp>

#include "one_heap/child_process.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace ba = boost::allocplus;

namespace {

// An upstream that counts what reaches it and can be made to run out.
class counting_resource : public std::pmr::memory_resource {
public:
   std::size_t allocations = 0, deallocations = 0, live = 0;
   bool exhausted = false;

private:
   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      if (exhausted) throw std::bad_alloc();
      ++allocations;
      ++live;
      return std::pmr::new_delete_resource()->allocate(bytes, alignment);
   }
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      ++deallocations;
      --live;
      std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
   }
   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }
};

// Each resource under test, made fresh (over an upstream that counts, for the pools).
struct default_heap_case {
   counting_resource upstream;
   std::pmr::memory_resource &get() { return *ba::default_heap_resource(); }
   static constexpr bool pooled = false;
};
struct heap_case {
   counting_resource upstream;
   ba::heap_resource resource;
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = false;
};
struct buffer_heap_case {
   counting_resource upstream;
   alignas(std::max_align_t) unsigned char buffer[4 << 20];
   ba::heap_resource resource{buffer, sizeof buffer};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = false;
};
struct synchronized_case {
   counting_resource upstream;
   ba::synchronized_pool_resource resource{&upstream};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = true;
};
struct unsynchronized_case {
   counting_resource upstream;
   ba::unsynchronized_pool_resource resource{&upstream};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = true;
};

// (The arena serves every size and alignment while it has room: it forwards only when it is full.)
struct arena_case {
   counting_resource upstream;
   alignas(std::max_align_t) unsigned char buffer[4 << 20];
   ba::arena arena{buffer, sizeof buffer};
   ba::arena_resource resource{arena, &upstream};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = false;
};

struct synchronized_adaptive_case {
   counting_resource upstream;
   ba::synchronized_adaptive_pool_resource resource{&upstream};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = true;
};
struct unsynchronized_adaptive_case {
   counting_resource upstream;
   ba::unsynchronized_adaptive_pool_resource resource{&upstream};
   std::pmr::memory_resource &get() { return resource; }
   static constexpr bool pooled = true;
};

using all_resources = std::tuple<default_heap_case, heap_case, buffer_heap_case, synchronized_case, unsynchronized_case,
                                 synchronized_adaptive_case, unsynchronized_adaptive_case, arena_case>;

bool aligned(const void *p, std::size_t alignment)
{
   return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

// A resource over a 16 KiB buffer and nothing else: a vector that cannot grow keeps its elements;
// a list filled to the last byte throws, and a node freed then is reused.
void check_a_full_buffer_throws_and_containers_stay(std::pmr::memory_resource &r)
{
   std::pmr::vector<int> v({1, 2, 3}, &r);
   BOOST_CHECK_THROW(v.resize(100000), std::bad_alloc);
   BOOST_TEST((v == std::pmr::vector<int>{1, 2, 3}));
   std::pmr::list<int> l(&r);
   BOOST_CHECK_THROW(for (;;) l.push_back(1), std::bad_alloc);
   const std::size_t n = l.size();
   BOOST_TEST(n > 0u);
   l.pop_back();
   l.push_back(2);
   BOOST_TEST(l.size() == n);
}

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(every_result_is_aligned_and_usable, Case, all_resources)
{
   auto c = std::make_unique<Case>();
   std::pmr::memory_resource &r = c->get();
   const std::size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 48, 100, 255, 256, 257, 511, 512, 513, 4096, 70000};
   std::vector<std::pair<void *, std::pair<std::size_t, std::size_t>>> held;
   for (std::size_t alignment = 1; alignment <= 4096; alignment *= 2)
      for (std::size_t size : sizes) {
         void *p = r.allocate(size, alignment);
         BOOST_TEST_INFO("size " << size << ", alignment " << alignment);
         BOOST_TEST(aligned(p, alignment));
         std::memset(p, 0xa5, size);   // the whole block is writable (ASan checks)
         held.push_back({p, {size, alignment}});
      }
   // Distinct blocks: no two of the held ones overlap at their first byte.
   for (std::size_t i = 0; i < held.size(); ++i)
      for (std::size_t j = i + 1; j < held.size(); ++j) BOOST_TEST(held[i].first != held[j].first);
   for (auto &h : held) r.deallocate(h.first, h.second.first, h.second.second);
   BOOST_TEST(c->upstream.live == 0u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_resource_is_equal_to_itself, Case, all_resources)
{
   auto c = std::make_unique<Case>();
   BOOST_TEST(c->get().is_equal(c->get()));
   BOOST_TEST(!c->get().is_equal(*std::pmr::new_delete_resource()));
   BOOST_TEST(!std::pmr::new_delete_resource()->is_equal(c->get()));
}

BOOST_AUTO_TEST_CASE(stateful_resources_are_equal_only_to_themselves)
{
   ba::heap_resource h1, h2;
   BOOST_TEST(!h1.is_equal(h2));
   ba::synchronized_pool_resource s1, s2;
   BOOST_TEST(!s1.is_equal(s2));
   ba::unsynchronized_pool_resource u1, u2;
   BOOST_TEST(!u1.is_equal(u2));
   BOOST_TEST(!u1.is_equal(s1));
   ba::synchronized_adaptive_pool_resource as1, as2;
   BOOST_TEST(!as1.is_equal(as2));
   ba::unsynchronized_adaptive_pool_resource au1, au2;
   BOOST_TEST(!au1.is_equal(au2));
   BOOST_TEST(!au1.is_equal(u1));
   alignas(std::max_align_t) static unsigned char buffer[4096];
   ba::arena a(buffer, sizeof buffer);
   ba::arena_resource a1(a), a2(a);   // (over one arena all the same: each resource is itself)
   BOOST_TEST(!a1.is_equal(a2));
}

BOOST_AUTO_TEST_CASE(default_heap_resources_compare_equal_by_type)
{
   ba::default_heap_resource_type other;
   BOOST_TEST(ba::default_heap_resource()->is_equal(other));
   BOOST_TEST(other.is_equal(*ba::default_heap_resource()));
   void *p = other.allocate(40, 8);
   ba::default_heap_resource()->deallocate(p, 40, 8);   // equal: one frees what the other gave
}

BOOST_AUTO_TEST_CASE_TEMPLATE(what_a_pool_does_not_serve_goes_upstream_and_back, Case, all_resources)
{
   auto c = std::make_unique<Case>();
   std::pmr::memory_resource &r = c->get();
   struct request {
      std::size_t size, alignment;
      bool upstream;
   } const requests[] = {{8, 8, false},   {16, 16, false},  {512, 16, false}, {513, 8, true},
                         {8, 32, true},   {4096, 64, true}, {100000, 8, true}, {1, 1, false}};
   for (const request &q : requests) {
      const std::size_t before = c->upstream.allocations;
      void *p = r.allocate(q.size, q.alignment);
      BOOST_TEST_INFO("size " << q.size << ", alignment " << q.alignment);
      BOOST_TEST(c->upstream.allocations - before == (Case::pooled && q.upstream ? 1u : 0u));
      const std::size_t freed = c->upstream.deallocations;
      r.deallocate(p, q.size, q.alignment);
      BOOST_TEST(c->upstream.deallocations - freed == (Case::pooled && q.upstream ? 1u : 0u));
   }
   BOOST_TEST(c->upstream.live == 0u);
}

BOOST_AUTO_TEST_CASE(the_largest_pool_block_is_an_option)
{
   counting_resource upstream;
   std::pmr::pool_options options;
   options.largest_required_pool_block = 64;
   ba::unsynchronized_pool_resource u(options, &upstream);
   ba::synchronized_pool_resource s(options, &upstream);
   BOOST_TEST(u.options().largest_required_pool_block == 64u);
   BOOST_TEST(s.options().largest_required_pool_block == 64u);
   for (std::pmr::memory_resource *r : {static_cast<std::pmr::memory_resource *>(&u), static_cast<std::pmr::memory_resource *>(&s)}) {
      void *pooled = r->allocate(64, 8);
      BOOST_TEST(upstream.allocations == 0u);
      void *big = r->allocate(65, 8);
      BOOST_TEST(upstream.allocations == 1u);
      r->deallocate(big, 65, 8);
      r->deallocate(pooled, 64, 8);
      upstream.allocations = 0;
   }
   BOOST_TEST(upstream.live == 0u);
}

BOOST_AUTO_TEST_CASE(a_block_freed_is_reused_by_its_class)
{
   ba::unsynchronized_pool_resource u;
   void *p = u.allocate(40, 8);
   u.deallocate(p, 40, 8);
   void *q = u.allocate(33, 8);   // the same class (40 bytes)
   BOOST_TEST(p == q);
   u.deallocate(q, 33, 8);
}

// The classes: every size up to 512 and alignment up to 16 lands in the smallest class that holds
// it, as big and as aligned as asked; anything else goes upstream (a huge size does not wrap).
using classes = ba::detail::pool_resource_classes;
static_assert(classes::class_of(24, 8, 39) == 2 && classes::node_size_of(2) == 24, "24 bytes: a class of 24");
static_assert(classes::node_size_of(classes::class_of(24, 16, 39)) == 32, "aligned to 16: 32");
static_assert(classes::class_of(513, 8, 39) == classes::upstream, "beyond 512: upstream");
static_assert(classes::class_of(std::size_t(-1) - 3, 16, 39) == classes::upstream, "a huge size does not wrap");
static_assert(classes::class_of(8, 32, 39) == classes::upstream, "over-aligned: upstream");

BOOST_AUTO_TEST_CASE(every_request_lands_in_the_smallest_class_that_holds_it)
{
   for (std::size_t alignment = 1; alignment <= 16; alignment *= 2)
      for (std::size_t bytes = 0; bytes <= 512; ++bytes) {
         const std::size_t cls = classes::class_of(bytes, alignment, classes::count - 1);
         BOOST_TEST_INFO("bytes " << bytes << ", alignment " << alignment);
         BOOST_TEST_REQUIRE(cls < classes::count);
         BOOST_TEST(classes::node_size_of(cls) >= bytes);
         BOOST_TEST(classes::alignment_of(cls) >= alignment);
         if (cls > 0) {   // the class below is too small or not aligned enough
            const std::size_t below = cls - 1;
            BOOST_TEST((classes::node_size_of(below) < bytes || classes::alignment_of(below) < alignment));
         }
      }
}

BOOST_AUTO_TEST_CASE(non_power_of_two_alignments_are_refused)
{
   ba::unsynchronized_pool_resource u;
   ba::synchronized_pool_resource s;
   ba::heap_resource h;
   std::pmr::memory_resource *const resources[] = {&u, &s, &h, ba::default_heap_resource()};
   // (Values at run time: compilers reject the constant ones they can see.)
   volatile std::size_t bad_alignments[] = {0, 3, 12, 24};
   for (std::pmr::memory_resource *r : resources)
      for (std::size_t alignment : bad_alignments) BOOST_CHECK_THROW((void)r->allocate(16, alignment), std::bad_alloc);
}

BOOST_AUTO_TEST_CASE(statistics_are_the_engines)
{
   ba::unsynchronized_pool_resource u;
   void *a = u.allocate(24, 8);
   void *b = u.allocate(24, 8);
   {
      const ba::node_pool_statistics s = u.statistics();
      BOOST_TEST(s.nodes_in_use == 2u);
      BOOST_TEST(s.node_size == 24u);   // a class of 24 bytes: no rounding to 32
      BOOST_TEST(s.blocks == 1u);
   }
   u.deallocate(a, 24, 8);
   u.deallocate(b, 24, 8);
   BOOST_TEST(u.statistics().nodes_in_use == 0u);
   BOOST_TEST(u.release_free_blocks() == 1u);
   BOOST_TEST(u.statistics().blocks == 0u);

   ba::synchronized_pool_resource s;
   const std::size_t before = s.statistics().nodes_in_use;
   void *c = s.allocate(200, 8);
   BOOST_TEST(s.statistics().nodes_in_use >= before + 1);
   BOOST_TEST(s.statistics().bytes_held > 0u);
   s.deallocate(c, 200, 8);

   ba::heap_resource h;
   const std::size_t in_use = h.stats().in_use_bytes;
   void *d = h.allocate(1000);
   BOOST_TEST(h.stats().in_use_bytes >= in_use + 1000);
   h.deallocate(d, 1000);
   BOOST_TEST(ba::default_heap_resource()->stats().system_bytes > 0u);
}

BOOST_AUTO_TEST_CASE(release_gives_every_pool_block_back)
{
   ba::unsynchronized_pool_resource u;
   for (int i = 0; i < 1000; ++i) (void)u.allocate(16, 8);   // dies with release()
   BOOST_TEST(u.statistics().blocks > 0u);
   u.release();
   BOOST_TEST(u.statistics().blocks == 0u);
   void *p = u.allocate(16, 8);   // usable again
   u.deallocate(p, 16, 8);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(an_upstream_that_runs_out_throws_and_containers_stay, Case, all_resources)
{
   if (!Case::pooled) return;   // the heap resources have no upstream
   auto c = std::make_unique<Case>();
   std::pmr::vector<int> v({1, 2, 3}, &c->get());
   std::pmr::list<int> l({4, 5, 6}, &c->get());
   c->upstream.exhausted = true;
   BOOST_CHECK_THROW(v.resize(1000), std::bad_alloc);   // 4000 bytes: upstream
   BOOST_TEST((v == std::pmr::vector<int>{1, 2, 3}));
   BOOST_CHECK_THROW((void)c->get().allocate(4096, 8), std::bad_alloc);
   l.push_back(7);   // a node: its pool, still served
   BOOST_TEST(l.size() == 4u);
   c->upstream.exhausted = false;
   v.resize(1000);
   BOOST_TEST(v.size() == 1000u);
}

BOOST_AUTO_TEST_CASE(a_full_arena_forwards_to_its_upstream_and_takes_its_blocks_back)
{
   alignas(std::max_align_t) static unsigned char buffer[8192];
   ba::arena a(buffer, sizeof buffer);
   counting_resource upstream;
   ba::arena_resource r(a, &upstream);
   BOOST_TEST(&r.arena() == &a);
   BOOST_TEST(r.upstream_resource() == &upstream);
   std::vector<void *> blocks;
   while (upstream.allocations == 0) blocks.push_back(r.allocate(1000, 8));
   BOOST_TEST(blocks.size() > 4u);   // the arena served the first ones
   BOOST_TEST(a.owns(blocks.front()));
   BOOST_TEST(!a.owns(blocks.back()));
   BOOST_TEST(r.statistics().bytes_allocated >= (blocks.size() - 1) * 1000);
   for (void *p : blocks) r.deallocate(p, 1000, 8);
   BOOST_TEST(upstream.live == 0u);   // the upstream's block went back to it, the others to the arena
   BOOST_TEST(r.statistics().bytes_allocated == 0u);
}

BOOST_AUTO_TEST_CASE(a_full_arena_without_upstream_throws_and_containers_stay)
{
   alignas(std::max_align_t) static unsigned char buffer[16384];
   ba::arena a(buffer, sizeof buffer);
   ba::arena_resource r(a);   // upstream: std::pmr::null_memory_resource()
   check_a_full_buffer_throws_and_containers_stay(r);
}

BOOST_AUTO_TEST_CASE(a_heap_over_a_full_buffer_throws_and_containers_stay)
{
   alignas(std::max_align_t) static unsigned char buffer[16384];
   ba::heap_resource r(buffer, sizeof buffer);
   check_a_full_buffer_throws_and_containers_stay(r);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(std_and_ba_containers_run_on_each, Case, all_resources)
{
   auto c = std::make_unique<Case>();
   std::pmr::memory_resource *r = &c->get();
   {
      std::pmr::list<int> l(r);
      std::pmr::map<int, int> m(r);
      std::pmr::unordered_map<int, int> u(r);
      std::pmr::vector<std::pmr::string> v(r);
      ba::vector<int, std::pmr::polymorphic_allocator<int>> bv(r);
      ba::list<int, std::pmr::polymorphic_allocator<int>> bl(r);
      for (int round = 0; round < 3; ++round) {
         for (int i = 0; i < 2000; ++i) {
            l.push_back(i);
            m[i] = i;
            u[i] = -i;
            bv.push_back(i);
            bl.push_front(i);
            if (i % 100 == 0) v.emplace_back(std::string(200, 'x') + std::to_string(i));
         }
         long sum = 0;
         for (int x : l) sum += x;
         BOOST_TEST(sum == 1999L * 2000 / 2);
         BOOST_TEST(m.size() == 2000u);
         BOOST_TEST(u.at(7) == -7);
         BOOST_TEST(bv[1234] == 1234);
         BOOST_TEST(bl.front() == 1999);
         BOOST_TEST(v.back().size() == 204u);
         BOOST_TEST(v.get_allocator().resource() == r);
         l.clear();
         m.clear();
         u.clear();
         bv.clear();
         bl.clear();
         v.clear();
      }
   }
   BOOST_TEST(c->upstream.live == 0u);
}

BOOST_AUTO_TEST_CASE(the_adaptive_resources_give_memory_back_as_containers_die)
{
   ba::unsynchronized_adaptive_pool_resource u;
   ba::synchronized_adaptive_pool_resource s;
   for (std::pmr::memory_resource *r : {static_cast<std::pmr::memory_resource *>(&u), static_cast<std::pmr::memory_resource *>(&s)}) {
      ba_thread_cache_flush();
      ba_heap_stats before;
      ba_stats(&before);
      {
         std::pmr::list<int> l(r);
         std::pmr::map<int, int> m(r);
         for (int i = 0; i < 50000; ++i) {
            l.push_back(i);
            m.emplace(i, i);
         }
      }
      ba_thread_cache_flush();   // (the threads' bins of the shared pools back to them)
      ba_heap_stats after;
      ba_stats(&after);
      // Two classes (the list's and the map's nodes), each keeping at most two free blocks.
      BOOST_TEST(after.in_use_bytes <= before.in_use_bytes + 2 * 2 * 64 * 1024);
   }
   const ba::adaptive_pool_statistics us = u.statistics();
   BOOST_TEST(us.nodes_in_use == 0u);
   BOOST_TEST(us.blocks == us.free_blocks);
   BOOST_TEST(us.free_blocks <= 4u);
   BOOST_TEST(s.statistics().nodes_in_use == 0u);
   BOOST_TEST(u.release_free_blocks() == us.blocks);
   BOOST_TEST(u.statistics().blocks == 0u);
}

BOOST_AUTO_TEST_CASE(the_adaptive_resources_refuse_bad_alignments)
{
   ba::unsynchronized_adaptive_pool_resource u;
   ba::synchronized_adaptive_pool_resource s;
   // (Alignments held in variables: a constant one that is not a power of two is a compile
   // error under Clang, which checks the argument memory_resource::allocate marks as one.)
   std::size_t three = 3, twelve = 12;
   BOOST_CHECK_THROW((void)u.allocate(24, three), std::bad_alloc);
   BOOST_CHECK_THROW((void)s.allocate(24, twelve), std::bad_alloc);
}

#if BOOST_ALLOCPLUS_CHECKED
#include "support/usage_reports.hpp"

BOOST_AUTO_TEST_CASE(the_adaptive_pools_misuse_checks_are_reached_through_the_resources)
{
   ba::unsynchronized_adaptive_pool_resource u;
   void *p = u.allocate(24, 8);
   void *q = u.allocate(24, 8);
   allocplus_test::expect_report([&] { u.deallocate(p, 24, 8); u.deallocate(p, 24, 8); },
                                 "ba::unsynchronized_adaptive_pool_resource: double free of a node", p);
   alignas(16) static unsigned char foreign[32];
   allocplus_test::expect_report([&] { u.deallocate(foreign, 24, 8); },
                                 "ba::unsynchronized_adaptive_pool_resource: a pointer that did not come from this pool is freed",
                                 foreign);
   u.deallocate(p, 24, 8);
   u.deallocate(q, 24, 8);
   ba::synchronized_adaptive_pool_resource s;
   allocplus_test::expect_report([&] { s.deallocate(foreign, 24, 8); },
                                 "ba::synchronized_adaptive_pool_resource: a pointer that did not come from this pool is freed",
                                 foreign);
}

BOOST_AUTO_TEST_CASE(the_pools_misuse_checks_are_reached_through_the_resources)
{
   ba::unsynchronized_pool_resource u;
   void *p = u.allocate(24, 8);
   void *q = u.allocate(24, 8);
   allocplus_test::expect_report([&] { u.deallocate(p, 24, 8); u.deallocate(p, 24, 8); },
                                 "ba::unsynchronized_pool_resource: double free of a node", p);
   alignas(16) static unsigned char foreign[32];
   allocplus_test::expect_report([&] { u.deallocate(foreign, 24, 8); },
                                 "ba::unsynchronized_pool_resource: a pointer that did not come from this pool is freed",
                                 foreign);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // (Aligned and inside the pool's blocks, not a node's start: the lookup, level 2.)
   void *inside = static_cast<char *>(q) + 8;
   allocplus_test::expect_report([&] { u.deallocate(inside, 24, 8); },
                                 "ba::unsynchronized_pool_resource: a pointer that did not come from this pool is freed",
                                 inside);
#endif
   u.deallocate(p, 24, 8);
   u.deallocate(q, 24, 8);

   ba::synchronized_pool_resource s;
   void *a = s.allocate(24, 8);
   void *b = s.allocate(24, 8);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // (A node freed twice while it waits in the thread's bin: a walk of the bin, level 2.)
   allocplus_test::expect_report([&] { s.deallocate(a, 24, 8); s.deallocate(b, 24, 8); s.deallocate(a, 24, 8); },
                                 "ba::synchronized_pool_resource: double free of a node (held in a thread's bin)", a);
#endif
   allocplus_test::expect_report([&] { s.deallocate(foreign, 24, 8); },
                                 "ba::synchronized_pool_resource: a pointer that did not come from this pool is freed",
                                 foreign);
   s.deallocate(a, 24, 8);
   s.deallocate(b, 24, 8);

   alignas(std::max_align_t) static unsigned char buffer[4096];
   ba::arena arena(buffer, sizeof buffer);
   ba::arena_resource r(arena);
   void *c = r.allocate(40, 8);
   void *d = r.allocate(40, 8);   // (so that c does not go back to the bump pointer)
   allocplus_test::expect_report([&] { r.deallocate(c, 40, 8); r.deallocate(c, 40, 8); },
                                 "ba::arena::deallocate: a block freed twice, not from this arena, or its header overwritten", c);
   r.deallocate(c, 40, 8);
   r.deallocate(d, 40, 8);
   // The arena is empty again, c in the room past its bump pointer: still the arena's to report.
   allocplus_test::expect_report([&] { r.deallocate(c, 40, 8); },
                                 "ba::arena::deallocate: a block freed twice, not from this arena, or its header overwritten", c);
}
#endif

BOOST_AUTO_TEST_CASE(a_node_freed_twice_in_a_row_is_reported_in_every_build)
{
   ba::unsynchronized_pool_resource u;
   void *p = u.allocate(24, 8);
   const child_outcome out = run_in_child([&] { u.deallocate(p, 24, 8); u.deallocate(p, 24, 8); });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("ba::unsynchronized_pool_resource: double free") != std::string::npos);
   u.deallocate(p, 24, 8);
}
