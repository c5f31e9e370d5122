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

#include "aged_heap.hpp"
#include "benchmark_kit.hpp"
#include "seed000_my_int.hpp"
#include "support/counting_allocator.hpp"

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using allocplus_bench::my_int;   // the seed's MyInt, shared with the vector tables
using ba_bench::heap_age;

constexpr std::size_t scale_down = 10;

struct row {
   std::size_t iterations;
   std::size_t elements;
   std::string name() const { return std::to_string(iterations) + "x" + std::to_string(elements); }
   std::size_t ranges_per_batch() const
   {
      std::size_t v = iterations / scale_down;
      return v ? v : 1;
   }
};

const row rows[] = {{200, 10000}, {2000, 1000}, {20000, 100}, {200000, 10}};

// --- the lists compared: a list template and an allocator template each -----------------------

template <template <class, class> class List, template <class> class Alloc, bool Counted = true>
struct config {
   template <class T>
   using alloc = Alloc<T>;
   template <class T, class A = Alloc<T>>
   using list = List<T, A>;
   static constexpr bool counted = Counted;
};

template <class T, class A>
using std_list_t = std::list<T, A>;
template <class T, class A>
using ba_list_t = ba::list<T, A>;
template <class T, class A>
using boost_list_t = bc::list<T, A>;

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

// --- the seed's loops -----------------------------------------------------------------------------

template <class List>
void insert_ranges(List &l, const row &r, std::size_t ranges)
{
   for (std::size_t i = 0; i != ranges; ++i) l.insert(l.end(), r.elements, my_int(static_cast<int>(i)));
}

//! The iterators that bound the ranges to erase: ranges + 1 of them, the last one end().
template <class List>
std::vector<typename List::iterator> range_bounds(List &l, const row &r, std::size_t ranges)
{
   std::vector<typename List::iterator> bounds;
   bounds.reserve(ranges + 1);
   typename List::iterator it = l.begin();
   for (std::size_t i = 0; i != ranges; ++i) {
      bounds.push_back(it);
      for (std::size_t n = r.elements; n != 0; --n) ++it;
   }
   bounds.push_back(it);
   return bounds;
}

template <class List>
void erase_ranges(List &l, const std::vector<typename List::iterator> &bounds)
{
   for (std::size_t i = 0; i + 1 < bounds.size(); ++i) l.erase(bounds[i], bounds[i + 1]);
}

// --- counting (untimed) ---------------------------------------------------------------------------

template <class Config>
void count_calls(benchmark::State &state, const row &r)
{
   if constexpr (Config::counted) {
      allocplus_test::allocation_counters c;
      using A = allocplus_test::counting_allocator<typename Config::template alloc<my_int>>;
      using List = typename Config::template list<my_int, A>;
      const std::size_t ranges = r.ranges_per_batch();
      List l{A(c)};
      insert_ranges(l, r, ranges);
      const double alloc_calls = static_cast<double>(c.allocations + c.bursts);
      c.reset();
      erase_ranges(l, range_bounds(l, r, ranges));
      // These lists free a range either in bursts or one node at a time, never mixed.
      const double frees = static_cast<double>(c.burst_deallocations ? c.burst_deallocations : c.deallocations);
      state.counters["alloc_calls"] = alloc_calls / static_cast<double>(ranges);
      state.counters["dealloc_calls"] = frees / static_cast<double>(ranges);
   } else {
      (void)state;
      (void)r;
   }
}

// --- the benchmarks -------------------------------------------------------------------------------

enum class phase { insert, erase };

template <class Config>
void list_benchmark(benchmark::State &state, row r, phase timed, heap_age age)
{
   using List = typename Config::template list<my_int>;
   const ba_bench::heap_of_age<Config::template alloc> heap(age);
   const std::size_t ranges = r.ranges_per_batch();
   double seconds = 0;
   for (auto _ : state) {
      List l;
      if (timed == phase::insert) {
         const auto t0 = ba_bench::stopwatch_clock::now();
         insert_ranges(l, r, ranges);
         seconds += ba_bench::seconds_since(t0);
         benchmark::DoNotOptimize(&l.back());
      } else {
         insert_ranges(l, r, ranges);
         const std::vector<typename List::iterator> bounds = range_bounds(l, r, ranges);
         const auto t0 = ba_bench::stopwatch_clock::now();
         erase_ranges(l, bounds);
         seconds += ba_bench::seconds_since(t0);
         benchmark::DoNotOptimize(l.size());
      }
      benchmark::ClobberMemory();
   }
   count_calls<Config>(state, r);
   ba_bench::set_timed_part_per_op(state, seconds, static_cast<double>(ranges * r.elements));
   state.SetLabel(timed == phase::insert ? "time per element inserted" : "time per element erased");
}

template <class Config>
void add(const row &r, const char *list, heap_age age = heap_age::fresh)
{
   const std::string aged = age == heap_age::aged ? "_aged/" : "/";
   ba_bench::register_benchmark("seed000_list_insert" + aged + r.name() + "/" + list,
                                [r, age](benchmark::State &s) { list_benchmark<Config>(s, r, phase::insert, age); });
   ba_bench::register_benchmark("seed000_list_erase" + aged + r.name() + "/" + list,
                                [r, age](benchmark::State &s) { list_benchmark<Config>(s, r, phase::erase, age); });
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
