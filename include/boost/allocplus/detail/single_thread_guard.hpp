// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
#define BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP

// What checked builds (BOOST_ALLOCPLUS_CHECKED) do for an object that is not for two threads at
// once (a private pool set, an arena): each call that changes it marks it with the calling thread
// for its duration, and a call from another thread meanwhile stops the program through the
// diagnostic handler. A thread may re-enter. Release builds check nothing.
//
// The mark is a relaxed load and a store on entry and a load and a store on exit, not a
// compare-and-swap: the guard runs on every node a private pool makes or frees, where a locked
// instruction would cost more than the node. A second thread is caught when it enters while the
// first is inside (it sees the first's mark) or when the first leaves while the second is inside
// (the mark is no longer the first's); two threads that enter within the same few instructions may
// both pass the entry, and one of them is caught on its way out unless the other has left
// already.

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
   BOOST_FORCEINLINE single_thread_guard(single_thread_user &user, const char *owner, const void *object) noexcept
#if BOOST_ALLOCPLUS_CHECKED
      : user_(user)
   {
      const std::uintptr_t inside = user_.thread_.load(std::memory_order_relaxed);
      if (inside == 0) {
         user_.thread_.store(self_ = current_thread(), std::memory_order_relaxed);
      } else if (inside != current_thread()) {
         report_two_threads(owner, object);
      }
      owner_ = owner;
      object_ = object;
   }
   BOOST_FORCEINLINE ~single_thread_guard()
   {
      if (self_ == 0) return;   // re-entered: the outermost guard leaves
      if (BOOST_UNLIKELY(user_.thread_.load(std::memory_order_relaxed) != self_)) report_two_threads(owner_, object_);
      user_.thread_.store(0, std::memory_order_relaxed);
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

   // The calling thread, never 0: the thread pointer (one load where the compiler knows it;
   // pthread_self() returns the same on glibc).
   static std::uintptr_t current_thread() noexcept
   {
#if defined(__has_builtin)
#  if __has_builtin(__builtin_thread_pointer)
      return reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
#  else
      return static_cast<std::uintptr_t>(pthread_self());
#  endif
#else
      return static_cast<std::uintptr_t>(pthread_self());
#endif
   }

   single_thread_user &user_;
   std::uintptr_t self_ = 0;   // the outermost guard's thread; 0 when re-entered
   const char *owner_ = nullptr;
   const void *object_ = nullptr;
#endif
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
