// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The round of pool_churn_ab.sh: the node churn of bench/node_churn.hpp on a std::list<int> or
// a std::set<int> over Alloc, in one thread or in two at once (each on a container of its own).
#ifndef ALLOCPLUS_BENCH_AB_POOL_CHURN_ROUND_HPP
#define ALLOCPLUS_BENCH_AB_POOL_CHURN_ROUND_HPP

#include "../node_churn.hpp"

#include <chrono>
#include <functional>
#include <list>
#include <set>
#include <thread>

namespace ba_ab {

//! Returns: the wall time of one round, in milliseconds (the containers' destruction included).
template <class Alloc>
double churn_round(int threads, bool set)
{
   constexpr int count = 1000000;
   const auto start = std::chrono::steady_clock::now();
   auto work = [set] {
      if (set) {
         std::set<int, std::less<int>, Alloc> c;
         ba_bench::node_churn(c, [](auto &s, int key) { s.insert(key); }, count, true);
      } else {
         std::list<int, Alloc> c;
         ba_bench::node_churn(c, [](auto &l, int key) { l.push_back(key); }, count, true);
      }
   };
   std::thread second;
   if (threads == 2) second = std::thread(work);
   work();
   if (second.joinable()) second.join();
   return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace ba_ab

#endif // ALLOCPLUS_BENCH_AB_POOL_CHURN_ROUND_HPP
