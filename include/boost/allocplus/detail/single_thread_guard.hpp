// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
#define BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP

// What checked builds (BOOST_ALLOCPLUS_CHECKED) do for an object that is not for two threads at
// once (a private pool set, an arena): each call that changes it marks it with the calling thread
// for its duration, and a call from another thread meanwhile stops the program through the
// diagnostic handler. A thread may re-enter. Release builds check nothing.
//
// Level 1 marks with a relaxed load and store on entry and on exit, not a locked instruction: the
// guard runs on every node a private pool makes or frees, where a compare-and-swap costs more than
// the node. That is a best effort: a thread that enters while another's mark is visible is caught,
// and so is one that leaves while another's mark has replaced its own; two threads that enter
// within the time a store takes to become visible to the other core can both pass unseen. Threads
// that share such an object all the time meet where the mark is visible within microseconds; one
// that does so once may go unreported. Level 2 (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE) takes the mark
// with a compare-and-swap: a thread that enters while another is inside is always caught.

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
   //!   "<owner>: used from two threads at once" at `object` (the program stops): at level 2
   //!   always, at level 1 as far as the other thread's mark is visible (above).
   BOOST_FORCEINLINE single_thread_guard(single_thread_user &user, const char *owner, const void *object) noexcept
#if BOOST_ALLOCPLUS_CHECKED
      : user_(user), owner_(owner), object_(object)
   {
      const std::uintptr_t me = current_thread();
      std::uintptr_t inside = user_.thread_.load(std::memory_order_relaxed);
      if (inside == me) return;   // re-entered: the outermost guard leaves
      if (BOOST_ALLOCPLUS_CHECKED_EXPENSIVE) {
         inside = 0;
         if (!user_.thread_.compare_exchange_strong(inside, me, std::memory_order_acquire)) report_two_threads(owner, object);
      } else {
         if (BOOST_UNLIKELY(inside != 0)) report_two_threads(owner, object);
         user_.thread_.store(me, std::memory_order_relaxed);
      }
      self_ = me;
   }
   BOOST_FORCEINLINE ~single_thread_guard()
   {
      if (self_ == 0) return;
      if (BOOST_UNLIKELY(user_.thread_.load(std::memory_order_relaxed) != self_)) report_two_threads(owner_, object_);
      user_.thread_.store(0, std::memory_order_release);
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

   // The calling thread, never 0. On x86-64 the thread pointer (one load: the thread's control
   // block points to itself at %fs:0, which is what glibc's and musl's pthread_self() return);
   // elsewhere pthread_self(). (Chosen by the target alone, so that every unit of a program
   // names a thread alike.)
   static std::uintptr_t current_thread() noexcept
   {
#if defined(__x86_64__) && defined(__GNUC__)
      std::uintptr_t self;
      __asm__("movq %%fs:0, %0" : "=r"(self));
      return self;
#else
      return static_cast<std::uintptr_t>(pthread_self());
#endif
   }

   single_thread_user &user_;
   const char *const owner_;
   const void *const object_;
   std::uintptr_t self_ = 0;   // the outermost guard's thread; 0 when re-entered
#endif
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_SINGLE_THREAD_GUARD_HPP
