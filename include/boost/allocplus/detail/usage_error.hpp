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

#include <cstddef>
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

//! Reports an index out of range in the call `call` ("ba::vector::operator[]") of the container
//! at `address`, and stops the program.
//!
//! Effects: report_usage_error("<call>: index <index> out of range (size <size>)", address): the
//!   numbers are what a user needs to find the bad index, and a message with them cannot be a
//!   literal, so it is formatted here, off the caller's path (a message longer than the buffer is
//!   cut, never overrun).
[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void report_index_out_of_range(const char *call,
                                                                                      std::size_t index,
                                                                                      std::size_t size,
                                                                                      const void *address) noexcept
{
   char what[192];
   std::snprintf(what, sizeof what, "%s: index %zu out of range (size %zu)", call, index, size);
   report_usage_error(what, address);
}

}}} // namespace boost::allocplus::detail

//! BOOST_ALLOCPLUS_PRECONDITION(condition, what, address): in checked builds, reports `what` (a
//! sentence naming the container and the call, "ba::vector::front: the vector is empty") about
//! the object at `address` to the diagnostic handler unless `condition` holds; in unchecked builds
//! nothing: neither the condition nor the arguments are evaluated, so the call compiles to the
//! code it would be without the check. Only constant-time conditions belong here.
#if BOOST_ALLOCPLUS_CHECKED
#  define BOOST_ALLOCPLUS_PRECONDITION(condition, what, address)                                   \
      (BOOST_LIKELY(condition) ? (void)0 : ::boost::allocplus::detail::report_usage_error(what, address))
#else
#  define BOOST_ALLOCPLUS_PRECONDITION(condition, what, address) ((void)0)
#endif

//! BOOST_ALLOCPLUS_INDEX_PRECONDITION(index, size, call, address): in checked builds, reports
//! "<call>: index <index> out of range (size <size>)" about the object at `address` unless
//! index < size; in unchecked builds nothing, as BOOST_ALLOCPLUS_PRECONDITION. index and size are
//! read twice when the check fails: pass names, not expressions with effects.
#if BOOST_ALLOCPLUS_CHECKED
#  define BOOST_ALLOCPLUS_INDEX_PRECONDITION(index, size, call, address)                           \
      (BOOST_LIKELY((index) < (size))                                                              \
          ? (void)0                                                                                \
          : ::boost::allocplus::detail::report_index_out_of_range(call, index, size, address))
#else
#  define BOOST_ALLOCPLUS_INDEX_PRECONDITION(index, size, call, address) ((void)0)
#endif

#endif // BOOST_ALLOCPLUS_DETAIL_USAGE_ERROR_HPP
