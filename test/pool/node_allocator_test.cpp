// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::node_allocator: the shared pool (detail/shared_node_pool.hpp) with per-thread bins from the
// core's thread caches: std containers and allocate_shared over it, frees from other threads,
// threads that exit with nodes in their bins, fork from a threaded program, a static container
// destroyed at exit. Built for TSan in CI (label `thread`).

#define BOOST_TEST_MODULE allocplus node_allocator
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/list.hpp>
#include <boost/allocplus/node_allocator.hpp>

#include "one_heap/child_process.hpp"
#include "support/burst_routes.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace ba = boost::allocplus;

namespace {

template <class T>
using na = ba::node_allocator<T>;

struct payload {
   std::uint64_t a, b, c;   // 24 bytes: a pool of its own size
};

// A static container over the pool: destroyed at exit, after the test's threads are gone. Its
// nodes (24 bytes) share the pool of payload's.
std::list<int, na<int>> static_list(100, 7);

std::size_t payload_nodes_in_use()
{
   ba_thread_cache_flush();   // the calling thread's bins back to the pools
   return na<payload>::statistics().nodes_in_use;
}

// The nodes of a chain, in its order.
template <class T>
std::vector<T *> nodes_of(ba::multiallocation_chain<T> &chain)
{
   std::vector<T *> nodes;
   for (auto it = chain.begin(); it != chain.end(); ++it) nodes.push_back(&*it);
   return nodes;
}

// The depot's tests: n nodes allocated one by one, and freed one by one.
template <class T>
std::vector<T *> allocate_one_by_one(na<T> &a, int n)
{
   std::vector<T *> nodes;
   for (int i = 0; i < n; ++i) nodes.push_back(a.allocate(1));
   return nodes;
}

template <class T>
void free_one_by_one(na<T> &a, const std::vector<T *> &nodes)
{
   for (T *p : nodes) a.deallocate(p, 1);
}

// Nodes sorted by address, none twice (checked).
template <class T>
std::vector<T *> sorted_distinct(std::vector<T *> nodes)
{
   std::sort(nodes.begin(), nodes.end());
   BOOST_TEST((std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end()));
   return nodes;
}

// How often a node lies below the one allocated before it, from nodes[first] on (0: in address
// order).
template <class T>
std::size_t descents(const std::vector<T *> &nodes, std::size_t first = 0)
{
   std::size_t count = 0;
   for (std::size_t i = first + 1; i < nodes.size(); ++i) count += nodes[i] < nodes[i - 1];
   return count;
}

// The most nodes a thread's bin of T's pool holds: two magazines.
template <class T>
std::size_t bin_capacity()
{
   return 2 * ba::detail::shared_node_pool::magazine_nodes(na<T>::statistics().node_size);
}

// Once every node of T's pool is freed: none is in use after the thread's bin goes back, and
// every block goes back to the heap.
template <class T>
void expect_every_block_goes_back()
{
   ba_thread_cache_flush();
   BOOST_TEST(na<T>::statistics().nodes_in_use == 0u);
   na<T>::release_free_blocks();
   BOOST_TEST(na<T>::statistics().blocks == 0u);
}

} // namespace

BOOST_AUTO_TEST_CASE(nodes_are_distinct_aligned_and_reused)
{
   na<payload> a;
   std::vector<payload *> nodes;
   for (int i = 0; i < 5000; ++i) {
      payload *p = a.allocate(1);
      BOOST_TEST(reinterpret_cast<std::uintptr_t>(p) % alignof(payload) == 0u);
      p->a = static_cast<std::uint64_t>(i);
      nodes.push_back(p);
   }
   std::vector<payload *> sorted = nodes;
   std::sort(sorted.begin(), sorted.end());
   BOOST_TEST((std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()));
   for (int i = 0; i < 5000; ++i) BOOST_TEST(nodes[static_cast<std::size_t>(i)]->a == static_cast<std::uint64_t>(i));
   payload *last = nodes.back();
   a.deallocate(last, 1);
   BOOST_TEST(a.allocate(1) == last);
   for (payload *p : nodes) a.deallocate(p, 1);
   BOOST_TEST((na<payload>() == na<int>()));
}

BOOST_AUTO_TEST_CASE(std_containers_and_allocate_shared)
{
   std::mt19937 rng(3);
   std::set<int, std::less<int>, na<int>> s;
   std::set<int> t;
   std::map<int, int, std::less<int>, na<std::pair<const int, int>>> m;
   for (int i = 0; i < 20000; ++i) {
      int k = static_cast<int>(rng() % 3000);
      if (rng() % 3) { s.insert(k); t.insert(k); m[k] = i; }
      else { s.erase(k); t.erase(k); m.erase(k); }
   }
   BOOST_TEST(std::equal(s.begin(), s.end(), t.begin(), t.end()));
   ba::list<int, na<int>> l(1000, 5);   // one burst
   BOOST_TEST(l.size() == 1000u);
   std::vector<std::shared_ptr<int>> v;
   for (int i = 0; i < 1000; ++i) v.push_back(std::allocate_shared<int>(na<void>(), i));
   for (int i = 0; i < 1000; ++i) BOOST_TEST(*v[static_cast<std::size_t>(i)] == i);
}

