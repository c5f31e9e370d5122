// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
#define BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP

// What checked builds (BOOST_ALLOCPLUS_CHECKED) do for an object that is not for two threads at
// once (a private pool set, an arena): each call that changes it marks it with the calling thread
// for its duration, and a call from another thread meanwhile stops the program through the
// diagnostic handler. A thread may re-enter. Release builds check nothing.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>

#if BOOST_ALLOCPLUS_CHECKED
#  include <pthread.h>
#endif

namespace boost { namespace allocplus { namespace detail {

//! What the object keeps: the thread inside it (0: none), set in checked builds only. (Kept in
//! every build, so that an object has one layout at every checking level.)
class single_thread_user {
   std::atomic<std::uintptr_t> thread_{0};
   friend class single_thread_guard;
};

//! Marks `user` with the calling thread for the guard's lifetime (checked builds).
class single_thread_guard {
public:
   //! Effects (checked builds): when another thread is inside the object, reports
   //!   "<owner>: used from two threads at once" at `object` (the program stops).
   single_thread_guard(single_thread_user &user, const char *owner, const void *object) noexcept
#if BOOST_ALLOCPLUS_CHECKED
      : user_(user)
   {
      const std::uintptr_t self = static_cast<std::uintptr_t>(pthread_self());   // (never 0)
      std::uintptr_t inside = 0;
      if (user_.thread_.compare_exchange_strong(inside, self, std::memory_order_acquire)) outermost_ = true;
      else if (inside != self) report_two_threads(owner, object);
   }
   ~single_thread_guard()
   {
      if (outermost_) user_.thread_.store(0, std::memory_order_release);
   }
#else
   {
      (void)user, (void)owner, (void)object;
   }
   ~single_thread_guard() {}   // (user-provided: a guard is never an unused variable)
#endif
   single_thread_guard(const single_thread_guard &) = delete;
   single_thread_guard &operator=(const single_thread_guard &) = delete;

private:
#if BOOST_ALLOCPLUS_CHECKED
   [[noreturn]] BOOST_NOINLINE static void report_two_threads(const char *owner, const void *object) noexcept
   {
      char message[128];
      std::snprintf(message, sizeof message, "%s: used from two threads at once", owner);
      report_usage_error(message, object);
   }

   single_thread_user &user_;
   bool outermost_ = false;
#endif
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
