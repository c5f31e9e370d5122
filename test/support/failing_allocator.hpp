// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_FAILING_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_FAILING_ALLOCATOR_HPP

// failing_allocator<A>: A, except that the k-th allocation attempt from now fails, as if memory
// were out: allocate / allocate_one / allocate_at_least / a burst throw std::bad_alloc, and an
// allocation_command that may allocate or expand returns null (nothrow_allocation) or throws
// std::bad_alloc, leaving `reuse` untouched. Shrinks and deallocations never fail.
//
//   allocplus_test::failure_plan plan;
//   failing_allocator<ba::allocator<int>> a(plan);
//   plan.fail_on(3);            // the 3rd attempt fails, then all succeed again
//   plan.fail_from(3);          // the 3rd and every later attempt fail
//
// A typical exception-safety test runs an operation with fail_on(1), fail_on(2), ... until it
// succeeds without reaching the planned failure (plan.fired() == false).

#include "support/hooked_allocator.hpp"

#include <cstddef>

namespace allocplus_test {

struct failure_plan {
   std::size_t attempts = 0;    // allocation attempts seen
   std::size_t failures = 0;    // attempts failed on purpose
   std::size_t countdown = 0;   // 0: no failure planned; k: the k-th attempt from now fails
   bool sticky = false;         // once failing, keep failing

   void fail_on(std::size_t k) { plan(k, false); }
   void fail_from(std::size_t k) { plan(k, true); }
   void never_fail() { plan(0, false); }
   //! Whether the planned failure happened since the last plan.
   bool fired() const { return fired_; }
   void reset() { *this = failure_plan(); }

   //! Returns: whether this attempt fails.
   bool next()
   {
      ++attempts;
      if (failing_ || (countdown != 0 && --countdown == 0)) {
         failing_ = sticky;
         fired_ = true;
         ++failures;
         return true;
      }
      return false;
   }

private:
   void plan(std::size_t k, bool keep_failing)
   {
      countdown = k;
      sticky = keep_failing;
      failing_ = fired_ = false;
   }

   bool failing_ = false;
   bool fired_ = false;
};

struct failing_hooks : null_hooks<failure_plan> {
   static failure_plan &default_state()
   {
      static failure_plan p;
      return p;
   }
   static bool fail_now(failure_plan &p) { return p.next(); }
};

template <class A>
using failing_allocator = hooked_allocator<A, failing_hooks>;

} // namespace allocplus_test

#endif