BOOST_AUTO_TEST_CASE(threads_free_each_others_nodes)
{
   // Each thread allocates nodes and hands half of them to the next thread, which frees them.
   const std::size_t before = payload_nodes_in_use();
   constexpr int threads = 8, rounds = 200, per_round = 256;
   std::vector<std::vector<payload *>> mailbox(threads);
   std::vector<std::mutex> locks(threads);
   std::atomic<long> bad{0};
   std::vector<std::thread> pool;
   for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
         na<payload> a;
         std::vector<payload *> mine;
         for (int r = 0; r < rounds; ++r) {
            for (int i = 0; i < per_round; ++i) {
               payload *p = a.allocate(1);
               p->a = static_cast<std::uint64_t>(t);
               p->b = static_cast<std::uint64_t>(r);
               mine.push_back(p);
            }
            std::vector<payload *> give(mine.begin() + per_round / 2, mine.end());
            mine.resize(per_round / 2);
            {
               std::lock_guard<std::mutex> g(locks[static_cast<std::size_t>((t + 1) % threads)]);
               auto &box = mailbox[static_cast<std::size_t>((t + 1) % threads)];
               box.insert(box.end(), give.begin(), give.end());
            }
            for (payload *p : mine) {
               if (p->a != static_cast<std::uint64_t>(t)) ++bad;
               a.deallocate(p, 1);
            }
            mine.clear();
            std::vector<payload *> got;
            {
               std::lock_guard<std::mutex> g(locks[static_cast<std::size_t>(t)]);
               got.swap(mailbox[static_cast<std::size_t>(t)]);
            }
            for (payload *p : got) {
               if (p->a != static_cast<std::uint64_t>((t + threads - 1) % threads)) ++bad;
               a.deallocate(p, 1);
            }
         }
      });
   }
   for (auto &th : pool) th.join();
   for (auto &box : mailbox)
      for (payload *p : box) na<payload>().deallocate(p, 1);
   BOOST_TEST(bad.load() == 0);
   // Every thread's bin went back to the pool when it exited.
   BOOST_TEST(payload_nodes_in_use() == before);
}

BOOST_AUTO_TEST_CASE(short_lived_threads_give_their_bins_back)
{
   const std::size_t before = payload_nodes_in_use();
   for (int i = 0; i < 200; ++i) {
      std::thread([] {
         std::list<payload, na<payload>> l(100);
         l.resize(10);   // 90 nodes freed into this thread's bin, then the thread exits
      }).join();
   }
   BOOST_TEST(payload_nodes_in_use() == before);
   // Their nodes are free in the pool again: the empty blocks can go back to the core.
   const std::size_t blocks = na<payload>::statistics().blocks;
   const std::size_t released = na<payload>::release_free_blocks();
   BOOST_TEST(released > 0u);
   BOOST_TEST(na<payload>::statistics().blocks == blocks - released);
}

BOOST_AUTO_TEST_CASE(fork_from_a_threaded_program)
{
   std::atomic<bool> stop{false};
   std::thread busy([&] {
      na<payload> a;
      while (!stop.load()) {
         std::vector<payload *> v;
         for (int i = 0; i < 100; ++i) v.push_back(a.allocate(1));
         for (payload *p : v) a.deallocate(p, 1);
      }
   });
   for (int k = 0; k < 20; ++k) {
      const child_outcome out = run_in_child([] {
         std::list<payload, na<payload>> l(1000);
         l.clear();
         std::set<int, std::less<int>, na<int>> s;
         for (int i = 0; i < 1000; ++i) s.insert(i);
      });
      BOOST_TEST(out.exited);
      BOOST_TEST(out.exit_code == 0);
   }
   stop = true;
   busy.join();
}

#if BOOST_ALLOCPLUS_CHECKED
#include "support/usage_reports.hpp"

BOOST_AUTO_TEST_CASE(checked_builds_report_misuse)
{
   na<payload> a;
   payload *p = a.allocate(1), *q = a.allocate(1);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // (A node freed twice while it waits in the thread's bin: found by a walk of the bin.)
   allocplus_test::expect_report([&] { a.deallocate(p, 1); a.deallocate(q, 1); a.deallocate(p, 1); },
                                 "ba::node_allocator: double free of a node (held in a thread's bin)", p);
#endif
   // (Checked before the thread's bin takes it: outside the span of the pool's blocks, or
   // misaligned, at level 1; not a node of the pool, at level 2.)
   payload other{};
   allocplus_test::expect_report([&] { a.deallocate(&other, 1); },
                                 "ba::node_allocator: a pointer that did not come from this pool is freed", &other);
   payload *misaligned = reinterpret_cast<payload *>(reinterpret_cast<char *>(p) + 4);
   allocplus_test::expect_report([&] { a.deallocate(misaligned, 1); },
                                 "ba::node_allocator: a pointer that did not come from this pool is freed", misaligned);
   a.deallocate(p, 1);
   a.deallocate(q, 1);
}
#endif

BOOST_AUTO_TEST_CASE(a_node_freed_twice_in_a_row_is_reported)
{
   na<payload> a;
   payload *p = a.allocate(1);
   const child_outcome out = run_in_child([&] { a.deallocate(p, 1); a.deallocate(p, 1); });
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("double free") != std::string::npos);
   a.deallocate(p, 1);
}

