// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 000, chapter 1, with ba::vector (issue 5): what growing in place, the received size and
// shrinking in place buy a vector, against std::vector and boost::container::vector over
// Boost.Container's own version-2 allocator, in one program so that bench/run.py puts them in
// the same tables.
//
//   seed000_ba_vector_push_back/<iterations>x<elements>/<vector>
//      `iterations` vectors each get `elements` push_backs of the seed's MyInt, one by one, from
//      empty: [10000,10000], [100000,1000], [1000000,100], [10000000,10] (1e8 push_backs a
//      row), scaled down to 1/100 of the iterations per benchmark iteration (1e6 push_backs,
//      0.5-15 ms; Google Benchmark repeats it for --benchmark_min_time). Operation: one push_back.
//   seed000_ba_vector_expand_bwd/<iterations>x<elements>/<vector>
//      the same, where the version-2 allocators may expand backward but not forward
//      (DisableMask expand_fwd), to show backward expansion alone against new allocation.
//   seed000_ba_vector_shrink_to_fit/<iterations>x<elements>/<vector>
//      `iterations` vectors of `elements` elements emptied 5 at a time from the back, each erase
//      followed by shrink_to_fit: [100,10000], [1000,200], [10000,500], scaled down to 1/100.
//      Operation: one erase + shrink_to_fit.
//   seed000_ba_vector_string/<iterations>x<elements>/<vector>
//      push_back rows with std::string elements (15 characters: in the string itself, so a move
//      copies the characters); libstdc++'s string is not bitwise relocatable, so it moves by its
//      move constructor (noexcept: backward expansion is allowed).
//   seed000_ba_vector_huge/1GiB/<vector>
//      one vector<int> grown by push_back to 2^28 elements (1 GiB). Operation: one push_back.
//   seed000_ba_vector_push_back_aged, seed000_ba_vector_shrink_to_fit_aged
//      the push_back and shrink_to_fit rows (push_back also at 20 elements) on an aged heap: before
//      the timed loop, the benchmark builds and frees node containers of mixed sizes over the
//      vector's own allocator, keeping a sixteenth of them alive (bench/aged_heap.hpp). The
//      counters are counted on that heap too.
//   seed000_ba_vector_push_back_aged_idle_thread, seed000_ba_vector_push_back_aged_two_threads
//      the aged push_back row of 20 elements with a second thread alive and idle (the core then
//      takes its lock), and with a second thread building the same vectors at the same time (the
//      time is the measuring thread's).
//   seed000_ba_vector_small_vectors_memory/100k/<vector>, seed000_ba_vector_small_vectors_memory_aged
//      the memory of many small vectors that stop growing: 100000 vectors of 1 to 32 MyInts
//      (sizes from a fixed sequence) built by push_back and kept alive, then destroyed, on a fresh
//      and on an aged heap. The core places a block that may grow where it can (the top, the
//      start of a large free chunk), not in the best-fitting hole: this table shows what that
//      costs a program whose vectors never grow again. Counters (the heap's figures:
//      bench/heap_reading.hpp): `system_bytes_per_vector` (what the heap took from the system
//      with the vectors alive, over what it had before the benchmark's first pass, per vector: the
//      highest of its passes), `in_use_bytes_per_vector` (handed out, headers
//      included), and `payload_bytes_per_vector` (the elements' bytes). Operation: one vector
//      built. Under LD_PRELOAD of a peer malloc, glibc's figures describe nothing: those rows
//      have their time only.
//
// Vectors: `std_vector` (std::vector + std::allocator), `boost_vector_v2`
// (boost::container::vector + boost::container::allocator<T, 2>, `boost_vector_v2_bwd` with
// expand_fwd masked), `ba_vector_v1` (ba::vector + ba::allocator<T, 1>), `ba_vector_v2`
// (ba::vector + ba::allocator<T, 2>), `ba_vector_v2_new_only` (expand_fwd | expand_bwd masked:
// received size, no expansion), `ba_vector_v2_bwd` (expand_fwd masked).
//
// Counters, per vector, from one extra pass outside the timed loop (the same vector over the
// test kit's counting_allocator): `allocator_calls` (new blocks + expansions + shrinks),
// `allocations`, `expansions`, `shrinks`, and `growth_copies`: the elements copied or moved
// because the buffer moved (the size at each change of data()); for MyInt, which has a copy
// constructor only, every one of them is a copy. The huge table counts in its timed loop (one
// comparison per growth) `growth_copies` and `copies_after_huge`: elements copied after the
// buffer first landed in a block of 32 MiB or more, which the C core (and glibc) map directly:
// a huge block, which ours expands in place.

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/container/allocator.hpp>
#include <boost/container/vector.hpp>

