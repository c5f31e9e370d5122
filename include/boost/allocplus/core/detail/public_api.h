/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The functions of dlmalloc.h but those that create and destroy heaps (heap_create.h), on an
 * explicit heap and on the default heap. Each takes the heap's lock (when it has one) around the
 * detail functions and notes in the statistics what it handed out or took back, or hands the whole
 * operation, lock and statistics included, to a detail path (ba_heap_free to free.h, the
 * allocation commands to inline_command); ba_usable_size reads a head without the lock.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_PUBLIC_API_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_PUBLIC_API_H

#include <boost/allocplus/core/detail/allocation_command.h>
#include <boost/allocplus/core/detail/burst.h>
#include <boost/allocplus/core/detail/heap_walk.h>
#include <boost/allocplus/core/detail/thread_cache.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* (Each allocation of the default heap that finds no memory tries again once the calling
 * thread's cache and the depot are given back: ba_detail_cache_reclaim.) */
BOOST_ALLOCPLUS_CORE_API void *ba_heap_malloc(ba_heap *h, size_t n)
{
   void *mem = ba_detail_heap_malloc(h, n);
   return BA_DETAIL_LIKELY(mem != 0) || !ba_detail_cache_reclaim(h) ? mem : ba_detail_heap_malloc(h, n);
}
BOOST_ALLOCPLUS_CORE_API void ba_heap_free(ba_heap *h, void *mem) { ba_detail_heap_free(h, mem); }

/* A block of n bytes from the default heap that its owner means to grow in place
 * (allocation_command): from the heap, where it can grow, as ba_heap_malloc; in a process with
 * threads, a small one from the calling thread's cache (thread_cache.h). Returns: null when out of
 * memory. */
/* (Kept a call: inline, it made the aged vector row 4% slower. Only C++ calls it: a C unit has it
 * unused.) */
BA_DETAIL_OUT_OF_LINE_FN __attribute__((unused)) void *ba_detail_default_malloc_growable(size_t n)
{
   ba_heap *h = ba_detail_default();
   void *mem;
   if (n > BA_DETAIL_CACHE_MAX_REQUEST) return ba_heap_malloc(h, n);
   if (!ba_detail_lock_unless_cached(h)) return ba_detail_cache_malloc(n);
   mem = ba_detail_heap_malloc_held(h, n);
   return mem || !ba_detail_cache_reclaim(h) ? mem : ba_detail_heap_malloc(h, n);
}

/* Frees mem, a block ba_detail_default_malloc_growable gave (or a growth of one), as ba_free does;
 * but in a process of one thread a small block that ends at the top (as ba_free's fast path
 * sends it) or whose bin in the thread's cache is full goes to the heap itself. There such blocks
 * come from the heap, not from the cache, so a bin that takes them back only fills, and each time
 * it is full it gives half its blocks back in a burst, walked and checked on the way: 21% of the
 * instructions of a vector of 20 elements built and destroyed on an aged heap. In the heap the
 * block is where the next vector's first buffer looks. A bin with room still takes the block:
 * the buffer of a vector built with its size came from the cache, and a vector's last buffer
 * that fits in a bin a program also allocates from stays in that flow. */
BA_DETAIL_OUT_OF_LINE_FN __attribute__((unused)) BA_DETAIL_NOTHROW void ba_detail_default_free_growable(void *mem)
{
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   ba_heap *h = &ba_detail_default_heap_storage;
   size_t size;
   /* (A null mem is out of range: ba_detail_cache_takes gives 0.) */
   if (ba_detail_lock_mode(h) <= ba_detail_single_threaded() && (size = ba_detail_cache_takes(h, mem)) != 0
       && (ba_detail_cache_bin_at(ba_detail_thread_cache_ptr, size)->room == 0
           || (uintptr_t)ba_detail_mem2chunk(mem) + size == ba_detail_top_hint(h))) {
      ba_detail_heap_free(h, mem);
      return;
   }
#endif
   ba_detail_cache_free(mem);
}

