/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The statistics of what a heap has handed out: bytes and chunks in use, and the peak. They are
 * kept under the lock, by the public functions or by the detail paths those hand a whole operation
 * to (free_locked, free_short, inline_command); no other detail function accounts. ba_check
 * verifies them against a walk of the heap.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_ACCOUNTING_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_ACCOUNTING_H

#include <boost/allocplus/core/detail/chunk.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN void ba_detail_note_alloc(ba_heap *h, size_t bytes, size_t chunks)
{
   h->in_use_bytes += bytes;
   h->in_use_chunks += chunks;
   if (h->in_use_bytes > h->peak_in_use_bytes) h->peak_in_use_bytes = h->in_use_bytes;
}
BA_DETAIL_FN void ba_detail_note_free(ba_heap *h, size_t bytes, size_t chunks)
{
   h->in_use_bytes -= bytes;
   h->in_use_chunks -= chunks;
}
/* A block of old_size bytes became a block of new_size (in place or moved). */
BA_DETAIL_FN void ba_detail_note_resize(ba_heap *h, size_t old_size, size_t new_size)
{
   ba_detail_note_free(h, old_size, 0);
   ba_detail_note_alloc(h, new_size, 0);
}
BA_DETAIL_FN size_t ba_detail_size_of_mem(const void *mem) { return ba_detail_chunksize(ba_detail_mem2chunk(mem)); }

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_ACCOUNTING_H */
