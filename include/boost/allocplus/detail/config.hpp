// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_CONFIG_HPP
#define BOOST_ALLOCPLUS_DETAIL_CONFIG_HPP

// What every C++ header of the library needs before anything else: a C++17 compiler. Each public
// C++ header includes this first, so an older language mode gets this one error up front instead
// of a page of errors from the first inline variable or `if constexpr`.
//
// MSVC reports 199711L in __cplusplus unless given /Zc:__cplusplus; its _MSVC_LANG holds the
// language mode it compiles.

#if defined(_MSVC_LANG)
#  define BOOST_ALLOCPLUS_CPLUSPLUS _MSVC_LANG
#elif defined(__cplusplus)
#  define BOOST_ALLOCPLUS_CPLUSPLUS __cplusplus
#else
#  define BOOST_ALLOCPLUS_CPLUSPLUS 0L
#endif

#if BOOST_ALLOCPLUS_CPLUSPLUS < 201703L
#  error "allocplus needs C++17 or later: compile with -std=c++17 (GCC, Clang) or /std:c++17 (MSVC)"
#endif

#endif // BOOST_ALLOCPLUS_DETAIL_CONFIG_HPP
