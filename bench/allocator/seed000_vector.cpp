// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 000, chapter 1, through boost::container::vector (issue 4): what in-place expansion,
// the received size and shrinking in place buy a vector.
//
//   seed000_push_back/<iterations>x<elements>/<allocator>
//      `iterations` vectors each get `elements` push_backs, one by one, from empty:
//      [10000,10000], [100000,1000], [1000000,100], [10000000,10], scaled down to 1/100 of the
//      iterations per benchmark iteration (1e6 push_backs; Google Benchmark repeats as needed).
//      Operation: one push_back.
//   seed000_expand_bwd/<iterations>x<elements>/<allocator>
//      the same, where ours may expand backward but not forward (ba::allocator<T, 2, expand_fwd>),
//      to show backward expansion alone against new allocation.
//   seed000_shrink_to_fit/<iterations>x<elements>/<allocator>
//      `iterations` vectors of `elements` elements, emptied 5 (Step) at a time from the back,
//      each erase followed by shrink_to_fit: [100,10000], [1000,200], [10000,500], scaled down
//      to 1/100 of the iterations. Operation: one erase + shrink_to_fit.
//
// Allocators: `std_vector` (std::vector with std::allocator, the reference), and
// boost::container::vector with `std_allocator` (std::allocator), `ba_allocator_v1`
// (ba::allocator<T, 1>), `ba_allocator_v2_new_only` (ba::allocator<T, 2, expand_bwd | expand_fwd>:
// received size, no expansion), `ba_allocator_v2` (ba::allocator<T, 2>), `ba_allocator_v2_bwd`
// (ba::allocator<T, 2, expand_fwd>), and the peer `boost_allocator_v2` /
// `boost_allocator_v2_bwd` (boost::container::allocator<T, 2[, expand_fwd]>, Boost.Container's
// own dlmalloc-based version-2 allocator).
//
// Counters, per vector: `allocations` (new blocks), `expansions` (in place, forward and backward),
// `calls` (their sum: the allocator calls the seed counts), `shrinks` (shrink_to_fit tables).
// boost::container::vector counts them itself (BOOST_CONTAINER_VECTOR_ALLOC_STATS, as the seed's
// benchmark does, over every timed vector); std::vector's are counted once, untimed, from its
// capacity changes.
//
// The element is the seed's MyInt: an int with a user-written copy constructor (no move
// constructor), made noexcept so that the vector may expand backward.

#define BOOST_CONTAINER_VECTOR_ALLOC_STATS 1

#include <boost/allocplus/allocator.hpp>
#include <boost/container/allocator.hpp>
#include <boost/container/vector.hpp>

#include "benchmark_kit.hpp"
#include "seed000_my_int.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using allocplus_bench::my_int;

constexpr std::size_t scale_down = 100;   // benchmark iteration = 1/100 of the seed's iterations
constexpr std::size_t shrink_step = 5;

struct row {
   std::size_t iterations;
   std::size_t elements;
   std::string name() const { return std::to_string(iterations) + "x" + std::to_string(elements); }
   std::size_t vectors_per_batch() const
   {
      std::size_t v = iterations / scale_down;
      return v ? v : 1;
   }
};

const row push_back_rows[] = {{10000, 10000}, {100000, 1000}, {1000000, 100}, {10000000, 10}};
const row shrink_rows[] = {{100, 10000}, {1000, 200}, {10000, 500}};

//! What a vector counted, summed over the vectors of a run.
struct tally {
   double vectors = 0, allocations = 0, expansions = 0, shrinks = 0;

   void set(benchmark::State &state) const
   {
      const double n = vectors ? vectors : 1;
      state.counters["allocations"] = allocations / n;
      state.counters["expansions"] = expansions / n;
      state.counters["calls"] = (allocations + expansions) / n;
      if (shrinks) state.counters["shrinks"] = shrinks / n;
   }
};

template <class Vector>
struct stats_of;

//! boost::container::vector counts its own allocator calls.
template <class A>
struct stats_of<bc::vector<my_int, A>> {
   static void reset(bc::vector<my_int, A> &v) { v.reset_alloc_stats(); }
   static void add(const bc::vector<my_int, A> &v, tally &t)
   {
      t.vectors += 1;
      t.allocations += v.num_alloc;
      t.expansions += v.num_expand_fwd + v.num_expand_bwd;
      t.shrinks += v.num_shrink;
   }
};

//! std::vector does not: nothing during the timed loop, then one untimed vector whose capacity
//! changes are its (re)allocations.
template <class A>
struct stats_of<std::vector<my_int, A>> {
   static void reset(std::vector<my_int, A> &) {}
   static void add(const std::vector<my_int, A> &, tally &) {}
};

template <class Vector>
void count_std_push_back(const row &r, tally &t)
{
   Vector v;
   std::size_t cap = v.capacity();
   for (std::size_t e = 0; e != r.elements; ++e) {
      v.push_back(my_int(static_cast<int>(e)));
      if (v.capacity() != cap) {
         t.allocations += 1;
         cap = v.capacity();
      }
   }
   t.vectors = 1;
}

