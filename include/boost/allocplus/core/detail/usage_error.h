/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Reports of misuse (a free of a pointer the heap did not hand out, a corrupted free list) to the
 * diagnostic handler. A report never returns into the heap: the lock is released first, so that a
 * handler that leaves by longjmp or exit leaves a usable heap behind, and the program aborts if
 * the handler returns.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H

#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/state.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Reports a misuse and never returns. The lock is released first so that a handler that leaves
 * by longjmp or exit leaves a usable heap behind. */
BA_DETAIL_FN void ba_detail_usage_error(ba_heap *h, const char *what, const void *address)
{
   ba_diagnostic_handler handler = __atomic_load_n(&ba_detail_handler, __ATOMIC_ACQUIRE);
   ba_detail_unlock(h);
   if (handler) {
      handler(what, address, h);
   } else {
      fprintf(stderr, "allocplus core heap %p: %s at %p\n", (const void *)h, what, address);
      fflush(stderr);
   }
   abort();
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H */
