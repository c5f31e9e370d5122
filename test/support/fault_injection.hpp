// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_SUPPORT_FAULT_INJECTION_HPP
#define ALLOCPLUS_TEST_SUPPORT_FAULT_INJECTION_HPP

// The faults an exception-safety test injects into a container operation, one at a time: the
// k-th construction from a value, copy or move of a tracked element throws, or the k-th
// allocation fails (failing_allocator's plan). A test arms one fault, runs the operation, asks
// whether the fault was met (if not, the operation completed: the loop over k ends), and
// disarms before it checks the container.

#include "support/failing_allocator.hpp"
#include "support/tracked.hpp"

#include <cstddef>
#include <type_traits>
#include <vector>

namespace allocplus_test {

enum class fault { construction, copy, move, allocation };
inline constexpr fault every_fault[] = {fault::construction, fault::copy, fault::move, fault::allocation};

inline const char *name(fault f)
{
   switch (f) {
   case fault::construction: return "construction";
   case fault::copy: return "copy";
   case fault::move: return "move";
   default: return "allocation";
   }
}

//! Which guarantee an operation gives under a fault.
enum class promise { strong, basic };

//! Arms, reads and disarms the faults of tracked element type Elem and of an allocation plan.
template <class Elem>
struct fault_switch {
   failure_plan &plan;

   void arm(fault f, long k)
   {
      switch (f) {
      case fault::construction: Elem::counters().throw_on_construction(k); break;
      case fault::copy: Elem::counters().throw_on_copy(k); break;
      case fault::move: Elem::counters().throw_on_move(k); break;
      case fault::allocation: plan.fail_on(static_cast<std::size_t>(k)); break;
      }
   }
   //! Whether the armed fault was met.
   bool fired(fault f) const
   {
      switch (f) {
      case fault::construction: return Elem::counters().construction_countdown == 0;
      case fault::copy: return Elem::counters().copy_countdown == 0;
      case fault::move: return Elem::counters().move_countdown == 0;
      default: return plan.fired();
      }
   }
   void disarm()
   {
      Elem::counters().never_throw();
      plan.never_fail();
   }
};

//! The int an element stands for: itself for arithmetic types, value() for tracked ones (reading
//! it checks that the element is alive).
template <class X>
int as_int(const X &x)
{
   if constexpr (std::is_arithmetic<X>::value) return static_cast<int>(x);
   else return x.value();
}

//! The values of a container of tracked elements, in order (reading each checks it is alive).
template <class Container>
std::vector<int> values(const Container &c)
{
   std::vector<int> r;
   for (const auto &x : c) r.push_back(as_int(x));
   return r;
}

} // namespace allocplus_test

#endif // ALLOCPLUS_TEST_SUPPORT_FAULT_INJECTION_HPP
