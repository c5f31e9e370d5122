// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Eight threads on ba::allocator (the default heap) and on one locked ba::heap: allocations,
// every allocation_command, bursts, and blocks freed by a thread other than the one that
// allocated them. Every block carries a pattern that is checked before it is freed, and the heaps
// are checked at the end. Then threads that build ba::vectors at once, small ones from their
// caches and large ones growing in place under the default heap's lock
// (core/detail/thread_cache.h), and hand vectors to each other to destroy. Runs under TSan (label `thread`).

#define BOOST_TEST_MODULE allocplus allocator thread stress
#include "core/core_test_kit.hpp"
#include "core/test_scale.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

constexpr int threads = 8;

struct block {
   std::uint64_t *p;
   std::size_t n;      // objects the pattern covers
   std::uint32_t seed;
};

//! Items (blocks, vectors) handed from one thread to another, which checks and frees them.
template <class Item>
class mailbox {
public:
   void post(Item item)
   {
      std::lock_guard<std::mutex> lock(m_);
      items_.push_back(std::move(item));
   }
   std::vector<Item> take()
   {
      std::lock_guard<std::mutex> lock(m_);
      std::vector<Item> r;
      r.swap(items_);
      return r;
   }

private:
   std::mutex m_;
   std::vector<Item> items_;
};

struct splitmix {
   std::uint64_t s;
   std::uint64_t next()
   {
      std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
   }
   std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

template <class A>
void worker(A a, int id, std::size_t steps, mailbox<block> *boxes, std::atomic<int> &errors)
{
   splitmix rng{seed(0xA110C) + static_cast<std::uint64_t>(id) * 7919u};
   std::vector<block> mine;
   auto check = [&](const block &b) {
      if (!holds_pattern(b.p, b.n * 8, b.seed)) errors.fetch_add(1);
   };
   auto add = [&](std::uint64_t *p, std::size_t n) {
      block b{p, n, static_cast<std::uint32_t>(rng.next())};
      fill(p, n * 8, b.seed);
      mine.push_back(b);
   };
   for (std::size_t step = 0; step != steps; ++step) {
      switch (rng.below(8)) {
      case 0:
      case 1: {
         std::size_t n = 1 + rng.below(rng.below(4) == 0 ? 5000 : 64);
         add(a.allocate(n), n);
         break;
      }
      case 2: {   // grow one in place (forward and backward), or move it to a new block
         if (mine.empty()) break;
         block &b = mine[rng.below(mine.size())];
         check(b);
         std::uint64_t *reuse = b.p;
         std::size_t pref = b.n * 2 + 1;
         std::uint64_t *r = a.allocation_command(ba::allocate_new | ba::expand_fwd | ba::expand_bwd, b.n + 1, pref, reuse);
         if (!reuse) {   // new block: copy, free the old
            std::memcpy(r, b.p, b.n * 8);
            a.deallocate(b.p, b.n);
         } else if (r != b.p) {   // backward: the old objects are where they were
            std::memmove(r, b.p, b.n * 8);
         }
         b.p = r;
         if (!holds_pattern(b.p, b.n * 8, b.seed)) errors.fetch_add(1);
         fill(b.p, pref * 8, b.seed);
         b.n = pref;
         break;
      }
      case 3: {   // shrink one in place
         if (mine.empty()) break;
         block &b = mine[rng.below(mine.size())];
         std::uint64_t *reuse = b.p;
         std::size_t min = b.n / 2;
         if (a.allocation_command(ba::shrink_in_place | ba::nothrow_allocation, a.size(b.p), min, reuse)) {
            if (min < b.n) b.n = min;
         }
         check(b);
         break;
      }
      case 4: {   // a burst of nodes and one of arrays
         typename A::multiallocation_chain chain;
         a.allocate_individual(1 + rng.below(50), chain);
         const std::size_t sizes[] = {1 + rng.below(10), 1 + rng.below(300), 2};
         a.allocate_many(sizes, 3, chain);
         while (!chain.empty()) {
            std::uint64_t *p = chain.pop_front();
            add(p, 1);
         }
         break;
      }
      case 5: {   // free some in one burst
         typename A::multiallocation_chain chain;
         for (int k = 0; k != 8 && !mine.empty(); ++k) {
            block b = mine.back();
            mine.pop_back();
            check(b);
            chain.push_back(b.p);
         }
         a.deallocate_many(chain);
         break;
      }
      case 6: {   // hand one to the next thread
         if (mine.empty()) break;
         boxes[(id + 1) % threads].post(mine.back());
         mine.pop_back();
         break;
      }
      default: {   // free one, and whatever others sent
         if (!mine.empty()) {
            std::size_t i = rng.below(mine.size());
            check(mine[i]);
            a.deallocate(mine[i].p, mine[i].n);
            mine[i] = mine.back();
            mine.pop_back();
         }
         for (const block &b : boxes[id].take()) {
            check(b);
            a.deallocate(b.p, b.n);
         }
      }
      }
      if (mine.size() > 400) {
         for (const block &b : mine) {
            check(b);
            a.deallocate(b.p, b.n);
         }
         mine.clear();
      }
   }
   for (const block &b : mine) {
      check(b);
      a.deallocate(b.p, b.n);
   }
}

template <class A>
int run(A a, std::size_t steps)
{
   mailbox<block> boxes[threads];
   std::atomic<int> errors{0};
   std::vector<std::thread> pool;
   for (int i = 0; i != threads; ++i) pool.emplace_back(worker<A>, a, i, steps, boxes, std::ref(errors));
   for (std::thread &t : pool) t.join();
   for (int i = 0; i != threads; ++i)
      for (const block &b : boxes[i].take()) {
         if (!holds_pattern(b.p, b.n * 8, b.seed)) errors.fetch_add(1);
         a.deallocate(b.p, b.n);
      }
   return errors.load();
}

} // namespace

