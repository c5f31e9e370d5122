// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The std::pmr resources (memory_resource.hpp): node churn of std::pmr containers over ours and
// over the standard library's resources, in one program so that bench/run.py puts them in the
// same tables.
//
//   pmr_list_churn/200k/<resource>  one std::pmr::list<int>: push_back 200k integers, erase every
//                                   3rd, push_back 200k, erase every 7th, push_back 200k, destroy.
//                                   Operation: one node allocated or freed.
//   pmr_map_churn/200k/<resource>   the same with std::pmr::map<int, int>, keys 1..200k then
//                                   200k more distinct ones each push (no key repeats).
//   pmr_*_churn_idle_thread/200k/<resource>  the same with one more thread alive, blocked.
//   pmr_*_churn_two_threads/200k/<resource>  the thread-safe resources only: two threads churn
//                                   at once, a container each, over the one resource (the time
//                                   is per node of both).
//   pmr_*_churn_long_lived/200k/<resource>  one resource for the whole process, as a program
//                                   keeps one: the churn, each time on a new container, over a
//                                   resource that has already served it ten times (untimed, once
//                                   a process). A pool's free list is then the order of earlier
//                                   frees, and containers built from it are scattered unless the
//                                   pool puts its nodes back in order (not the buffer resources:
//                                   the monotonic one never reuses memory).
//   pmr_*_churn_long_lived_survivors/200k/<resource>  the same, with 2000 nodes made during the
//                                   ten earlier churns still in use: the resource never empties.
//
// Resources, a new one per container: `ba_unsync_pool` (ba::unsynchronized_pool_resource),
// `ba_sync_pool` (ba::synchronized_pool_resource), `ba_unsync_adaptive_pool` /
// `ba_sync_adaptive_pool` (their adaptive twins), `ba_default_heap` (ba::default_heap_resource());
// `ba_arena` (ba::arena_resource over a ba::arena in a 64 MiB buffer); `std_unsync_pool` /
// `std_sync_pool` (std::pmr's pool resources), `new_delete` (std::pmr::new_delete_resource()),
// `std_monotonic_buffer` (std::pmr::monotonic_buffer_resource over a 64 MiB buffer: it never
// reuses a freed block).

#include <boost/allocplus/memory_resource.hpp>

#include "benchmark_kit.hpp"
#include "node_churn.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <memory_resource>
#include <list>
#include <string>
#include <thread>
#include <utility>