#include "aged_heap.hpp"
#include "benchmark_kit.hpp"
#include "heap_reading.hpp"
#include "seed000_my_int.hpp"
#include "support/counting_allocator.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace ba = boost::allocplus;
namespace bc = boost::container;

using allocplus_bench::my_int;
using ba_bench::heap_age;

constexpr std::size_t scale_down = 100;
constexpr std::size_t shrink_step = 5;
constexpr std::size_t huge_bytes = std::size_t(32) << 20;   // mapped directly by the core and glibc
constexpr std::size_t huge_elements = std::size_t(1) << 28;  // 1 GiB of int

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
const row aged_push_back_rows[] = {{100000, 1000}, {1000000, 100}, {5000000, 20}, {10000000, 10}};


// --- the vectors compared: a vector template and an allocator template each ---------------------

template <template <class, class> class Vector, template <class> class Alloc>
struct config {
   template <class T>
   using alloc = Alloc<T>;
   template <class T, class A = Alloc<T>>
   using vec = Vector<T, A>;
};

template <class T, class A>
using std_vec = std::vector<T, A>;
template <class T, class A>
using boost_vec = bc::vector<T, A>;
template <class T, class A>
using ba_vec = ba::vector<T, A>;

template <class T>
using std_alloc = std::allocator<T>;
template <class T>
using boost_v2 = bc::allocator<T, 2>;
template <class T>
using boost_v2_bwd = bc::allocator<T, 2, bc::expand_fwd>;
template <class T>
using ba_v1 = ba::allocator<T, 1>;
template <class T>
using ba_v2 = ba::allocator<T, 2>;
template <class T>
using ba_v2_new_only = ba::allocator<T, 2, ba::expand_fwd | ba::expand_bwd>;
template <class T>
using ba_v2_bwd = ba::allocator<T, 2, ba::expand_fwd>;

using std_vector = config<std_vec, std_alloc>;
using boost_vector_v2 = config<boost_vec, boost_v2>;
using boost_vector_v2_bwd = config<boost_vec, boost_v2_bwd>;
using ba_vector_v1 = config<ba_vec, ba_v1>;
using ba_vector_v2 = config<ba_vec, ba_v2>;
using ba_vector_v2_new_only = config<ba_vec, ba_v2_new_only>;
using ba_vector_v2_bwd = config<ba_vec, ba_v2_bwd>;

// --- elements ---------------------------------------------------------------------------------

template <class T>
T element(std::size_t e);
template <>
my_int element<my_int>(std::size_t e)
{
   return my_int(static_cast<int>(e));
}
template <>
std::string element<std::string>(std::size_t e)
{
   std::string s = "element-0000000";   // 15 characters: the short-string buffer
   s[14] = static_cast<char>('0' + e % 10);
   return s;
}

// --- counting (untimed) -------------------------------------------------------------------------

struct tally {
   double vectors = 0, allocations = 0, expansions = 0, shrinks = 0, growth_copies = 0;

   void add(const allocplus_test::allocation_counters &c)
   {
      allocations += static_cast<double>(c.allocations);
      expansions += static_cast<double>(c.expansions());
      shrinks += static_cast<double>(c.shrinks);
   }
   void set(benchmark::State &state) const
   {
      const double n = vectors ? vectors : 1;
      state.counters["allocations"] = allocations / n;
      state.counters["expansions"] = expansions / n;
      state.counters["shrinks"] = shrinks / n;
      state.counters["allocator_calls"] = (allocations + expansions + shrinks) / n;
      state.counters["growth_copies"] = growth_copies / n;
   }
};

template <class Config, class T>
using counted_vector = typename Config::template vec<T, allocplus_test::counting_allocator<typename Config::template alloc<T>>>;

