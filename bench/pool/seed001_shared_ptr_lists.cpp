// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 001: std::allocate_shared over pool allocators (rebound from void to the control block),
// on singly linked lists whose links are std::shared_ptr.
//
//   seed001_shared_ptr_lists/5_sizes/<method>
//      five kinds of node (a shared_ptr to the next node and 0, 16, 32, 48 or 64 bytes of data:
//      16..80 bytes), 1000 lists of each, 200 nodes a list on average (1M live nodes), built
//      untimed, every node put in a list picked at random (precomputed). A round drops one list of
//      each kind (its nodes freed one by one as the links cascade) and makes as many nodes of each
//      kind as a list holds on average (200: the number of live nodes stays the same), interleaved
//      (one of each kind, then the next), each pushed at the front of a random list. Operation:
//      one node made (and, on average, one freed).
//
// Methods: `new_shared_ptr` (std::shared_ptr<T>(new T): two allocations a node), `std_allocator`
// (std::allocate_shared with std::allocator<void>, which is std::make_shared: one allocation a
// node; the runner also runs it under the peer mallocs), and std::allocate_shared with
// `ba_node_allocator` (ba::node_allocator<void>: one shared pool per node size), `ba_private_node`
// (ba::private_node_allocator<void>: one pool per node size, shared by the allocator's copies),
// `boost_fast_pool` (Boost.Pool's fast_pool_allocator<void>), `boost_node_allocator_v1` / `_v2`
// and `boost_adaptive_pool_v1` / `_v2` (boost::container's), `pmr_unsync_pool`
// (std::pmr::polymorphic_allocator over an unsynchronized_pool_resource).

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

// The random list of each node, the same for every method.
struct plan {
   std::vector<std::uint16_t> ramp, rounds;
   plan()
   {
      std::mt19937 rng(2017);
      for (std::size_t i = 0; i < kRampNodes; ++i) ramp.push_back(static_cast<std::uint16_t>(rng() % kLists));
      for (std::size_t i = 0; i < kRounds * kNodesPerRound; ++i)
         rounds.push_back(static_cast<std::uint16_t>(rng() % kLists));
   }
};
const plan &the_plan()
{
   static const plan p;
   return p;
}

// The lists of the five kinds.
struct forest {
   std::vector<std::shared_ptr<list_node<0>>> l0 = std::vector<std::shared_ptr<list_node<0>>>(kLists);
   std::vector<std::shared_ptr<list_node<1>>> l1 = std::vector<std::shared_ptr<list_node<1>>>(kLists);
   std::vector<std::shared_ptr<list_node<2>>> l2 = std::vector<std::shared_ptr<list_node<2>>>(kLists);
   std::vector<std::shared_ptr<list_node<3>>> l3 = std::vector<std::shared_ptr<list_node<3>>>(kLists);
   std::vector<std::shared_ptr<list_node<4>>> l4 = std::vector<std::shared_ptr<list_node<4>>>(kLists);

   template <class Make>
   void push(Make &make, std::size_t list)
   {
      push_one(make, l0, list);
      push_one(make, l1, list);
      push_one(make, l2, list);
      push_one(make, l3, list);
      push_one(make, l4, list);
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
struct with_pmr_pool {
   std::pmr::unsynchronized_pool_resource resource;
   std::pmr::polymorphic_allocator<void> alloc{&resource};
   template <class Node>
   std::shared_ptr<Node> make() { return std::allocate_shared<Node>(std::pmr::polymorphic_allocator<Node>(alloc)); }
};

template <class Make>
void bm_lists(benchmark::State &state)
{
   const plan &p = the_plan();
   auto make = std::make_unique<Make>();
   {
      forest f;
      for (std::size_t list : p.ramp) f.push(*make, list);
      std::size_t round = 0, next = 0;
      for (auto _ : state) {
         f.drop(round % kLists);
         for (std::size_t i = 0; i < kNodesPerRound; ++i) f.push(*make, p.rounds[next++ % p.rounds.size()]);
         ++round;
      }
      f.clear();
   }
   state.SetLabel("time per node made (one freed, on average)");
   ba_bench::set_time_per_op(state, static_cast<double>(5 * kNodesPerRound));
}

void register_method(const std::string &name, void (*fn)(benchmark::State &))
{
   ba_bench::register_benchmark("seed001_shared_ptr_lists/5_sizes/" + name, fn);
}

} // namespace

int main(int argc, char **argv)
{
   register_method("new_shared_ptr", bm_lists<with_new>);
   register_method("std_allocator", bm_lists<with_allocator<std::allocator<void>>>);
   register_method("ba_node_allocator", bm_lists<with_allocator<ba::node_allocator<void>>>);
   register_method("ba_private_node", bm_lists<with_allocator<ba::private_node_allocator<void>>>);
   register_method("boost_fast_pool", bm_lists<with_allocator<boost::fast_pool_allocator<void>>>);
   register_method("boost_node_allocator_v1", bm_lists<with_allocator<bc::node_allocator<void, 256, 1>>>);
   register_method("boost_node_allocator_v2", bm_lists<with_allocator<bc::node_allocator<void, 256, 2>>>);
   register_method("boost_adaptive_pool_v1", bm_lists<with_allocator<bc::adaptive_pool<void, 256, 2, 5, 1>>>);
   register_method("boost_adaptive_pool_v2", bm_lists<with_allocator<bc::adaptive_pool<void, 256, 2, 5, 2>>>);
   register_method("pmr_unsync_pool", bm_lists<with_pmr_pool>);
   return ba_bench::run_benchmarks(argc, argv);
}
