// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// ba::list against std::list: random sequences of every operation (seeded, reproducible), two
// lists of each kind so that splice, merge, swap and assignment go between lists, compared after
// every step; over allocators of version 2 (ours and a stateful one), version 1 and std; over
// int and over tracked elements, which notice use after destruction and count their instances
// (none left alive at the end: none leaked, none destroyed twice).

#define BOOST_TEST_MODULE allocplus list differential
#include "core/test_scale.hpp"
#include "support/allocator_test_kit.hpp"
#include "support/fault_injection.hpp"   // as_int

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <iterator>
#include <list>
#include <random>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

template <class T, class A>
class model {
public:
   using L = ba::list<T, A>;
   using S = std::list<T>;

   model(const A &a, std::uint64_t seed) : ours_{L(a), L(a)}, rng_(seed) {}

   void check(std::size_t step, int op) const
   {
      for (int i = 0; i != 2; ++i) {
         const L &o = ours_[i];
         const S &s = std_[i];
         bool same = o.size() == s.size();
         auto it = o.begin();
         for (auto jt = s.begin(); same && jt != s.end(); ++jt, ++it) same = as_int(*it) == as_int(*jt);
         same = same && it == o.end();
         // The links backwards as well.
         auto rit = o.rbegin();
         for (auto rjt = s.rbegin(); same && rjt != s.rend(); ++rjt, ++rit) same = as_int(*rit) == as_int(*rjt);
         if (!same) BOOST_FAIL("list " << i << " differs from std::list after step " << step << " (op " << op << ")");
         compared_ += s.size();
      }
   }

   void step(std::size_t n)
   {
      const int op = static_cast<int>(pick(24));
      const int i = static_cast<int>(pick(2)), j = 1 - i;
      L &o = ours_[i];
      S &s = std_[i];
      const int v = static_cast<int>(pick(50));
      switch (op) {
      case 0: o.push_back(T(v)); s.push_back(T(v)); break;
      case 1: o.emplace_front(v); s.emplace_front(v); break;
      case 2: { const std::size_t at = pick(s.size() + 1); o.emplace(at_o(o, at), v); s.emplace(at_s(s, at), v); break; }
      case 3: { const std::size_t at = pick(s.size() + 1), k = pick(20);
                o.insert(at_o(o, at), k, T(v)); s.insert(at_s(s, at), k, T(v)); break; }
      case 4: { const std::size_t at = pick(s.size() + 1);
                std::vector<T> r; for (std::size_t k = pick(30); k; --k) r.push_back(T(static_cast<int>(pick(50))));
                o.insert(at_o(o, at), r.begin(), r.end()); s.insert(at_s(s, at), r.begin(), r.end()); break; }
      case 5: if (!s.empty()) { const std::size_t at = pick(s.size()); o.erase(at_o(o, at)); s.erase(at_s(s, at)); } break;
      case 6: { std::size_t a = pick(s.size() + 1), b = pick(s.size() + 1); if (a > b) std::swap(a, b);
                o.erase(at_o(o, a), at_o(o, b)); s.erase(at_s(s, a), at_s(s, b)); break; }
      case 7: if (s.size() >= 2) { o.pop_back(); s.pop_back(); o.pop_front(); s.pop_front(); } break;
      case 8: { const std::size_t k = pick(s.size() + 20); if (pick(2)) { o.resize(k); s.resize(k); } else { o.resize(k, T(v)); s.resize(k, T(v)); } break; }
      case 9: { const std::size_t k = pick(40); o.assign(k, T(v)); s.assign(k, T(v)); break; }
      case 10: { std::vector<T> r(std_[j].begin(), std_[j].end()); o.assign(r.begin(), r.end()); s.assign(r.begin(), r.end()); break; }
      case 11: if (pick(8) == 0) { o.clear(); s.clear(); } break;
      case 12: o.splice(at_o(o, pick(s.size() + 1)), ours_[j]);   // everything: at the same position
               s.splice(at_s(s, pick_again()), std_[j]); break;
      case 13: if (!std_[j].empty()) { const std::size_t at = pick(s.size() + 1), from = pick(std_[j].size());
                  o.splice(at_o(o, at), ours_[j], at_o(ours_[j], from)); s.splice(at_s(s, at), std_[j], at_s(std_[j], from)); } break;
      case 14: { std::size_t a = pick(std_[j].size() + 1), b = pick(std_[j].size() + 1); if (a > b) std::swap(a, b);
                 const std::size_t at = pick(s.size() + 1);
                 o.splice(at_o(o, at), ours_[j], at_o(ours_[j], a), at_o(ours_[j], b));
                 s.splice(at_s(s, at), std_[j], at_s(std_[j], a), at_s(std_[j], b)); break; }
      case 15: if (s.size() > 2) { // within one list: a range to a position outside it
                 std::size_t a = pick(s.size()), b = a + pick(s.size() - a + 1); std::size_t at = pick(s.size() + 1 - (b - a));
                 if (at >= a) at += b - a;   // pos never inside [a, b)
                 o.splice(at_o(o, at), o, at_o(o, a), at_o(o, b)); s.splice(at_s(s, at), s, at_s(s, a), at_s(s, b)); } break;
      case 16: o.sort(); s.sort(); ours_[j].sort(); std_[j].sort(); o.merge(ours_[j]); s.merge(std_[j]); break;
      case 17: o.sort(); s.sort(); break;
      case 18: o.unique(); s.unique(); break;
      case 19: o.remove(T(v)); s.remove(T(v)); break;
      case 20: { const int m = static_cast<int>(pick(5)) + 2;
                 o.remove_if([m](const T &x) { return as_int(x) % m == 0; }); s.remove_if([m](const T &x) { return as_int(x) % m == 0; }); break; }
      case 21: o.reverse(); s.reverse(); break;
      case 22: o.swap(ours_[j]); s.swap(std_[j]); break;
      default: if (pick(2)) { o = ours_[j]; s = std_[j]; } else { L t(ours_[j]); S u(std_[j]); o = std::move(t); s = std::move(u); } break;
      }
      // Keep the lists small enough that every operation stays cheap.
      if (s.size() > 300) { o.resize(100); s.resize(100); }
      check(n, op);
   }

private:
   std::size_t pick(std::size_t bound) { return last_ = bound ? static_cast<std::size_t>(rng_() % bound) : 0; }
   std::size_t pick_again() const { return last_; }
   static typename L::iterator at_o(L &l, std::size_t k) { return std::next(l.begin(), static_cast<std::ptrdiff_t>(k)); }
   static typename S::iterator at_s(S &l, std::size_t k) { return std::next(l.begin(), static_cast<std::ptrdiff_t>(k)); }

