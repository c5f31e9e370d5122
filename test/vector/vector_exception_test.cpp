// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Exception safety of ba::vector with the test kit: for each operation, and for every k, the
// k-th construction from a value, copy, move or allocation attempt fails. Where std::vector
// promises the strong guarantee (and where ba::vector documents it: an insertion at the end,
// reserve, resize, shrink_to_fit, and any operation when an allocation fails) the vector must be
// unchanged; everywhere else it must hold live elements only; every instance is destroyed
// exactly once (tracked throws from a second destruction) and none leaks. Each operation runs on
// a full vector (the next insertion grows: forward, backward or new buffer, per allocator) and
// on one with spare capacity.

#define BOOST_TEST_MODULE allocplus vector exceptions
#include "support/allocator_test_kit.hpp"
#include "support/fault_injection.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

template <class Elem, class Inner>
struct fixture {
   using A = failing_allocator<Inner>;
   using V = ba::vector<Elem, A>;

   failure_plan plan;

   V make(bool full)
   {
      V v{A(plan, Inner())};
      for (int i = 0; i != 20; ++i) v.emplace_back(i);
      if (full) v.shrink_to_fit();
      else v.reserve(100);
      return v;
   }

   void arm(fault f, long k) { faults().arm(f, k); }
   bool fired(fault f) { return faults().fired(f); }
   void disarm() { faults().disarm(); }
   fault_switch<Elem> faults() { return {plan}; }
   //! Runs op on a fresh vector for k = 1, 2, ... until it completes without meeting its fault.
   void run(const char *op_name, const std::function<void(V &)> &op, const std::function<promise(fault)> &guarantee)
   {
      for (bool full : {true, false}) {
         for (fault f : every_fault) {
            bool completed = false;
            for (long k = 1; !completed && k != 2000; ++k) {
               const long live_before = Elem::counters().live;
               {
                  V v = make(full);
                  const std::vector<int> before = values(v);
                  const std::size_t capacity_before = v.capacity();
                  arm(f, k);
                  bool threw = false;
                  try {
                     op(v);
                  } catch (const tracked_exception &) {
                     threw = true;
                  } catch (const std::bad_alloc &) {
                     threw = true;
                  }
                  const bool met = fired(f);
                  disarm();
                  BOOST_TEST_CONTEXT(op_name << (full ? " (full)" : " (spare capacity)") << ", fault on the "
                                             << k << "th " << name(f))
                  {
                     if (threw) {
                        BOOST_TEST(met);
                        std::vector<int> after;
                        BOOST_CHECK_NO_THROW(after = values(v));   // every element alive
                        if (guarantee(f) == promise::strong) {
                           BOOST_TEST(after == before);
                           BOOST_TEST(v.capacity() >= capacity_before);
                        }
                        BOOST_TEST(v.size() <= v.capacity());
                     } else {
                        completed = !met || k > 1000;
                        BOOST_CHECK_NO_THROW(values(v));
                     }
                  }
               }
               BOOST_TEST(Elem::counters().live == live_before, op_name << ": instances leaked or lost");
            }
            BOOST_TEST(completed, op_name << ": never completed under " << name(f) << " faults");
         }
      }
   }
};

promise always_strong(fault) { return promise::strong; }
//! std: no effects unless T's copy or move (construction or assignment) threw.
promise strong_unless_copy_or_move(fault f)
{
   return f == fault::copy || f == fault::move ? promise::basic : promise::strong;
}
promise basic(fault) { return promise::basic; }

