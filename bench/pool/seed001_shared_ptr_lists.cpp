// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 001: std::allocate_shared over pool allocators (rebound from void to the control block),
// on singly linked lists whose links are std::shared_ptr.
//
//   seed001_shared_ptr_lists/5_sizes/<method>
//      five kinds of node (a shared_ptr to the next node and 0, 16, 32, 48 or 64 bytes of data:
//      16..80 bytes), 1000 lists of each, 200 nodes a list on average (1M live nodes), built
//      untimed, every node put in a list picked at random for it (precomputed), as the seed's
//      code does: the lists of one kind have nothing to do with those of another. A round drops
//      one list of each kind (its nodes freed one by one as the links cascade) and makes as many
//      nodes of each kind as a list holds on average (200: the number of live nodes stays the
//      same), interleaved (one of each kind, then the next), each pushed at the front of its
//      random list. Operation: one node made (and, on average, one freed).
//   seed001_shared_ptr_lists_same_list/5_sizes/<method>
//      the same, but the five nodes made together go to lists of the same number, and a round
//      drops the five lists of one number: the nodes of different sizes that are made together
//      also die together. A general heap lays those five nodes side by side, so a dropped list
//      of one kind brings the next kind's nodes into the cache and the TLB; a pool keeps each
//      size apart and cannot. It measures what that locality is worth (about 2x here): a
//      program whose objects of different sizes live and die together is better served by a
//      general heap than by pools.
//   seed001_shared_ptr_lists_idle_thread/5_sizes/<method>
//      the seed's row with one more thread alive, blocked for the whole run.
//   seed001_shared_ptr_lists_two_threads/5_sizes/<method>
//      the seed's row while a second thread runs the same rounds on lists of its own (made with
//      an allocator of its own), in a loop: the time is the first thread's.
//
// Methods: `new_shared_ptr` (std::shared_ptr<T>(new T): two allocations a node), `std_allocator`
// (std::allocate_shared with std::allocator<void>, which is std::make_shared: one allocation a
// node; the runner also runs it under the peer mallocs), and std::allocate_shared with
// `ba_node_allocator` (ba::node_allocator<void>: one shared pool per node size), `ba_private_node`
// (ba::private_node_allocator<void>: one pool per node size, shared by the allocator's copies),
// `boost_fast_pool` (Boost.Pool's fast_pool_allocator<void>), `boost_node_allocator_v1` / `_v2`
// and `boost_adaptive_pool_v1` / `_v2` (boost::container's), `pmr_unsync_pool`
// (std::pmr::polymorphic_allocator over an unsynchronized_pool_resource), and `pool_bound`: no
// allocator to use, the bound of what any pool can do (pool_bound_lists below).

#include <boost/allocplus/node_allocator.hpp>
#include <boost/allocplus/private_node_allocator.hpp>
#include <boost/container/adaptive_pool.hpp>
#include <boost/container/node_allocator.hpp>
#include <boost/pool/pool_alloc.hpp>

#include "benchmark_kit.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

constexpr std::size_t kLists = 1000;           // of each kind
constexpr std::size_t kRampNodes = 200000;     // of each kind: 200 a list
constexpr std::size_t kNodesPerRound = kRampNodes / kLists;   // of each kind: as many as a list holds
constexpr std::size_t kRounds = 64;            // precomputed rounds, cycled

template <std::size_t Steps>
struct list_node {
   std::shared_ptr<list_node> next;
   std::uint8_t data[Steps * 16];
};
template <>
struct list_node<0> {
   std::shared_ptr<list_node> next;
};

constexpr std::size_t kKinds = 5;

// The random list of each node, the same for every method: kKinds numbers a step (one for each
// kind), drawn apart or, for the same-list rows, one number used for all kinds.
struct plan {
   std::vector<std::uint16_t> ramp, rounds;
   explicit plan(bool same_list)
   {
      std::mt19937 rng(2017);
      auto draw = [&](std::vector<std::uint16_t> &steps, std::size_t count) {
         for (std::size_t i = 0; i < count; ++i) {
            auto list = static_cast<std::uint16_t>(rng() % kLists);
            for (std::size_t kind = 0; kind < kKinds; ++kind) {
               steps.push_back(list);
               if (!same_list) list = static_cast<std::uint16_t>(rng() % kLists);
            }
         }
      };
      draw(ramp, kRampNodes);
      draw(rounds, kRounds * kNodesPerRound);
   }
};
const plan &the_plan(bool same_list)
{
   static const plan apart(false), together(true);
   return same_list ? together : apart;
}

