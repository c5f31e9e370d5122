/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Heaps and the process: the registry of every heap (around fork, when other threads exist, every
 * heap's lock is taken, so that the child never inherits a lock held by a thread it does not
 * have), the one-time set-up of the process state (page size, fork handlers), the initialization
 * of a heap record, and the default heap's readiness check, which every call on the default heap
 * makes and which costs two instructions inline (the set-up itself is out of line).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_REGISTRY_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_REGISTRY_H

#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/state.h>
#include <boost/allocplus/core/detail/geometry.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The heaps' locks are taken only when other threads exist, and the decision is recorded: the
 * child is single-threaded again, so the lock functions' own test would disagree there. */
BA_DETAIL_FN void ba_detail_fork_prepare(void)
{
   ba_heap *h;
   ba_detail_spin_lock(&ba_detail_registry_lock);
   ba_detail_fork_locked = !ba_detail_single_threaded();
   if (ba_detail_fork_locked)
      for (h = ba_detail_registry; h; h = h->registry_next)
         if (h->use_lock) ba_detail_spin_lock(&h->lock_word);
}
BA_DETAIL_FN void ba_detail_fork_release(void)
{
   ba_heap *h;
   if (ba_detail_fork_locked)
      for (h = ba_detail_registry; h; h = h->registry_next)
         if (h->use_lock) ba_detail_spin_unlock(&h->lock_word);
   ba_detail_fork_locked = 0;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

/* Precondition: the registry lock is held. */
BA_DETAIL_FN void ba_detail_global_init_locked(void)
{
   if (ba_detail_page_size != 0) return;
   {
      long page = sysconf(_SC_PAGESIZE);
      size_t size = page > 0 ? (size_t)page : (size_t)4096;
      pthread_atfork(ba_detail_fork_prepare, ba_detail_fork_release, ba_detail_fork_release);
      __atomic_store_n(&ba_detail_page_size, size, __ATOMIC_RELEASE);
   }
}

BA_DETAIL_FN void ba_detail_register(ba_heap *h)
{
   ba_detail_spin_lock(&ba_detail_registry_lock);
   ba_detail_global_init_locked();
   h->registry_prev = 0;
   h->registry_next = ba_detail_registry;
   if (ba_detail_registry) ba_detail_registry->registry_prev = h;
   ba_detail_registry = h;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN void ba_detail_unregister(ba_heap *h)
{
   ba_detail_spin_lock(&ba_detail_registry_lock);
   if (h->registry_prev) h->registry_prev->registry_next = h->registry_next;
   else ba_detail_registry = h->registry_next;
   if (h->registry_next) h->registry_next->registry_prev = h->registry_prev;
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN size_t ba_detail_page(void) { return __atomic_load_n(&ba_detail_page_size, __ATOMIC_ACQUIRE); }

/* Sets up the fields of an empty heap; the bins need nothing (the bitmaps say they are empty). */
BA_DETAIL_FN void ba_detail_heap_init(ba_heap *h, size_t segment_reserve, int locked, unsigned flags)
{
   memset(h, 0, sizeof *h);
   h->use_lock = locked != 0;
   h->flags = flags;
   h->segment_reserve = segment_reserve;
   h->trim_threshold = h->trim_check = BA_DETAIL_TRIM_THRESHOLD;
   h->mmap_threshold = (flags & BA_DETAIL_HEAP_NO_SYSTEM) ? ~(size_t)0 : BA_DETAIL_MMAP_THRESHOLD;
   h->release_rate = h->release_countdown = BA_DETAIL_RELEASE_RATE;
   h->huge_reserve = BA_DETAIL_HUGE_RESERVE;
   h->top_pad = BA_DETAIL_TOP_PAD;
   h->footprint_limit = ~(size_t)0;
   h->least_addr = (char *)~(uintptr_t)0;
}

/* Sets a flag of a heap that may be shared: flags is read without the lock (whether the heap
 * is ready), so writes after the heap is published are atomic. */
BA_DETAIL_FN void ba_detail_set_flag(ba_heap *h, unsigned flag)
{
   __atomic_fetch_or(&h->flags, flag, __ATOMIC_RELAXED);
}

/* Out of line, so that ba_detail_default (every call on the default heap asks it) is two
 * instructions inline rather than a call (counted: 3% of the instructions of 10 push_backs into
 * a vector). */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_init_default(void)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_spin_lock(&ba_detail_registry_lock);
   if (!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & BA_DETAIL_HEAP_READY)) {
      ba_detail_global_init_locked();
      ba_detail_heap_init(h, BA_DETAIL_DEFAULT_SEGMENT, 1, 0);
      h->registry_next = ba_detail_registry;
      if (ba_detail_registry) ba_detail_registry->registry_prev = h;
      ba_detail_registry = h;
      __atomic_store_n(&h->flags, BA_DETAIL_HEAP_READY, __ATOMIC_RELEASE);
   }
   ba_detail_spin_unlock(&ba_detail_registry_lock);
}

BA_DETAIL_FN BA_DETAIL_INLINE_INTO_CALLERS ba_heap *ba_detail_default(void)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   if (BA_DETAIL_UNLIKELY(!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & BA_DETAIL_HEAP_READY)))
      ba_detail_init_default();
   return h;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_REGISTRY_H */