template <class Config, class T>
tally count_push_back(const row &r)
{
   allocplus_test::allocation_counters c;
   tally t;
   using A = allocplus_test::counting_allocator<typename Config::template alloc<T>>;
   counted_vector<Config, T> v{A(c)};
   const T *data = v.data();
   for (std::size_t e = 0; e != r.elements; ++e) {
      v.push_back(element<T>(e));
      if (v.data() != data) {
         t.growth_copies += static_cast<double>(e);   // the elements there were before this one
         data = v.data();
      }
   }
   t.vectors = 1;
   t.add(c);
   return t;
}

template <class Config, class T>
tally count_shrink(const row &r)
{
   allocplus_test::allocation_counters c;
   tally t;
   using A = allocplus_test::counting_allocator<typename Config::template alloc<T>>;
   counted_vector<Config, T> v(r.elements, T(), A(c));
   c.reset();
   const T *data = v.data();
   for (std::size_t e = r.elements; e != 0; e -= shrink_step) {
      v.erase(v.end() - static_cast<std::ptrdiff_t>(shrink_step), v.end());
      v.shrink_to_fit();
      if (v.data() != data) {
         t.growth_copies += static_cast<double>(v.size());
         data = v.data();
      }
   }
   t.vectors = 1;
   t.add(c);
   return t;
}

// --- the benchmarks -----------------------------------------------------------------------------

using ba_bench::company;

// `vectors` vectors of T built by `elements` push_backs each, and destroyed.
template <class Vector, class T>
void build_vectors(std::size_t vectors, std::size_t elements)
{
   for (std::size_t i = 0; i != vectors; ++i) {
      Vector v;
      for (std::size_t e = 0; e != elements; ++e) v.push_back(element<T>(e));
      benchmark::DoNotOptimize(v.data());
   }
}

// The work of a second thread (ba_bench::busy_thread): the same vectors as the timed thread's.
template <class Vector, class T>
struct vector_builder {
   explicit vector_builder(row r) : r(r) {}
   void step() const { build_vectors<Vector, T>(r.vectors_per_batch(), r.elements); }
   row r;
};

template <class Config, class T>
void push_back_benchmark(benchmark::State &state, row r, heap_age age, company with = company::none)
{
   using Vector = typename Config::template vec<T>;
   const ba_bench::heap_of_age<Config::template alloc> heap(age);
   const std::size_t vectors = r.vectors_per_batch();
   std::optional<ba_bench::idle_thread> idle;
   std::optional<ba_bench::busy_thread<vector_builder<Vector, T>>> busy;
   if (with == company::idle_thread) idle.emplace();
   if (with == company::second_worker) busy.emplace(r);
   for (auto _ : state) {
      build_vectors<Vector, T>(vectors, r.elements);
      benchmark::ClobberMemory();
   }
   busy.reset();
   idle.reset();
   count_push_back<Config, T>(r).set(state);
   ba_bench::set_time_per_op(state, static_cast<double>(vectors * r.elements));
   state.SetLabel("time per push_back");
}

template <class Config>
void shrink_to_fit_benchmark(benchmark::State &state, row r, heap_age age)
{
   using Vector = typename Config::template vec<my_int>;
   const ba_bench::heap_of_age<Config::template alloc> heap(age);
   const std::size_t vectors = r.vectors_per_batch();
   for (auto _ : state) {
      for (std::size_t i = 0; i != vectors; ++i) {
         Vector v(r.elements);
         for (std::size_t e = r.elements; e != 0; e -= shrink_step) {
            v.erase(v.end() - static_cast<std::ptrdiff_t>(shrink_step), v.end());
            v.shrink_to_fit();
            benchmark::DoNotOptimize(v.data());
         }
      }
      benchmark::ClobberMemory();
   }
   count_shrink<Config, my_int>(r).set(state);
   ba_bench::set_time_per_op(state, static_cast<double>(vectors * (r.elements / shrink_step)));
   state.SetLabel("time per erase + shrink_to_fit");
}

