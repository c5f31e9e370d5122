/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Heaps and the process: the registry of the heaps that fork must lock (so that the child never
 * inherits a lock held by a thread it does not have), the fork handlers, the one-time set-up of
 * the process state (page size, fork handlers), the initialization of a heap record, and the
 * default heap's readiness check, which every call on the default heap makes and which costs two
 * instructions inline (the set-up itself is out of line).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_REGISTRY_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_REGISTRY_H

#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/state.h>
#include <boost/allocplus/core/detail/geometry.h>

#include <string.h>
#if defined(__linux__)
#  include <sys/auxv.h>
#endif

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The registry lock. The thread that forks holds it from the prepare handler to the parent's or
 * child's handler, and may need it meanwhile (another library's fork handler that creates or
 * destroys a heap, or is the first to use the default heap): it is let in then. Returns: whether
 * the lock was taken here (to pass to ba_detail_registry_leave). */
BA_DETAIL_FN int ba_detail_registry_enter(void)
{
   if (ba_detail_is_fork_owner()) return 0;
   ba_detail_spin_acquire(&ba_detail_registry_lock);
   return 1;
}
BA_DETAIL_FN void ba_detail_registry_leave(int entered)
{
   if (entered) ba_detail_spin_release(&ba_detail_registry_lock);
}

/* Around fork, when other threads exist, every registered heap's lock is taken, so that the
 * child never inherits a lock held by a thread it does not have, nor a heap in the middle of a
 * change. The forking thread is recorded, and each heap it locked is marked BA_DETAIL_LOCK_FORK:
 * the fork handlers of other libraries run between ours (those registered before ours run their
 * prepare after it and their parent and child handlers before ours), in that thread, and may use
 * the heaps; lock.h lets that thread in and keeps the lock held when it leaves. The order in which
 * the handlers were registered thus does not matter. In the child the heaps the parent's other
 * threads used are sound (the locks kept them out) and unlocked by the child handler. */
BA_DETAIL_FN void ba_detail_fork_prepare(void)
{
   ba_heap *h;
   ba_detail_spin_acquire(&ba_detail_registry_lock);
   __atomic_store_n(&ba_detail_fork_owner, ba_detail_thread_id(), __ATOMIC_RELAXED);
   if (!ba_detail_single_threaded()) {
      /* The node pools' locks first: a pool holds its lock while it asks a heap for a block. */
      unsigned cls, count = ba_core_v1_state.pool_class_count;
      for (cls = 1; cls <= count; ++cls) ba_detail_spin_acquire(ba_detail_pool_class_at(cls)->lock);
      ba_core_v1_state.pool_locks_taken = count;
   }
   if (!ba_detail_single_threaded())
      for (h = ba_detail_registry; h; h = h->registry_next)
         if (ba_detail_lock_mode(h) == BA_DETAIL_LOCK_PLAIN) {
            ba_detail_lock(h);   /* the heap's own lock: threads may sleep on it (lock.h) */
            __atomic_store_n(&h->use_lock, BA_DETAIL_LOCK_FORK, __ATOMIC_RELAXED);
            h->unlock_word = &h->lock_owner;   /* the forking thread's unlocks keep it held */
         }
   /* The caches' depot last: no thread waits for a heap while it holds the depot. */
   ba_detail_spin_acquire(&ba_detail_depot_storage.lock);
}
/* The parent's and the child's handler: releases what prepare took (not the heaps created since,
 * whose locks prepare did not take), waking a thread that sleeps on it. In the child no thread
 * sleeps: the count of the parent's sleepers goes. */
BA_DETAIL_FN void ba_detail_fork_release_in(int child)
{
   ba_heap *h;
   ba_detail_spin_release(&ba_detail_depot_storage.lock);
   for (h = ba_detail_registry; h; h = h->registry_next)
      if (ba_detail_lock_mode(h) == BA_DETAIL_LOCK_FORK) {
         if (child) __atomic_store_n(&h->lock_sleepers, 0, __ATOMIC_RELAXED);
         __atomic_store_n(&h->use_lock, BA_DETAIL_LOCK_PLAIN, __ATOMIC_RELAXED);
         h->unlock_word = &h->lock_word;
         ba_detail_unlock(h);
      }
   {
      unsigned cls;
      for (cls = 1; cls <= ba_core_v1_state.pool_locks_taken; ++cls)
         ba_detail_spin_release(ba_detail_pool_class_at(cls)->lock);
      ba_core_v1_state.pool_locks_taken = 0;
   }
   __atomic_store_n(&ba_detail_fork_owner, (uintptr_t)0, __ATOMIC_RELAXED);
   ba_detail_spin_release(&ba_detail_registry_lock);
}
BA_DETAIL_FN void ba_detail_fork_parent(void) { ba_detail_fork_release_in(0); }
/* The child has no collector thread (collector.h): it may start its own (a start or stop that
 * another thread of the parent was in the middle of is over for the child). */
BA_DETAIL_FN void ba_detail_fork_child(void)
{
   ba_core_v1_state.collector_running = 0;
   ba_core_v1_state.collector_lock = 0;
   ba_detail_fork_release_in(1);
}

/* Precondition: the registry lock is held. */
/* The process's secret, which marks cached blocks: the kernel's random bytes for this process,
 * mixed with an address (ASLR), never 0. Precondition: the registry lock is held; no heap exists yet (a
 * block's second word equal to it marks the block cached: ba_detail_head_looks_in_use). */