BOOST_AUTO_TEST_CASE(eight_threads_on_the_default_heap)
{
   const std::size_t steps = scaled(40000, 500);
   BOOST_TEST_MESSAGE("8 threads x " << steps << " steps on ba::allocator (seed " << seed(0xA110C) << ")");
   BOOST_TEST(run(ba::allocator<std::uint64_t>(), steps) == 0);
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(eight_threads_on_one_locked_heap)
{
   const std::size_t steps = scaled(20000, 300);
   ba::heap h;
   BOOST_TEST(run(ba::heap_allocator<std::uint64_t>(h), steps) == 0);
   BOOST_TEST(h.check());
   BOOST_TEST(h.stats().in_use_chunks == 0u);
}

namespace {

using stress_vector = ba::vector<std::uint32_t>;

using vector_mailbox = mailbox<stress_vector>;

//! Whether v holds first, first + 1, ...
bool counts_up(const stress_vector &v, std::uint32_t first)
{
   for (std::size_t i = 0; i != v.size(); ++i)
      if (v[i] != static_cast<std::uint32_t>(first + i)) return false;   // (wraps as the elements did)
   return true;
}

void build_vectors(int id, std::size_t vectors, vector_mailbox *boxes, int count, std::atomic<int> &errors)
{
   splitmix rng{seed(0xB111D) + static_cast<std::uint64_t>(id) * 104729u};
   for (std::size_t i = 0; i != vectors; ++i) {
      // Mostly small vectors (the blocks the threads' caches serve), now and then one past them.
      const std::size_t n = 1 + rng.below(rng.below(8) == 0 ? 2000 : 60);
      const auto first = static_cast<std::uint32_t>(rng.next());
      stress_vector v;
      for (std::size_t e = 0; e != n; ++e) v.push_back(first + static_cast<std::uint32_t>(e));
      if (!counts_up(v, first)) errors.fetch_add(1);
      if (rng.below(4) == 0) {
         v.resize(n / 2);
         v.shrink_to_fit();
         if (!counts_up(v, first)) errors.fetch_add(1);
      }
      // Every vector carries its first value in front of it, for the thread that gets it.
      v.insert(v.begin(), first - 1);
      if (rng.below(3) == 0) boxes[(id + 1) % count].post(std::move(v));
      for (stress_vector &w : boxes[id].take())
         if (w.empty() || !counts_up(w, w.front())) errors.fetch_add(1);
   }
}

} // namespace

BOOST_AUTO_TEST_CASE(threads_build_vectors_at_once_and_destroy_each_others)
{
   for (int count : {2, 4}) {
      const std::size_t vectors = scaled(40000, 1000);
      BOOST_TEST_MESSAGE(count << " threads x " << vectors << " vectors (seed " << seed(0xB111D) << ")");
      std::vector<vector_mailbox> boxes(static_cast<std::size_t>(count));
      std::atomic<int> errors{0};
      std::vector<std::thread> pool;
      for (int i = 0; i != count; ++i)
         pool.emplace_back(build_vectors, i, vectors, boxes.data(), count, std::ref(errors));
      for (std::thread &t : pool) t.join();
      for (vector_mailbox &box : boxes)
         for (stress_vector &w : box.take())
            if (w.empty() || !counts_up(w, w.front())) errors.fetch_add(1);
      BOOST_TEST(errors.load() == 0);
      BOOST_TEST(ba_check(nullptr) == 1);
   }
}