// The lists of the five kinds.
struct forest {
   std::vector<std::shared_ptr<list_node<0>>> l0 = std::vector<std::shared_ptr<list_node<0>>>(kLists);
   std::vector<std::shared_ptr<list_node<1>>> l1 = std::vector<std::shared_ptr<list_node<1>>>(kLists);
   std::vector<std::shared_ptr<list_node<2>>> l2 = std::vector<std::shared_ptr<list_node<2>>>(kLists);
   std::vector<std::shared_ptr<list_node<3>>> l3 = std::vector<std::shared_ptr<list_node<3>>>(kLists);
   std::vector<std::shared_ptr<list_node<4>>> l4 = std::vector<std::shared_ptr<list_node<4>>>(kLists);

   //! One node of each kind, the node of kind k pushed to list `lists[k]`.
   template <class Make>
   void push(Make &make, const std::uint16_t *lists)
   {
      push_one(make, l0, lists[0]);
      push_one(make, l1, lists[1]);
      push_one(make, l2, lists[2]);
      push_one(make, l3, lists[3]);
      push_one(make, l4, lists[4]);
   }
   void drop(std::size_t list)
   {
      l0[list].reset();
      l1[list].reset();
      l2[list].reset();
      l3[list].reset();
      l4[list].reset();
   }
   // Freed list by list, node by node (iteratively: no deep recursion in the destructors).
   void clear()
   {
      for (std::size_t i = 0; i < kLists; ++i) {
         unlink(l0[i]);
         unlink(l1[i]);
         unlink(l2[i]);
         unlink(l3[i]);
         unlink(l4[i]);
      }
   }

private:
   template <class Make, class Node>
   static void push_one(Make &make, std::vector<std::shared_ptr<Node>> &lists, std::size_t list)
   {
      std::shared_ptr<Node> n = make.template make<Node>();
      n->next = std::move(lists[list]);
      lists[list] = std::move(n);
   }
   template <class Node>
   static void unlink(std::shared_ptr<Node> &head)
   {
      while (head) head = std::move(head->next);
   }
};

struct with_new {
   template <class Node>
   std::shared_ptr<Node> make() { return std::shared_ptr<Node>(new Node()); }
};
template <class Alloc>
struct with_allocator {
   Alloc alloc;
   template <class Node>
   std::shared_ptr<Node> make() { return std::allocate_shared<Node>(alloc); }
};
// `pool_bound`: no allocator to use but the bound of what any pool can do here: a free list per
// node size, a push and a pop, nothing counted or checked, memory carved from a region of the
// thread's own (each thread of the two-thread row has lists of its own).
class pool_bound_lists {
public:
   static void *take(std::size_t count, std::size_t object_size)
   {
      const std::size_t bytes = count * object_size;   // (one node, or one small array: no overflow)
      const std::size_t size = (bytes + 15) & ~std::size_t(15);
      if (size > max_node) return ::operator new(bytes);
      void *&head = heads()[size / 16];
      if (void *p = head) {
         head = *static_cast<void **>(p);
         return p;
      }
      region &r = the_region();
      if (size > r.bytes - r.used) {
         r.bytes = std::size_t(64) << 20;   // (a region left behind is never reused: a bound's cost)
         r.base = static_cast<unsigned char *>(::operator new(r.bytes));
         r.used = 0;
      }
      void *p = r.base + r.used;
      r.used += size;
      return p;
   }
   static void give(void *p, std::size_t count, std::size_t object_size) noexcept
   {
      const std::size_t size = (count * object_size + 15) & ~std::size_t(15);
      if (size > max_node) return ::operator delete(p);
      void *&head = heads()[size / 16];
      *static_cast<void **>(p) = head;
      head = p;
   }

private:
   static constexpr std::size_t max_node = 256;
   struct region {
      unsigned char *base = nullptr;
      std::size_t bytes = 0, used = 0;
   };
   static void **heads()
   {
      thread_local void *lists[max_node / 16 + 1] = {};
      return lists;
   }
   static region &the_region()
   {
      thread_local region r;
      return r;
   }
};


struct with_pmr_pool {
   std::pmr::unsynchronized_pool_resource resource;
   std::pmr::polymorphic_allocator<void> alloc{&resource};
   template <class Node>
   std::shared_ptr<Node> make() { return std::allocate_shared<Node>(std::pmr::polymorphic_allocator<Node>(alloc)); }
};

// The lists of one thread, built, then changed round by round.
template <class Make>
class lists_at_work {
public:
   explicit lists_at_work(bool same_list) : plan_(the_plan(same_list)), make_(std::make_unique<Make>())
   {
      for (std::size_t i = 0; i < plan_.ramp.size(); i += kKinds) forest_.push(*make_, &plan_.ramp[i]);
   }
   lists_at_work(const lists_at_work &) = delete;
   lists_at_work &operator=(const lists_at_work &) = delete;
   ~lists_at_work() { forest_.clear(); }   // before make_, whose allocator the nodes came from

