// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// pool_churn_ab.sh's program: rounds of the node churn over two builds of the headers (`base`
// and `work`) and over std::allocator (glibc's malloc, or the malloc LD_PRELOAD puts in: its
// node allocation is the peer's), in one process, taken in turn (the order rotating), so that
// the machine's moods and the process's memory weigh on all three alike.
//
//   pool_churn_ab THREADS ROUNDS [list|set]
//
// Prints the median time of a round of each, and the medians (and ranges) of the per-round
// ratios work/base, base/std and work/std.
#include "pool_churn_round.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

double churn_round_ab_base(int threads, bool set);
double churn_round_ab_work(int threads, bool set);

namespace {

double churn_round_std(int threads, bool set) { return ba_ab::churn_round<std::allocator<int>>(threads, set); }

double median(std::vector<double> v)
{
   std::sort(v.begin(), v.end());
   return v[v.size() / 2];
}

void print_ratio(const char *name, const std::vector<double> &num, const std::vector<double> &den)
{
   std::vector<double> r;
   for (std::size_t i = 0; i != num.size(); ++i) r.push_back(num[i] / den[i]);
   const auto [low, high] = std::minmax_element(r.begin(), r.end());
   std::printf("%s %.3f (rounds %.2f-%.2f)\n", name, median(r), *low, *high);
}

} // namespace

int main(int argc, char **argv)
{
   if (argc < 3) {
      std::fprintf(stderr, "usage: %s THREADS(1|2) ROUNDS [list|set]\n", argv[0]);
      return 2;
   }
   const int threads = std::atoi(argv[1]), rounds = std::atoi(argv[2]);
   const bool set = argc > 3 && std::strcmp(argv[3], "set") == 0;
   double (*const builds[3])(int, bool) = {churn_round_ab_base, churn_round_ab_work, churn_round_std};
   const char *const names[3] = {"base", "work", "std"};
   for (auto round : builds) round(threads, set);   // first rounds, untimed: the second round's state
   std::vector<double> times[3];
   for (int i = 0; i < rounds; ++i)
      for (int k = 0; k < 3; ++k) {
         const int b = (k + i) % 3;
         times[b].push_back(builds[b](threads, set));
      }
   for (int b = 0; b < 3; ++b) std::printf("%s: %.1f ms a round\n", names[b], median(times[b]));
   print_ratio("work/base", times[1], times[0]);
   print_ratio("base/std ", times[0], times[2]);
   print_ratio("work/std ", times[1], times[2]);
}