template <class Config>
void huge_benchmark(benchmark::State &state)
{
   using Vector = typename Config::template vec<int>;
   double growth_copies = 0, copies_after_huge = 0, runs = 0;
   for (auto _ : state) {
      Vector v;
      bool huge = false;
      for (std::size_t e = 0; e != huge_elements; ++e) {
         if (v.size() != v.capacity()) {
            v.push_back(static_cast<int>(e));
            continue;
         }
         const int *data = v.data();
         v.push_back(static_cast<int>(e));
         if (v.data() != data) {
            growth_copies += static_cast<double>(e);
            if (huge) copies_after_huge += static_cast<double>(e);
            if (v.capacity() * sizeof(int) >= huge_bytes) huge = true;
         }
      }
      benchmark::DoNotOptimize(v.data());
      benchmark::ClobberMemory();
      runs += 1;
   }
   state.counters["growth_copies"] = growth_copies / runs;
   state.counters["copies_after_huge"] = copies_after_huge / runs;
   ba_bench::set_time_per_op(state, static_cast<double>(huge_elements));
   state.SetLabel("time per push_back");
}

template <class Config, class T = my_int>
void add_push_back(const char *table, const row &r, const char *vector, heap_age age = heap_age::fresh,
                   company with = company::none)
{
   ba_bench::register_benchmark(std::string(table) + "/" + r.name() + "/" + vector,
                                [r, age, with](benchmark::State &s) { push_back_benchmark<Config, T>(s, r, age, with); });
}

template <class Config>
void add_shrink(const row &r, const char *vector, heap_age age = heap_age::fresh)
{
   const char *table = age == heap_age::aged ? "seed000_ba_vector_shrink_to_fit_aged/" : "seed000_ba_vector_shrink_to_fit/";
   ba_bench::register_benchmark(table + r.name() + "/" + vector,
                                [r, age](benchmark::State &s) { shrink_to_fit_benchmark<Config>(s, r, age); });
}

constexpr std::size_t kSmallVectors = 100000;

//! The memory of kSmallVectors vectors of 1..32 elements built by push_back and kept alive.
template <class Config>
void small_vectors_memory_benchmark(benchmark::State &state, ba_bench::heap_kind heap, heap_age age)
{
   using Vector = typename Config::template vec<my_int>;
   // Under LD_PRELOAD of a peer malloc glibc's figures describe nothing: the row has its time only.
   const bool readable = heap != ba_bench::heap_kind::glibc || ba_bench::malloc_is_glibc();
   const ba_bench::heap_of_age<Config::template alloc> aged(age);
   double system = 0, in_use = 0, payload = 0;
   // The system's figure against the heap before the first pass of the first call (Google
   // Benchmark calls the function several times): a later pass reuses what the first one freed.
   static double first_system[2] = {-1, -1};
   double &first = first_system[age == heap_age::aged ? 1 : 0];
   if (first < 0) first = ba_bench::read_heap(heap).system;
   for (auto _ : state) {
      const ba_bench::heap_reading before = ba_bench::read_heap(heap);
      std::vector<Vector> vectors(kSmallVectors);
      std::size_t elements = 0;
      for (std::size_t i = 0; i != kSmallVectors; ++i) {
         const std::size_t n = 1 + (i * 2654435761u >> 7) % 32;   // a fixed spread of sizes
         for (std::size_t e = 0; e != n; ++e) vectors[i].push_back(element<my_int>(e));
         elements += n;
      }
      const ba_bench::heap_reading alive = ba_bench::read_heap(heap);
      benchmark::DoNotOptimize(vectors.data());
      system = std::max(system, alive.system - first);
      in_use = alive.in_use - before.in_use;
      payload = static_cast<double>(elements * sizeof(my_int));
   }
   const double n = static_cast<double>(kSmallVectors);
   // (The vector of vectors itself is in both figures, the same for every row.)
   if (readable) {
      state.counters["system_bytes_per_vector"] = system / n;
      state.counters["in_use_bytes_per_vector"] = in_use / n;
   }
   state.counters["payload_bytes_per_vector"] = payload / n;
   ba_bench::set_time_per_op(state, n);
   state.SetLabel("time per vector built");
}

template <class Config>
void add_small_vectors_memory(const char *vector, ba_bench::heap_kind heap)
{
   for (heap_age age : {heap_age::fresh, heap_age::aged}) {
      const char *table = age == heap_age::aged ? "seed000_ba_vector_small_vectors_memory_aged/100k/"
                                                : "seed000_ba_vector_small_vectors_memory/100k/";
      ba_bench::register_benchmark(std::string(table) + vector, [heap, age](benchmark::State &s) {
         small_vectors_memory_benchmark<Config>(s, heap, age);
      });
   }
}