BOOST_AUTO_TEST_CASE(a_node_freed_twice_while_it_waits_in_a_threads_bin_is_reported)
{
   // q is freed between the two frees of p: p is no longer the bin's first node, but it carries
   // the pool's mark there (every build; under ASan, its poison).
   na<payload> a;
   payload *p = a.allocate(1), *q = a.allocate(1);
   const child_outcome out = run_in_child([&] {
      a.deallocate(p, 1);
      a.deallocate(q, 1);
      a.deallocate(p, 1);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("ba::node_allocator: double free of a node") != std::string::npos);
   a.deallocate(p, 1);
   a.deallocate(q, 1);
}

BOOST_AUTO_TEST_CASE(nodes_in_the_depot_count_as_free_and_go_back_with_their_blocks)
{
   // A thread frees many more nodes than its bin holds (two magazines): the older magazines go
   // to the pool's depot whole. They count as free at once, and release_free_blocks() gives
   // their blocks back.
   struct big {
      std::uint64_t w[7];   // 56 bytes: a pool no other test uses
   };
   using alloc = na<big>;
   alloc a;
   const std::vector<big *> nodes = allocate_one_by_one(a, 4096);
   free_one_by_one(a, nodes);
   // What the thread's bin holds (two magazines: 292 nodes, 128 at checking level 2) is all that
   // counts as used.
   BOOST_TEST(bin_capacity<big>() == (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE ? 128u : 292u));
   BOOST_TEST(alloc::statistics().nodes_in_use <= bin_capacity<big>());
   BOOST_TEST(alloc::statistics().free_nodes >= 4096u - bin_capacity<big>());
   // Freed again and again, the same nodes come back (from the bin, the depot, the pool).
   const std::vector<big *> again = allocate_one_by_one(a, 4096);
   BOOST_TEST((sorted_distinct(again) == sorted_distinct(nodes)));
   free_one_by_one(a, again);
   BOOST_TEST(alloc::statistics().blocks >= 4096u / 256u);
   expect_every_block_goes_back<big>();
}

BOOST_AUTO_TEST_CASE(a_threads_nodes_come_out_in_the_order_of_the_pools_list)
{
   // A thread's bin is filled from the pool's list (here: new blocks, carved in address order)
   // last first, so that the bin hands the nodes out in the list's order: a container built from
   // them is walked in address order.
   struct odd {
      std::uint64_t w[9];   // 72 bytes: a pool no other test uses
   };
   using alloc = na<odd>;
   alloc a;
   const std::vector<odd *> nodes = allocate_one_by_one(a, 8192);
   BOOST_TEST(descents(nodes) <= alloc::statistics().blocks);   // at most one a block (blocks from the heap)
   free_one_by_one(a, nodes);
   expect_every_block_goes_back<odd>();
}

BOOST_AUTO_TEST_CASE(a_burst_takes_the_nodes_parked_in_the_depot_before_new_blocks)
{
   // Nodes freed one by one (a std::list's) wait in the thread's bin and the depot; a burst (a
   // ba::list's insert of a range) takes those before it carves new blocks, so that a program
   // that frees one way and allocates the other does not grow.
   struct wide {
      std::uint64_t w[11];   // 88 bytes: a pool no other test uses
   };
   using alloc = na<wide>;
   alloc a;
   const std::vector<wide *> nodes = allocate_one_by_one(a, 2048);
   free_one_by_one(a, nodes);
   BOOST_TEST(alloc::statistics().free_nodes >= 2048u - bin_capacity<wide>());   // (the bin's at most)
   const std::size_t blocks = alloc::statistics().blocks;
   std::vector<ba::multiallocation_chain<wide>> bursts(180);
   for (auto &chain : bursts) a.allocate_individual(10, chain);   // 1800 nodes (1862 wait outside the bin)
   BOOST_TEST(alloc::statistics().blocks == blocks);
   std::vector<wide *> taken;
   for (auto &chain : bursts)
      for (auto it = chain.begin(); it != chain.end(); ++it) taken.push_back(&*it);
   const std::vector<wide *> sorted_taken = sorted_distinct(taken), sorted_nodes = sorted_distinct(nodes);
   BOOST_TEST(std::includes(sorted_nodes.begin(), sorted_nodes.end(), sorted_taken.begin(), sorted_taken.end()));
   for (auto &chain : bursts) a.deallocate_individual(chain);
   expect_every_block_goes_back<wide>();
}

BOOST_AUTO_TEST_CASE(a_bin_refilled_with_a_magazine_a_burst_shortened_is_topped_up_from_the_depot)
{
   // 1024 nodes (four whole blocks, 16 magazines of 64) freed one by one: the bin holds two
   // magazines, the depot the rest. A burst takes 10 nodes off the depot's last magazine; the
   // bin, once emptied, takes that shorter magazine and is topped up from the depot's next ones,
   // not from a new block.
   struct wider {
      std::uint64_t w[16];   // 128 bytes (magazines of 8192 / 128 nodes): a pool no other test uses
   };
   using alloc = na<wider>;
   alloc a;
   free_one_by_one(a, allocate_one_by_one(a, 1024));
   const std::size_t blocks = alloc::statistics().blocks;
   BOOST_TEST(blocks == 4u);
   ba::multiallocation_chain<wider> burst;
   a.allocate_individual(10, burst);
   BOOST_TEST(bin_capacity<wider>() == 128u);
   const std::vector<wider *> again = allocate_one_by_one(a, 200);   // the bin's 128, then refills
   BOOST_TEST(alloc::statistics().blocks == blocks);
   free_one_by_one(a, again);
   a.deallocate_individual(burst);
   expect_every_block_goes_back<wider>();
}

BOOST_AUTO_TEST_CASE(a_mostly_free_pool_takes_its_depot_back_and_hands_its_nodes_out_in_address_order)
{
   // A long-lived pool whose container died in an order of its own: its nodes wait in the depot
   // (the thread's lane), magazine by magazine in the order they were freed. Once they are as
   // many as are in use and more than a cache holds (3 MiB here), the next refill of the bin
   // puts the lane in address order: a container built from them is walked in order.
   struct alignas(16) tall {
      std::uint64_t w[5];   // 48 bytes aligned to 16: a pool no other test uses
   };
   using alloc = na<tall>;
   alloc a;
   std::vector<tall *> nodes = allocate_one_by_one(a, 65536);
   std::shuffle(nodes.begin(), nodes.end(), std::mt19937(25));
   free_one_by_one(a, nodes);
   const std::size_t blocks = alloc::statistics().blocks;
   const std::vector<tall *> again = allocate_one_by_one(a, 32768);
   BOOST_TEST(alloc::statistics().blocks == blocks);   // the freed nodes, no new block
   // The first come from the thread's bin (those freed last); every refill after them from the
   // lane, in address order.
   BOOST_TEST(descents(again, bin_capacity<tall>()) == 0u);
   free_one_by_one(a, again);
   expect_every_block_goes_back<tall>();
}

namespace {

// Runs step(0), step(1), ... step(steps - 1) of a thread made here, each when the calling thread
// calls next() (which returns once the step is done); join() (or the destructor) waits for the
// thread to end.
class stepped_thread {
public:
   template <class Step>
   stepped_thread(int steps, Step step)
      : thread_([this, steps, step] {
           for (int i = 0; i < steps; ++i) {
              wait_for(2 * i + 1);
              step(i);
              advance();
           }
        })
   {
   }
   ~stepped_thread() { join(); }
   //! Waits for the thread to end (its bins given back).
   void join()
   {
      if (thread_.joinable()) thread_.join();
   }
   void next()
   {
      int done;
      {
         std::lock_guard<std::mutex> lock(mutex_);
         done = ++turn_ + 1;
         changed_.notify_all();
      }
      wait_for(done);
   }

private:
   void advance()
   {
      std::lock_guard<std::mutex> lock(mutex_);
      ++turn_;
      changed_.notify_all();
   }
   void wait_for(int turn)
   {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return turn_ >= turn; });
   }
   std::mutex mutex_;
   std::condition_variable changed_;
   int turn_ = 0;
   std::thread thread_;
};

