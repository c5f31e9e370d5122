// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 004: std containers over an allocator that works inside one buffer, in one program so that
// bench/run.py puts the allocators in the same tables. One iteration builds a container and
// empties it; one operation is one element put in or taken out.
//
//   seed004_vector_push_back/<N>/<alloc>        std::vector<int64_t>: N push_back, destroyed
//   seed004_deque_push_pop/<N>/<alloc>          std::deque<int64_t>: N push_back, N pop_front
//   seed004_list_push_pop/<N>/<alloc>           std::list<int64_t>: the same
//   seed004_list_string_push_pop/<N>/<alloc>    std::list of 17000-character strings whose
//                                               characters come from the same allocator (the
//                                               arena's tree): the same
//   seed004_map_insert_erase/<N>/<alloc>        std::map<int64_t, int64_t>: N inserts in a fixed
//                                               random order, N erases in another
//   seed004_unordered_map_insert_erase/<N>/<alloc>  std::unordered_map: the same
//
// Allocators: `std_allocator` (malloc/new); `ba_arena` (ba::arena_allocator over a ba::arena);
// `pmr_monotonic` (std::pmr::monotonic_buffer_resource: frees nothing, released after each
// iteration); `pmr_unsync_pool` (std::pmr::unsynchronized_pool_resource over a monotonic
// resource, released after each iteration). The three over one static 96 MiB buffer, faulted in
// before the first run. For the list and the map, also `ba_arena_growing`: an arena over a 4 KiB
// buffer that grows by regions from the core's default heap, released after each iteration (so
// every iteration pays for its regions).

#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>

#include "benchmark_kit.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <scoped_allocator>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

namespace ba = boost::allocplus;

constexpr std::size_t kBufferBytes = 96 * ba_bench::kMiB;
constexpr std::size_t kStringLength = 17000;   // over the arena's 16 KiB slot limit
constexpr std::size_t kSmallBufferBytes = 4096;   // a growing arena's own buffer

unsigned char *shared_buffer()
{
   alignas(64) static unsigned char buffer[kBufferBytes];
   static const bool touched = [] {
      ba_bench::touch_pages(buffer, 0, kBufferBytes);
      return true;
   }();
   (void)touched;
   return buffer;
}

struct std_policy {
   template <class T>
   using scoped = std::scoped_allocator_adaptor<std::allocator<T>>;
   template <class T>
   using alloc = std::allocator<T>;
   template <class T>
   alloc<T> get()
   {
      return {};
   }
   void reset() {}
};

struct arena_policy {
   template <class T>
   using scoped = std::scoped_allocator_adaptor<ba::arena_allocator<T>>;
   ba::arena arena{shared_buffer(), kBufferBytes};
   template <class T>
   using alloc = ba::arena_allocator<T>;
   template <class T>
   alloc<T> get()
   {
      return alloc<T>(arena);
   }
   void reset() {}   // every block was freed: nothing to do

   arena_policy() = default;

protected:
   // An arena over a small buffer that grows from `upstream` (one such policy at a time).
   explicit arena_policy(ba_heap *upstream) : arena(small_buffer(), kSmallBufferBytes, upstream) {}

private:
   static unsigned char *small_buffer()
   {
      alignas(16) static unsigned char buffer[kSmallBufferBytes];
      return buffer;
   }
};

struct arena_growing_policy : arena_policy {
   arena_growing_policy() : arena_policy(ba_default_heap()) {}
   void reset() { arena.release(); }   // the regions go back to the heap: the next iteration grows again
};

struct pmr_monotonic_policy {
   template <class T>
   using scoped = std::pmr::polymorphic_allocator<T>;
   std::pmr::monotonic_buffer_resource resource{shared_buffer(), kBufferBytes, std::pmr::null_memory_resource()};
   template <class T>
   using alloc = std::pmr::polymorphic_allocator<T>;
   template <class T>
   alloc<T> get()
   {
      return alloc<T>(&resource);
   }
   void reset() { resource.release(); }
};

struct pmr_pool_policy {
   template <class T>
   using scoped = std::pmr::polymorphic_allocator<T>;
   std::pmr::monotonic_buffer_resource upstream{shared_buffer(), kBufferBytes, std::pmr::null_memory_resource()};
   std::pmr::unsynchronized_pool_resource resource{&upstream};
   template <class T>
   using alloc = std::pmr::polymorphic_allocator<T>;
   template <class T>
   alloc<T> get()
   {
      return alloc<T>(&resource);
   }
   void reset()
   {
      resource.release();
      upstream.release();
   }
};

template <class Policy>
void vector_push_back(benchmark::State &state, std::int64_t n)
{
   Policy policy;
   for (auto _ : state) {
      {
         std::vector<std::int64_t, typename Policy::template alloc<std::int64_t>> v(policy.template get<std::int64_t>());
         for (std::int64_t i = 0; i != n; ++i) v.push_back(i);
         benchmark::DoNotOptimize(v.data());
      }
      policy.reset();
   }
   ba_bench::set_time_per_op(state, static_cast<double>(n));
   state.SetLabel("time per element pushed");
}

