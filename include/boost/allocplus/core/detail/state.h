/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The process-wide state: the default heap, the registry of heaps (for fork), the page size and
 * the diagnostic handler, in one constant-initialized (zero) object with C linkage and a
 * versioned name, so that the C implementation, every C++ unit and every shared library resolve
 * it to one heap. The short names defined here are undefined again at the end of
 * dlmalloc_impl.h.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_STATE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_STATE_H

#include <boost/allocplus/core/detail/structures.h>

BOOST_ALLOCPLUS_CORE_BEGIN_DECLS

typedef struct ba_detail_state {
   ba_heap default_heap;
   int registry_lock;
   ba_heap *registry;               /* every heap, for fork */
   size_t page_size;                /* 0 until the first heap is set up */
   ba_diagnostic_handler handler;
   uintptr_t fork_owner;            /* the thread that forks, while the fork handlers hold the
                                     * locks (see registry.h); 0 otherwise */
   /* The per-thread caches of the default heap (thread_cache.h). */
   ba_detail_thread_cache no_cache;      /* empty: where a thread without a cache points */
   ba_detail_thread_cache retired_cache; /* empty: where a thread points after its cache's teardown */
   ba_detail_thread_cache *caches;       /* every thread's cache (the registry lock) */
   ba_detail_depot depot;
   uintptr_t cache_secret;               /* marks a cached block (its second word); 0 until made */
   size_t cache_cap;                     /* bytes a thread may cache (0: the default) */
   int cache_cap_set;                    /* cache_cap was set (0 then turns the caches off) */
   int cache_key_made;
   pthread_key_t cache_key;              /* its destructor gives a thread's cache back */
   /* The node pools that keep nodes in the threads' caches (pool_cache.h); 0 is no class. */
   ba_detail_pool_class pool_classes[BA_DETAIL_POOL_CLASSES];
   unsigned pool_class_count;            /* classes 1..count are registered (the registry lock) */
   unsigned pool_locks_taken;            /* the pools' locks fork's prepare took (registry.h) */
   /* The collector thread (collector.h): its lock, started, its futex word (1: stop), its handle. */
   int collector_lock;
   int collector_running;
   int collector_stop;
   pthread_t collector_thread;
} ba_detail_state;

/* One object with C linkage and a versioned name: the C implementation and every C++ unit (and
 * every shared library, whatever its visibility) resolve it to one heap. */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
extern "C" {
BA_DETAIL_STATE ba_detail_state ba_core_v1_state;
}
#else
BA_DETAIL_STATE ba_detail_state ba_core_v1_state;
#endif

/* The calling thread's cache: one constant-initialized, initial-exec pointer (two instructions
 * to read, no call, also from a shared library), at an empty cache until the thread has one. */
#if !defined(BOOST_ALLOCPLUS_TLS_MODEL)
#  if defined(__PIE__) || !defined(__PIC__)
     /* Code for an executable: the variable is the executable's own (one instruction to read). */
#    define BOOST_ALLOCPLUS_TLS_MODEL "local-exec"
#  else
     /* A shared library: static TLS all the same (glibc keeps room for a few such words in
      * libraries loaded later with dlopen), no __tls_get_addr call. */
#    define BOOST_ALLOCPLUS_TLS_MODEL "initial-exec"
#  endif
#endif
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
extern "C" {
BA_DETAIL_STATE thread_local ba_detail_thread_cache *ba_core_v1_thread_cache
   __attribute__((tls_model(BOOST_ALLOCPLUS_TLS_MODEL))) = &ba_core_v1_state.no_cache;
}
#else
BA_DETAIL_STATE __thread ba_detail_thread_cache *ba_core_v1_thread_cache
   __attribute__((tls_model(BOOST_ALLOCPLUS_TLS_MODEL))) = &ba_core_v1_state.no_cache;
#endif

#define ba_detail_default_heap_storage (ba_core_v1_state.default_heap)
#define ba_detail_thread_cache_ptr     (ba_core_v1_thread_cache)
#define ba_detail_no_cache             (ba_core_v1_state.no_cache)
#define ba_detail_retired_cache        (ba_core_v1_state.retired_cache)
#define ba_detail_caches               (ba_core_v1_state.caches)
#define ba_detail_depot_storage        (ba_core_v1_state.depot)
#define ba_detail_cache_secret         (ba_core_v1_state.cache_secret)
#define ba_detail_registry_lock        (ba_core_v1_state.registry_lock)
#define ba_detail_registry             (ba_core_v1_state.registry)
#define ba_detail_page_size            (ba_core_v1_state.page_size)
#define ba_detail_handler              (ba_core_v1_state.handler)
#define ba_detail_fork_owner           (ba_core_v1_state.fork_owner)
#define ba_detail_pool_class_at(cls)   (&ba_core_v1_state.pool_classes[cls])

BOOST_ALLOCPLUS_CORE_END_DECLS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_STATE_H */