BA_DETAIL_FN void *ba_detail_heap_calloc(ba_heap *h, size_t n, size_t size)
{
   void *mem;
   ba_detail_ch *p;
   ba_detail_lock(h);
   mem = ba_detail_malloc(h, n * size);
   if (mem) {
      p = ba_detail_mem2chunk(mem);
      ba_detail_note_alloc(h, ba_detail_chunksize(p), 1);
      ba_detail_block_born(mem, ba_detail_usable(p), n * size);
      /* A huge block's pages are fresh from the system, hence already zero. */
      if (!ba_detail_is_huge(p)) memset(mem, 0, n * size);
   }
   ba_detail_unlock(h);
   return mem;
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_calloc(ba_heap *h, size_t n, size_t size)
{
   void *mem;
   if (size != 0 && n > ~(size_t)0 / size) return 0;
   mem = ba_detail_heap_calloc(h, n, size);
   return mem || !ba_detail_cache_reclaim(h) ? mem : ba_detail_heap_calloc(h, n, size);
}

BA_DETAIL_FN void *ba_detail_heap_realloc(ba_heap *h, void *mem, size_t n)
{
   ba_detail_ch *p;
   size_t old_size;
   void *result;
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   p = ba_detail_checked_chunk(h, mem);
   old_size = ba_detail_chunksize(p);
   result = ba_detail_realloc(h, p, n);
   if (result) ba_detail_note_resize(h, old_size, ba_detail_size_of_mem(result));
   ba_detail_unlock(h);
   return result;
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_realloc(ba_heap *h, void *mem, size_t n)
{
   void *result;
   if (!mem) return ba_heap_malloc(h, n);
   if (n >= BA_DETAIL_MAX_REQUEST) return 0;
   result = ba_detail_heap_realloc(h, mem, n);
   return result || !ba_detail_cache_reclaim(h) ? result : ba_detail_heap_realloc(h, mem, n);
}

BA_DETAIL_FN void *ba_detail_heap_memalign(ba_heap *h, size_t alignment, size_t n)
{
   void *mem;
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   mem = ba_detail_malloc_aligned(h, alignment, n);
   if (mem) {
      ba_detail_note_alloc(h, ba_detail_size_of_mem(mem), 1);
      ba_detail_block_born(mem, ba_detail_usable(ba_detail_mem2chunk(mem)), n);
   }
   ba_detail_unlock(h);
   return mem;
}

BOOST_ALLOCPLUS_CORE_API void *ba_heap_memalign(ba_heap *h, size_t alignment, size_t n)
{
   void *mem;
   if (!ba_detail_is_pow2(alignment)) return 0;
   mem = ba_detail_heap_memalign(h, alignment, n);
   return mem || !ba_detail_cache_reclaim(h) ? mem : ba_detail_heap_memalign(h, alignment, n);
}

BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_heap_allocation_command(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr)
{
   return ba_detail_inline_command(h, command, sizeof_object, alignof_object, limit_objects,
                                   preferred_objects, received_objects, reuse_ptr);
}

BA_DETAIL_FN size_t ba_detail_heap_multialloc(ba_heap *h, size_t n, const size_t *lengths, size_t sizeof_element,
                                              size_t contiguous_elements, ba_chain *chain)
{
   size_t bytes;
   ba_detail_lock(h);
   bytes = ba_detail_multialloc(h, n, lengths, sizeof_element, contiguous_elements, chain);
   if (bytes) ba_detail_note_alloc(h, bytes, n);
   ba_detail_unlock(h);
   return bytes;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_multialloc_arrays(ba_heap *h, size_t n, const size_t *lengths,
   size_t sizeof_element, size_t contiguous_elements, ba_chain *chain)
{
   size_t bytes;
   if (n == 0) return 1;
   if (lengths && sizeof_element == 0) return 0;
   bytes = ba_detail_heap_multialloc(h, n, lengths, sizeof_element, contiguous_elements, chain);
   if (!bytes && ba_detail_cache_reclaim(h))
      bytes = ba_detail_heap_multialloc(h, n, lengths, sizeof_element, contiguous_elements, chain);
   return bytes != 0;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_multialloc_nodes(ba_heap *h, size_t n, size_t elem_size,
   size_t contiguous_elements, ba_chain *chain)
{
   return ba_heap_multialloc_arrays(h, n, 0, elem_size, contiguous_elements, chain);
}

BOOST_ALLOCPLUS_CORE_API void ba_heap_multidealloc(ba_heap *h, ba_chain *chain)
{
   size_t bytes = 0, chunks = 0;
   const char *fault;
   if (!chain->first) { ba_chain_init(chain); return; }
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   fault = ba_detail_free_chain(h, chain, &bytes, &chunks);
   ba_detail_note_free(h, bytes, chunks);
   if (BA_DETAIL_UNLIKELY(fault != 0)) {
      ba_detail_refuse_corrupted(h);
      ba_detail_usage_error(h, fault, chain->first);
   }
   ba_detail_maybe_trim(h);
   ba_detail_unlock(h);
}

BOOST_ALLOCPLUS_CORE_API size_t ba_heap_trim(ba_heap *h, size_t pad)
{
   size_t released;
   if (h == &ba_detail_default_heap_storage) ba_detail_cache_flush_all(h);
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   released = ba_detail_sys_trim(h, pad);
   ba_detail_unlock(h);
   return released;
}

BOOST_ALLOCPLUS_CORE_API size_t ba_heap_collect(ba_heap *h)
{
   size_t released;
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   released = ba_detail_collect(h);
   ba_detail_unlock(h);
   return released;
}

BOOST_ALLOCPLUS_CORE_API ba_clock_fn ba_heap_set_clock(ba_heap *h, ba_clock_fn now_ms)
{
   ba_clock_fn previous;
   ba_detail_lock(h);
   previous = h->clock_ms;
   h->clock_ms = now_ms;
   /* An epoch timed by the other clock means nothing on this one: it begins again. */
   if (h->decay_running) ba_detail_decay_begin(h, ba_detail_now_ms(h));
   ba_detail_unlock(h);
   return previous;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_set_option(ba_heap *h, int option, size_t value)
{
   int known = 1;
   ba_detail_lock(h);
   switch (option) {
   case BA_OPTION_TRIM_THRESHOLD:
      h->trim_threshold = h->trim_check = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_TRIM);
      break;
   case BA_OPTION_MMAP_THRESHOLD:
      if (!(h->flags & BA_DETAIL_HEAP_NO_SYSTEM)) h->mmap_threshold = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_MMAP);
      break;
   case BA_OPTION_RELEASE_RATE:
      h->release_rate = h->release_countdown = value;
      break;
   case BA_OPTION_DECAY_MS:
      __atomic_store_n(&h->decay_ms, value, __ATOMIC_RELAXED);   /* the collector reads it unlocked */
      h->trim_check = h->trim_threshold;   /* a top left alone under the old delay is looked at again */
      break;
   case BA_OPTION_THREAD_CACHE:
      if (h != &ba_detail_default_heap_storage) {   /* only the default heap has caches */
         known = 0;
         break;
      }
      __atomic_store_n(&ba_core_v1_state.cache_cap, value, __ATOMIC_RELAXED);
      __atomic_store_n(&ba_core_v1_state.cache_cap_set, 1, __ATOMIC_RELEASE);
      break;
   case BA_OPTION_HUGE_RESERVE:
      if (value > BA_DETAIL_MAX_REQUEST) value = BA_DETAIL_MAX_REQUEST;
      h->huge_reserve = value;
      ba_detail_set_flag(h, BA_DETAIL_HEAP_USER_RESERVE);
      break;
   default:
      known = 0;
   }
   ba_detail_unlock(h);
   return known;
}

BOOST_ALLOCPLUS_CORE_API size_t ba_heap_set_footprint_limit(ba_heap *h, size_t bytes)
{
   size_t previous;
   ba_detail_lock(h);
   previous = h->footprint_limit;
   h->footprint_limit = bytes;
   /* Above the new limit: the free top the decay keeps goes back at once. */
   if (h->footprint > bytes) ba_detail_sys_trim(h, h->top_pad);
   ba_detail_unlock(h);
   return previous;
}

BOOST_ALLOCPLUS_CORE_API void ba_heap_stats_get(ba_heap *h, ba_heap_stats *stats)
{
   ba_detail_tally t;
   const void *where;
   ba_detail_lock(h);
   ba_detail_walk(h, &t, &where);   /* a corrupted heap is not walked: t stays zero */
   stats->system_bytes = h->footprint;
   stats->peak_system_bytes = h->max_footprint;
   stats->in_use_bytes = h->in_use_bytes;
   stats->peak_in_use_bytes = h->peak_in_use_bytes;
   stats->in_use_chunks = h->in_use_chunks;
   stats->free_chunks = t.free_chunks;
   stats->free_bytes = t.free_bytes;
   stats->top_bytes = h->topsize;
   stats->segments = t.segments;
   stats->huge_blocks = h->huge_blocks;
   stats->huge_bytes = h->huge_bytes;
   stats->footprint_limit = h->footprint_limit;
   ba_detail_unlock(h);
   stats->cached_bytes = stats->cached_blocks = 0;
   if (h == &ba_detail_default_heap_storage) {
      /* Cached blocks are free to the program: the heap's in-use figures less the caches'. */
      stats->cached_bytes = ba_detail_cached_bytes(&stats->cached_blocks);
      stats->in_use_bytes -= stats->cached_bytes < stats->in_use_bytes ? stats->cached_bytes : stats->in_use_bytes;
      stats->in_use_chunks -= stats->cached_blocks < stats->in_use_chunks ? stats->cached_blocks : stats->in_use_chunks;
   }
}

/* ba_heap_check, and for the default heap its caches: the calling thread's, the depot and with
 * every_thread (the caller's promise that the other threads are quiescent) the other threads'. */
BA_DETAIL_FN int ba_detail_check(ba_heap *h, int every_thread, ba_check_report *report)
{
   ba_detail_tally t;
   const void *where = 0;
   const char *what;
   ba_detail_lock(h);
   what = ba_detail_walk(h, &t, &where);
   ba_detail_unlock(h);
   /* (Cached blocks are in use to the walk above.) */
   if (!what && h == &ba_detail_default_heap_storage) what = ba_detail_cache_check(h, every_thread, &where);
   if (report) {
      report->what = what;
      report->where = what ? where : 0;
   }
   return what == 0;
}

BOOST_ALLOCPLUS_CORE_API int ba_heap_check(ba_heap *h, ba_check_report *report) { return ba_detail_check(h, 0, report); }

/* The default heap's malloc and free: the calling thread's cache, or its slow paths. */
BOOST_ALLOCPLUS_CORE_API void *ba_malloc(size_t n) { return ba_detail_cache_malloc(n); }
BOOST_ALLOCPLUS_CORE_API void ba_free(void *p) { ba_detail_cache_free(p); }
BOOST_ALLOCPLUS_CORE_API void *ba_calloc(size_t n, size_t size) { return ba_heap_calloc(ba_detail_default(), n, size); }
BOOST_ALLOCPLUS_CORE_API void *ba_realloc(void *p, size_t n) { return ba_heap_realloc(ba_detail_default(), p, n); }
BOOST_ALLOCPLUS_CORE_API void *ba_memalign(size_t alignment, size_t n)
{ return ba_heap_memalign(ba_detail_default(), alignment, n); }

BOOST_ALLOCPLUS_CORE_API size_t ba_usable_size(const void *mem)
{
   size_t head, size;
   if (!mem) return 0;
   head = ba_detail_load_head(ba_detail_mem2chunk(mem));   /* no lock: see ba_detail_load_head */
   size = head & ~BA_DETAIL_FLAG_BITS;
   if ((head & BA_DETAIL_INUSE_BITS) == BA_DETAIL_PINUSE) return 0;   /* free */
   size -= (head & BA_DETAIL_INUSE_BITS) == 0 ? BA_DETAIL_HUGE_OVERHEAD : BA_DETAIL_CHUNK_OVERHEAD;
   return ba_detail_exposed(mem, size);
}

BOOST_ALLOCPLUS_CORE_API ba_command_ret ba_allocation_command(unsigned command, size_t sizeof_object,
   size_t alignof_object, size_t limit_objects, size_t preferred_objects, size_t *received_objects,
   void *reuse_ptr)
{
   return ba_detail_inline_command(ba_detail_default(), command, sizeof_object, alignof_object,
                                   limit_objects, preferred_objects, received_objects, reuse_ptr);
}

BOOST_ALLOCPLUS_CORE_API int ba_multialloc_nodes(size_t n, size_t elem_size, size_t contiguous_elements, ba_chain *chain)
{ return ba_heap_multialloc_nodes(ba_detail_default(), n, elem_size, contiguous_elements, chain); }

BOOST_ALLOCPLUS_CORE_API int ba_multialloc_arrays(size_t n, const size_t *lengths, size_t sizeof_element,
   size_t contiguous_elements, ba_chain *chain)
{ return ba_heap_multialloc_arrays(ba_detail_default(), n, lengths, sizeof_element, contiguous_elements, chain); }

BOOST_ALLOCPLUS_CORE_API void ba_multidealloc(ba_chain *chain) { ba_heap_multidealloc(ba_detail_default(), chain); }
BOOST_ALLOCPLUS_CORE_API size_t ba_trim(size_t pad) { return ba_heap_trim(ba_detail_default(), pad); }
BOOST_ALLOCPLUS_CORE_API size_t ba_collect(void) { return ba_heap_collect(ba_detail_default()); }
BOOST_ALLOCPLUS_CORE_API ba_heap *ba_default_heap(void) { return ba_detail_default(); }
BOOST_ALLOCPLUS_CORE_API void ba_thread_cache_flush(void)
{
   ba_detail_thread_cache *tc = ba_detail_thread_cache_ptr;
   if (ba_detail_cache_is_real(tc)) ba_detail_pool_cache_flush(tc, 0);   /* the node pools' bins too */
   ba_detail_cache_flush_all(ba_detail_default());
}
BOOST_ALLOCPLUS_CORE_API void ba_stats(ba_heap_stats *stats) { ba_heap_stats_get(ba_detail_default(), stats); }
BOOST_ALLOCPLUS_CORE_API int ba_check(ba_check_report *report) { return ba_detail_check(ba_detail_default(), 0, report); }
BOOST_ALLOCPLUS_CORE_API int ba_check_quiescent(ba_check_report *report) { return ba_detail_check(ba_detail_default(), 1, report); }

BOOST_ALLOCPLUS_CORE_API ba_diagnostic_handler ba_set_diagnostic_handler(ba_diagnostic_handler handler)
{
   return __atomic_exchange_n(&ba_detail_handler, handler, __ATOMIC_ACQ_REL);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_PUBLIC_API_H */
