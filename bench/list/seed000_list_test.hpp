// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_BENCH_SEED000_LIST_TEST_HPP
#define ALLOCPLUS_BENCH_SEED000_LIST_TEST_HPP

// Seed 000's list test (chapter 2, "Testing burst allocation"), shared by the programs that run
// it: chapter 2 over ba::allocator (bench/list/seed000_list.cpp) and chapter 3 over the adaptive
// pools (bench/pool/seed000_adaptive_pool.cpp).
//
//   <table>/<iterations>x<elements>/<allocator>
//      insert: one list gets `iterations` insertions of `elements` copies of the seed's MyInt at
//      the end (l.insert(l.end(), elements, MyInt(r)), as the seed's code): [200,10000],
//      [2000,1000], [20000,100], [200000,10] (2e6 elements a row), scaled down to 1/10 of the
//      iterations per benchmark iteration (2e5 elements). Operation: one element inserted.
//      erase: the same list (built untimed), the iterators of the `iterations` ranges found
//      beforehand (untimed), then each range erased (l.erase(first, last)). Operation: one
//      element erased.

#include <boost/allocplus/list.hpp>
#include <boost/container/list.hpp>

#include "aged_heap.hpp"
#include "benchmark_kit.hpp"
#include "seed000_my_int.hpp"

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace ba_bench { namespace seed000_list {

using allocplus_bench::my_int; // the seed's MyInt, shared with the vector tables

constexpr std::size_t scale_down = 10;

//! One row of the test: `iterations` ranges of `elements` elements.
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

//! The seed's range sizes.
inline const row rows[] = {{200, 10000}, {2000, 1000}, {20000, 100}, {200000, 10}};

//! A list to test: a list template and an allocator template. Counted: the test kit's
//! counting_allocator can wrap the allocator (an untimed pass counts the allocator calls).
template <template <class, class> class List, template <class> class Alloc, bool Counted = true>
struct config {
   template <class T>
   using alloc = Alloc<T>;
   template <class T, class A = Alloc<T>>
   using list = List<T, A>;
   static constexpr bool counted = Counted;
};

//! The lists the tables run, as templates of an element and an allocator: std::list, ba::list
//! (burst-aware with version-2 allocators) and boost::container::list (the only list that speaks
//! Boost.Container's version-2 bursts).
template <class T, class A>
using std_list_t = std::list<T, A>;
template <class T, class A>
using ba_list_t = boost::allocplus::list<T, A>;
template <class T, class A>
using boost_list_t = boost::container::list<T, A>;

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

// --- the timed loop -------------------------------------------------------------------------------

enum class phase { insert, erase };

//! The whole test of row r, over and over, on a list of its own: the second thread at work of
//! the `_two_threads` tables (busy_thread).
template <class Config>
class list_test_worker {
public:
   explicit list_test_worker(row r) : row_(r) {}
   void step()
   {
      typename Config::template list<my_int> l;
      insert_ranges(l, row_, row_.ranges_per_batch());
      erase_ranges(l, range_bounds(l, row_, row_.ranges_per_batch()));
      benchmark::DoNotOptimize(l.size());
   }

private:
   row row_;
};

//! The benchmark of one row of the test over Config's list of MyInt: times `timed` (the rest of
//! each iteration untimed), on a heap aged by Config's allocator when `age` asks for it, with
//! `others` in the process (an idle thread, or a second thread running the same test over the
//! same allocator); sets `time_per_op` (per element) and the label.
template <class Config>
void time_list_test(benchmark::State &state, const row &r, phase timed, heap_age age,
                    company others = company::none)
{
   using List = typename Config::template list<my_int>;
   const heap_of_age<Config::template alloc> heap(age);
   std::optional<idle_thread> idle;
   std::optional<busy_thread<list_test_worker<Config>>> second;
   if (others == company::idle_thread) idle.emplace();
   if (others == company::second_worker) second.emplace(r);
   const std::size_t ranges = r.ranges_per_batch();
   double seconds = 0;
   for (auto _ : state) {
      List l;
      if (timed == phase::insert) {
         const auto t0 = stopwatch_clock::now();
         insert_ranges(l, r, ranges);
         seconds += seconds_since(t0);
         benchmark::DoNotOptimize(&l.back());
      } else {
         insert_ranges(l, r, ranges);
         const std::vector<typename List::iterator> bounds = range_bounds(l, r, ranges);
         const auto t0 = stopwatch_clock::now();
         erase_ranges(l, bounds);
         seconds += seconds_since(t0);
         benchmark::DoNotOptimize(l.size());
      }
      benchmark::ClobberMemory();
   }
   set_timed_part_per_op(state, seconds, static_cast<double>(ranges * r.elements));
   state.SetLabel(timed == phase::insert ? "time per element inserted" : "time per element erased");
}

//! Registers the insert and erase benchmarks of row r for Config's list under the tables
//! `<prefix>_insert[_aged][_idle_thread|_two_threads]` and `<prefix>_erase[...]`, as
//! <table>/<row>/<name>; `extra` runs after the timed loop (e.g. counters from an untimed pass).
template <class Config, class Extra>
void register_list_test(const std::string &prefix, const row &r, const char *name, heap_age age, Extra extra,
                        company others = company::none)
{
   std::string suffix = age == heap_age::aged ? "_aged" : "";
   for (const auto &[c, company_suffix] : companies)
      if (c == others) suffix += company_suffix;
   const std::string tail = suffix + "/" + r.name() + "/" + name;
   register_benchmark(prefix + "_insert" + tail, [r, age, extra, others](benchmark::State &s) {
      time_list_test<Config>(s, r, phase::insert, age, others);
      extra(s, r);
   });
   register_benchmark(prefix + "_erase" + tail, [r, age, extra, others](benchmark::State &s) {
      time_list_test<Config>(s, r, phase::erase, age, others);
      extra(s, r);
   });
}

template <class Config>
void register_list_test(const std::string &prefix, const row &r, const char *name, heap_age age = heap_age::fresh,
                        company others = company::none)
{
   register_list_test<Config>(prefix, r, name, age, [](benchmark::State &, const row &) {}, others);
}

}} // namespace ba_bench::seed000_list

#endif
