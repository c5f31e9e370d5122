// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_CORE_TEST_SCALE_HPP
#define BOOST_ALLOCPLUS_TEST_CORE_TEST_SCALE_HPP

// How much work a randomized or stress test does. The counts in the tests are sized for a normal
// -O2 build; sanitizer builds run them scaled down (ASan+UBSan is ~3-5x slower, TSan ~10-20x, and
// the whole suite must stay within CI's budget), and ALLOCPLUS_TEST_SCALE (a positive real number)
// multiplies them, e.g. 10 for a long soak or 0.1 for a quick look.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#if defined(__SANITIZE_ADDRESS__)
#  define ALLOCPLUS_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#  define ALLOCPLUS_TEST_TSAN 1
#endif
#if defined(__has_feature)
#  if __has_feature(address_sanitizer) && !defined(ALLOCPLUS_TEST_ASAN)
#    define ALLOCPLUS_TEST_ASAN 1
#  endif
#  if __has_feature(thread_sanitizer) && !defined(ALLOCPLUS_TEST_TSAN)
#    define ALLOCPLUS_TEST_TSAN 1
#  endif
#endif

namespace allocplus_test {

#if defined(ALLOCPLUS_TEST_TSAN)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif
#if defined(ALLOCPLUS_TEST_ASAN)
constexpr bool under_asan = true;
#else
constexpr bool under_asan = false;
#endif

//! The factor the build applies by itself: 1 normally, less under a sanitizer.
constexpr double build_scale() { return under_tsan ? 0.1 : under_asan ? 0.25 : 1.0; }

//! The factor from ALLOCPLUS_TEST_SCALE (1 when unset or not a positive number).
inline double env_scale()
{
   const char *s = std::getenv("ALLOCPLUS_TEST_SCALE");
   if (!s) return 1.0;
   double v = std::strtod(s, nullptr);
   return v > 0 ? v : 1.0;
}

//! `n` scaled by the build and the environment, never below `at_least`.
inline std::size_t scaled(std::size_t n, std::size_t at_least = 1)
{
   double v = static_cast<double>(n) * build_scale() * env_scale();
   std::size_t r = v < 1.0 ? 0 : static_cast<std::size_t>(v);
   return r < at_least ? at_least : r;
}

//! The seed of randomized tests: ALLOCPLUS_TEST_SEED when set, else `fallback` (fixed, so a
//! failure reproduces; the tests print the seed they use).
inline std::uint64_t seed(std::uint64_t fallback)
{
   const char *s = std::getenv("ALLOCPLUS_TEST_SEED");
   return s ? std::strtoull(s, nullptr, 0) : fallback;
}

} // namespace allocplus_test

#endif
