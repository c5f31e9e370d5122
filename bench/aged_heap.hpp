// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_BENCH_AGED_HEAP_HPP
#define BOOST_ALLOCPLUS_BENCH_AGED_HEAP_HPP

// A heap as a program leaves it after a while: a fresh heap lets a container grow into untouched
// memory, an old one places it between blocks that are still alive. The aged tables build and
// free, over the allocator they measure (so over its own heap), node containers of mixed sizes
// before the timed loop, and keep a sixteenth of what they allocated alive until the process ends.

#include "benchmark_kit.hpp"

#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace ba_bench {

//! Ages the heap behind the allocator template Alloc on construction: builds, interleaved, a
//! std::map<int, int> and a std::unordered_map<int, int> of `entries` entries each and a
//! std::list of `entries` strings of 16..200 characters (the characters from Alloc too), frees
//! fifteen sixteenths of them (the maps' in key and hash order, not the order they were built
//! in), and keeps the rest until it is destroyed. Deterministic: every allocator sees the same sizes and orders.
template <template <class> class Alloc>
class aged_heap {
public:
   using string = std::basic_string<char, std::char_traits<char>, Alloc<char>>;

   explicit aged_heap(std::size_t entries = 50000)
   {
      map_type map;
      unordered_type unordered;
      list_type strings;
      fixed_seed_rng r(0xa9edu);
      for (std::size_t i = 0; i != entries; ++i) {
         const int key = static_cast<int>(r.next() >> 33);
         map.emplace(key, static_cast<int>(i));
         unordered.emplace(key, static_cast<int>(i));
         strings.emplace_back(r.between(16, 200), 'x');
      }
      // Survivors: every sixteenth entry of each, spread over the memory the containers took.
      std::size_t i = 0;
      for (auto it = map.begin(); it != map.end(); ++i) {
         if (i % 16 == 0) survivors_map_.insert(map.extract(it++));
         else ++it;
      }
      i = 0;
      for (auto it = unordered.begin(); it != unordered.end(); ++i) {
         if (i % 16 == 0) survivors_unordered_.insert(unordered.extract(it++));
         else ++it;
      }
      i = 0;
      for (auto it = strings.begin(); it != strings.end(); ++i) {
         if (i % 16 == 0) survivors_strings_.splice(survivors_strings_.end(), strings, it++);
         else ++it;
      }
      // The rest dies here: the strings first, the map last.
   }

private:
   using map_type = std::map<int, int, std::less<int>, Alloc<std::pair<const int, int>>>;
   using unordered_type = std::unordered_map<int, int, std::hash<int>, std::equal_to<int>,
                                             Alloc<std::pair<const int, int>>>;
   using list_type = std::list<string, Alloc<string>>;

   map_type survivors_map_;
   unordered_type survivors_unordered_;
   list_type survivors_strings_;
};

//! Whether a benchmark runs on a fresh heap or on one aged as a program's.
enum class heap_age { fresh, aged };

//! Ages the heap behind Alloc when `age` asks for it: once per process (the first benchmark call;
//! Google Benchmark calls a benchmark several times), whose survivors live until the process ends.
template <template <class> class Alloc>
class heap_of_age {
public:
   explicit heap_of_age(heap_age age)
   {
      if (age == heap_age::aged) {
         static const aged_heap<Alloc> once;
         (void)once;
      }
   }
};

} // namespace ba_bench

#endif
