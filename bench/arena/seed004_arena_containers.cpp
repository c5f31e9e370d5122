// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Seed 004: std containers over an allocator that works inside one buffer, in one program so that
// bench/run.py puts the allocators in the same tables. One iteration builds a container, fills it
// and empties it; one operation is one element put in or taken out. <N> is 1024, 2048, 4096, 8192,
// 16384 or 32768 elements (the seed's sizes).
//
//   seed004_vector_push_back/<N>/<alloc>        std::vector<int64_t>: N push_back, destroyed
//                                               (with `ba_arena_ba_vector`: ba::vector<int64_t>
//                                               over the arena, which grows in place at its end)
//   seed004_deque_push_pop/<N>/<alloc>          std::deque<int64_t>: N push_back, N pop_front
//   seed004_deque_push/<N>/<alloc>                the N push_back alone
//   seed004_deque_pop/<N>/<alloc>                 the N pop_front alone
//   seed004_list_push_pop/<N>/<alloc>           std::list<int64_t>: the same
//   seed004_list_push/<N>/<alloc>
//   seed004_list_pop/<N>/<alloc>
//   seed004_list_string_push_pop/<N>/<alloc>    std::list of 17000-character strings whose
//   seed004_list_string_push/<N>/<alloc>        characters come from the same allocator (the
//   seed004_list_string_pop/<N>/<alloc>         arena's tree): the same, N up to 4096 only (4096
//                                               strings fill 70 MB of the 96 MiB buffer)
//   seed004_map_insert_erase/<N>/<alloc>        std::map<int64_t, int64_t>: N inserts in a fixed
//                                               random order, N erases in another
//   seed004_map_insert/<N>/<alloc>                the N inserts alone
//   seed004_map_erase/<N>/<alloc>                 the N erases alone
//   seed004_unordered_map_insert_erase/<N>/<alloc>  std::unordered_map: the same
//   seed004_unordered_map_insert/<N>/<alloc>
//   seed004_unordered_map_erase/<N>/<alloc>
//
// The rows of both phases (push_pop, insert_erase) and the vector's time whole iterations: the
// container's destruction and the allocator's reset included. The rows of one phase time that
// phase alone with a clock read around it (set_timed_part_per_op); the rest of the iteration (the
// other phase, or the destruction of the filled container, and the reset) runs untimed.
//
// Allocators: `std_allocator` (malloc/new; bench/run.py also runs it under LD_PRELOAD of
// jemalloc, tcmalloc and mimalloc); `ba_arena` (ba::arena_allocator over a ba::arena);
// `pmr_monotonic` (std::pmr::monotonic_buffer_resource: frees nothing, released after each
// iteration); `pmr_unsync_pool` (std::pmr::unsynchronized_pool_resource over a monotonic
// resource, released after each iteration); `foonathan_memory_stack` (foonathan::memory's
// memory_stack through its std_allocator: frees nothing, unwound to its start after each
// iteration; only when foonathan/memory is installed); for the vector, also `malloc_allocator`
// (std::vector over a minimal allocator that calls malloc and free: libstdc++ moves a vector's
// elements with memmove when it grows only over std::allocator, and element by element over any
// other allocator; this row measures that cost apart from any allocator's own) and
// `ba_arena_ba_vector`. All but std_allocator and malloc_allocator work in one static
// 96 MiB buffer, of which the part a row uses is faulted in before its first run. For the list
// and the map, also `ba_arena_growing`: an arena over a 4 KiB buffer that grows by regions from
// the core's default heap, released after each iteration (so every iteration pays for its regions).

#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>
#include <boost/allocplus/vector.hpp>

#include "benchmark_kit.hpp"

#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
#  include <foonathan/memory/memory_arena.hpp>
#  include <foonathan/memory/memory_stack.hpp>
#  include <foonathan/memory/std_allocator.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <scoped_allocator>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

namespace ba = boost::allocplus;