template <class Vector>
void push_back_benchmark(benchmark::State &state, row r)
{
   const std::size_t vectors = r.vectors_per_batch();
   tally t;
   for (auto _ : state) {
      for (std::size_t i = 0; i != vectors; ++i) {
         Vector v;
         stats_of<Vector>::reset(v);
         for (std::size_t e = 0; e != r.elements; ++e) v.push_back(my_int(static_cast<int>(e)));
         benchmark::DoNotOptimize(v.data());
         stats_of<Vector>::add(v, t);
      }
      benchmark::ClobberMemory();
   }
   if constexpr (std::is_same<Vector, std::vector<my_int>>::value) count_std_push_back<Vector>(r, t);
   t.set(state);
   ba_bench::set_time_per_op(state, static_cast<double>(vectors * r.elements));
   state.SetLabel("time per push_back");
}

template <class Vector>
void shrink_to_fit_benchmark(benchmark::State &state, row r)
{
   const std::size_t vectors = r.vectors_per_batch();
   tally t;
   for (auto _ : state) {
      for (std::size_t i = 0; i != vectors; ++i) {
         Vector v(r.elements);
         stats_of<Vector>::reset(v);
         for (std::size_t e = r.elements; e != 0; e -= shrink_step) {
            v.erase(v.end() - static_cast<std::ptrdiff_t>(shrink_step), v.end());
            v.shrink_to_fit();
            benchmark::DoNotOptimize(v.data());
         }
         stats_of<Vector>::add(v, t);
      }
      benchmark::ClobberMemory();
   }
   if constexpr (std::is_same<Vector, std::vector<my_int>>::value) {
      // libstdc++'s shrink_to_fit reallocates whenever capacity() > size(): once per step.
      t.vectors = 1;
      t.allocations = static_cast<double>(r.elements / shrink_step);
   }
   t.set(state);
   ba_bench::set_time_per_op(state, static_cast<double>(vectors * (r.elements / shrink_step)));
   state.SetLabel("time per erase + shrink_to_fit");
}

template <class Vector>
void add_push_back(const char *table, const row &r, const char *allocator)
{
   ba_bench::register_benchmark(std::string(table) + "/" + r.name() + "/" + allocator,
                                [r](benchmark::State &s) { push_back_benchmark<Vector>(s, r); });
}

template <class Vector>
void add_shrink(const row &r, const char *allocator)
{
   ba_bench::register_benchmark("seed000_shrink_to_fit/" + r.name() + "/" + allocator,
                                [r](benchmark::State &s) { shrink_to_fit_benchmark<Vector>(s, r); });
}

template <class A>
using bvec = bc::vector<my_int, A>;

} // namespace

int main(int argc, char **argv)
{
   using std_alloc = std::allocator<my_int>;
   using v1 = ba::allocator<my_int, 1>;
   using v2 = ba::allocator<my_int, 2>;
   using v2_new_only = ba::allocator<my_int, 2, ba::expand_bwd | ba::expand_fwd>;
   using v2_bwd = ba::allocator<my_int, 2, ba::expand_fwd>;
   using boost_v2 = bc::allocator<my_int, 2>;
   using boost_v2_bwd = bc::allocator<my_int, 2, bc::expand_fwd>;

   for (const row &r : push_back_rows) {
      const char *t = "seed000_push_back";
      add_push_back<std::vector<my_int>>(t, r, "std_vector");
      add_push_back<bvec<std_alloc>>(t, r, "std_allocator");
      add_push_back<bvec<v1>>(t, r, "ba_allocator_v1");
      add_push_back<bvec<v2_new_only>>(t, r, "ba_allocator_v2_new_only");
      add_push_back<bvec<v2>>(t, r, "ba_allocator_v2");
      add_push_back<bvec<boost_v2>>(t, r, "boost_allocator_v2");
   }
   for (const row &r : push_back_rows) {
      const char *t = "seed000_expand_bwd";
      add_push_back<bvec<std_alloc>>(t, r, "std_allocator");
      add_push_back<bvec<v1>>(t, r, "ba_allocator_v1");
      add_push_back<bvec<v2_new_only>>(t, r, "ba_allocator_v2_new_only");
      add_push_back<bvec<v2_bwd>>(t, r, "ba_allocator_v2_bwd");
      add_push_back<bvec<boost_v2_bwd>>(t, r, "boost_allocator_v2_bwd");
   }
   for (const row &r : shrink_rows) {
      add_shrink<std::vector<my_int>>(r, "std_vector");
      add_shrink<bvec<std_alloc>>(r, "std_allocator");
      add_shrink<bvec<v1>>(r, "ba_allocator_v1");
      add_shrink<bvec<v2>>(r, "ba_allocator_v2");
      add_shrink<bvec<boost_v2>>(r, "boost_allocator_v2");
   }
   return ba_bench::run_benchmarks(argc, argv);
}