template <class Policy, template <class, class> class Sequence>
void sequence_push_pop(benchmark::State &state, std::int64_t n)
{
   Policy policy;
   for (auto _ : state) {
      {
         Sequence<std::int64_t, typename Policy::template alloc<std::int64_t>> s(policy.template get<std::int64_t>());
         for (std::int64_t i = 0; i != n; ++i) s.push_back(i);
         benchmark::DoNotOptimize(&s.back());
         for (std::int64_t i = 0; i != n; ++i) s.pop_front();
      }
      policy.reset();
   }
   ba_bench::set_time_per_op(state, 2.0 * static_cast<double>(n));
   state.SetLabel("time per element pushed or popped");
}

template <class Policy>
void list_string_push_pop(benchmark::State &state, std::int64_t n)
{
   using string = std::basic_string<char, std::char_traits<char>, typename Policy::template alloc<char>>;
   // The list hands its allocator to each string: a scoped adaptor does it for std::allocator and
   // arena_allocator; polymorphic_allocator does it itself.
   using list_alloc = typename Policy::template scoped<string>;
   Policy policy;
   for (auto _ : state) {
      {
         std::list<string, list_alloc> l(list_alloc(policy.template get<string>()));
         for (std::int64_t i = 0; i != n; ++i) l.emplace_back(kStringLength, 'x');
         benchmark::DoNotOptimize(l.back().data());
         for (std::int64_t i = 0; i != n; ++i) l.pop_front();
      }
      policy.reset();
   }
   ba_bench::set_time_per_op(state, 2.0 * static_cast<double>(n));
   state.SetLabel("time per string pushed or popped");
}

std::vector<std::int64_t> shuffled_keys(std::size_t n, std::uint64_t seed)
{
   std::vector<std::int64_t> keys(n);
   for (std::size_t i = 0; i != n; ++i) keys[i] = static_cast<std::int64_t>(i);
   ba_bench::fixed_seed_rng rng(seed);
   for (std::size_t i = n; i > 1; --i) std::swap(keys[i - 1], keys[rng.between(0, i - 1)]);
   return keys;
}

template <class Policy, class Map>
void map_insert_erase(benchmark::State &state, std::int64_t count, Map *)
{
   const std::size_t n = static_cast<std::size_t>(count);
   const std::vector<std::int64_t> inserts = shuffled_keys(n, 4), erases = shuffled_keys(n, 40);
   Policy policy;
   for (auto _ : state) {
      {
         Map m(policy.template get<typename Map::value_type>());
         for (std::int64_t k : inserts) m.emplace(k, k);
         benchmark::DoNotOptimize(m.size());
         for (std::int64_t k : erases) m.erase(k);
      }
      policy.reset();
   }
   ba_bench::set_time_per_op(state, 2.0 * static_cast<double>(n));
   state.SetLabel("time per key inserted or erased");
}

template <class Policy>
using map_of = std::map<std::int64_t, std::int64_t, std::less<std::int64_t>,
                        typename Policy::template alloc<std::pair<const std::int64_t, std::int64_t>>>;
template <class Policy>
using unordered_map_of =
   std::unordered_map<std::int64_t, std::int64_t, std::hash<std::int64_t>, std::equal_to<std::int64_t>,
                      typename Policy::template alloc<std::pair<const std::int64_t, std::int64_t>>>;

// The list and the map: all a growing arena is measured on (what it adds is the cost of its regions).
template <class Policy>
void register_node_containers(const std::string &name)
{
   for (std::int64_t n : {1024, 4096, 32768}) {
      const std::string size = "/" + std::to_string(n) + "/" + name;
      ba_bench::register_benchmark("seed004_list_push_pop" + size,
                                   [n](benchmark::State &s) { sequence_push_pop<Policy, std::list>(s, n); });
      ba_bench::register_benchmark("seed004_map_insert_erase" + size, [n](benchmark::State &s) {
         map_insert_erase<Policy>(s, n, static_cast<map_of<Policy> *>(nullptr));
      });
   }
}

template <class Policy>
void register_all(const std::string &name)
{
   register_node_containers<Policy>(name);
   for (std::int64_t n : {1024, 4096, 32768}) {
      const std::string size = "/" + std::to_string(n) + "/" + name;
      ba_bench::register_benchmark("seed004_vector_push_back" + size,
                                   [n](benchmark::State &s) { vector_push_back<Policy>(s, n); });
      ba_bench::register_benchmark("seed004_deque_push_pop" + size,
                                   [n](benchmark::State &s) { sequence_push_pop<Policy, std::deque>(s, n); });
      ba_bench::register_benchmark("seed004_unordered_map_insert_erase" + size, [n](benchmark::State &s) {
         map_insert_erase<Policy>(s, n, static_cast<unordered_map_of<Policy> *>(nullptr));
      });
      if (n <= 4096)   // 4096 strings of 17000 characters: 70 MB of the 96 MiB buffer
         ba_bench::register_benchmark("seed004_list_string_push_pop" + size,
                                      [n](benchmark::State &s) { list_string_push_pop<Policy>(s, n); });
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_all<std_policy>("std_allocator");
   register_all<arena_policy>("ba_arena");
   register_node_containers<arena_growing_policy>("ba_arena_growing");
   register_all<pmr_monotonic_policy>("pmr_monotonic");
   register_all<pmr_pool_policy>("pmr_unsync_pool");
   return ba_bench::run_benchmarks(argc, argv);
}