// The share of nodes that are among mine.
template <class T>
double share_among(const std::vector<T *> &nodes, std::vector<T *> mine)
{
   std::sort(mine.begin(), mine.end());
   std::size_t found = 0;
   for (T *p : nodes) found += std::binary_search(mine.begin(), mine.end(), p);
   return static_cast<double>(found) / static_cast<double>(nodes.size());
}

} // namespace

BOOST_AUTO_TEST_CASE(a_thread_takes_back_the_nodes_it_freed_before_another_threads)
{
   // This thread frees its nodes, then another thread frees its own: both threads' magazines
   // wait in the depot, the other's parked last. Allocating again, this thread gets its own
   // nodes back (its lane), not the other thread's, which lie between that thread's live ones.
   struct lane_node {
      std::uint64_t w[21];   // 168 bytes: a pool no other test uses
   };
   using alloc = na<lane_node>;
   constexpr int n = 2048;   // 336 KiB a thread: the depot stays under 1 MiB (not given back)
   alloc a;
   std::vector<lane_node *> mine = allocate_one_by_one(a, n), theirs;
   stepped_thread other(2, [&](int step) {
      alloc b;
      if (step == 0) theirs = allocate_one_by_one(b, n);
      if (step == 1) free_one_by_one(b, theirs);
   });
   other.next();   // it allocates
   free_one_by_one(a, mine);
   other.next();   // it frees: its magazines are parked after this thread's
   const std::vector<lane_node *> again = allocate_one_by_one(a, n);
   BOOST_TEST(share_among(again, mine) == 1.0);
   free_one_by_one(a, again);
   other.join();   // (and its bin goes back)
   expect_every_block_goes_back<lane_node>();
}

// The share of the units of memory (pages: 2^12 bytes; cache lines: 2^6) holding nodes of `mine`
// that hold nodes of `theirs` too.
template <class T>
double units_shared(const std::vector<T *> &mine, const std::vector<T *> &theirs, unsigned unit_log2)
{
   auto units_of = [unit_log2](const std::vector<T *> &nodes) {
      std::vector<std::uintptr_t> units;
      for (T *p : nodes) {
         units.push_back(reinterpret_cast<std::uintptr_t>(p) >> unit_log2);
         units.push_back((reinterpret_cast<std::uintptr_t>(p) + sizeof(T) - 1) >> unit_log2);
      }
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
      return units;
   };
   const std::vector<std::uintptr_t> a = units_of(mine), b = units_of(theirs);
   std::vector<std::uintptr_t> both;
   std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
   return static_cast<double>(both.size()) / static_cast<double>(a.size());
}
template <class T>
double pages_shared(const std::vector<T *> &mine, const std::vector<T *> &theirs)
{
   return units_shared(mine, theirs, 12);
}
template <class T>
double lines_shared(const std::vector<T *> &mine, const std::vector<T *> &theirs)
{
   return units_shared(mine, theirs, 6);
}

BOOST_AUTO_TEST_CASE(two_threads_taking_nodes_in_turn_get_pages_of_their_own)
{
   // Two threads allocate in turn, 100 nodes at a time (fewer than a refill takes): each
   // thread's nodes from the pool come in runs, parked in its lane, so that the two threads'
   // nodes do not alternate block by block (every page of each would hold the other's nodes:
   // a walk of either's list leaves the prefetcher's stream at every block of the other's).
   struct alignas(16) turn_node {
      std::uint64_t w[4];   // 32 bytes aligned to 16: a pool no other test uses
   };
   using alloc = na<turn_node>;
   constexpr int turns = 200, per_turn = 100;   // 40 000 nodes, 1.2 MiB
   alloc a;
   std::vector<turn_node *> mine, theirs;
   stepped_thread other(turns + 1, [&](int step) {
      alloc b;
      if (step < turns) {
         const std::vector<turn_node *> made = allocate_one_by_one(b, per_turn);
         theirs.insert(theirs.end(), made.begin(), made.end());
      } else {
         free_one_by_one(b, theirs);
      }
   });
   for (int t = 0; t < turns; ++t) {
      const std::vector<turn_node *> made = allocate_one_by_one(a, per_turn);
      mine.insert(mine.end(), made.begin(), made.end());
      other.next();
   }
   // Runs of 64 KiB (16 pages) share a page with the other's at each end at most. (Before
   // runs, each refill took 256 nodes, two pages, in turn: 65% of each thread's pages held
   // nodes of the other.)
   BOOST_TEST(pages_shared(mine, theirs) < 0.2);
   BOOST_TEST(pages_shared(theirs, mine) < 0.2);
   BOOST_TEST(sorted_distinct(mine).size() == mine.size());
   free_one_by_one(a, mine);
   other.next();   // it frees its nodes
   other.join();
   expect_every_block_goes_back<turn_node>();
}

BOOST_AUTO_TEST_CASE(the_nodes_a_thread_that_ended_parked_are_taken_before_new_blocks)
{
   // A thread builds and frees 1000 nodes (less than a lane keeps as its thread's reserve) and
   // ends: its lane is nobody's, and this thread's next 1000 nodes are those, not new blocks.
   struct ended_node {
      std::uint64_t w[31];   // 248 bytes: a pool no other test uses
   };
   using alloc = na<ended_node>;
   constexpr int n = 1000;   // 242 KiB: under the reserve of 256 KiB
   alloc a;
   a.deallocate(a.allocate(1), 1);   // (this thread's bin of the pool first)
   std::thread([&] {
      alloc b;
      free_one_by_one(b, allocate_one_by_one(b, n));
   }).join();
   const std::size_t blocks = alloc::statistics().blocks;
   const std::vector<ended_node *> again = allocate_one_by_one(a, n);
   BOOST_TEST(alloc::statistics().blocks == blocks);
   free_one_by_one(a, again);
   expect_every_block_goes_back<ended_node>();
}

