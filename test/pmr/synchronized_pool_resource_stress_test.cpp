// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::synchronized_pool_resource and ba::synchronized_adaptive_pool_resource from many threads: std::pmr containers of several size classes
// filled and emptied at once, blocks handed to other threads and freed there, requests that go
// upstream in between. Built for TSan in CI (label `thread`).

#define BOOST_TEST_MODULE allocplus synchronized_pool_resource stress
#include <boost/test/unit_test.hpp>

#include <boost/allocplus/adaptive_pool_resource.hpp>
#include <boost/allocplus/synchronized_pool_resource.hpp>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <list>
#include <map>
#include <memory_resource>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

namespace ba = boost::allocplus;

namespace {

constexpr int thread_count = 6;

struct handed_block {
   unsigned char *p;
   std::size_t size;
   unsigned char fill;
};

} // namespace

using synchronized_resources = std::tuple<ba::synchronized_pool_resource, ba::synchronized_adaptive_pool_resource>;

BOOST_AUTO_TEST_CASE_TEMPLATE(threads_allocate_and_free_each_others_blocks, Resource, synchronized_resources)
{
   Resource resource;
   std::mutex exchange_lock;
   std::vector<handed_block> exchange;   // blocks allocated by one thread, freed by another
   std::atomic<int> errors{0};

   auto work = [&](int id) {
      std::mt19937 rng(static_cast<unsigned>(id) * 7919u + 1u);
      std::pmr::list<int> l(&resource);
      std::pmr::map<int, int> m(&resource);
      for (int round = 0; round < 500; ++round) {
         for (int i = 0; i < 50; ++i) {
            l.push_back(i);
            m[(round * 50 + i) % 300] = id;
            const std::size_t size = 1 + rng() % 700;   // some beyond the largest class: upstream
            auto *p = static_cast<unsigned char *>(resource.allocate(size, 8));
            const auto fill = static_cast<unsigned char>(id * 16 + i);
            std::memset(p, fill, size);
            std::lock_guard<std::mutex> g(exchange_lock);
            exchange.push_back({p, size, fill});
         }
         for (int i = 0; i < 50; ++i) {
            handed_block b{};
            {
               std::lock_guard<std::mutex> g(exchange_lock);
               if (exchange.empty()) break;
               const std::size_t k = rng() % exchange.size();
               b = exchange[k];
               exchange[k] = exchange.back();
               exchange.pop_back();
            }
            for (std::size_t j = 0; j < b.size; ++j)
               if (b.p[j] != b.fill) {
                  ++errors;
                  break;
               }
            resource.deallocate(b.p, b.size, 8);
         }
         if (round % 10 == 9) {
            l.clear();
            m.clear();
         }
      }
   };
   std::vector<std::thread> threads;
   for (int t = 0; t < thread_count; ++t) threads.emplace_back(work, t);
   for (std::thread &t : threads) t.join();
   for (const handed_block &b : exchange) resource.deallocate(b.p, b.size, 8);
   BOOST_TEST(errors.load() == 0);
}