constexpr std::size_t kBufferBytes = 96 * ba_bench::kMiB;
constexpr std::size_t kStringLength = 17000;   // over the arena's 16 KiB slot limit
constexpr std::size_t kSmallBufferBytes = 4096;   // a growing arena's own buffer
constexpr std::int64_t kSizes[] = {1024, 2048, 4096, 8192, 16384, 32768};
constexpr std::int64_t kMaxStrings = 4096;   // 4096 strings of 17000 characters: 70 MB of the buffer
// Buffer bytes faulted in per element of an int64_t container, over twice the most any allocator
// used (an unordered_map over ba_arena: 68 bytes an element at 32768 elements), per string its
// characters on top; plus 1 MiB for what an allocator takes whatever the size (pmr_unsync_pool's
// first chunks: 140 KiB for a vector of 1024). Measured with mincore() on a buffer not faulted
// in beforehand, every row.
constexpr std::size_t kFaultedBytesPerElement = 160;
constexpr std::size_t kFaultedBytesPerString = kStringLength + kFaultedBytesPerElement;

std::size_t faulted_bytes(std::int64_t elements, std::size_t bytes_per_element)
{
   return static_cast<std::size_t>(elements) * bytes_per_element + ba_bench::kMiB;
}

//! The buffer every allocator but std::allocator works in, its first `used` bytes faulted in
//! (once per process) so that no timed iteration pays for a first touch. Only what the row uses
//! is faulted in: the whole 96 MiB takes 0.4 s on the project's VM, and bench/run.py starts a
//! process for every benchmark.
unsigned char *shared_buffer(std::size_t used)
{
   alignas(64) static unsigned char buffer[kBufferBytes];
   static std::size_t faulted = 0;
   used = std::min(used, kBufferBytes);
   if (used > faulted) {
      ba_bench::touch_pages(buffer, faulted, used);
      faulted = used;
   }
   return buffer;
}

// A policy is one allocator's way of making the allocators of a row's containers
// (get<T>(), of type alloc<T>; scoped<T>, the one a container of strings hands to its strings)
// and of being reset after an iteration. It is made with the number of buffer bytes the row uses.

struct std_policy {
   template <class T>
   using scoped = std::scoped_allocator_adaptor<std::allocator<T>>;
   template <class T>
   using alloc = std::allocator<T>;
   explicit std_policy(std::size_t) {}
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
   ba::arena arena;
   template <class T>
   using alloc = ba::arena_allocator<T>;
   template <class T>
   alloc<T> get()
   {
      return alloc<T>(arena);
   }
   void reset() {}   // every block was freed: nothing to do