   L ours_[2];
   S std_[2];
   std::mt19937_64 rng_;
   std::size_t last_ = 0;

public:
   mutable std::size_t compared_ = 0;   // elements compared, over all steps
};

template <class T, class A>
void run(const A &a, std::uint64_t fallback_seed)
{
   const std::uint64_t s = seed(fallback_seed);
   const std::size_t steps = scaled(12000, 500);
   BOOST_TEST_MESSAGE("seed " << s << ", " << steps << " steps");
   model<T, A> m(a, s);
   for (std::size_t n = 0; n != steps; ++n) m.step(n);
   BOOST_TEST(m.compared_ > steps * 10);   // the lists were not just empty
}

} // namespace

BOOST_AUTO_TEST_CASE(int_with_ba_allocator_version_2) { run<int>(ba::allocator<int>(), 1); }
BOOST_AUTO_TEST_CASE(int_with_ba_allocator_version_1) { run<int>(ba::allocator<int, 1>(), 2); }
BOOST_AUTO_TEST_CASE(int_with_std_allocator) { run<int>(std::allocator<int>(), 3); }

BOOST_AUTO_TEST_CASE(tracked_with_every_allocator)
{
   using elem = tracked<struct differential_tag>;
   const long live = elem::counters().live;
   run<elem>(ba::allocator<elem>(), 4);
   run<elem>(ba::allocator<elem, 1>(), 5);
   run<elem>(std::allocator<elem>(), 6);
   stateful_registry::instance().reset_mismatches();
   run<elem>(non_propagating_allocator<elem, 2>(1), 7);
   run<elem>(propagating_allocator<elem, 1>(2), 8);
   BOOST_TEST(stateful_registry::instance().mismatches() == 0u);
   BOOST_TEST(elem::counters().live == live);
}