BOOST_AUTO_TEST_CASE(when_memory_is_out_a_refill_takes_another_threads_reserve)
{
   // Another thread, still alive, parked its nodes in its lane (its reserve: this thread's
   // refills leave them to it and take from the pool). With the heap at its footprint limit,
   // this thread gets those nodes before std::bad_alloc.
   struct reserved_node {
      std::uint64_t w[33];   // 264 bytes: a pool no other test uses
   };
   using alloc = na<reserved_node>;
   constexpr int n = 900;   // 232 KiB: under the reserve
   alloc a;
   a.deallocate(a.allocate(1), 1);
   stepped_thread other(2, [&](int step) {
      alloc b;
      if (step == 0) free_one_by_one(b, allocate_one_by_one(b, n));
   });
   other.next();   // it allocates and frees n nodes, and stays
   ba_thread_cache_flush();
   ba_heap *h = ba_default_heap();
   ba_heap_stats s;
   ba_stats(&s);
   const std::size_t previous = ba_heap_set_footprint_limit(h, s.system_bytes);
   std::vector<reserved_node *> got;
   try {
      for (int i = 0; i < 100 * n; ++i) got.push_back(a.allocate(1));
   } catch (const std::bad_alloc &) {
   }
   ba_heap_set_footprint_limit(h, previous);
   // (The other thread's bin keeps up to two magazines; its lane has the rest.)
   BOOST_TEST(got.size() >= n - bin_capacity<reserved_node>());
   free_one_by_one(a, got);
   other.next();
   other.join();
   expect_every_block_goes_back<reserved_node>();
}

BOOST_AUTO_TEST_CASE(a_thread_at_work_keeps_the_nodes_it_freed_between_its_live_ones)
{
   // Another thread, still alive, allocated nodes and freed every third, as a container that
   // churns does: its lane holds the freed ones (more than the reserve of 256 KiB, fewer than it
   // has in use), which lie between its live ones. This thread's refills take new nodes from the
   // pool, not those: its nodes would share cache lines with the other's (each write moving the
   // line between the cores; after one round of two threads' list churn, 35-41% of each
   // thread's lines held the other's nodes).
   struct churned_node {
      std::uint64_t w[22];   // 176 bytes: a pool no other test uses
   };
   using alloc = na<churned_node>;
   constexpr int n = 6000;   // every third freed: 344 KiB
   std::vector<churned_node *> theirs;
   stepped_thread other(2, [&](int step) {
      alloc b;
      if (step == 0) {
         std::vector<churned_node *> made = allocate_one_by_one(b, n), freed;
         for (int i = 0; i < n; ++i) (i % 3 == 2 ? freed : theirs).push_back(made[static_cast<std::size_t>(i)]);
         free_one_by_one(b, freed);
      } else {
         free_one_by_one(b, theirs);
      }
   });
   other.next();   // it allocates n nodes, frees every third, and stays
   alloc a;
   const std::vector<churned_node *> mine = allocate_one_by_one(a, n / 4);
   // (Before, it took the other's lane a run of 64 KiB at a time: 71% of these nodes' lines shared.)
   BOOST_TEST(lines_shared(mine, theirs) < 0.01);
   free_one_by_one(a, mine);
   other.next();   // it frees the rest
   other.join();
   expect_every_block_goes_back<churned_node>();
}

BOOST_AUTO_TEST_CASE(a_thread_that_only_allocates_takes_what_one_that_only_frees_parks)
{
   // A producer allocates nodes and a consumer frees them: the consumer's magazines wait in its
   // lane, and the producer, whose own lane stays empty, takes them. The pool does not grow with
   // the nodes passed (400 000 here; a pool that kept each lane to its thread would hold them all).
   struct passed_node {
      std::uint64_t w[23];   // 184 bytes: a pool no other test uses
   };
   using alloc = na<passed_node>;
   constexpr int rounds = 400, per_round = 1000;
   std::vector<passed_node *> box;
   bool full = false;
   std::mutex m;
   std::condition_variable changed;
   std::thread consumer([&] {
      alloc c;
      for (int r = 0; r < rounds; ++r) {
         std::vector<passed_node *> got;
         {
            std::unique_lock<std::mutex> lock(m);
            changed.wait(lock, [&] { return full; });
            got.swap(box);
            full = false;
            changed.notify_all();
         }
         free_one_by_one(c, got);
      }
   });
   alloc a;
   for (int r = 0; r < rounds; ++r) {
      std::vector<passed_node *> made = allocate_one_by_one(a, per_round);
      std::unique_lock<std::mutex> lock(m);
      changed.wait(lock, [&] { return !full; });
      box.swap(made);
      full = true;
      changed.notify_all();
   }
   consumer.join();
   // In flight at once: two rounds' nodes, the threads' bins and the magazines not yet taken.
   BOOST_TEST(alloc::statistics().blocks <= 40u);   // (10 240 nodes)
   expect_every_block_goes_back<passed_node>();
}

BOOST_AUTO_TEST_CASE(a_threads_lane_is_put_in_address_order)
{
   // Another thread keeps nodes of the pool in use, so the pool is not mostly free and its
   // depot does not go back to it; this thread frees more nodes of its own, more than a cache
   // holds (3 MiB), in an order of its own. When its bin next takes from its lane, the lane is
   // put in address order: the nodes come out lowest first.
   struct alignas(32) ordered_node {
      std::uint64_t w[10];   // 80 bytes aligned to 32: a pool no other test uses
   };
   using alloc = na<ordered_node>;
   constexpr int n = 65536;
   std::vector<ordered_node *> theirs;
   stepped_thread other(2, [&](int step) {
      alloc b;
      if (step == 0) theirs = allocate_one_by_one(b, n / 4);   // (4 free nodes for 1 in use: not mostly free, which takes 8)
      if (step == 1) free_one_by_one(b, theirs);
   });
   other.next();   // it allocates, and keeps its nodes
   alloc a;
   std::vector<ordered_node *> mine = allocate_one_by_one(a, n);
   std::shuffle(mine.begin(), mine.end(), std::mt19937(27));
   free_one_by_one(a, mine);
   const std::size_t blocks = alloc::statistics().blocks;
   const std::vector<ordered_node *> again = allocate_one_by_one(a, n / 2);
   BOOST_TEST(alloc::statistics().blocks == blocks);   // the freed nodes, no new block
   BOOST_TEST(share_among(again, mine) == 1.0);
   // The first come from the thread's bin (those freed last); every refill after them from the
   // lane, in address order.
   BOOST_TEST(descents(again, bin_capacity<ordered_node>()) == 0u);
   free_one_by_one(a, again);
   other.next();   // it frees its nodes
   other.join();   // (and its bin goes back)
   expect_every_block_goes_back<ordered_node>();
}