BA_DETAIL_FN void ba_detail_cache_make_secret(void)
{
   uintptr_t secret = (uintptr_t)&ba_core_v1_state * (uintptr_t)0x9e3779b97f4a7c15ull;
#if defined(__linux__) && defined(AT_RANDOM)
   const unsigned char *random = (const unsigned char *)getauxval(AT_RANDOM);
   if (random) {
      uintptr_t r;
      memcpy(&r, random + 8, sizeof r);   /* the first 8 bytes are glibc's stack guard */
      secret ^= r;
   }
#endif
   __atomic_store_n(&ba_detail_cache_secret, secret | 1, __ATOMIC_RELAXED);
}

BA_DETAIL_FN void ba_detail_global_init_locked(void)
{
   if (ba_detail_page_size != 0) return;
   ba_detail_cache_make_secret();
   {
      long page = sysconf(_SC_PAGESIZE);
      size_t size = page > 0 ? (size_t)page : (size_t)4096;
      pthread_atfork(ba_detail_fork_prepare, ba_detail_fork_parent, ba_detail_fork_child);
      __atomic_store_n(&ba_detail_page_size, size, __ATOMIC_RELEASE);
   }
}

/* Only heaps whose memory is the core's and that have a (plain) lock are registered: a heap
 * without a lock has nothing to take around fork, a process-shared heap's lock needs nothing (the
 * parent's holder releases it in the shared memory), and a heap over a caller's buffer must leave
 * no pointer to it behind, since the buffer may go away without ba_destroy_heap. */
BA_DETAIL_FN int ba_detail_registered(const ba_heap *h)
{
   return !(h->flags & BA_DETAIL_HEAP_NO_SYSTEM) && ba_detail_lock_mode(h) != BA_DETAIL_LOCK_NONE
       && ba_detail_lock_mode(h) != BA_DETAIL_LOCK_SHARED;
}

/* Precondition: the registry lock is held. */
BA_DETAIL_FN void ba_detail_link_heap(ba_heap *h)
{
   h->registry_prev = 0;
   h->registry_next = ba_detail_registry;
   if (ba_detail_registry) ba_detail_registry->registry_prev = h;
   ba_detail_registry = h;
}

BA_DETAIL_FN void ba_detail_register(ba_heap *h)
{
   int entered = ba_detail_registry_enter();
   ba_detail_global_init_locked();
   if (ba_detail_registered(h)) ba_detail_link_heap(h);
   ba_detail_registry_leave(entered);
}

BA_DETAIL_FN void ba_detail_unregister(ba_heap *h)
{
   int entered;
   if (!ba_detail_registered(h)) return;
   entered = ba_detail_registry_enter();
   if (h->registry_prev) h->registry_prev->registry_next = h->registry_next;
   else ba_detail_registry = h->registry_next;
   if (h->registry_next) h->registry_next->registry_prev = h->registry_prev;
   ba_detail_registry_leave(entered);
}

BA_DETAIL_FN size_t ba_detail_page(void) { return __atomic_load_n(&ba_detail_page_size, __ATOMIC_ACQUIRE); }

/* Sets up the fields of an empty heap; the bins need nothing (the bitmaps say they are empty).
 * `locked` is the argument of the public functions: 0, BA_HEAP_PROCESS_SHARED or another value
 * (a plain lock). */
BA_DETAIL_FN void ba_detail_heap_init(ba_heap *h, size_t segment_reserve, int locked, unsigned flags)
{
   memset(h, 0, sizeof *h);
   if (locked == BA_HEAP_PROCESS_SHARED) {
      h->use_lock = BA_DETAIL_LOCK_SHARED;
      h->lock_word = 1;   /* for ever: the inline exchange then always reaches the shared lock */
      h->unlock_word = &h->lock_owner;
   } else {
      h->use_lock = locked != 0 ? BA_DETAIL_LOCK_PLAIN : BA_DETAIL_LOCK_NONE;
      h->unlock_word = &h->lock_word;
   }
   h->flags = flags;
   h->segment_reserve = segment_reserve;
   h->trim_threshold = h->trim_check = BA_DETAIL_TRIM_THRESHOLD;
   h->decay_ms = BA_DETAIL_DECAY_MS;
   h->mmap_threshold = (flags & BA_DETAIL_HEAP_NO_SYSTEM) ? ~(size_t)0 : BA_DETAIL_MMAP_THRESHOLD;
   h->release_rate = h->release_countdown = BA_DETAIL_RELEASE_RATE;
   h->huge_reserve = BA_DETAIL_HUGE_RESERVE;
   h->top_pad = BA_DETAIL_TOP_PAD;
   h->footprint_limit = ~(size_t)0;
   ba_detail_set_address_range(h, (char *)~(uintptr_t)0, (char *)0);
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
   int entered = ba_detail_registry_enter();
   if (!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & BA_DETAIL_HEAP_READY)) {
      ba_detail_global_init_locked();
      ba_detail_heap_init(h, BA_DETAIL_DEFAULT_SEGMENT, 1, 0);
      ba_detail_link_heap(h);
      __atomic_store_n(&h->flags, BA_DETAIL_HEAP_READY, __ATOMIC_RELEASE);
   }
   ba_detail_registry_leave(entered);
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