   //! One round: a list of each kind dropped, kNodesPerRound nodes of each kind made.
   void step()
   {
      forest_.drop(round_++ % kLists);
      for (std::size_t i = 0; i < kNodesPerRound; ++i) {
         forest_.push(*make_, &plan_.rounds[next_]);
         next_ = (next_ + kKinds) % plan_.rounds.size();
      }
   }

private:
   const plan &plan_;
   std::unique_ptr<Make> make_;
   forest forest_;   // after make_: destroyed before it
   std::size_t round_ = 0, next_ = 0;
};

using ba_bench::company;

//! The lists of a row, built once a process: Google Benchmark calls a benchmark's function again
//! for each trial of its iteration count and each repetition, and building 1M nodes each time took
//! four fifths of the run (and of every interleaved repetition). The rounds keep the number of
//! live nodes the same, so a later call goes on from the state the last one left. The lists of the
//! two rows used last are kept (ours and the peer of an interleaved pair); a third row's call
//! frees the older ones, so that a run of the whole program by hand holds two rows' lists, not
//! every row's. Freed at exit, before the pools (which are never destroyed).
class kept_lists_cache {
public:
   //! Returns: the lists of the row (kind: one per Lists type; variant: the row's company and
   //! list choice), built on first use.
   template <class Lists>
   static Lists &get(const void *kind, int variant, bool same_list)
   {
      std::vector<entry> &entries = all();
      for (entry &e : entries)
         if (e.kind == kind && e.variant == variant && e.same_list == same_list) {
            std::swap(e, entries.back());   // the latest used last
            return *static_cast<Lists *>(entries.back().lists.get());
         }
      if (entries.size() == 2) entries.erase(entries.begin());
      entries.push_back(entry{kind, variant, same_list,
                              holder(new Lists(same_list), [](void *p) { delete static_cast<Lists *>(p); })});
      return *static_cast<Lists *>(entries.back().lists.get());
   }

private:
   using holder = std::unique_ptr<void, void (*)(void *)>;
   struct entry {
      const void *kind;
      int variant;
      bool same_list;
      holder lists;
   };
   static std::vector<entry> &all()
   {
      static std::vector<entry> entries;
      return entries;
   }
};

template <class Make>
void bm_lists(benchmark::State &state, bool same_list, company others)
{
   std::unique_ptr<ba_bench::idle_thread> idle;
   std::unique_ptr<ba_bench::busy_thread<lists_at_work<Make>>> second;   // its lists drawn apart
   if (others == company::idle_thread) idle = std::make_unique<ba_bench::idle_thread>();
   if (others == company::second_worker)
      second = std::make_unique<ba_bench::busy_thread<lists_at_work<Make>>>(false);
   static const char kind = 0;   // one per allocator (instantiation of bm_lists)
   lists_at_work<Make> &lists = kept_lists_cache::get<lists_at_work<Make>>(&kind, static_cast<int>(others), same_list);
   for (auto _ : state) lists.step();
   state.SetLabel("time per node made (one freed, on average)");
   ba_bench::set_time_per_op(state, static_cast<double>(kKinds * kNodesPerRound));
}

struct variant {
   const char *table;
   bool same_list;
   company others;
};
constexpr variant kVariants[] = {{"seed001_shared_ptr_lists", false, company::none},
                                 {"seed001_shared_ptr_lists_same_list", true, company::none},
                                 {"seed001_shared_ptr_lists_idle_thread", false, company::idle_thread},
                                 {"seed001_shared_ptr_lists_two_threads", false, company::second_worker}};

template <class Make>
void register_method(const std::string &name)
{
   for (const variant &v : kVariants)
      ba_bench::register_benchmark(std::string(v.table) + "/5_sizes/" + name,
                                   [v](benchmark::State &state) { bm_lists<Make>(state, v.same_list, v.others); });
}

} // namespace

int main(int argc, char **argv)
{
   register_method<with_new>("new_shared_ptr");
   register_method<with_allocator<std::allocator<void>>>("std_allocator");
   register_method<with_allocator<ba::node_allocator<void>>>("ba_node_allocator");
   register_method<with_allocator<ba::private_node_allocator<void>>>("ba_private_node");
   register_method<with_allocator<boost::fast_pool_allocator<void>>>("boost_fast_pool");
   register_method<with_allocator<bc::node_allocator<void, 256, 1>>>("boost_node_allocator_v1");
   register_method<with_allocator<bc::node_allocator<void, 256, 2>>>("boost_node_allocator_v2");
   register_method<with_allocator<bc::adaptive_pool<void, 256, 2, 5, 1>>>("boost_adaptive_pool_v1");
   register_method<with_allocator<bc::adaptive_pool<void, 256, 2, 5, 2>>>("boost_adaptive_pool_v2");
   register_method<with_pmr_pool>("pmr_unsync_pool");
   register_method<with_allocator<ba_bench::static_source_allocator<void, pool_bound_lists>>>("pool_bound");
   return ba_bench::run_benchmarks(argc, argv);
}
