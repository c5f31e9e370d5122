// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP
#define BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP

// The exceptions of the allocators and containers, thrown from functions kept out of line (and cold), so an
// allocation's fast path holds a call, not the code that builds and throws an exception. Without
// exceptions (-fno-exceptions) they abort.

#include <boost/config.hpp>

#include <cstdlib>
#include <new>
#include <stdexcept>

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

//! What ba::heap throws for a buffer too small to hold a heap: a std::bad_alloc (what a heap
//! that cannot be made throws) whose what() says why and states the minimum.
class buffer_too_small : public std::bad_alloc {
public:
   const char *what() const noexcept override
   {
      return "ba::heap: a heap over a buffer needs at least 4096 bytes (ba::heap::min_buffer_size) from the "
             "buffer's first address aligned to BA_MALLOC_ALIGNMENT";
   }
};

[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_buffer_too_small()
{
#if defined(BOOST_NO_EXCEPTIONS)
   std::abort();
#else
   throw buffer_too_small();
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

//! A container would exceed its max_size(): `what` names the container and the operation.
[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_length_error(const char *what)
{
#if defined(BOOST_NO_EXCEPTIONS)
   (void)what;
   std::abort();
#else
   throw std::length_error(what);
#endif
}

[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_out_of_range(const char *what)
{
#if defined(BOOST_NO_EXCEPTIONS)
   (void)what;
   std::abort();
#else
   throw std::out_of_range(what);
#endif
}

//! A caller's argument no operation could honour (a non-power-of-two alignment, a buffer too
//! small to hold anything): `what` names the allocator, the call and the rule.
[[noreturn]] BOOST_NOINLINE BOOST_ALLOCPLUS_COLD inline void throw_invalid_argument(const char *what)
{
#if defined(BOOST_NO_EXCEPTIONS)
   (void)what;
   std::abort();
#else
   throw std::invalid_argument(what);
#endif
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_THROW_EXCEPTION_HPP
