// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_SUPPORT_USAGE_REPORTS_HPP
#define ALLOCPLUS_TEST_SUPPORT_USAGE_REPORTS_HPP

// Death tests of the checked build's misuse reports, shared by the containers' checked tests:
// a misuse runs in a child process, which must stop through the diagnostic handler. Include after
// <boost/test/unit_test.hpp> (it uses BOOST_TEST).

#include "one_heap/child_process.hpp"

#include <boost/allocplus/core/dlmalloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace allocplus_test {

//! A diagnostic handler that prints what it was given and exits 7, so a test can tell a
//! replaced handler from the default one (which aborts).
inline void exiting_handler(const char *message, const void *address, const ba_heap *heap)
{
   std::fprintf(stderr, "handler: %s | %p | %p\n", message, address, static_cast<const void *>(heap));
   std::fflush(stderr);
   std::_Exit(7);
}

//! Runs body in a child: it must abort with `message` on stderr (the default handler's
//! "allocplus: <message> at <address>"), reported about the object at `object`.
template <class Body>
void expect_report(Body body, const std::string &message, const void *object)
{
   const child_outcome out = run_in_child(body);
   BOOST_TEST_INFO("expected \"" << message << "\"; child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus: " + message + " at ") != std::string::npos);
   char address[32];
   std::snprintf(address, sizeof address, " at %p", object);
   BOOST_TEST(out.err.find(address) != std::string::npos);
}

//! Runs `work` (a call into an object that is not for two threads at once) over and over from
//! two threads at once, in a child: a checked build must report "<owner>: used from two threads at
//! once" (about `object`, unless it is null). Two threads on two cores meet inside the object
//! within milliseconds; the child gives up after 20 s, which fails the test.
template <class Work>
void expect_two_threads_reported(Work work, const std::string &owner, const void *object)
{
   const child_outcome out = run_in_child([&] {
      std::atomic<bool> go{false};
      auto hammer = [&] {
         while (!go.load()) {
         }
         const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
         while (std::chrono::steady_clock::now() < until)
            for (int i = 0; i < 1000; ++i) work();
      };
      std::thread first(hammer), second(hammer);
      go = true;
      first.join();
      second.join();
   });
   const std::string message = owner + ": used from two threads at once";
   BOOST_TEST_INFO("expected \"" << message << "\"; child stderr: " << out.err);
   BOOST_TEST(out.signal == SIGABRT);
   BOOST_TEST(out.err.find("allocplus: " + message + " at ") != std::string::npos);
   if (object) {
      char address[32];
      std::snprintf(address, sizeof address, " at %p", object);
      BOOST_TEST(out.err.find(address) != std::string::npos);
   }
}

//! Runs body, a misuse that does no harm unchecked (an address computed and never read, an empty
//! range of another container), in a child: a checked build must report it as expect_report
//! says; an unchecked one must run it to its end unreported (exit 0, nothing on stderr), which
//! shows the check compiled out rather than a crash avoided.
template <class Body>
void expect_report_only_when_checked(Body body, const std::string &message, const void *object)
{
#if BOOST_ALLOCPLUS_CHECKED
   expect_report(body, message, object);
#else
   (void)object;
   const child_outcome out = run_in_child(body);
   BOOST_TEST_INFO("unchecked, so \"" << message << "\" must not be reported; child stderr: " << out.err);
   BOOST_TEST(out.exit_code == 0);
   BOOST_TEST(out.signal == 0);
   BOOST_TEST(out.err.empty());
#endif
}

//! Keeps a value the optimizer cannot drop.
template <class T>
void use(const T &x)
{
   const volatile T sink = x;
   (void)sink;
}

} // namespace allocplus_test

#endif