BOOST_AUTO_TEST_CASE(a_threads_lane_is_put_in_order_while_another_threads_nodes_live)
{
   // Whether a lane is put in order counts the nodes its own thread has in use, not the pool's:
   // another thread keeps twice as many nodes in use as this thread frees (shuffled), and this
   // thread's next nodes still come out in address order.
   struct big_node {
      std::uint64_t w[25];   // 200 bytes: a pool no other test uses
   };
   using alloc = na<big_node>;
   constexpr int n = 16384;   // 3.2 MiB
   std::vector<big_node *> theirs;
   stepped_thread other(2, [&](int step) {
      alloc b;
      if (step == 0) theirs = allocate_one_by_one(b, 2 * n);
      if (step == 1) free_one_by_one(b, theirs);
   });
   other.next();   // it allocates, and keeps its nodes
   alloc a;
   std::vector<big_node *> mine = allocate_one_by_one(a, n);
   std::shuffle(mine.begin(), mine.end(), std::mt19937(28));
   free_one_by_one(a, mine);
   const std::vector<big_node *> again = allocate_one_by_one(a, n / 2);
   BOOST_TEST(share_among(again, mine) == 1.0);
   BOOST_TEST(descents(again, bin_capacity<big_node>()) == 0u);
   free_one_by_one(a, again);
   other.next();
   other.join();
   expect_every_block_goes_back<big_node>();
}

BOOST_AUTO_TEST_CASE(two_threads_put_their_lanes_in_order_at_once_and_keep_their_nodes)
{
   // Each of two threads builds, checks and frees (shuffled) 2.8 MiB of nodes, four times at
   // once: from the second time, each puts its lane in order outside the pool's lock while the
   // other takes nodes. No node is handed to both, none is written by the pool while in use (its
   // first word, where a free node's link goes, included; under TSan: no race), and each
   // thread's nodes come out in address order.
   struct stamped_node {
      std::uint64_t w[27];   // 216 bytes: a pool no other test uses
   };
   using alloc = na<stamped_node>;
   constexpr int n = 13600;
   constexpr int rounds = 4;
   std::vector<stamped_node *> held[2];
   std::size_t late_descents[2] = {0, 0}, changed_nodes[2] = {0, 0};   // (checked by the main thread)
   std::mutex m;
   std::condition_variable changed;
   int arrived = 0;
   auto wait_for_both = [&](int phase) {
      std::unique_lock<std::mutex> lock(m);
      ++arrived;
      changed.notify_all();
      changed.wait(lock, [&] { return arrived >= 2 * phase; });
   };
   auto work = [&](int self) {
      alloc a;
      std::mt19937 shuffler(static_cast<unsigned>(29 + self));
      for (int round = 0; round < rounds; ++round) {
         std::vector<stamped_node *> &nodes = held[self];
         nodes = allocate_one_by_one(a, n);
         for (std::size_t i = 0; i != nodes.size(); ++i)
            nodes[i]->w[0] = nodes[i]->w[1] = nodes[i]->w[26] = (std::uint64_t(self) << 32) | i;
         if (round != 0) late_descents[self] += descents(nodes, bin_capacity<stamped_node>());
         wait_for_both(2 * round + 1);   // both hold their nodes
         for (std::size_t i = 0; i != nodes.size(); ++i) {
            const std::uint64_t stamp = (std::uint64_t(self) << 32) | i;
            changed_nodes[self] += nodes[i]->w[0] != stamp || nodes[i]->w[1] != stamp || nodes[i]->w[26] != stamp;
         }
         wait_for_both(2 * round + 2);   // both checked
         std::shuffle(nodes.begin(), nodes.end(), shuffler);
         free_one_by_one(a, nodes);
      }
   };
   std::thread second(work, 1);
   work(0);
   second.join();
   BOOST_TEST(changed_nodes[0] + changed_nodes[1] == 0u);
   BOOST_TEST(late_descents[0] == 0u);
   BOOST_TEST(late_descents[1] == 0u);
   expect_every_block_goes_back<stamped_node>();
}

BOOST_AUTO_TEST_CASE(a_lane_put_in_order_by_a_bursts_refill_keeps_the_depots_counts)
{
   // Bursts through the thread's bin leave magazines short in its lane; when a burst's refill
   // then puts the lane in order, its nodes end in fewer magazines than it had, and the depot
   // counts them so: a walk of the whole depot (release_free_blocks) finds every magazine it
   // counts.
   auto &pool = ba::detail::shared_node_pool_for<64, 8, 1000>();   // (a pool no other test uses)
   const std::size_t batch = pool.magazine_nodes(64);
   auto burst = [&](std::size_t n) {
      std::vector<void *> nodes;
      pool.allocate_burst(n, [&](void *node) { nodes.push_back(node); });
      return nodes;
   };
   auto free_all = [&](const std::vector<void *> &nodes) {
      for (void *node : nodes) pool.deallocate(node);
   };
   std::vector<void *> theirs, live;
   std::thread([&] {
      for (int i = 0; i < 20000; ++i) theirs.push_back(pool.allocate());
      for (int i = 0; i < 8000; ++i) live.push_back(pool.allocate());   // in use: the pool is not mostly free
   }).join();
   {
      allocplus_test::bursts_through_bins steer(pool);
      std::vector<void *> mine;
      for (int i = 0; i < 1500; ++i) mine.push_back(pool.allocate());
      free_all(mine);
      // (The nodes in this thread's bin: all in use but theirs and the live ones.)
      auto in_bin = [&] { return pool.statistics().nodes_in_use - live.size() - theirs.size(); };
      for (int i = 0; i < 4; ++i) free_all(burst(in_bin() + batch - 1));   // the bin, and most of a magazine
      std::shuffle(theirs.begin(), theirs.end(), std::mt19937(31));
      free_all(theirs);   // 1.2 MiB into this thread's lane, scattered
      theirs.clear();
      free_all(burst(in_bin() + 1));   // a refill: the lane is put in order
   }
   BOOST_TEST(pool.release_free_blocks() > 0u);
   free_all(live);
   ba_thread_cache_flush();
   BOOST_TEST(pool.statistics().nodes_in_use == 0u);
   pool.release_free_blocks();
   BOOST_TEST(pool.statistics().blocks == 0u);
}

