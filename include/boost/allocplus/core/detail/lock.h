/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The heap's lock: a test-and-test-and-set spinlock. The uncontended path is one atomic exchange;
 * under contention it spins briefly, then yields (the holder may be descheduled on few cores).
 * While the process has one thread the exchange is skipped (glibc tells, as it does for its own
 * locks). A heap created without a lock (use_lock 0) is never locked: its owner serializes.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H

#include <boost/allocplus/core/detail/structures.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN void ba_detail_spin_lock_slow(int *word)
{
   unsigned spins = 0;
   for (;;) {
      if (!__atomic_load_n(word, __ATOMIC_RELAXED) && !__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))
         return;
      if (++spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
         __builtin_ia32_pause();
#endif
      } else {
         spins = 0;
         sched_yield();
      }
   }
}
BA_DETAIL_FN void ba_detail_spin_lock(int *word)
{
   if (BA_DETAIL_UNLIKELY(__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))) ba_detail_spin_lock_slow(word);
}
BA_DETAIL_FN void ba_detail_spin_unlock(int *word) { __atomic_store_n(word, 0, __ATOMIC_RELEASE); }

/* While the process has one thread (glibc tells, as it does for its own locks), no other thread
 * can hold or want the lock, and only this thread could create one, which it does not do while
 * inside the heap: the atomic exchange, the largest cost of a small malloc, is skipped. */
BA_DETAIL_FN int ba_detail_single_threaded(void)
{
#if defined(BA_DETAIL_HAVE_SINGLE_THREADED)
   return __libc_single_threaded;
#else
   return 0;
#endif
}
/* Returns: whether h is now locked (or needs no lock), without waiting; 0 when another thread
 * holds the lock. */
BA_DETAIL_FN int ba_detail_try_lock(ba_heap *h)
{
   /* One comparison decides whether to lock: use_lock is 0 (never), 1 (when other threads exist)
    * or 2 (always: the heap may be shared with other processes); single_threaded is 0 or 1. */
   return h->use_lock <= ba_detail_single_threaded() || !__atomic_exchange_n(&h->lock_word, 1, __ATOMIC_ACQUIRE);
}
BA_DETAIL_FN void ba_detail_lock(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(!ba_detail_try_lock(h))) ba_detail_spin_lock_slow(&h->lock_word);
}
/* Clearing a lock that was skipped is harmless (no other thread exists to hold it), and so is
 * clearing the unused word of a heap without a lock (its owner serializes): one store, cheaper
 * than asking again whether the lock was taken. */
BA_DETAIL_FN void ba_detail_unlock(ba_heap *h)
{
   ba_detail_spin_unlock(&h->lock_word);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H */
