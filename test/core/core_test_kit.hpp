// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_CORE_CORE_TEST_KIT_HPP
#define BOOST_ALLOCPLUS_TEST_CORE_CORE_TEST_KIT_HPP

// What the tests of the C core share: a heap that is destroyed at the end of a test, byte patterns
// that tell one block from another, and a heap check that says which invariant broke.

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocplus_test {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;
constexpr std::size_t size_max = static_cast<std::size_t>(-1);

inline bool is_aligned(const void *p, std::size_t a)
{
   return reinterpret_cast<std::uintptr_t>(p) % a == 0;
}

inline std::ptrdiff_t distance(const void *from, const void *to)
{
   return static_cast<const unsigned char *>(to) - static_cast<const unsigned char *>(from);
}

//! The byte at offset i of a block filled with `seed`: every block gets its own sequence, so a
//! block overwritten by another (or moved without its contents) is noticed.
inline unsigned char pattern_byte(std::uint32_t seed, std::size_t i)
{
   std::uint32_t x = seed * 2654435761u + static_cast<std::uint32_t>(i) * 40503u;
   return static_cast<unsigned char>((x >> 13) ^ (x >> 5) ^ i);
}

inline void fill(void *p, std::size_t n, std::uint32_t seed, std::size_t from = 0)
{
   unsigned char *b = static_cast<unsigned char *>(p);
   for (std::size_t i = from; i < n; ++i) b[i] = pattern_byte(seed, i);
}

//! Returns: the first offset in [from, n) whose byte is not the pattern's, or n.
inline std::size_t first_mismatch(const void *p, std::size_t n, std::uint32_t seed, std::size_t from = 0)
{
   const unsigned char *b = static_cast<const unsigned char *>(p);
   for (std::size_t i = from; i < n; ++i)
      if (b[i] != pattern_byte(seed, i)) return i;
   return n;
}

inline bool holds_pattern(const void *p, std::size_t n, std::uint32_t seed, std::size_t from = 0)
{
   return first_mismatch(p, n, seed, from) == n;
}

inline bool all_zero(const void *p, std::size_t n)
{
   const unsigned char *b = static_cast<const unsigned char *>(p);
   for (std::size_t i = 0; i != n; ++i)
      if (b[i]) return false;
   return true;
}

//! ba_heap_check(h), with the broken invariant in the message when it fails.
#define ALLOCPLUS_CHECK_HEAP(h)                                                                    \
   do {                                                                                            \
      ba_check_report allocplus_report_ = {nullptr, nullptr};                                      \
      int allocplus_ok_ = ba_heap_check((h), &allocplus_report_);                                  \
      BOOST_TEST(allocplus_ok_ == 1, "ba_heap_check: "                                             \
         << (allocplus_report_.what ? allocplus_report_.what : "(no report)") << " at "           \
         << allocplus_report_.where);                                                              \
   } while (0)

#define ALLOCPLUS_REQUIRE_HEAP(h)                                                                  \
   do {                                                                                            \
      ba_check_report allocplus_report_ = {nullptr, nullptr};                                      \
      int allocplus_ok_ = ba_heap_check((h), &allocplus_report_);                                  \
      BOOST_REQUIRE_MESSAGE(allocplus_ok_ == 1, "ba_heap_check: "                                  \
         << (allocplus_report_.what ? allocplus_report_.what : "(no report)") << " at "           \
         << allocplus_report_.where);                                                              \
   } while (0)

//! A heap created for one test and destroyed after it.
class scoped_heap {
public:
   explicit scoped_heap(std::size_t capacity = 0, int locked = 1) : h_(ba_create_heap(capacity, locked))
   {
      BOOST_REQUIRE(h_ != nullptr);
   }
   scoped_heap(const scoped_heap &) = delete;
   scoped_heap &operator=(const scoped_heap &) = delete;
   ~scoped_heap() { if (h_) ba_destroy_heap(h_); }
   ba_heap *get() const { return h_; }
   operator ba_heap *() const { return h_; }
   ba_heap_stats stats() const
   {
      ba_heap_stats s;
      ba_heap_stats_get(h_, &s);
      return s;
   }
private:
   ba_heap *h_;
};

inline ba_heap_stats stats_of(ba_heap *h)
{
   ba_heap_stats s;
   ba_heap_stats_get(h, &s);
   return s;
}

} // namespace allocplus_test

#endif