template <class Elem, class Inner>
void exercise_every_operation()
{
   fixture<Elem, Inner> fx;
   using V = typename fixture<Elem, Inner>::V;
   Elem::counters().never_throw();
   const long live_at_start = Elem::counters().live;

   fx.run("push_back(copy)", [](V &v) { v.push_back(Elem(v[3])); }, always_strong);
   fx.run("push_back(v[0])", [](V &v) { v.push_back(v[0]); }, always_strong);
   fx.run("emplace_back(int)", [](V &v) { v.emplace_back(42); }, always_strong);
   fx.run("emplace(mid, int)", [](V &v) { v.emplace(v.begin() + 5, 42); }, strong_unless_copy_or_move);
   fx.run("insert(mid, v[2])", [](V &v) { v.insert(v.begin() + 5, v[2]); }, strong_unless_copy_or_move);
   fx.run("insert(begin, v.back())", [](V &v) { v.insert(v.begin(), v.back()); }, strong_unless_copy_or_move);
   fx.run("insert(mid, 30, v[1])", [](V &v) { v.insert(v.begin() + 5, 30, v[1]); }, strong_unless_copy_or_move);
   fx.run("insert(end, 30, v[1])", [](V &v) { v.insert(v.end(), 30, v[1]); }, always_strong);
   fx.run("insert(mid, range)",
          [](V &v) {
             const std::vector<Elem> r(25, Elem(9));
             v.insert(v.begin() + 2, r.begin(), r.end());
          },
          strong_unless_copy_or_move);
   fx.run("insert(begin, {a, b, c})", [](V &v) { v.insert(v.begin(), {Elem(1), Elem(2), Elem(3)}); },
          strong_unless_copy_or_move);
   fx.run("reserve", [](V &v) { v.reserve(v.capacity() + 10); }, always_strong);
   fx.run("resize(+40)", [](V &v) { v.resize(v.size() + 40); }, always_strong);
   fx.run("resize(+40, v[0])", [](V &v) { v.resize(v.size() + 40, v[0]); }, always_strong);
   fx.run("erase + shrink_to_fit",
          [](V &v) {
             v.erase(v.end() - 5, v.end());
             std::vector<int> kept = values(v);
             v.shrink_to_fit();
             if (values(v) != kept) throw std::logic_error("shrink_to_fit changed the elements");
          },
          basic);
   fx.run("shrink_to_fit", [](V &v) { v.pop_back(), v.push_back(Elem(19)), v.shrink_to_fit(); }, basic);
   fx.run("copy construction", [](V &v) { V w(v); }, always_strong);
   fx.run("copy assignment (to smaller)",
          [&fx](V &v) {
             V w = fx.make(true);
             w.resize(3);
             w = v;
          },
          always_strong);
   fx.run("copy assignment (from smaller)",
          [&fx](V &v) {
             V w = fx.make(true);
             w.resize(3);
             v = w;
          },
          basic);
   fx.run("assign(50, v[0])", [](V &v) { v.assign(50, v[0]); }, basic);
   fx.run("erase(mid range)", [](V &v) { v.erase(v.begin() + 2, v.begin() + 5); }, basic);
   fx.run("swap + move assignment",
          [](V &v) {
             V w(std::move(v));
             v = std::move(w);
             v.swap(w);
             w.swap(v);
          },
          always_strong);

   BOOST_TEST(Elem::counters().live == live_at_start);
}

template <class Elem>
void exercise_every_allocator()
{
   exercise_every_operation<Elem, ba::allocator<Elem>>();
   exercise_every_operation<Elem, ba::allocator<Elem, 2, ba::expand_fwd | ba::expand_bwd>>();
   exercise_every_operation<Elem, forward_expansion_allocator<Elem>>();
   exercise_every_operation<Elem, backward_expansion_allocator<Elem>>();
   exercise_every_operation<Elem, std::allocator<Elem>>();
}

} // namespace

BOOST_AUTO_TEST_CASE(throwing_move_elements)
{
   // The move may throw and is not relocatable: growth copies, and never expands backward.
   exercise_every_allocator<tracked<struct throwing_move_tag, 8, false>>();
}

BOOST_AUTO_TEST_CASE(nothrow_move_elements)
{
   // 12 bytes, noexcept move: growth moves, and expands backward by whole 12-byte steps.
   exercise_every_allocator<tracked<struct nothrow_move_tag, 12, true>>();
}
