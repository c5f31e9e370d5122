// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE: every growth (push_back, insert, reserve, resize)
// takes a new buffer and frees the old one, with any allocator, so that under ASan a pointer kept
// across a push_back is reported when it is read, as with std::vector.
//
// Built twice: vector_always_reallocate_test defines the macro; vector_grows_in_place_test, the
// control, does not, and expects the opposite of every check (the growths of a vector alone in a
// fresh heap expand it forward in place, and the same stale read is then harmless), which shows
// that the macro is what the first program tests.

#define BOOST_TEST_MODULE allocplus vector always reallocate
#include "one_heap/child_process.hpp"
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdlib>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#  define ALLOCPLUS_TEST_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define ALLOCPLUS_TEST_ASAN 1
#  endif
#endif

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

#if defined(BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE)
constexpr bool always_reallocate = true;
#else
constexpr bool always_reallocate = false;
#endif

using counted = counting_allocator<ba::heap_allocator<int>>;

//! Appends until the capacity has grown `growths` times; returns how many of those growths left
//! the elements where they were.
template <class Vector>
std::size_t growths_in_place(Vector &v, int growths)
{
   std::size_t in_place = 0;
   for (int grown = 0; grown != growths;) {
      const int *const start = v.data();
      const std::size_t capacity = v.capacity();
      v.push_back(static_cast<int>(v.size()));
      if (v.capacity() != capacity) {
         ++grown;
         if (v.data() == start) ++in_place;
      }
   }
   return in_place;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_push_back_growth_takes_a_new_buffer)
{
   ba::heap h;   // fresh: the vector's buffer ends at the top, where it could always grow in place
   allocation_counters c;
   ba::vector<int, counted> v{counted(c, ba::heap_allocator<int>(h))};
   v.reserve(4);
   const std::size_t in_place = growths_in_place(v, 20);
   if (always_reallocate) {
      BOOST_TEST(in_place == 0u);
      BOOST_TEST(c.expansions() == 0u);
      BOOST_TEST(c.allocations == 21u);   // the first buffer and one per growth
      BOOST_TEST(c.live_blocks() == 1u);   // every old buffer was freed
   } else {
      BOOST_TEST(in_place > 10u);
      BOOST_TEST(c.expansions_fwd == in_place);
   }
   for (std::size_t i = 0; i != v.size(); ++i) BOOST_REQUIRE(v[i] == static_cast<int>(i));
}

BOOST_AUTO_TEST_CASE(reserve_insert_and_resize_take_a_new_buffer)
{
   ba::heap h;
   allocation_counters c;
   ba::vector<std::string, counting_allocator<ba::heap_allocator<std::string>>> v{
      counting_allocator<ba::heap_allocator<std::string>>(c, ba::heap_allocator<std::string>(h))};
   v.assign(3, "abc");
   const std::string *start = v.data();
   v.reserve(v.capacity() + 10);
   BOOST_TEST((v.data() != start) == always_reallocate);
   start = v.data();
   v.insert(v.begin() + 1, v.capacity() - v.size() + 1, "middle");
   BOOST_TEST((v.data() != start) == always_reallocate);
   start = v.data();
   v.resize(v.capacity() + 1, "end");
   BOOST_TEST((v.data() != start) == always_reallocate);
   BOOST_TEST((c.expansions() == 0u) == always_reallocate);
   BOOST_TEST(v[0] == "abc");
   BOOST_TEST(v[1] == "middle");
   BOOST_TEST(v.back() == "end");
}

BOOST_AUTO_TEST_CASE(the_default_allocator_takes_a_new_buffer_too)
{
   ba::vector<int> v;
   v.reserve(1);
   // Elsewhere in the default heap some growth may fail to expand; with the macro none expands.
   const std::size_t in_place = growths_in_place(v, 15);
   if (always_reallocate) BOOST_TEST(in_place == 0u);
   for (std::size_t i = 0; i != v.size(); ++i) BOOST_REQUIRE(v[i] == static_cast<int>(i));
}

#if defined(ALLOCPLUS_TEST_ASAN)
// In a child: a pointer to an element is kept across a push_back that grows the vector, then
// read. With the macro the old buffer is freed (and poisoned by the core), and ASan stops the
// child with its report; without it the buffer grew in place and the read is sound.
BOOST_AUTO_TEST_CASE(asan_reports_a_pointer_kept_across_a_growth)
{
   const child_outcome out = run_in_child([] {
      ba::heap h;
      ba::vector<int, ba::heap_allocator<int>> v{ba::heap_allocator<int>(h)};
      v.reserve(8);
      while (v.size() != v.capacity()) v.push_back(1);
      const int *const kept = &v[0];
      v.push_back(2);   // grows
      if (always_reallocate == (v.data() == kept)) std::_Exit(3);
      const volatile int *const stale = kept;
      const int read = *stale;   // ASan stops here when the old buffer was freed
      std::_Exit(read == 1 ? 0 : 4);
   });
   BOOST_TEST_INFO("child stderr: " << out.err);
   if (always_reallocate) {
      BOOST_TEST(out.exit_code != 0);
      BOOST_TEST(out.err.find("ERROR: AddressSanitizer: ") != std::string::npos);
      BOOST_TEST(out.err.find("READ of size 4") != std::string::npos);
   } else {
      BOOST_TEST(out.exit_code == 0);
      BOOST_TEST(out.err.find("AddressSanitizer") == std::string::npos);
   }
}
#endif