template <class Config>
void add_huge(const char *vector)
{
   ba_bench::register_benchmark(std::string("seed000_ba_vector_huge/1GiB/") + vector,
                                [](benchmark::State &s) { huge_benchmark<Config>(s); });
}

} // namespace

int main(int argc, char **argv)
{
   for (const row &r : push_back_rows) {
      const char *t = "seed000_ba_vector_push_back";
      add_push_back<std_vector>(t, r, "std_vector");
      add_push_back<boost_vector_v2>(t, r, "boost_vector_v2");
      add_push_back<ba_vector_v1>(t, r, "ba_vector_v1");
      add_push_back<ba_vector_v2>(t, r, "ba_vector_v2");
   }
   for (const row &r : push_back_rows) {
      const char *t = "seed000_ba_vector_expand_bwd";
      add_push_back<std_vector>(t, r, "std_vector");
      add_push_back<boost_vector_v2_bwd>(t, r, "boost_vector_v2_bwd");
      add_push_back<ba_vector_v1>(t, r, "ba_vector_v1");
      add_push_back<ba_vector_v2_new_only>(t, r, "ba_vector_v2_new_only");
      add_push_back<ba_vector_v2_bwd>(t, r, "ba_vector_v2_bwd");
   }
   for (const row &r : shrink_rows) {
      add_shrink<std_vector>(r, "std_vector");
      add_shrink<boost_vector_v2>(r, "boost_vector_v2");
      add_shrink<ba_vector_v1>(r, "ba_vector_v1");
      add_shrink<ba_vector_v2>(r, "ba_vector_v2");
   }
   for (const row &r : push_back_rows) {
      const char *t = "seed000_ba_vector_string";
      add_push_back<std_vector, std::string>(t, r, "std_vector");
      add_push_back<boost_vector_v2, std::string>(t, r, "boost_vector_v2");
      add_push_back<ba_vector_v1, std::string>(t, r, "ba_vector_v1");
      add_push_back<ba_vector_v2, std::string>(t, r, "ba_vector_v2");
   }
   for (const row &r : aged_push_back_rows) {
      const char *t = "seed000_ba_vector_push_back_aged";
      add_push_back<std_vector>(t, r, "std_vector", heap_age::aged);
      add_push_back<boost_vector_v2>(t, r, "boost_vector_v2", heap_age::aged);
      add_push_back<ba_vector_v2>(t, r, "ba_vector_v2", heap_age::aged);
   }
   for (const auto &[t, with] : {std::pair{"seed000_ba_vector_push_back_aged_idle_thread", company::idle_thread},
                                 std::pair{"seed000_ba_vector_push_back_aged_two_threads", company::second_worker}}) {
      const row r{5000000, 20};
      add_push_back<std_vector>(t, r, "std_vector", heap_age::aged, with);
      add_push_back<boost_vector_v2>(t, r, "boost_vector_v2", heap_age::aged, with);
      add_push_back<ba_vector_v2>(t, r, "ba_vector_v2", heap_age::aged, with);
   }
   for (const row &r : shrink_rows) {
      add_shrink<std_vector>(r, "std_vector", heap_age::aged);
      add_shrink<boost_vector_v2>(r, "boost_vector_v2", heap_age::aged);
      add_shrink<ba_vector_v2>(r, "ba_vector_v2", heap_age::aged);
   }
   add_small_vectors_memory<std_vector>("std_vector", ba_bench::heap_kind::glibc);
   add_small_vectors_memory<boost_vector_v2>("boost_vector_v2", ba_bench::heap_kind::boost_dlmalloc);
   add_small_vectors_memory<ba_vector_v2>("ba_vector_v2", ba_bench::heap_kind::ba_core);
   add_huge<std_vector>("std_vector");
   add_huge<boost_vector_v2>("boost_vector_v2");
   add_huge<ba_vector_v1>("ba_vector_v1");
   add_huge<ba_vector_v2>("ba_vector_v2");
   return ba_bench::run_benchmarks(argc, argv);
}