BOOST_AUTO_TEST_CASE(a_pool_whose_nodes_all_wait_in_its_depot_starts_over)
{
   // A thread fills the pool and frees every node, shuffled, then exits: its bin goes back to the
   // pool, the rest waits in the depot. The next refill gives the depot back: nothing is in use,
   // so the pool starts over, its blocks handed out again from the lowest, in address order.
   struct alignas(32) deep {
      std::uint64_t w[6];   // 64 bytes aligned to 32: a pool no other test uses
   };
   using alloc = na<deep>;
   std::thread([] {
      alloc a;
      std::vector<deep *> nodes = allocate_one_by_one(a, 32768);   // 2 MiB
      std::shuffle(nodes.begin(), nodes.end(), std::mt19937(26));
      free_one_by_one(a, nodes);
   }).join();
   const std::size_t blocks = alloc::statistics().blocks;
   BOOST_TEST(alloc::statistics().nodes_in_use == 0u);   // (the depot's nodes count as free)
   alloc a;
   const std::vector<deep *> again = allocate_one_by_one(a, 32768);
   BOOST_TEST(alloc::statistics().blocks == blocks);
   BOOST_TEST(descents(again) <= blocks);   // at most one a block (blocks from the heap)
   free_one_by_one(a, again);
   expect_every_block_goes_back<deep>();
}