   explicit arena_policy(std::size_t used) : arena(shared_buffer(used), kBufferBytes) {}

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

//! A user's own stateless allocator over malloc and free: what std::vector does over any allocator
//! that is not std::allocator, with the allocation itself glibc's as for std_allocator.
template <class T>
struct malloc_allocator {
   using value_type = T;
   malloc_allocator() = default;
   template <class U>
   malloc_allocator(const malloc_allocator<U> &) noexcept
   {
   }
   T *allocate(std::size_t n)
   {
      if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
      if (void *p = std::malloc(n * sizeof(T))) return static_cast<T *>(p);
      throw std::bad_alloc();
   }
   void deallocate(T *p, std::size_t) noexcept { std::free(p); }
};
template <class T, class U>
bool operator==(const malloc_allocator<T> &, const malloc_allocator<U> &) noexcept
{
   return true;
}
template <class T, class U>
bool operator!=(const malloc_allocator<T> &, const malloc_allocator<U> &) noexcept
{
   return false;
}

struct malloc_policy {
   template <class T>
   using alloc = malloc_allocator<T>;
   explicit malloc_policy(std::size_t) {}
   template <class T>
   alloc<T> get()
   {
      return {};
   }
   void reset() {}
};

//! The arena under ba::vector instead of std::vector (vector_push_back's `Vector`).
struct arena_ba_vector_policy : arena_policy {
   using arena_policy::arena_policy;
};

struct arena_growing_policy : arena_policy {
   explicit arena_growing_policy(std::size_t) : arena_policy(ba_default_heap()) {}
   void reset() { arena.release(); }   // the regions go back to the heap: the next iteration grows again
};

struct pmr_monotonic_policy {
   template <class T>
   using scoped = std::pmr::polymorphic_allocator<T>;
   std::pmr::monotonic_buffer_resource resource;
   template <class T>
   using alloc = std::pmr::polymorphic_allocator<T>;
   explicit pmr_monotonic_policy(std::size_t used)
      : resource(shared_buffer(used), kBufferBytes, std::pmr::null_memory_resource())
   {
   }
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
   std::pmr::monotonic_buffer_resource upstream;
   std::pmr::unsynchronized_pool_resource resource{&upstream};
   template <class T>
   using alloc = std::pmr::polymorphic_allocator<T>;
   explicit pmr_pool_policy(std::size_t used)
      : upstream(shared_buffer(used), kBufferBytes, std::pmr::null_memory_resource())
   {
   }
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

#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
namespace fm = foonathan::memory;

// A foonathan/memory BlockAllocator whose one block is a caller's buffer, so that a memory_stack
// bumps through the same buffer as the other allocators (fm::static_block_allocator wants its own
// fm::static_allocator_storage). A second block is refused: the stack then throws as a full
// buffer would.
class buffer_block_allocator {
public:
   buffer_block_allocator(std::size_t block_size, unsigned char *buffer) noexcept
      : buffer_(buffer), size_(block_size)
   {
   }
   fm::memory_block allocate_block()
   {
      if (given_) throw std::bad_alloc();
      given_ = true;
      return {buffer_, size_};
   }
   void deallocate_block(fm::memory_block) noexcept { given_ = false; }
   std::size_t next_block_size() const noexcept { return size_; }

private:
   unsigned char *buffer_;
   std::size_t size_;
   bool given_ = false;
};

struct foonathan_stack_policy {
   using stack_type = fm::memory_stack<buffer_block_allocator>;
   template <class T>
   using alloc = fm::std_allocator<T, stack_type>;
   template <class T>
   using scoped = std::scoped_allocator_adaptor<alloc<T>>;
   stack_type stack;
   stack_type::marker start;   // the empty stack, unwound to after each iteration
   explicit foonathan_stack_policy(std::size_t used)
      : stack(kBufferBytes, shared_buffer(used)), start(stack.top())
   {
   }
   template <class T>
   alloc<T> get()
   {
      return alloc<T>(stack);
   }
   void reset() { stack.unwind(start); }
};
#endif

//! The vector a policy's vector row pushes into: std::vector, or ba::vector for arena_ba_vector_policy.
template <class Policy>
struct vector_of {
   using type = std::vector<std::int64_t, typename Policy::template alloc<std::int64_t>>;
};
template <>
struct vector_of<arena_ba_vector_policy> {
   using type = ba::vector<std::int64_t, ba::arena_allocator<std::int64_t>>;
};

template <class Policy>
void vector_push_back(benchmark::State &state, std::int64_t n)
{
   Policy policy(faulted_bytes(n, kFaultedBytesPerElement));
   for (auto _ : state) {
      {
         typename vector_of<Policy>::type v(policy.template get<std::int64_t>());
         for (std::int64_t i = 0; i != n; ++i) v.push_back(i);
         benchmark::DoNotOptimize(v.data());
      }
      policy.reset();
   }
   ba_bench::set_time_per_op(state, static_cast<double>(n));
   state.SetLabel("time per element pushed");
}

//! Which part of an iteration a row of a container that is filled and emptied times.
enum class timed_part { both, fill, empty };

//! What a row says one operation is: "element" and "pushed"/"popped", or "key" and
//! "inserted"/"erased".
struct op_words {
   const char *item, *fill, *empty;
};

//! The loop of the rows that fill a container and empty it: per iteration, `make(policy)` builds
//! the container, `fill` puts n items in, `empty` takes them out, then the container dies and the
//! policy is reset. `both` times whole iterations; `fill` times filling alone (the filled
//! container's destruction and the reset untimed), `empty` emptying alone (the filling untimed).
//! One operation is one item put in or taken out.
template <class Policy, class Make, class Fill, class Empty>
void fill_and_empty(benchmark::State &state, Policy &policy, timed_part part, std::int64_t n, op_words words,
                    Make make, Fill fill, Empty empty)
{
   double timed = 0;
   for (auto _ : state) {
      {
         auto c = make(policy);
         if (part == timed_part::both) {
            fill(c);
            benchmark::DoNotOptimize(c);
            empty(c);
         } else if (part == timed_part::fill) {
            const auto t0 = ba_bench::stopwatch_clock::now();
            fill(c);
            benchmark::DoNotOptimize(c);
            timed += ba_bench::seconds_since(t0);
         } else {
            fill(c);
            benchmark::DoNotOptimize(c);
            const auto t0 = ba_bench::stopwatch_clock::now();
            empty(c);
            benchmark::DoNotOptimize(c);
            timed += ba_bench::seconds_since(t0);
         }
      }
      policy.reset();
   }
   const double ops = static_cast<double>(n);
   if (part == timed_part::both) {
      ba_bench::set_time_per_op(state, 2.0 * ops);
      state.SetLabel(std::string("time per ") + words.item + " " + words.fill + " or " + words.empty);
   } else {
      ba_bench::set_timed_part_per_op(state, timed, ops);
      state.SetLabel(std::string("time per ") + words.item + " " + (part == timed_part::fill ? words.fill : words.empty));
   }
}

template <class Policy, template <class, class> class Sequence>
void sequence_push_pop(benchmark::State &state, std::int64_t n, timed_part part)
{
   using sequence = Sequence<std::int64_t, typename Policy::template alloc<std::int64_t>>;
   Policy policy(faulted_bytes(n, kFaultedBytesPerElement));
   fill_and_empty(
      state, policy, part, n, {"element", "pushed", "popped"},
      [](Policy &p) { return sequence(p.template get<std::int64_t>()); },
      [n](sequence &s) {
         for (std::int64_t i = 0; i != n; ++i) s.push_back(i);
      },
      [n](sequence &s) {
         for (std::int64_t i = 0; i != n; ++i) s.pop_front();
      });
}

template <class Policy>
void list_string_push_pop(benchmark::State &state, std::int64_t n, timed_part part)
{
   using string = std::basic_string<char, std::char_traits<char>, typename Policy::template alloc<char>>;
   // The list hands its allocator to each string: a scoped adaptor does it for std::allocator,
   // arena_allocator and foonathan's std_allocator; polymorphic_allocator does it itself.
   using list_alloc = typename Policy::template scoped<string>;
   using list = std::list<string, list_alloc>;
   Policy policy(faulted_bytes(n, kFaultedBytesPerString));
   fill_and_empty(
      state, policy, part, n, {"string", "pushed", "popped"},
      [](Policy &p) { return list(list_alloc(p.template get<string>())); },
      [n](list &l) {
         for (std::int64_t i = 0; i != n; ++i) l.emplace_back(kStringLength, 'x');
      },
      [n](list &l) {
         for (std::int64_t i = 0; i != n; ++i) l.pop_front();
      });
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
void map_insert_erase(benchmark::State &state, std::int64_t count, timed_part part, Map *)
{
   const std::size_t n = static_cast<std::size_t>(count);
   const std::vector<std::int64_t> inserts = shuffled_keys(n, 4), erases = shuffled_keys(n, 40);
   Policy policy(faulted_bytes(count, kFaultedBytesPerElement));
   fill_and_empty(
      state, policy, part, count, {"key", "inserted", "erased"},
      [](Policy &p) { return Map(p.template get<typename Map::value_type>()); },
      [&inserts](Map &m) {
         for (std::int64_t k : inserts) m.emplace(k, k);
      },
      [&erases](Map &m) {
         for (std::int64_t k : erases) m.erase(k);
      });
}

template <class Policy>
using map_of = std::map<std::int64_t, std::int64_t, std::less<std::int64_t>,
                        typename Policy::template alloc<std::pair<const std::int64_t, std::int64_t>>>;
template <class Policy>
using unordered_map_of =
   std::unordered_map<std::int64_t, std::int64_t, std::hash<std::int64_t>, std::equal_to<std::int64_t>,
                      typename Policy::template alloc<std::pair<const std::int64_t, std::int64_t>>>;

// The rows of a container filled and emptied: <table>_<both> (both phases), <table>_<fill> and
// <table>_<empty> (one phase each), at size n, with `run(state, n, part)`.
template <class Run>
void register_phases(const std::string &table, const char *both, const char *fill, const char *empty,
                     std::int64_t n, const std::string &alloc, Run run)
{
   const std::pair<const char *, timed_part> parts[] = {
      {both, timed_part::both}, {fill, timed_part::fill}, {empty, timed_part::empty}};
   for (const auto &[suffix, part] : parts)
      ba_bench::register_benchmark(table + "_" + suffix + "/" + std::to_string(n) + "/" + alloc,
                                   [n, part = part, run](benchmark::State &s) { run(s, n, part); });
}

// The list and the map: all a growing arena is measured on (what it adds is the cost of its regions).
template <class Policy>
void register_node_containers(const std::string &name)
{
   for (std::int64_t n : kSizes) {
      register_phases("seed004_list", "push_pop", "push", "pop", n, name,
                      [](benchmark::State &s, std::int64_t size, timed_part part) {
                         sequence_push_pop<Policy, std::list>(s, size, part);
                      });
      register_phases("seed004_map", "insert_erase", "insert", "erase", n, name,
                      [](benchmark::State &s, std::int64_t size, timed_part part) {
                         map_insert_erase<Policy>(s, size, part, static_cast<map_of<Policy> *>(nullptr));
                      });
   }
}

template <class Policy>
void register_vector(const std::string &name)
{
   for (std::int64_t n : kSizes)
      ba_bench::register_benchmark("seed004_vector_push_back/" + std::to_string(n) + "/" + name,
                                   [n](benchmark::State &s) { vector_push_back<Policy>(s, n); });
}

template <class Policy>
void register_all(const std::string &name)
{
   register_node_containers<Policy>(name);
   register_vector<Policy>(name);
   for (std::int64_t n : kSizes) {
      register_phases("seed004_deque", "push_pop", "push", "pop", n, name,
                      [](benchmark::State &s, std::int64_t size, timed_part part) {
                         sequence_push_pop<Policy, std::deque>(s, size, part);
                      });
      register_phases("seed004_unordered_map", "insert_erase", "insert", "erase", n, name,
                      [](benchmark::State &s, std::int64_t size, timed_part part) {
                         map_insert_erase<Policy>(s, size, part, static_cast<unordered_map_of<Policy> *>(nullptr));
                      });
      if (n <= kMaxStrings)
         register_phases("seed004_list_string", "push_pop", "push", "pop", n, name,
                         [](benchmark::State &s, std::int64_t size, timed_part part) {
                            list_string_push_pop<Policy>(s, size, part);
                         });
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_all<std_policy>("std_allocator");
   register_all<arena_policy>("ba_arena");
   register_node_containers<arena_growing_policy>("ba_arena_growing");
   register_vector<arena_ba_vector_policy>("ba_arena_ba_vector");
   register_vector<malloc_policy>("malloc_allocator");
   register_all<pmr_monotonic_policy>("pmr_monotonic");
   register_all<pmr_pool_policy>("pmr_unsync_pool");
#if defined(ALLOCPLUS_BENCH_HAVE_FOONATHAN)
   register_all<foonathan_stack_policy>("foonathan_memory_stack");
#endif
   return ba_bench::run_benchmarks(argc, argv);
}
