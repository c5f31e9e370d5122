// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Exception safety of ba::list with the test kit: for each operation, and for every k, the k-th
// construction from a value, copy, move or allocation attempt fails. Insertions (of one, n, a
// range), growing resize and construction give the strong guarantee (the list unchanged, no
// block or element gained); assignments the basic one (live elements only). Always: every node
// obtained is given back (no block leaks) and every element is destroyed exactly once. With a
// version-2 allocator a burst whose k-th element throws is returned in one deallocate_individual
// call, with every node of it.

#define BOOST_TEST_MODULE allocplus list exceptions
#include "support/allocator_test_kit.hpp"
#include "support/fault_injection.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <sstream>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

template <class Elem, class Inner>
struct fixture {
   using F = failing_allocator<Inner>;
   using A = counting_allocator<F>;
   using L = ba::list<Elem, A>;

   failure_plan plan;
   allocation_counters counts;

   L make()
   {
      L l{A(counts, F(plan, Inner()))};
      for (int i = 0; i != 12; ++i) l.emplace_back(i);
      return l;
   }

   void arm(fault f, long k) { faults().arm(f, k); }
   bool fired(fault f) { return faults().fired(f); }
   void disarm() { faults().disarm(); }
   fault_switch<Elem> faults() { return {plan}; }
   //! Runs op on a fresh list for k = 1, 2, ... until it completes without meeting its fault.
   //! one_burst: op makes at most one burst that may fail (it then checks that the burst is
   //! returned in one call).
   void run(const char *op_name, const std::function<void(L &)> &op, promise guarantee, bool one_burst = true)
   {
      for (fault f : every_fault) {
         bool completed = false;
         for (long k = 1; !completed && k != 500; ++k) {
            const long live_before = Elem::counters().live;
            counts.reset();
            {
               L l = make();
               const std::vector<int> before = values(l);
               const std::size_t blocks_before = counts.live_blocks();
               const std::size_t bursts_before = counts.bursts;
               const std::size_t burst_frees_before = counts.burst_deallocations;
               const long elements_before = Elem::counters().live;
               arm(f, k);
               bool threw = false;
               try {
                  op(l);
               } catch (const tracked_exception &) {
                  threw = true;
               } catch (const std::bad_alloc &) {
                  threw = true;
               }
               const bool met = fired(f);
               disarm();
               BOOST_TEST_CONTEXT(op_name << ", fault on the " << k << "th " << name(f))
               {
                  if (threw) {
                     BOOST_TEST(met);
                     std::vector<int> after;
                     BOOST_CHECK_NO_THROW(after = values(l));   // every element alive
                     BOOST_TEST(after.size() == l.size());
                     if (guarantee == promise::strong) {
                        BOOST_TEST(after == before);
                        BOOST_TEST(counts.live_blocks() == blocks_before);
                        BOOST_TEST(Elem::counters().live == elements_before);
                        // A burst that was obtained is returned in one call.
                        if (one_burst && counts.bursts != bursts_before)
                           BOOST_TEST(counts.burst_deallocations == burst_frees_before + 1);
                     }
                  } else {
                     completed = !met;
                     BOOST_CHECK_NO_THROW(values(l));
                  }
               }
            }
            BOOST_TEST(counts.live_blocks() == 0u, op_name << ": blocks leaked");
            BOOST_TEST(Elem::counters().live == live_before, op_name << ": instances leaked or lost");
         }
         BOOST_TEST(completed, op_name << ": never completed under " << name(f) << " faults");
      }
   }
};

