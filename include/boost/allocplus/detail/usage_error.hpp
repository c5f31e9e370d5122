// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_USAGE_ERROR_HPP
#define BOOST_ALLOCPLUS_DETAIL_USAGE_ERROR_HPP

// A misuse that a checked build (BOOST_ALLOCPLUS_CHECKED, see core/dlmalloc.h) finds above the
// core, in a container, goes to the same replaceable diagnostic handler as the heap's own
// reports, so a program has one place to catch them all.

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/allocplus/detail/throw_exception.hpp>   // BOOST_ALLOCPLUS_COLD

#include <boost/config.hpp>

#include <cstdio>
#include <cstdlib>

namespace boost { namespace allocplus { namespace detail {

//! Reports the misuse `what` about the object at `address` and stops the program.
//!
//! Effects: calls the handler of ba_set_diagnostic_handler with (what, address, null heap: the
//!   misuse is not a heap's); without a handler prints "allocplus: <what> at <address>" to
//!   stderr. Then aborts (a handler must not return; if it does, the program aborts anyway).
//! Reading the handler takes two exchanges: a handler installed by another thread between them
//!   may be missed (this is a path to abort, not one to race on).
[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void report_usage_error(const char *what,
                                                                               const void *address) noexcept
{
   const ba_diagnostic_handler handler = ba_set_diagnostic_handler(nullptr);
   ba_set_diagnostic_handler(handler);
   if (handler) {
      handler(what, address, nullptr);
   } else {
      std::fprintf(stderr, "allocplus: %s at %p\n", what, address);
      std::fflush(stderr);
   }
   std::abort();
}

}}} // namespace boost::allocplus::detail

//! BOOST_ALLOCPLUS_PRECONDITION(condition, what, address): in checked builds, reports `what` (a
//! sentence naming the container and the call, "ba::vector::operator[]: index out of range") about
//! the object at `address` to the diagnostic handler unless `condition` holds; in unchecked builds
//! nothing: neither the condition nor the arguments are evaluated, so the call compiles to the
//! code it would be without the check. Only constant-time conditions belong here.
#if BOOST_ALLOCPLUS_CHECKED
#  define BOOST_ALLOCPLUS_PRECONDITION(condition, what, address)                                   \
      (BOOST_LIKELY(condition) ? (void)0 : ::boost::allocplus::detail::report_usage_error(what, address))
#else
#  define BOOST_ALLOCPLUS_PRECONDITION(condition, what, address) ((void)0)
#endif

#endif // BOOST_ALLOCPLUS_DETAIL_USAGE_ERROR_HPP
