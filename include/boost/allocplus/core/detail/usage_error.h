/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Reports to the diagnostic handler, of two kinds. A usage error (a free of a pointer the heap did
 * not hand out, a double free seen in the block's header) is found before the heap changed
 * anything: the heap is intact, and a handler may leave by longjmp or exit. A corruption (a forged
 * link, size or boundary tag: an overrun or a write after free) is found in the middle of an
 * operation: the heap is marked corrupted and refuses every later call but its destruction. Either
 * report releases the lock first and never returns into the heap: the program aborts if the
 * handler returns.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H

#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/lock.h>
#include <boost/allocplus/core/detail/state.h>
#include <boost/allocplus/core/detail/instrumentation.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Calls the diagnostic handler (or prints the report), then aborts. Out of line and cold: the
 * paths that check stay short. */
BA_DETAIL_OUT_OF_LINE_FN __attribute__((noreturn, cold)) void ba_detail_report(ba_heap *h, const char *what, const void *address)
{
   ba_diagnostic_handler handler = __atomic_load_n(&ba_detail_handler, __ATOMIC_ACQUIRE);
   if (handler) {
      handler(what, address, h);
   } else {
      fprintf(stderr, "allocplus core heap %p: %s at %p\n", (const void *)h, what, address);
      fflush(stderr);
   }
   abort();
}

/* Reports a misuse found before the heap changed anything (a free of a pointer the heap did not
 * hand out, a double free seen in the block's own header): the heap is intact. The lock is
 * released first, so that a handler that leaves by longjmp or exit leaves a usable heap behind. */
BA_DETAIL_OUT_OF_LINE_FN __attribute__((noreturn, cold)) void ba_detail_usage_error(ba_heap *h, const char *what, const void *address)
{
   ba_detail_unlock(h);
   ba_detail_report(h, what, address);
}

/* Marks h corrupted: every later call on it takes a slow path that refuses it. The fast paths
 * need no test of their own: an empty quick list, every bin flagged non-empty and a chunk range
 * that holds no pointer send malloc and free to their general paths, which test the mark. */
BA_DETAIL_FN void ba_detail_mark_corrupted(ba_heap *h)
{
   h->corrupted = 1;
   /* (memset is a libc call ASan checks: the record may lie in memory the heap poisoned.) */
   ba_detail_unpoison(h->quick_count, sizeof h->quick_count);
   memset(h->quick_count, 0, sizeof h->quick_count);
   h->smallmap = ~(uint64_t)0;
   h->treemap = ~0u;
   h->dvsize = 0;
   ba_detail_set_address_range(h, (char *)~(uintptr_t)0, (char *)0);
}

/* Reports that h's own records are broken (a forged link or boundary tag: an overrun or a write
 * after free), found in the middle of an operation. The heap cannot be trusted any more: it is
 * marked corrupted before the handler runs, and the program aborts when the handler returns. A
 * handler that leaves by longjmp leaves a heap that refuses every call but ba_destroy_heap. */
BA_DETAIL_OUT_OF_LINE_FN __attribute__((noreturn, cold)) void ba_detail_heap_corrupted(ba_heap *h, const char *what, const void *address)
{
   ba_detail_mark_corrupted(h);
   ba_detail_unlock(h);
   ba_detail_report(h, what, address);
}

#define BA_DETAIL_CORRUPTED_HEAP "a call on a heap that reported corruption before"

/* Refuses a call on a heap marked corrupted. */
BA_DETAIL_FN void ba_detail_refuse_corrupted(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(h->corrupted)) ba_detail_heap_corrupted(h, BA_DETAIL_CORRUPTED_HEAP, h);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_USAGE_ERROR_H */
