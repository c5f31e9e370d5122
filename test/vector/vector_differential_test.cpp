// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::vector against std::vector: random sequences of every operation (seeded, reproducible),
// the two compared after every step, over element types that are trivial, have user-written
// copy and move constructors and count their instances, are move-only, point to themselves, or
// are opted in as bitwise relocatable; over allocators that expand forward, backward, both, or
// never. At the end no instance is left alive (none leaked, none destroyed twice).

#define BOOST_TEST_MODULE allocplus vector differential
#include "core/test_scale.hpp"
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

//! Move-only, owning.
struct move_only {
   std::unique_ptr<int> p;
   move_only(int v = 0) : p(new int(v)) {}
   move_only(move_only &&) noexcept = default;
   move_only &operator=(move_only &&) noexcept = default;
   int value() const { return p ? *p : -1; }
};

//! Points to itself; using one that was moved bitwise throws.
struct self_pointing {
   static inline long live = 0;
   int v;
   self_pointing *self;
   self_pointing(int x = 0) noexcept : v(x), self(this) { ++live; }
   self_pointing(const self_pointing &o) : v(o.value()), self(this) { ++live; }
   self_pointing(self_pointing &&o) noexcept : v(o.v), self(this) { ++live; }
   self_pointing &operator=(const self_pointing &o)
   {
      v = o.value();
      return *this;
   }
   ~self_pointing() { --live; }
   int value() const
   {
      if (self != this) throw std::logic_error("self_pointing moved bitwise");
      return v;
   }
};

//! Opted in as bitwise relocatable, with a move that may throw (so growth relocates it with
//! memcpy, and backward expansion is allowed only because of the opt-in).
struct relocatable {
   static inline long live = 0;
   std::unique_ptr<std::string> owned;   // libstdc++'s string itself is not relocatable: own it
   relocatable(int x = 0) : owned(new std::string(std::to_string(x) + "                        ")) { ++live; }
   relocatable(const relocatable &o) : owned(new std::string(*o.owned)) { ++live; }
   relocatable(relocatable &&o) noexcept(false) : owned(std::move(o.owned)) { ++live; }
   relocatable &operator=(const relocatable &o)
   {
      owned.reset(new std::string(*o.owned));
      return *this;
   }
   relocatable &operator=(relocatable &&o) noexcept
   {
      owned = std::move(o.owned);
      return *this;
   }
   ~relocatable() { --live; }
   int value() const { return owned ? std::stoi(*owned) : -1; }
};

} // namespace

namespace boost { namespace allocplus {
template <>
struct is_trivially_relocatable<relocatable> : std::true_type {};
}} // namespace boost::allocplus