BOOST_AUTO_TEST_CASE(a_node_of_one_word_freed_twice_is_reported_when_the_depot_is_put_in_order)
{
   // A node of one word has no room for the pool's mark: freed twice, but not in a row, it
   // waits in the depot twice. When the thread's lane is put in address order (or the depot goes
   // back to the pool, which orders it), the node found twice is reported (under ASan, its
   // poison at the second free).
   using alloc = na<std::uint64_t>;
   alloc a;
   const std::vector<std::uint64_t *> nodes = allocate_one_by_one(a, 200000);   // 1.5 MiB
   const child_outcome out = run_in_child([&] {
      free_one_by_one(a, std::vector<std::uint64_t *>(nodes.begin(), nodes.end() - 1000));
      a.deallocate(nodes[10], 1);   // long since parked in the depot
      free_one_by_one(a, std::vector<std::uint64_t *>(nodes.end() - 1000, nodes.end()));   // it is parked again
      allocate_one_by_one(a, 1000);   // the bin empties; a refill orders the lane
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("ba::node_allocator: double free of a node") != std::string::npos);
   free_one_by_one(a, nodes);
}

// (Under ASan the test's own write after free is what is reported.)
#if !defined(BOOST_ALLOCPLUS_CORE_ASAN)
BOOST_AUTO_TEST_CASE(a_link_overwritten_in_a_threads_bin_is_reported_when_the_bin_goes_back)
{
   const child_outcome out = run_in_child([] {
      std::thread([] {
         na<payload> a;
         payload *p = a.allocate(1), *q = a.allocate(1);
         a.deallocate(q, 1);
         a.deallocate(p, 1);   // the thread's bin: p -> q
         volatile std::uintptr_t *link = reinterpret_cast<volatile std::uintptr_t *>(p);
         *link = *link ^ 0x4u;   // a write after free (a misaligned link)
      }).join();                // the bin goes back to the pool at the thread's exit
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("ba::node_allocator: a free node's link is overwritten (a write after free?)") !=
              std::string::npos);
}
#endif

// The bursts' route through the threads' bins (shared_node_pool.hpp's bursts_through_bins), taken
// while threads contend for the pool's lock.

BOOST_AUTO_TEST_CASE(bursts_through_a_threads_bin_hand_out_distinct_nodes_and_take_them_all_back)
{
   // Ranges of 10 (from the bin, refilled under the lock) and of 1000 (more than a bin holds)
   // allocated, written, checked and freed through the thread's bin: every node distinct and
   // intact, counted in use while the program or the bin holds it, and every block back at the
   // end.
   struct s96 {
      std::uint64_t w[12];   // 96 bytes: a pool no other test uses
   };
   using alloc = na<s96>;
   alloc a;
   allocplus_test::bursts_through_bins<ba::detail::shared_node_pool> steer(allocplus_test::node_allocator_pool_of<s96>());
   std::vector<ba::multiallocation_chain<s96>> bursts(60);
   for (std::size_t i = 0; i != bursts.size(); ++i) a.allocate_individual(i % 20 == 7 ? 1000 : 10, bursts[i]);
   std::vector<s96 *> all;
   for (auto &chain : bursts) {
      const std::vector<s96 *> nodes = nodes_of(chain);
      all.insert(all.end(), nodes.begin(), nodes.end());
   }
   BOOST_TEST(all.size() == 57u * 10u + 3u * 1000u);
   BOOST_TEST(sorted_distinct(all).size() == all.size());
   for (std::size_t i = 0; i != all.size(); ++i) all[i]->w[1] = all[i]->w[11] = i;   // (the first word links the chain)
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE   // (level 2: bursts go to the pool, which checks each node)
   {
      // A small burst freed goes into the thread's bin, where its nodes still count as in use,
      // and the next small burst takes them back from there.
      ba::multiallocation_chain<s96> few;
      a.allocate_individual(5, few);
      const std::vector<s96 *> freed = nodes_of(few);
      const std::size_t in_use = alloc::statistics().nodes_in_use;
      a.deallocate_individual(few);
      BOOST_TEST(alloc::statistics().nodes_in_use == in_use);
      a.allocate_individual(5, few);
      BOOST_TEST((sorted_distinct(nodes_of(few)) == sorted_distinct(freed)));
      a.deallocate_individual(few);
   }
#endif
   ba_thread_cache_flush();
   BOOST_TEST(alloc::statistics().nodes_in_use == all.size());
   // Freed in an order other than the allocation's, a range of 1000 through a bin of 170.
   for (std::size_t i = bursts.size(); i-- != 0;) {
      for (auto it = bursts[i].begin(); it != bursts[i].end(); ++it) {
         const std::size_t at = static_cast<std::size_t>(std::find(all.begin(), all.end(), &*it) - all.begin());
         BOOST_TEST((it->w[1] == at && it->w[11] == at));
      }
      a.deallocate_individual(bursts[i]);
      BOOST_TEST(bursts[i].empty());
   }
   // Taken again: the same nodes (from the bin and the pool), no new block.
   const std::size_t blocks = alloc::statistics().blocks;
   ba::multiallocation_chain<s96> again;
   a.allocate_individual(all.size(), again);
   BOOST_TEST(alloc::statistics().blocks == blocks);
   a.deallocate_individual(again);
   expect_every_block_goes_back<s96>();
}

BOOST_AUTO_TEST_CASE(a_node_freed_twice_in_a_burst_through_a_threads_bin_is_reported)
{
   // The bin checks the pool's mark of every node of a burst, as the pool does (every build).
   struct s112 {
      std::uint64_t w[14];   // 112 bytes: a pool no other test uses
   };
   na<s112> a;
   auto &pool = allocplus_test::node_allocator_pool_of<s112>();
   ba::multiallocation_chain<s112> chain;
   {
      allocplus_test::bursts_through_bins<ba::detail::shared_node_pool> steer(pool);
      a.allocate_individual(5, chain);
   }
   s112 *const p = &*std::next(chain.begin(), 2);
   const child_outcome out = run_in_child([&] {
      allocplus_test::bursts_through_bins<ba::detail::shared_node_pool> steer(pool);
      a.deallocate_individual(chain);
      ba::multiallocation_chain<s112> again;
      again.push_front(p);
      a.deallocate_individual(again);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   // (Under ASan the node is poisoned in the bin: the chain's write into it is reported first.)
   BOOST_TEST(out.err.find("use-after-poison") != std::string::npos);
#else
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("double free") != std::string::npos);
#endif
   a.deallocate_individual(chain);
   expect_every_block_goes_back<s112>();
}

// (Level 2: every burst goes to the pool, which checks each node. Where the core is compiled apart,
// the pools have no thread caches and never see their lock wait.)
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
BOOST_AUTO_TEST_CASE(bursts_go_back_under_the_lock_once_nobody_contends_for_it)
{
   // Routed through the bins for two takes of the lock, bursts that find it free each time go
   // back to the lock after the second.
   struct s120 {
      std::uint64_t w[15];   // 120 bytes: a pool no other test uses
   };
   na<s120> a;
   auto &pool = allocplus_test::node_allocator_pool_of<s120>();
   pool.route_bursts_through_bins(2);
   BOOST_TEST(pool.bursts_through_bins());
   std::vector<ba::multiallocation_chain<s120>> bursts(2);
   a.allocate_individual(1000, bursts[0]);   // more than the bin holds: the lock once
   BOOST_TEST(pool.bursts_through_bins());
   a.allocate_individual(1000, bursts[1]);
   BOOST_TEST(!pool.bursts_through_bins());
   for (auto &chain : bursts) a.deallocate_individual(chain);
   expect_every_block_goes_back<s120>();
}

BOOST_AUTO_TEST_CASE(threads_that_wait_for_the_lock_send_bursts_through_their_bins)
{
   // Two threads making bursts of one pool at once: one waits for the lock sooner or later, and
   // the bursts then go through the threads' bins, each thread's values intact, every node back
   // at the end. (Run under TSan in CI.)
   struct s136 {
      std::uint64_t w[17];   // 136 bytes: a pool no other test uses
   };
   using alloc = na<s136>;
   auto &pool = allocplus_test::node_allocator_pool_of<s136>();
   std::atomic<bool> routed{false};
   std::atomic<int> torn{0};   // (Boost.Test's assertions are not for other threads)
   const auto work = [&](std::uint64_t id) {
      alloc a;
      std::mt19937 rng(static_cast<unsigned>(id));
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (int round = 0; round < 200 || (!routed.load() && std::chrono::steady_clock::now() < deadline); ++round) {
         std::vector<ba::multiallocation_chain<s136>> bursts(8);
         for (auto &chain : bursts) {
            a.allocate_individual(1 + rng() % 300, chain);
            for (auto it = chain.begin(); it != chain.end(); ++it) it->w[1] = it->w[16] = id;   // (the first word links the chain)
         }
         if (pool.bursts_through_bins()) routed = true;
         for (auto &chain : bursts) {
            for (auto it = chain.begin(); it != chain.end(); ++it)
               if (it->w[1] != id || it->w[16] != id) ++torn;
            a.deallocate_individual(chain);
         }
      }
   };
   std::thread other(work, 1);
   work(2);
   other.join();
   BOOST_TEST(torn.load() == 0);
   BOOST_TEST(routed.load());
   pool.route_bursts_through_bins(0);
   expect_every_block_goes_back<s136>();
}
#endif

BOOST_AUTO_TEST_CASE(fork_while_a_thread_makes_bursts_through_its_bin)
{
   // A thread makes bursts through its bin without a break while the program forks: each child
   // takes back the bins of the thread it does not have, as far as their links are sound, and
   // makes bursts and a std::list of its own over the same pool.
   struct s152 {
      std::uint64_t w[19];   // 152 bytes: a pool no other test uses
   };
   using alloc = na<s152>;
   allocplus_test::bursts_through_bins<ba::detail::shared_node_pool> steer(allocplus_test::node_allocator_pool_of<s152>());
   std::atomic<bool> stop{false};
   std::thread busy([&] {
      alloc a;
      for (std::size_t i = 0; !stop.load(); ++i) {
         ba::multiallocation_chain<s152> chain;
         a.allocate_individual(1 + i % 8, chain);   // (from the bin: the thread seldom needs the lock, which the fork holds)
         a.deallocate_individual(chain);
      }
   });
   for (int k = 0; k < 20; ++k) {
      const child_outcome out = run_in_child([] {
         alloc a;
         std::vector<ba::multiallocation_chain<s152>> bursts(20);
         for (auto &chain : bursts) a.allocate_individual(50, chain);
         for (auto &chain : bursts) a.deallocate_individual(chain);
         std::list<s152, alloc> l(1000);
      });
      BOOST_TEST_INFO("child stderr: " << out.err);
      BOOST_TEST(out.exited);
      BOOST_TEST(out.exit_code == 0);
   }
   stop = true;
   busy.join();
   expect_every_block_goes_back<s152>();
}