template <class Elem, class Inner>
void exercise_every_operation()
{
   fixture<Elem, Inner> fx;
   using L = typename fixture<Elem, Inner>::L;
   Elem::counters().never_throw();
   const long live_at_start = Elem::counters().live;
   const promise strong = promise::strong, basic = promise::basic;

   fx.run("emplace(mid, int)", [](L &l) { l.emplace(std::next(l.begin(), 5), 42); }, strong);
   fx.run("push_back(front)", [](L &l) { l.push_back(l.front()); }, strong);
   fx.run("insert(mid, 20, front)", [](L &l) { l.insert(std::next(l.begin(), 3), 20, l.front()); }, strong);
   fx.run("insert(mid, forward range)",
          [](L &l) {
             const std::vector<Elem> r(15, Elem(9));
             l.insert(std::next(l.begin(), 2), r.begin(), r.end());
          },
          strong);
   fx.run("insert(end, move range)",
          [](L &l) {
             std::vector<Elem> r(10, Elem(8));
             l.insert(l.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
          },
          strong);
   fx.run("insert(begin, input range)",
          [](L &l) {
             std::istringstream in("1 2 3 4 5 6 7");
             l.insert(l.begin(), std::istream_iterator<int>(in), std::istream_iterator<int>());
          },
          strong);
   fx.run("insert(begin, {a, b, c})", [](L &l) { l.insert(l.begin(), {Elem(1), Elem(2), Elem(3)}); }, strong);
   fx.run("resize(+30)", [](L &l) { l.resize(l.size() + 30); }, strong);
   fx.run("resize(+30, back)", [](L &l) { l.resize(l.size() + 30, l.back()); }, strong);
   fx.run("copy construction", [](L &l) { L w(l); }, strong);
   fx.run("copy assignment (to a smaller list)",
          [&fx](L &l) {
             L w = fx.make();
             w.resize(3);
             w = l;
          },
          strong, false);   // l itself is not touched; w frees bursts too
   fx.run("copy assignment (from a smaller list)",
          [&fx](L &l) {
             L w = fx.make();
             w.resize(3);
             l = w;
          },
          basic);
   fx.run("copy assignment (from a larger list)",
          [&fx](L &l) {
             L w = fx.make();
             w.insert(w.end(), 10, Elem(5));
             l = w;
          },
          basic);
   fx.run("assign(30, front)", [](L &l) { l.assign(30, Elem(l.front())); }, basic);
   fx.run("sort", [](L &l) { l.reverse(); l.sort(); }, basic);

   BOOST_TEST(Elem::counters().live == live_at_start);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_fault_with_a_version_2_allocator)
{
   exercise_every_operation<tracked<struct v2_tag>, ba::allocator<tracked<struct v2_tag>>>();
}

BOOST_AUTO_TEST_CASE(every_fault_with_a_version_1_allocator)
{
   exercise_every_operation<tracked<struct v1_tag>, ba::allocator<tracked<struct v1_tag>, 1>>();
}

BOOST_AUTO_TEST_CASE(every_fault_with_std_allocator)
{
   exercise_every_operation<tracked<struct std_tag>, std::allocator<tracked<struct std_tag>>>();
}

BOOST_AUTO_TEST_CASE(every_fault_with_a_stateful_version_2_allocator)
{
   using elem = tracked<struct stateful_tag>;
   stateful_registry::instance().reset_mismatches();
   exercise_every_operation<elem, non_propagating_allocator<elem, 2>>();
   BOOST_TEST(stateful_registry::instance().mismatches() == 0u);
}

BOOST_AUTO_TEST_CASE(a_burst_is_returned_whole_when_its_kth_element_throws)
{
   // 100 nodes in one burst; the 37th copy throws: 36 elements destroyed, 100 nodes returned in
   // one deallocate_individual call, the list as it was.
   using elem = tracked<struct whole_burst_tag>;
   using A = counting_allocator<ba::allocator<elem>>;
   allocation_counters c;
   ba::list<elem, A> l{A(c)};
   l.emplace_back(1);
   const elem value(5);
   c.reset();
   elem::counters().reset();
   elem::counters().throw_on_copy(37);
   BOOST_CHECK_THROW(l.insert(l.begin(), 100, value), tracked_exception);
   BOOST_TEST(c.bursts == 1u);
   BOOST_TEST(c.burst_nodes == 100u);
   BOOST_TEST(c.burst_deallocations == 1u);
   BOOST_TEST(c.deallocations == 100u);
   BOOST_TEST(elem::counters().copies == 36);
   BOOST_TEST(elem::counters().destructions == 36);
   BOOST_TEST(l.size() == 1u);
   BOOST_TEST(l.front().value() == 1);
}