namespace {

int value_of(int x) { return x; }
template <class E>
int value_of(const E &e)
{
   return e.value();
}

template <class E>
constexpr bool copyable() { return std::is_copy_constructible<E>::value; }

//! One run: `steps` random operations on a ba::vector<E, A> and a std::vector<E> side by side.
template <class E, class A>
void run(std::uint64_t seed, std::size_t steps, const A &a = A())
{
   std::mt19937_64 rng(seed);
   auto pick = [&rng](std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0u; };
   ba::vector<E, A> v(a);
   std::vector<E> m;
   int next = 0;
   std::size_t step = 0;
   auto same = [&]() {
      if (v.size() != m.size()) return false;
      for (std::size_t i = 0; i != m.size(); ++i)
         if (value_of(v[i]) != value_of(m[i])) return false;
      return v.capacity() >= v.size();
   };
   for (; step != steps; ++step) {
      const std::size_t op = pick(22);
      const std::size_t n = m.size();
      // Keep the vectors from growing without bound: beyond 3000 elements, erase often.
      if (n > 3000 && op < 12) {
         const std::size_t from = pick(n / 2);
         v.erase(v.begin() + static_cast<std::ptrdiff_t>(from), v.end());
         m.erase(m.begin() + static_cast<std::ptrdiff_t>(from), m.end());
      }
      const std::size_t at = pick(m.size() + 1);
      const auto vat = v.begin() + static_cast<std::ptrdiff_t>(at);
      const auto mat = m.begin() + static_cast<std::ptrdiff_t>(at);
      switch (op) {
      case 0: case 1: case 2: case 3:
         v.emplace_back(next), m.emplace_back(next);
         ++next;
         break;
      case 4:
         v.emplace(vat, next), m.emplace(mat, next);
         ++next;
         break;
      case 5:
         if (!m.empty()) {
            const std::size_t i = pick(m.size());
            v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
            m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
         }
         break;
      case 6:
         if (!m.empty()) v.pop_back(), m.pop_back();
         break;
      case 7: {
         const std::size_t len = pick(m.size() - at + 1);
         v.erase(vat, vat + static_cast<std::ptrdiff_t>(len));
         m.erase(mat, mat + static_cast<std::ptrdiff_t>(len));
         break;
      }
      case 8: {
         const std::size_t size = pick(2 * m.size() + 20);
         v.resize(size), m.resize(size);
         break;
      }
      case 9:
         v.reserve(pick(3 * m.size() + 20)), m.reserve(v.capacity());
         break;
      case 10:
         v.shrink_to_fit();
         break;
      case 11: {
         std::vector<E> r;
         const std::size_t len = pick(40);
         for (std::size_t i = 0; i != len; ++i) r.emplace_back(next++);
         if constexpr (copyable<E>()) {
            v.insert(vat, r.begin(), r.end());
            m.insert(mat, r.begin(), r.end());
         } else {
            std::vector<E> r2;
            for (const E &e : r) r2.emplace_back(value_of(e));
            v.insert(vat, std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
            m.insert(mat, std::make_move_iterator(r2.begin()), std::make_move_iterator(r2.end()));
         }
         break;
      }
      case 12:
         if constexpr (copyable<E>()) {
            if (!m.empty()) {   // self-insertion of an element
               const std::size_t from = pick(m.size());
               v.insert(vat, v[from]), m.insert(mat, m[from]);
            }
         }
         break;
      case 13:
         if constexpr (copyable<E>()) {
            if (!m.empty()) {
               const std::size_t from = pick(m.size()), count = pick(30);
               v.insert(vat, count, v[from]), m.insert(mat, count, m[from]);
            }
         }
         break;
      case 14:
         if constexpr (copyable<E>()) {
            if (!m.empty()) {
               const std::size_t from = pick(m.size());
               v.push_back(v[from]), m.push_back(m[from]);
            }
         }
         break;
      case 15:
         if constexpr (copyable<E>()) {
            if (!m.empty()) {
               const std::size_t size = pick(2 * m.size() + 20), from = pick(m.size());
               v.resize(size, v[from]), m.resize(size, m[from]);
            }
         }
         break;
      case 16:
         if constexpr (copyable<E>()) {
            ba::vector<E, A> w(v);
            v.clear();
            v = w;
         }
         break;
      case 17: {
         ba::vector<E, A> w(std::move(v));
         v = std::move(w);
         break;
      }
      case 18:
         if constexpr (copyable<E>()) {
            if (!m.empty()) {
               const std::size_t count = pick(2 * m.size() + 5), from = pick(m.size());
               const E value = m[from];
               v.assign(count, v[from]), m.assign(count, value);
            }
         }
         break;
      case 19:
         if (!m.empty()) {
            const std::size_t i = pick(m.size()), j = pick(m.size());
            std::swap(v[i], v[j]), std::swap(m[i], m[j]);
         }
         break;
      case 20:
         if (m.size() < 200) v.clear(), m.clear();
         break;
      default: {
         ba::vector<E, A> w(a);
         w.swap(v);
         v.swap(w);
         break;
      }
      }
      if (!same()) break;
   }
   BOOST_TEST(same(), "differs from std::vector after step " << step << " (seed " << seed << ")");
}

template <class E>
void run_every_allocator(std::uint64_t seed, std::size_t steps)
{
   run<E, ba::allocator<E>>(seed, steps);
   run<E, ba::allocator<E, 2, ba::expand_fwd>>(seed + 1, steps);
   run<E, ba::allocator<E, 2, ba::expand_fwd | ba::expand_bwd>>(seed + 2, steps);
   run<E, forward_expansion_allocator<E>>(seed + 3, steps / 2);
   run<E, backward_expansion_allocator<E>>(seed + 4, steps / 2);
   run<E, std::allocator<E>>(seed + 5, steps / 2);
}

const std::size_t steps = scaled(25000, 2000);

} // namespace

BOOST_AUTO_TEST_CASE(trivial_elements)
{
   run_every_allocator<int>(seed(0x5eed0001), steps);
}

BOOST_AUTO_TEST_CASE(elements_with_user_copy_and_move_counted)
{
   using E = tracked<struct diff_tag, 12, true>;
   const long live = E::counters().live;
   run_every_allocator<E>(seed(0x5eed0002), steps);
   BOOST_TEST(E::counters().live == live);
   using F = tracked<struct diff_throwing_tag, 8, false>;
   run_every_allocator<F>(seed(0x5eed0003), steps / 2);
   BOOST_TEST(F::counters().live == 0);
}

BOOST_AUTO_TEST_CASE(move_only_elements)
{
   run_every_allocator<move_only>(seed(0x5eed0004), steps);
}

BOOST_AUTO_TEST_CASE(self_pointing_elements)
{
   run_every_allocator<self_pointing>(seed(0x5eed0005), steps);
   BOOST_TEST(self_pointing::live == 0);
}

BOOST_AUTO_TEST_CASE(relocatable_elements)
{
   run_every_allocator<relocatable>(seed(0x5eed0006), steps / 2);
   BOOST_TEST(relocatable::live == 0);
}