namespace {

namespace ba = boost::allocplus;

constexpr int kCount = 200000;

template <class Container, class Add>
std::size_t churn(Container &c, Add add)
{
   return ba_bench::node_churn(c, add, kCount, false);
}

using ba_bench::company;

template <class Container, class MakeResource, class Add>
void bm_churn(benchmark::State &state, MakeResource make_resource, Add add, company others)
{
   std::unique_ptr<ba_bench::idle_thread> idle;
   if (others == company::idle_thread) idle = std::make_unique<ba_bench::idle_thread>();
   std::size_t operations = 0;
   for (auto _ : state) {
      auto resource = make_resource();
      std::size_t second_operations = 0;
      std::thread second;
      if (others == company::second_worker)
         second = std::thread([&] {
            Container c(&resource->get());
            second_operations = churn(c, add);
         });
      {
         Container c(&resource->get());
         operations = churn(c, add);
         benchmark::DoNotOptimize(&c);
      }
      if (second.joinable()) second.join();
      operations += second_operations;
   }
   state.SetLabel("time per node allocated or freed");
   ba_bench::set_time_per_op(state, static_cast<double>(operations));
}

// Whether a long-lived resource also holds nodes that outlive every churn.
enum class survivors { none, some };

// A resource kept for the process's life, and the container of its survivors (destroyed first).
template <class Container, class Holder>
struct long_lived {
   std::unique_ptr<Holder> resource = std::make_unique<Holder>();
   Container kept{&resource->get()};
};

//! The churn over one resource that lives as long as the process and served it ten times first;
//! with survivors, 200 nodes made before each of those ten churns stay in use (2000 in all, taken
//! from wherever the earlier churns' frees left them), so that the resource never empties.
//! (One aged resource for each instantiation: survivors is a template parameter for that.)
template <class Container, class Holder, survivors Kept, class Add>
void bm_churn_long_lived(benchmark::State &state, Add add)
{
   static const std::unique_ptr<long_lived<Container, Holder>> aged = [&] {
      auto a = std::make_unique<long_lived<Container, Holder>>();
      for (int i = 0; i < 10; ++i) {
         if (Kept == survivors::some)
            for (int k = 0; k < 200; ++k) add(a->kept, -(i * 200 + k) - 1);
         Container c(&a->resource->get());
         churn(c, add);
      }
      return a;
   }();
   std::size_t operations = 0;
   for (auto _ : state) {
      Container c(&aged->resource->get());
      operations = churn(c, add);
      benchmark::DoNotOptimize(&c);
   }
   state.SetLabel("time per node allocated or freed");
   ba_bench::set_time_per_op(state, static_cast<double>(operations));
}

template <class Resource>
struct owned {
   Resource resource;
   std::pmr::memory_resource &get() { return resource; }
};
template <std::pmr::memory_resource *(*Global)()>
struct global {
   std::pmr::memory_resource &get() { return *Global(); }
};
std::pmr::memory_resource *ba_default_heap() { return ba::default_heap_resource(); }

// A buffer of 64 MiB from the system (pages touched as the churn reaches them), for the resources
// over a buffer: ours (an arena) and std's monotonic one.
struct big_buffer {
   static constexpr std::size_t bytes = std::size_t(64) << 20;
   std::unique_ptr<unsigned char[]> memory{new unsigned char[bytes]};
};
struct arena_holder : big_buffer {
   ba::arena arena{memory.get(), bytes};
   ba::arena_resource resource{arena};
   std::pmr::memory_resource &get() { return resource; }
};
struct monotonic_holder : big_buffer {
   std::pmr::monotonic_buffer_resource resource{memory.get(), bytes, std::pmr::null_memory_resource()};
   std::pmr::memory_resource &get() { return resource; }
};

// Whether one resource may serve two threads at once.
enum class threads { one, many };

// Whether a resource may serve a process for its whole life (the monotonic buffer, which never
// reuses memory, may not).
enum class lifetime { per_container, long_lived_too };

template <class Holder>
void register_resource(const std::string &name, threads safe, lifetime life = lifetime::long_lived_too)
{
   const auto push = [](auto &c, int key) { c.push_back(key); };
   const auto insert = [](auto &c, int key) { c.emplace(key, key); };
   if (life == lifetime::long_lived_too) {
      ba_bench::register_benchmark("pmr_list_churn_long_lived/200k/" + name, [=](benchmark::State &s) {
         bm_churn_long_lived<std::pmr::list<int>, Holder, survivors::none>(s, push);
      });
      ba_bench::register_benchmark("pmr_map_churn_long_lived/200k/" + name, [=](benchmark::State &s) {
         bm_churn_long_lived<std::pmr::map<int, int>, Holder, survivors::none>(s, insert);
      });
      ba_bench::register_benchmark("pmr_list_churn_long_lived_survivors/200k/" + name, [=](benchmark::State &s) {
         bm_churn_long_lived<std::pmr::list<int>, Holder, survivors::some>(s, push);
      });
      ba_bench::register_benchmark("pmr_map_churn_long_lived_survivors/200k/" + name, [=](benchmark::State &s) {
         bm_churn_long_lived<std::pmr::map<int, int>, Holder, survivors::some>(s, insert);
      });
   }
   for (const auto &[others, suffix] : ba_bench::companies) {
      if (others == company::second_worker && safe == threads::one) continue;
      const company o = others;
      const auto make = [] { return std::make_unique<Holder>(); };
      ba_bench::register_benchmark(std::string("pmr_list_churn") + suffix + "/200k/" + name,
                                   [=](benchmark::State &s) { bm_churn<std::pmr::list<int>>(s, make, push, o); });
      ba_bench::register_benchmark(std::string("pmr_map_churn") + suffix + "/200k/" + name,
                                   [=](benchmark::State &s) { bm_churn<std::pmr::map<int, int>>(s, make, insert, o); });
   }
}

} // namespace

int main(int argc, char **argv)
{
   register_resource<owned<ba::unsynchronized_pool_resource>>("ba_unsync_pool", threads::one);
   register_resource<owned<ba::synchronized_pool_resource>>("ba_sync_pool", threads::many);
   register_resource<owned<ba::unsynchronized_adaptive_pool_resource>>("ba_unsync_adaptive_pool", threads::one);
   register_resource<owned<ba::synchronized_adaptive_pool_resource>>("ba_sync_adaptive_pool", threads::many);
   register_resource<global<&ba_default_heap>>("ba_default_heap", threads::many);
   register_resource<arena_holder>("ba_arena", threads::one, lifetime::per_container);
   register_resource<owned<std::pmr::unsynchronized_pool_resource>>("std_unsync_pool", threads::one);
   register_resource<owned<std::pmr::synchronized_pool_resource>>("std_sync_pool", threads::many);
   register_resource<global<&std::pmr::new_delete_resource>>("new_delete", threads::many);
   register_resource<monotonic_holder>("std_monotonic_buffer", threads::one, lifetime::per_container);
   return ba_bench::run_benchmarks(argc, argv);
}
