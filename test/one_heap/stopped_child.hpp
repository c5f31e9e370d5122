// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_ONE_HEAP_STOPPED_CHILD_HPP
#define ALLOCPLUS_TEST_ONE_HEAP_STOPPED_CHILD_HPP

// Checks of a child process that a misuse must stop through the default diagnostic handler.
// Include after <boost/test/unit_test.hpp> (it uses BOOST_TEST).

#include "child_process.hpp"

#include <cstdio>
#include <string>

inline std::string address_text(const void *p)
{
   char text[32];
   std::snprintf(text, sizeof text, "%p", p);
   return text;
}

// The child stopped (SIGABRT, the default handler's end) with `what` about `address` on stderr.
inline void check_stopped(const child_outcome &out, const char *what, const void *address)
{
   BOOST_TEST_INFO("child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find(what) != std::string::npos);
   BOOST_TEST(out.err.find("at " + address_text(address)) != std::string::npos);
}

#endif
