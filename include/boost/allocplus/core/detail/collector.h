/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The collector: an opt-in thread that calls ba_collect every half decay delay, for a program
 * that goes idle after freeing (the heap's own calls would give nothing back until its next one).
 * It sleeps on a futex word with a timeout, so that ba_collector_stop wakes it at once. One per
 * process; the child of a fork has none (the thread was not copied) and may start its own.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_COLLECTOR_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_COLLECTOR_H

#include <boost/allocplus/core/detail/decay.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/registry.h>
#include <boost/allocplus/core/detail/public_api.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The collector's period: half the default heap's delay, at least 10 ms (a second when the
 * delay is 0, which gives back at once, or SIZE_MAX, which never does). */
BA_DETAIL_FN uint64_t ba_detail_collector_period_ms(void)
{
   size_t delay = __atomic_load_n(&ba_detail_default_heap_storage.decay_ms, __ATOMIC_RELAXED);
   if (delay == 0 || delay == ~(size_t)0) return 1000;
   return delay / 2 < 10 ? 10 : delay / 2;
}

BA_DETAIL_FN void *ba_detail_collector_main(void *unused)
{
   (void)unused;
   while (__atomic_load_n(&ba_core_v1_state.collector_stop, __ATOMIC_ACQUIRE) == 0) {
      uint64_t ms = ba_detail_collector_period_ms();
      struct timespec wait;
      wait.tv_sec = (time_t)(ms / 1000);
      wait.tv_nsec = (long)(ms % 1000) * 1000000L;
      /* Returns at the timeout, or at once when stop is no longer 0 or a wake comes. */
      (void)syscall(SYS_futex, &ba_core_v1_state.collector_stop, FUTEX_WAIT_PRIVATE, 0, &wait, (void *)0, 0);
      if (__atomic_load_n(&ba_core_v1_state.collector_stop, __ATOMIC_ACQUIRE) != 0) break;
      ba_heap_collect(&ba_detail_default_heap_storage);
   }
   return 0;
}

/* Start and stop hold the collector's own lock from the test of `running` to the end of the
 * thread's creation or join, so that a start never reuses the stop word of a thread still being
 * stopped, and a stop returns once the thread is gone. (Not the registry lock: fork holds that
 * while other libraries' fork handlers may run.) */
BOOST_ALLOCPLUS_CORE_API int ba_collector_start(void)
{
   int error = 0;
   ba_detail_default();   /* the heap set up (and the fork handlers registered) first */
   ba_detail_spin_acquire(&ba_core_v1_state.collector_lock);
   if (!ba_core_v1_state.collector_running) {
      __atomic_store_n(&ba_core_v1_state.collector_stop, 0, __ATOMIC_RELAXED);
      error = pthread_create(&ba_core_v1_state.collector_thread, 0, ba_detail_collector_main, 0);
      if (error == 0) ba_core_v1_state.collector_running = 1;
   }
   ba_detail_spin_release(&ba_core_v1_state.collector_lock);
   return error;
}

BOOST_ALLOCPLUS_CORE_API void ba_collector_stop(void)
{
   ba_detail_spin_acquire(&ba_core_v1_state.collector_lock);
   /* Not from the collector itself (a clock or a diagnostic handler it runs): it cannot join
    * itself. */
   if (ba_core_v1_state.collector_running && !pthread_equal(ba_core_v1_state.collector_thread, pthread_self())) {
      __atomic_store_n(&ba_core_v1_state.collector_stop, 1, __ATOMIC_RELEASE);
      (void)syscall(SYS_futex, &ba_core_v1_state.collector_stop, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
      pthread_join(ba_core_v1_state.collector_thread, 0);
      ba_core_v1_state.collector_running = 0;
   }
   ba_detail_spin_release(&ba_core_v1_state.collector_lock);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_COLLECTOR_H */
