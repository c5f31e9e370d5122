/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The shared node pools' per-thread magazines, in the thread cache engine (thread_cache.h). A
 * shared pool registers itself once as a class and gets an index; each thread's cache record has
 * a bin at that index, kept as the heap's bins are (a protected singly linked list, `room` and
 * `limit`), so that a thread allocates and frees the pool's nodes without the pool's lock and
 * without an atomic read-modify-write. A bin holds two magazines of the class's batch: the pool
 * (C++, detail/shared_node_pool.hpp) refills an empty bin with a magazine and takes one back from
 * a full one, each under its lock. What the engine does for the pools besides:
 *   - a thread's bins go back to their pools when the thread exits, and on ba_thread_cache_flush
 *     (not on ba_trim or when memory is out: a pool refilling a bin holds its lock while it asks
 *     the heap for a block);
 *   - fork: the pools' locks are taken before the heaps' (a pool holds its lock while it calls
 *     the heap), and the child gives back the bins of the threads it does not have, as far as
 *     their links are sound (a thread may have been in the middle of a push).
 * The stand-in caches (a thread without a cache, or after its cache's teardown) have empty bins
 * with no room, so both fast paths fail there and the pool takes its lock.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_POOL_CACHE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_POOL_CACHE_H

#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/registry.h>
#include <boost/allocplus/core/detail/usage_error.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Registers a node pool (after the process's set-up: ba_default_heap() first, so that its fork
 * handlers, which take the pools' locks, are in place). Returns: its class (1 and up), or 0 when every class is taken (the pool
 * then goes without per-thread bins). */
BA_DETAIL_FN unsigned ba_detail_pool_class_register(void (*give_back)(void *, void *, size_t, const void *), void *pool,
                                                    int *lock, unsigned batch, uintptr_t align_mask)
{
   unsigned cls = 0;
   int entered = ba_detail_registry_enter();
   if (ba_core_v1_state.pool_class_count + 1 < BA_DETAIL_POOL_CLASSES) {
      ba_detail_pool_class *c = ba_detail_pool_class_at(ba_core_v1_state.pool_class_count + 1);
      c->give_back = give_back;
      c->pool = pool;
      c->lock = lock;
      c->batch = batch;
      c->align_mask = align_mask;
      cls = __atomic_add_fetch(&ba_core_v1_state.pool_class_count, 1u, __ATOMIC_RELEASE);
   }
   ba_detail_registry_leave(entered);
   return cls;
}

/* Takes a pool's lock. The thread that forks holds it from the prepare handler on, and is let in
 * (another library's fork handler may allocate). Returns: 0 when it was not taken here, 1 when it
 * was taken at once, 2 when it was taken after a wait (another thread held it: the pool learns
 * that threads contend for it). */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_pool_lock(int *lock)
{
   if (ba_detail_is_fork_owner()) return 0;
   if (BA_DETAIL_LIKELY(!__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))) return 1;
   ba_detail_spin_wait(lock);
   return 2;
}
BA_DETAIL_FN void ba_detail_pool_unlock(int *lock, int taken)
{
   if (taken) ba_detail_spin_release(lock);
}

/* Reports a forged link met in a pool's bin: the program stops. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_pool_cache_corrupted(const void *where)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_lock(h);
   ba_detail_usage_error(h, "a node pool's per-thread list is overwritten (a write after free?)", where);
}

/* Returns: a node off bin b (a thread's bin of a pool whose nodes are aligned to align_mask + 1),
 * or null when it is empty. A forged link is reported, never followed. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_pool_bin_pop(ba_detail_cache_bin *b, uintptr_t align_mask)
{
   void *node = b->head;
   if (BA_DETAIL_LIKELY(node != 0)) {
      void *next = ba_detail_link_load(node);
      if (BA_DETAIL_UNLIKELY(!ba_detail_link_valid(next, align_mask))) ba_detail_pool_cache_corrupted(node);
      b->head = next;
      ++b->room;
   }
   return node;
}
/* Returns: whether node went into bin b (0: it is full, or a stand-in's). A node freed twice in a
 * row is reported. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_pool_bin_push(ba_detail_cache_bin *b, void *node)
{
   if (BA_DETAIL_UNLIKELY(b->room == 0)) return 0;
   if (BA_DETAIL_UNLIKELY(node == b->head)) {
      ba_heap *h = &ba_detail_default_heap_storage;
      ba_detail_lock(h);
      ba_detail_usage_error(h, "double free (of a node held in a thread's pool cache)", node);
   }
   ba_detail_link_store(node, b->head);
   b->head = node;
   --b->room;
   return 1;
}

/* The fast paths: the same on the calling thread's bin of class cls. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_pool_cache_pop(unsigned cls, uintptr_t align_mask)
{
   return ba_detail_pool_bin_pop(&ba_detail_thread_cache_ptr->pool_bins[cls], align_mask);
}
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_pool_cache_push(unsigned cls, void *node)
{
   return ba_detail_pool_bin_push(&ba_detail_thread_cache_ptr->pool_bins[cls], node);
}

/* Gives the nodes of bin b of class cls back to its pool; b is left empty. ends: the thread
 * ends, and its pool forgets the bin (even an empty one: the pool may keep a place for it). */
BA_DETAIL_FN void ba_detail_pool_cache_empty_bin(unsigned cls, ba_detail_cache_bin *b, int ends)
{
   const ba_detail_pool_class *c = ba_detail_pool_class_at(cls);
   unsigned held = b->limit - b->room;
   void *first = b->head;
   b->head = 0;
   b->room = b->limit;
   if (!first) held = 0;
   if (held || ends) c->give_back(c->pool, held ? first : 0, held, ends ? b : 0);
}

/* Gives every bin of cache tc back to its pool; ends: the thread ends (ba_detail_pool_cache_empty_bin). */
BA_DETAIL_FN void ba_detail_pool_cache_flush(ba_detail_thread_cache *tc, int ends)
{
   unsigned cls, count = __atomic_load_n(&ba_core_v1_state.pool_class_count, __ATOMIC_ACQUIRE);
   for (cls = 1; cls <= count; ++cls)
      if (ends || tc->pool_bins[cls].head) ba_detail_pool_cache_empty_bin(cls, &tc->pool_bins[cls], ends);
}

/* In the child of a fork: the bins of cache tc, a thread the child does not have, as far as their
 * links are sound (the rest is lost, never handed out twice). */
BA_DETAIL_FN void ba_detail_pool_cache_take_back(ba_detail_thread_cache *tc)
{
   unsigned cls, count = ba_core_v1_state.pool_class_count;
   for (cls = 1; cls <= count; ++cls) {
      ba_detail_cache_bin *b = &tc->pool_bins[cls];
      const ba_detail_pool_class *c = ba_detail_pool_class_at(cls);
      unsigned held = b->limit >= b->room ? b->limit - b->room : 0, sound = 0;
      void *node = b->head;
      while (sound < held && node) {
         void *next = ba_detail_link_load(node);
         ++sound;
         if (!ba_detail_link_valid(next, c->align_mask)) break;
         node = next;
      }
      c->give_back(c->pool, sound ? b->head : 0, sound, b);
      b->head = 0;
      b->room = b->limit;
   }
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_POOL_CACHE_H */
