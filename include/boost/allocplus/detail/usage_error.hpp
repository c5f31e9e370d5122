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

#endif // BOOST_ALLOCPLUS_DETAIL_USAGE_ERROR_HPP
