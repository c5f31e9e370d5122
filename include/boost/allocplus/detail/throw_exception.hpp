// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP
#define BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP

// The exceptions of the allocators, thrown from functions kept out of line (and cold), so an
// allocation's fast path holds a call, not the code that builds and throws an exception. Without
// exceptions (-fno-exceptions) they abort.

#include <boost/config.hpp>

#include <cstdlib>
#include <new>

namespace boost { namespace allocplus { namespace detail {

#if defined(__GNUC__) || defined(__clang__)
#  define BOOST_ALLOCPLUS_COLD __attribute__((cold))
#else
#  define BOOST_ALLOCPLUS_COLD
#endif

[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_bad_alloc()
{
#if defined(BOOST_NO_EXCEPTIONS)
   std::abort();
#else
   throw std::bad_alloc();
#endif
}

[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_bad_array_new_length()
{
#if defined(BOOST_NO_EXCEPTIONS)
   std::abort();
#else
   throw std::bad_array_new_length();
#endif
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP
