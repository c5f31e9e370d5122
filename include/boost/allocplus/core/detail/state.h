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

#define ba_detail_default_heap_storage (ba_core_v1_state.default_heap)
#define ba_detail_registry_lock        (ba_core_v1_state.registry_lock)
#define ba_detail_registry             (ba_core_v1_state.registry)
#define ba_detail_page_size            (ba_core_v1_state.page_size)
#define ba_detail_handler              (ba_core_v1_state.handler)
#define ba_detail_fork_owner           (ba_core_v1_state.fork_owner)

BOOST_ALLOCPLUS_CORE_END_DECLS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_STATE_H */
