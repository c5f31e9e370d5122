// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 000, chapter 2, with ba::list (issue 6): what burst allocation and deallocation buy a
// node container, against std::list and boost::container::list over Boost.Container's own
// version-2 allocator, in one program so that bench/run.py puts them in the same tables.
//
//   seed000_list_insert/<iterations>x<elements>/<list>
//      one list gets `iterations` insertions of `elements` copies of the seed's MyInt at the end
//      (l.insert(l.end(), elements, MyInt(r)), as the seed's code): [200,10000], [2000,1000],
//      [20000,100], [200000,10] (2e6 elements a row), scaled down to 1/10 of the iterations
//      per benchmark iteration (2e5 elements). Operation: one element inserted.
//   seed000_list_erase/<iterations>x<elements>/<list>
//      the same list (built untimed), the iterators of the `iterations` ranges found beforehand
//      (untimed), then each range erased (l.erase(first, last)). Operation: one element erased.
//   seed000_list_insert_aged, seed000_list_erase_aged
//      the same on an aged heap: before the timed loop, the benchmark builds and frees node
//      containers of mixed sizes over the list's own allocator, keeping a sixteenth of them alive
//      (bench/aged_heap.hpp). The counters are counted on that heap too.
//
// The test itself (rows, loops, timing) is bench/list/seed000_list_test.hpp, shared with chapter 3
// (bench/pool/seed000_adaptive_pool.cpp).
//
// Lists: `std_list` (std::list + std::allocator), `ba_list_v1` (ba::list + ba::allocator<T, 1>:
// one allocator call per node), `ba_list_v2` (ba::list + ba::allocator<T, 2>: one burst per
// range), `boost_list_v2` (boost::container::list + boost::container::allocator<T, 2>).
//
// Counters, from one extra pass outside the timed loop over the test kit's counting_allocator
// (ours and std's; Boost.Container's list is left uncounted): `alloc_calls` and `dealloc_calls`,
// the allocator calls per range inserted / erased (a burst counts as one).

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/container/allocator.hpp>
#include <boost/container/list.hpp>

#include "list/seed000_list_test.hpp"
#include "support/counting_allocator.hpp"

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using ba_bench::heap_age;
using ba_bench::seed000_list::ba_list_t;
using ba_bench::seed000_list::boost_list_t;
using ba_bench::seed000_list::config;
using ba_bench::seed000_list::my_int;
using ba_bench::seed000_list::row;
using ba_bench::seed000_list::rows;
using ba_bench::seed000_list::std_list_t;

// --- the lists compared: a list template and an allocator template each -----------------------

template <class T>
using std_alloc = std::allocator<T>;
template <class T>
using ba_v1 = ba::allocator<T, 1>;
template <class T>
using ba_v2 = ba::allocator<T, 2>;
template <class T>
using boost_v2 = bc::allocator<T, 2>;

using std_list = config<std_list_t, std_alloc>;
using ba_list_v1 = config<ba_list_t, ba_v1>;
using ba_list_v2 = config<ba_list_t, ba_v2>;
using boost_list_v2 = config<boost_list_t, boost_v2, false>;

// --- counting (untimed) ---------------------------------------------------------------------------

template <class Config>
void count_calls(benchmark::State &state, const row &r)
{
   namespace t = ba_bench::seed000_list;
   if constexpr (Config::counted) {
      allocplus_test::allocation_counters c;
      using A = allocplus_test::counting_allocator<typename Config::template alloc<my_int>>;
      using List = typename Config::template list<my_int, A>;
      const std::size_t ranges = r.ranges_per_batch();
      List l{A(c)};
      t::insert_ranges(l, r, ranges);
      const double alloc_calls = static_cast<double>(c.allocations + c.bursts);
      c.reset();
      t::erase_ranges(l, t::range_bounds(l, r, ranges));
      // These lists free a range either in bursts or one node at a time, never mixed.
      const double frees = static_cast<double>(c.burst_deallocations ? c.burst_deallocations : c.deallocations);
      state.counters["alloc_calls"] = alloc_calls / static_cast<double>(ranges);
      state.counters["dealloc_calls"] = frees / static_cast<double>(ranges);
   } else {
      (void)state;
      (void)r;
   }
}

template <class Config>
void add(const row &r, const char *list, heap_age age = heap_age::fresh)
{
   ba_bench::seed000_list::register_list_test<Config>("seed000_list", r, list, age, &count_calls<Config>);
}

} // namespace

int main(int argc, char **argv)
{
   for (const row &r : rows) {
      add<std_list>(r, "std_list");
      add<boost_list_v2>(r, "boost_list_v2");
      add<ba_list_v1>(r, "ba_list_v1");
      add<ba_list_v2>(r, "ba_list_v2");
   }
   for (const row &r : rows) {
      add<std_list>(r, "std_list", heap_age::aged);
      add<boost_list_v2>(r, "boost_list_v2", heap_age::aged);
      add<ba_list_v2>(r, "ba_list_v2", heap_age::aged);
   }
   return ba_bench::run_benchmarks(argc, argv);
}
