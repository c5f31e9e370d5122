/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Per-thread caches in front of the default heap (glibc's tcache, with Bonwick's depot between
 * the threads). A thread frees small blocks (chunks of 32..1040 bytes) into bins of its own and
 * allocates from them without the heap's lock and without an atomic read-modify-write; a free
 * goes to the freeing thread's cache, whichever thread allocated the block (chunks have no
 * owner). A bin holds up to two magazines' worth of blocks: a free that finds it full moves the
 * older magazine to the depot, and an allocation that finds it empty takes a magazine from the
 * depot, or a burst of adjacent chunks from the heap: the heap's lock is taken once a magazine,
 * and chunks are not coalesced and split again on every batch. A depot that is full gives the
 * magazine back to the heap (one burst free).
 *
 * What the heap sees: a cached block is an in-use chunk (no header bit changes: the heap writes
 * the PINUSE bit of an in-use chunk under its lock, so the cache must not write the header
 * without it). Its first word is the bin's protected link (free_list.h), its second the process's
 * secret: a free that finds the secret there looks for the block in its thread's bin and in the
 * depot, and reports a double free if it is there (glibc's tcache key). A chunk next to a cached
 * one cannot expand into it (allocation_command sees it in use). The statistics count cached
 * blocks as free: the heap's in-use figures less what the caches hold, folded in when read.
 *
 * Checks at constant cost on every call, as the heap's quick lists do: a pop checks that the
 * link it reads is aligned and that the block is an in-use chunk of the bin's size; a push checks
 * that the pointer lies in the heap, is aligned, is an in-use chunk not held in a quick list, and
 * is not marked cached.
 *
 * Lifetime: a thread gets its cache (from the heap) at its first small call; it is given back
 * when the thread exits (a pthread key's destructor), after which the thread's calls go to the
 * heap. ba_trim, ba_thread_cache_flush and an allocation that finds no memory give back the
 * calling thread's cache and the depot; the other threads' caches are theirs (an allocation may
 * fail while other threads cache memory: at most the per-thread cap each). The child of a fork
 * takes back the caches of the threads it does not have. Under ASan a cached block is poisoned,
 * under valgrind it is freed, as any free block of the heap.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_THREAD_CACHE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_THREAD_CACHE_H

#include <boost/allocplus/core/detail/address_space.h>
#include <boost/allocplus/core/detail/allocate.h>
#include <boost/allocplus/core/detail/burst.h>
#include <boost/allocplus/core/detail/cache_bin.h>
#include <boost/allocplus/core/detail/free.h>
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/core/detail/pool_cache.h>
#include <boost/allocplus/core/detail/registry.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The bytes a thread caches by default: 1 MiB, 7 blocks a magazine of 1040-byte chunks. Measured
 * (bench/results/2026-11-24-vm-thread-cache.md): at 256 KiB (2 blocks a magazine of the largest)
 * two threads that churn blocks of random sizes took the heap's lock so often that a malloc/free
 * pair cost 54 ns; at 1 MiB, 24. */
#define BA_DETAIL_CACHE_DEFAULT_CAP ((size_t)1 << 20)
/* ------------------------------------------------------------------------------------------
 * The depot
 * ---------------------------------------------------------------------------------------- */

/* Takes the depot's lock. The thread that forks holds it from the prepare handler to the parent's
 * or the child's (registry.h), and is let in: another library's fork handler may allocate then.
 * Returns: whether the lock was taken here (to pass to ba_detail_depot_leave). */
BA_DETAIL_FN int ba_detail_depot_enter(void)
{
   if (ba_detail_is_fork_owner()) return 0;
   ba_detail_spin_acquire(&ba_detail_depot_storage.lock);
   return 1;
}
BA_DETAIL_FN void ba_detail_depot_leave(int entered)
{
   if (entered) ba_detail_spin_release(&ba_detail_depot_storage.lock);
}

/* Stores magazine m of bin i. Returns: 0 when the depot has no room for it. */
BA_DETAIL_FN int ba_detail_depot_put(unsigned i, ba_detail_magazine m)
{
   ba_detail_depot *d = &ba_detail_depot_storage;
   int stored = 0;
   int entered_depot = ba_detail_depot_enter();
   if (d->count[i] < BA_DETAIL_DEPOT_MAGAZINES) {
      d->magazine[i][d->count[i]] = m;
      __atomic_store_n(&d->count[i], (unsigned char)(d->count[i] + 1), __ATOMIC_RELAXED);
      stored = 1;
   }
   ba_detail_depot_leave(entered_depot);
   return stored;
}

/* Returns: a full magazine of bin i (first null when there is none). */
BA_DETAIL_FN ba_detail_magazine ba_detail_depot_take(unsigned i)
{
   ba_detail_depot *d = &ba_detail_depot_storage;
   ba_detail_magazine m = {0, 0};
   /* A hint first: the refills of a size the depot has none of skip its lock. */
   if (!__atomic_load_n(&d->count[i], __ATOMIC_RELAXED)) return m;
   int entered_depot = ba_detail_depot_enter();
   if (d->count[i]) {
      __atomic_store_n(&d->count[i], (unsigned char)(d->count[i] - 1), __ATOMIC_RELAXED);
      m = d->magazine[i][d->count[i]];
   }
   ba_detail_depot_leave(entered_depot);
   return m;
}

/* ------------------------------------------------------------------------------------------
 * Between a cache and the heap
 * ---------------------------------------------------------------------------------------- */

/* Gives back to h count cached blocks of chunk size `size`, linked as in a bin from first, checked
 * already (ba_detail_cache_check_list, by a caller that wrote nothing to them since): one burst
 * free under the lock. The chain goes up in memory where it can: a bin is a stack, so
 * blocks freed going up in memory (a container destroyed front to back) lie in it going down,
 * and the heap's burst free merges a run of neighbours into one free only going up (given back
 * going down, each block was merged with the one freed before it: a bin's unlink and insert a
 * block, 2.1x std::list's time to erase a ba::list over ba::allocator<T, 1>). */
BA_DETAIL_FN void ba_detail_cache_give_back_checked(ba_heap *h, void *first, size_t count, size_t size)
{
   ba_chain chain;
   size_t bytes = 0, chunks = 0, i;
   void *node = first;
   const char *fault;
   int reverse = count > 1 && (uintptr_t)ba_detail_link_load(first) < (uintptr_t)first;
   ba_chain_init(&chain);
   for (i = 0; i < count; ++i) {
      void *next = i + 1 < count ? ba_detail_link_load(node) : 0;
      *ba_detail_cache_mark(node) = 0;
      /* The heap's burst free tells the sanitizers of a death itself. */
      ba_detail_block_born(node, size - BA_DETAIL_CHUNK_OVERHEAD, size - BA_DETAIL_CHUNK_OVERHEAD);
      if (reverse) {
         *(void **)node = chain.first;   /* a burst chain's link: each block goes in front */
         if (!chain.last) chain.last = node;
         chain.first = node;
      } else {
         *(void **)node = next;   /* a burst chain's link */
         if (!chain.first) chain.first = node;
         chain.last = node;
      }
      ++chain.size;
      node = next;
   }
   if (!chain.first) return;
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   fault = ba_detail_free_chain(h, &chain, &bytes, &chunks);
   ba_detail_note_free(h, bytes, chunks);
   if (BA_DETAIL_UNLIKELY(fault != 0)) ba_detail_heap_corrupted(h, BA_DETAIL_CACHE_CORRUPTED, chain.first);
   ba_detail_maybe_trim(h);
   ba_detail_unlock(h);
}

/* ba_detail_cache_give_back_checked for blocks not checked yet: checked first, before anything
 * is written to them. */
BA_DETAIL_FN void ba_detail_cache_give_back(ba_heap *h, void *first, size_t count, size_t size)
{
   ba_detail_cache_check_list(h, first, count, size);
   ba_detail_cache_give_back_checked(h, first, count, size);
}

/* Fills empty bin b of chunks of `size` bytes with a magazine carved from h (adjacent chunks,
 * one burst under the lock), linked in address order so that allocations from the bin go up in
 * memory as from the top. A chunk of another size (a run's last chunk may take a remainder too
 * small to split) goes back. Returns: 0 when h has no memory for it. */
BA_DETAIL_FN int ba_detail_cache_carve(ba_heap *h, ba_detail_cache_bin *b, size_t size, unsigned batch)
{
   ba_chain got, odd;
   size_t bytes, freed = 0, chunks = 0;
   uintptr_t secret = ba_detail_cache_secret;
   void *node, *last = 0;
   ba_chain_init(&got);
   ba_chain_init(&odd);
   ba_detail_lock(h);
   ba_detail_refuse_corrupted(h);
   bytes = ba_detail_multialloc(h, batch, 0, size - BA_DETAIL_CHUNK_OVERHEAD, BA_MULTIALLOC_DEFAULT_CONTIGUOUS, &got);
   if (!bytes) {
      ba_detail_unlock(h);
      return 0;
   }
   ba_detail_note_alloc(h, bytes, batch);
   for (node = got.first; node;) {
      void *next = ba_chain_next(node);
      if (ba_detail_size_of_mem(node) == size) {
         ba_detail_block_died(node, size - BA_DETAIL_CHUNK_OVERHEAD);
         *ba_detail_cache_mark(node) = secret;
         if (last) ba_detail_link_store(last, node);
         else b->head = node;
         last = node;
         --b->room;
      } else {
         ba_chain_push_back(&odd, node);
         *(void **)node = 0;
      }
      node = next;
   }
   if (last) ba_detail_link_store(last, 0);
   if (odd.first) {
      ba_detail_free_chain(h, &odd, &freed, &chunks);   /* blocks just carved: no fault */
      ba_detail_note_free(h, freed, chunks);
   }
   ba_detail_unlock(h);
   return b->head != 0;
}

/* Moves the older magazine of full bin b (chunks of `size` bytes) to the depot, or back to h when
 * the depot has no room: the first `batch` blocks are the newest, the rest go. */
BA_DETAIL_FN void ba_detail_cache_spill(ba_heap *h, ba_detail_cache_bin *b, size_t size)
{
   unsigned batch = b->limit / 2;
   void *last;
   ba_detail_magazine m;
   /* The whole bin checked before anything is written, in one walk: its newest `batch` blocks,
    * up to the last it keeps, whose link is cut; then the magazine after it, which goes to the
    * heap, when it does, with no second walk to check it. */
   last = ba_detail_cache_check_list(h, b->head, batch, size);
   m.first = ba_detail_link_load(last);   /* (checked: aligned, or null) */
   m.length = b->limit - b->room - batch;
   ba_detail_cache_check_list(h, m.first, m.length, size);
   /* The bin keeps the newest `batch` blocks, its list now ending there (a pop stops at a null
    * link); the list past them (limit - batch blocks, ending with a null link) goes. */
   ba_detail_link_store(last, 0);
   b->room += (unsigned)m.length;
   if (!ba_detail_depot_put((unsigned)(size >> 4), m)) ba_detail_cache_give_back_checked(h, m.first, m.length, size);
}

/* Gives back everything bin b (chunks of `size` bytes) holds. */
BA_DETAIL_FN void ba_detail_cache_empty_bin(ba_heap *h, ba_detail_cache_bin *b, size_t size)
{
   unsigned held = b->limit - b->room;
   void *first = b->head;
   if (!held) return;
   /* Detached first: a fork while the blocks go back finds the bin empty, not blocks the heap
    * may meanwhile have handed to another thread. */
   b->head = 0;
   b->room = b->limit;
   ba_detail_cache_give_back(h, first, held, size);
}

/* Gives back what the depot holds. */
BA_DETAIL_FN void ba_detail_depot_empty(ba_heap *h)
{
   unsigned i;
   for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) {
      ba_detail_magazine m;
      while ((m = ba_detail_depot_take(i)).first != 0) ba_detail_cache_give_back(h, m.first, m.length, (size_t)i << 4);
   }
}

/* ------------------------------------------------------------------------------------------
 * A thread's cache: making it, flushing it, giving it back
 * ---------------------------------------------------------------------------------------- */

/* The bytes a thread may cache. */
BA_DETAIL_FN size_t ba_detail_cache_cap(void)
{
   return __atomic_load_n(&ba_core_v1_state.cache_cap_set, __ATOMIC_ACQUIRE)
             ? __atomic_load_n(&ba_core_v1_state.cache_cap, __ATOMIC_RELAXED) : BA_DETAIL_CACHE_DEFAULT_CAP;
}

/* Sets the limits of a new cache's bins: each size gets an equal share of the cap, in two
 * magazines of up to BA_DETAIL_CACHE_MAX_BATCH blocks (32 blocks of 32 bytes, 7 of 1040 with the
 * default cap of 1 MiB). */
BA_DETAIL_FN void ba_detail_cache_limits(ba_detail_thread_cache *tc, size_t cap)
{
   size_t share = cap / (BA_DETAIL_CACHE_MAX_CHUNK / 16 - 1);
   unsigned i;
   for (i = 2; i <= BA_DETAIL_CACHE_MAX_CHUNK / 16; ++i) {
      size_t batch = share / (2 * ((size_t)i << 4));
      if (batch > BA_DETAIL_CACHE_MAX_BATCH) batch = BA_DETAIL_CACHE_MAX_BATCH;
      tc->bins[i].limit = tc->bins[i].room = (unsigned)(2 * batch);
   }
}

BA_DETAIL_FN void ba_detail_cache_thread_exit(void *cache);
BA_DETAIL_FN void ba_detail_cache_fork_child(void);

/* A cache record lives in pages of its own, not in the heap: made in the heap, it would sit
 * where a thread's first blocks go (next to a vector's first buffer, stopping its growth in place).
 * Zeroed by the system. Returns: null when the system refuses. */
BA_DETAIL_FN size_t ba_detail_cache_record_bytes(void)
{
   size_t page = ba_detail_page();
   return (sizeof(ba_detail_thread_cache) + page - 1) & ~(page - 1);
}
BA_DETAIL_FN ba_detail_thread_cache *ba_detail_cache_new_record(void)
{
   char *at = ba_detail_reserve(ba_detail_cache_record_bytes());
   if (at && !ba_detail_commit(at, ba_detail_cache_record_bytes())) {
      ba_detail_release(at, ba_detail_cache_record_bytes(), 0);
      at = 0;
   }
   return (ba_detail_thread_cache *)(void *)at;
}
BA_DETAIL_FN void ba_detail_cache_free_record(ba_detail_thread_cache *tc)
{
   ba_detail_release((char *)tc, ba_detail_cache_record_bytes(), ba_detail_cache_record_bytes());
}

/* Makes the calling thread's cache. Returns: it, or null when the thread is to have none (the
 * caches are off, the thread retired its cache, no memory). */
BA_DETAIL_OUT_OF_LINE_FN ba_detail_thread_cache *ba_detail_cache_make(ba_heap *h)
{
   ba_detail_thread_cache *tc;
   size_t cap = ba_detail_cache_cap();
   int entered;
   if (ba_detail_thread_cache_ptr != &ba_detail_no_cache || cap == 0) return 0;
   (void)h;
   if ((tc = ba_detail_cache_new_record()) == 0) return 0;
   ba_detail_cache_limits(tc, cap);
   tc->thread = ba_detail_thread_id();
   entered = ba_detail_registry_enter();
   if (!ba_core_v1_state.cache_key_made) {
      if (pthread_key_create(&ba_core_v1_state.cache_key, ba_detail_cache_thread_exit) != 0) {
         ba_detail_registry_leave(entered);
         ba_detail_cache_free_record(tc);
         return 0;
      }
      /* Child handlers run in the order they were registered: this one after the registry's,
       * in a child that has one thread. */
      pthread_atfork(0, 0, ba_detail_cache_fork_child);
      ba_core_v1_state.cache_key_made = 1;
   }
   tc->prev = 0;
   tc->next = ba_detail_caches;
   if (ba_detail_caches) ba_detail_caches->prev = tc;
   ba_detail_caches = tc;
   ba_detail_registry_leave(entered);
   ba_detail_thread_cache_ptr = tc;
   /* Without the key's value the cache would outlive its thread: the thread goes without. */
   if (pthread_setspecific(ba_core_v1_state.cache_key, tc) != 0) {
      ba_detail_cache_thread_exit(tc);
      return 0;
   }
   return tc;
}

/* Gives back every block cache tc holds (its bins stay usable). */
BA_DETAIL_FN void ba_detail_cache_flush(ba_heap *h, ba_detail_thread_cache *tc)
{
   unsigned i;
   for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) ba_detail_cache_empty_bin(h, &tc->bins[i], (size_t)i << 4);
}

/* Takes cache tc out of the registry. Precondition: the registry lock is held. */
BA_DETAIL_FN void ba_detail_cache_unlink(ba_detail_thread_cache *tc)
{
   if (tc->prev) tc->prev->next = tc->next;
   else ba_detail_caches = tc->next;
   if (tc->next) tc->next->prev = tc->prev;
}

/* A thread exits: its cache goes back to the heap, and its later calls (other destructors) go
 * straight to the heap. */
BA_DETAIL_FN void ba_detail_cache_thread_exit(void *cache)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_thread_cache *tc = (ba_detail_thread_cache *)cache;
   int entered;
   ba_detail_thread_cache_ptr = &ba_detail_retired_cache;
   ba_detail_pool_cache_flush(tc, 1);
   ba_detail_cache_flush(h, tc);
   entered = ba_detail_registry_enter();
   ba_detail_cache_unlink(tc);
   ba_detail_registry_leave(entered);
   ba_detail_cache_free_record(tc);
}

/* In the child of a fork (one thread, the parent's locks released): the caches of the threads the
 * child does not have go back to the heap. A thread may have been in the middle of a push or a
 * pop: a cache is taken back while its blocks pass the checks of a pop, and the rest is left
 * (lost, never handed out twice). */
BA_DETAIL_FN void ba_detail_cache_fork_child(void)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   ba_detail_thread_cache *tc, *next;
   int entered = ba_detail_registry_enter();
   ba_detail_lock(h);
   for (tc = ba_detail_caches; tc; tc = next) {
      unsigned i;
      next = tc->next;
      if (tc == ba_detail_thread_cache_ptr) continue;
      ba_detail_pool_cache_take_back(tc);
      for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) {
         ba_detail_cache_bin *b = &tc->bins[i];
         size_t size = (size_t)i << 4;
         unsigned held = b->limit >= b->room ? b->limit - b->room : 0;
         ba_chain chain;
         size_t bytes = 0, chunks = 0;
         void *node = b->head;
         ba_chain_init(&chain);
         while (held-- && node && ba_detail_cache_takes(h, node) == size
                && *ba_detail_cache_mark(node) == ba_detail_cache_secret) {
            void *after = ba_detail_link_load(node);
            ba_detail_block_born(node, size - BA_DETAIL_CHUNK_OVERHEAD, size - BA_DETAIL_CHUNK_OVERHEAD);
            *ba_detail_cache_mark(node) = 0;
            ba_chain_push_back(&chain, node);
            *(void **)node = 0;
            if (!ba_detail_link_valid(after, BA_DETAIL_ALIGN_MASK)) break;
            node = after;
         }
         if (chain.first) {
            ba_detail_free_chain(h, &chain, &bytes, &chunks);   /* checked above: no fault */
            ba_detail_note_free(h, bytes, chunks);
         }
      }
      ba_detail_cache_unlink(tc);
      ba_detail_cache_free_record(tc);
   }
   ba_detail_unlock(h);
   ba_detail_registry_leave(entered);
}

/* Returns: whether mem, which carries the secret, is in the calling thread's bin b or in the
 * depot's magazines of that size: a double free. */
BA_DETAIL_FN int ba_detail_cache_holds(ba_detail_cache_bin *b, const void *mem, size_t size)
{
   ba_detail_depot *d = &ba_detail_depot_storage;
   unsigned i = (unsigned)(size >> 4), m, held = b->limit - b->room, found = 0;
   void *node = b->head;
   for (; held && node; --held) {
      if (node == mem) return 1;
      node = held > 1 ? ba_detail_cache_next(node) : 0;
   }
   int entered_depot = ba_detail_depot_enter();
   for (m = 0; m < d->count[i] && !found; ++m) {
      size_t n = d->magazine[i][m].length;
      for (node = d->magazine[i][m].first; n-- && node; node = n ? ba_detail_cache_next(node) : 0)
         if (node == mem) { found = 1; break; }
   }
   ba_detail_depot_leave(entered_depot);
   return found;
}

/* ------------------------------------------------------------------------------------------
 * The slow paths of ba_malloc and ba_free
 * ---------------------------------------------------------------------------------------- */

/* The calling thread's cache, made at its first use; null when it has none. */
BA_DETAIL_FN ba_detail_thread_cache *ba_detail_cache_of_thread(ba_heap *h)
{
   ba_detail_thread_cache *tc = ba_detail_thread_cache_ptr;
   if (BA_DETAIL_LIKELY(ba_detail_cache_is_real(tc))) return tc;
   return ba_detail_cache_make(h);
}

/* The slow path of the node pools (inline: only C++ calls it; a C unit has it unused). Returns:
 * the calling thread's bin of class cls (the thread's cache made at its
 * first use, the bin's limit set at its own), or null when the thread has no cache (the caches
 * are off, the thread's cache was torn down, no memory). */
BA_DETAIL_FN ba_detail_cache_bin *ba_detail_pool_cache_bin(unsigned cls)
{
   ba_detail_thread_cache *tc;
   ba_detail_cache_bin *b;
   if (cls == 0 || (tc = ba_detail_cache_of_thread(ba_detail_default())) == 0) return 0;
   b = &tc->pool_bins[cls];
   if (b->limit == 0) b->limit = b->room = 2 * ba_detail_pool_class_at(cls)->batch;
   return b;
}

/* Flushes the calling thread's cache and the depot (before a trim, or an out-of-memory). */
BA_DETAIL_FN void ba_detail_cache_flush_all(ba_heap *h)
{
   ba_detail_thread_cache *tc = ba_detail_thread_cache_ptr;
   if (ba_detail_cache_is_real(tc)) ba_detail_cache_flush(h, tc);
   ba_detail_depot_empty(h);
}

/* For an allocation from heap h that found no memory: when h is the default heap, gives back the
 * calling thread's cache and the depot (memory too, which the heap could not see). Returns:
 * whether the allocation is worth a second try. */
BA_DETAIL_OUT_OF_LINE_FN int ba_detail_cache_reclaim(ba_heap *h)
{
   if (h != &ba_detail_default_heap_storage) return 0;
   ba_detail_cache_flush_all(h);
   return 1;
}

/* ba_malloc when the bin of n is empty, n is not cached, or the thread has no cache yet. */
BA_DETAIL_OUT_OF_LINE_FN void *ba_detail_cache_malloc_slow(size_t n)
{
   ba_heap *h = ba_detail_default();
   void *mem;
   if (n <= BA_DETAIL_CACHE_MAX_REQUEST) {
      ba_detail_thread_cache *tc = ba_detail_cache_of_thread(h);
      size_t size = ba_detail_cache_chunk_size(n);
      ba_detail_cache_bin *b;
      if (tc && (b = ba_detail_cache_bin_at(tc, size))->limit != 0) {
         /* An empty bin (the bin of a request of up to 8 bytes need not be) takes a magazine
          * from the depot, or a burst from the heap. */
         mem = 0;
         if (!b->head) {
            ba_detail_magazine m = ba_detail_depot_take((unsigned)(size >> 4));
            if (m.first && m.length <= b->room) {
               b->head = m.first;
               b->room -= (unsigned)m.length;
            } else if (m.first) {   /* from a cache with a larger cap, made before the cap changed */
               ba_detail_cache_give_back(h, m.first, m.length, size);
            }
         }
         if (b->head || ba_detail_cache_carve(h, b, size, b->limit / 2)) mem = ba_detail_cache_pop(b, size);
         if (mem) {
            ba_detail_block_born(mem, size - BA_DETAIL_CHUNK_OVERHEAD, n);
            return mem;
         }
      }
   }
   if ((mem = ba_detail_heap_malloc(h, n)) != 0) return mem;
   return ba_detail_cache_reclaim(h) ? ba_detail_heap_malloc(h, n) : 0;
}


/* ba_free when the block is not one the fast path takes (not the heap's, not of a cached size,
 * marked cached), its bin is full, or the thread has no cache yet; with top_to_heap, a block that
 * ends at the top goes to the heap (to merge into it), else to the cache as any other. */
BA_DETAIL_FN void ba_detail_cache_free_slow_at(void *mem, int top_to_heap)
{
   ba_heap *h;
   ba_detail_thread_cache *tc;
   ba_detail_cache_bin *b;
   size_t size;
   if (!mem) return;
   h = ba_detail_default();
   tc = ba_detail_cache_of_thread(h);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   {
      /* Every pointer checked as the heap checks it: in a segment, in use, whole. */
      const char *fault;
      ba_detail_lock(h);
      fault = ba_detail_block_fault(h, mem);
      ba_detail_unlock(h);
      if (fault) tc = 0;
   }
#endif
   if (!tc || (size = ba_detail_cache_takes(h, mem)) == 0 || (b = ba_detail_cache_bin_at(tc, size))->limit == 0
       || (top_to_heap && (uintptr_t)ba_detail_mem2chunk(mem) + size == ba_detail_top_hint(h))) {
      ba_detail_heap_free(h, mem);   /* checks it, and reports what is wrong */
      return;
   }
   if ((BOOST_ALLOCPLUS_CHECKED_EXPENSIVE || *ba_detail_cache_mark(mem) == ba_detail_cache_secret)
       && ba_detail_cache_holds(b, mem, size)) {
      ba_detail_lock(h);
      ba_detail_usage_error(h, "double free (of a block held in a thread cache)", mem);
   }
   if (b->room == 0) ba_detail_cache_spill(h, b, size);
   ba_detail_cache_push(b, mem, size);
}
BA_DETAIL_OUT_OF_LINE_FN BA_DETAIL_NOTHROW void ba_detail_cache_free_slow(void *mem)
{
   ba_detail_cache_free_slow_at(mem, 1);
}

/* ------------------------------------------------------------------------------------------
 * Growing blocks in a process with threads
 *
 * A block its owner means to grow (a vector's buffer) comes from the heap itself in a process of
 * one thread, where it can grow in place, and so do its expansions and the free of a block that
 * ends at the top (the heap's lock is skipped there). In a process with threads each of these
 * calls would take the lock, two atomic exchanges: with an idle second thread, ba::vector's growth
 * took 1.33x std::vector's time on the aged 20-element row (2026-12-01, AMD EPYC), and two
 * threads that built vectors at once took turns at the lock (7.9x, bench/results/2026-11-25-vm-
 * aged-vector-threads.md). There, the calls about small blocks (up to BA_DETAIL_CACHE_MAX_REQUEST
 * bytes) are served by the calling thread's cache, as std::vector's are by glibc's: no lock, no
 * growth in place (a cached block's neighbours are blocks of its size). Larger blocks grow in
 * place under the lock. (Before, a thread took its cache only for the 1024 calls after it had
 * found the lock held, a "detour": an idle thread kept growth in place and its cost.) A C library
 * that cannot say whether the process has one thread (ba_detail_single_threaded) makes every
 * process one with threads here.
 * ---------------------------------------------------------------------------------------- */

/* ba_detail_lock_unless_cached for a thread of a process with threads that has no cache yet:
 * makes it (returns 0), or takes the lock (returns 1) when the thread can have none (the caches
 * are off, or its cache was torn down). */
BA_DETAIL_OUT_OF_LINE_FN int ba_detail_lock_without_cache(ba_heap *h)
{
   if (ba_detail_cache_of_thread(h)) return 0;
   ba_detail_lock(h);
   return 1;
}

/* For a call about a growing block of the default heap h. Returns: 1 with h's lock held (or
 * needed by nobody: one thread); 0 when the process has threads and the calling thread a cache,
 * whose caller serves the call from the cache or else takes the lock itself (ba_detail_lock).
 * Costs a process with one thread one comparison, as the lock does; one with threads, one load
 * of the thread's cache pointer instead of the lock's two exchanges. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_lock_unless_cached(ba_heap *h)
{
   if (BA_DETAIL_LIKELY(ba_detail_lock_mode(h) <= ba_detail_single_threaded())) return 1;
   if (BA_DETAIL_LIKELY(ba_detail_cache_is_real(ba_detail_thread_cache_ptr))) return 0;
   return ba_detail_lock_without_cache(h);
}

#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
/* ba_free of a block of the default heap that ends at the top: to the heap, where it merges into
 * the top, or in a process with threads to the cache as any other block. */
BA_DETAIL_OUT_OF_LINE_FN BA_DETAIL_NOTHROW void ba_detail_cache_free_to_heap(void *mem)
{
   ba_heap *h = &ba_detail_default_heap_storage;
   if (!ba_detail_lock_unless_cached(h)) ba_detail_cache_free_slow_at(mem, 0);
   else if (ba_detail_free_short(h, mem)) ba_detail_unlock(h);
   else ba_detail_free_locked(h, mem);
}
#endif

/* ------------------------------------------------------------------------------------------
 * The fast paths: leaves that tail-call the slow paths
 * ---------------------------------------------------------------------------------------- */

BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_cache_malloc(size_t n)
{
   if (BA_DETAIL_LIKELY(n <= BA_DETAIL_CACHE_MAX_REQUEST)) {
      /* No minimum: up to 8 bytes look in bin 1, always empty (the slow path serves them). */
      size_t size = (n + BA_DETAIL_CHUNK_OVERHEAD + BA_DETAIL_ALIGN_MASK) & ~BA_DETAIL_ALIGN_MASK;
      ba_detail_cache_bin *b = ba_detail_cache_bin_at(ba_detail_thread_cache_ptr, size);
      if (BA_DETAIL_LIKELY(b->head != 0)) {
         void *mem = ba_detail_cache_pop(b, size);
         ba_detail_block_born(mem, size - BA_DETAIL_CHUNK_OVERHEAD, n);
         return mem;
      }
   }
   return ba_detail_cache_malloc_slow(n);
}

BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void ba_detail_cache_free(void *mem)
{
#if !BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   const ba_detail_ch *p;
   size_t y;
   /* A free of a null the compiler can see ends here, at no cost to the others: GCC 12 at -O1
    * otherwise warns (-Wstringop-overflow) of the fast path's store into the mark of a block at
    * null, a path the range check below closes only at run time. */
   if (__builtin_constant_p(mem == 0) && mem == 0) return;
   /* (A null mem is out of range: mem's chunk is worked out once mem is known to be inside.) */
   if (BA_DETAIL_LIKELY(ba_detail_in_address_range(&ba_detail_default_heap_storage,
                                                   (const void *)((uintptr_t)mem - 2 * BA_DETAIL_WORD))
                        && (p = ba_detail_mem2chunk(mem), 1)
                        && (y = ba_detail_cache_head(p)) != 0)) {
      ba_detail_cache_bin *b;
      uintptr_t secret;
      /* A block that ends at the top merges into it, as without caches (doc/core.md). */
      if (BA_DETAIL_UNLIKELY((uintptr_t)mem + y - (2 * BA_DETAIL_WORD + BA_DETAIL_CINUSE)
                             == ba_detail_top_hint(&ba_detail_default_heap_storage))) {
         ba_detail_cache_free_to_heap(mem);
         return;
      }
      b = ba_detail_cache_bin_of_head(ba_detail_thread_cache_ptr, y);
      secret = ba_detail_cache_secret;
      if (BA_DETAIL_LIKELY(b->room != 0 && *ba_detail_cache_mark(mem) != secret)) {
         ba_detail_block_died(mem, y - BA_DETAIL_CINUSE - BA_DETAIL_CHUNK_OVERHEAD);
         ba_detail_link_store(mem, b->head);
         /* (Atomic, plain on every target: GCC would otherwise merge the two stores into one
          * vector store, costing three more instructions.) */
         __atomic_store_n(ba_detail_cache_mark(mem), secret, __ATOMIC_RELAXED);
         b->head = mem;
         --b->room;
         return;
      }
   }
#endif
   ba_detail_cache_free_slow(mem);
}

/* ------------------------------------------------------------------------------------------
 * What the heap's own functions need to know of the caches
 * ---------------------------------------------------------------------------------------- */

/* Returns: the bytes and (in *blocks) the blocks the caches and the depot hold. Reads the other
 * threads' counts without their owners' knowledge: a figure of the moment, which may be off by
 * the blocks moving meanwhile (the race is on two integers, harmless, and not reported to TSan). */
#if defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize("thread")))
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
__attribute__((no_sanitize("thread")))
#  endif
#endif
BA_DETAIL_FN size_t ba_detail_cached_bytes(size_t *blocks)
{
   size_t bytes = 0, count = 0;
   unsigned i;
   int entered = ba_detail_registry_enter();
   const ba_detail_thread_cache *tc;
   ba_detail_depot *d = &ba_detail_depot_storage;
   for (tc = ba_detail_caches; tc; tc = tc->next)
      for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) {
         unsigned held = tc->bins[i].limit - tc->bins[i].room;
         count += held;
         bytes += (size_t)held * ((size_t)i << 4);
      }
   int entered_depot = ba_detail_depot_enter();
   for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) {
      unsigned m;
      for (m = 0; m < d->count[i]; ++m) {
         count += d->magazine[i][m].length;
         bytes += d->magazine[i][m].length * ((size_t)i << 4);
      }
   }
   ba_detail_depot_leave(entered_depot);
   ba_detail_registry_leave(entered);
   *blocks = count;
   return bytes;
}

/* Checks the bins of cache tc. Returns: what is wrong (with *where), or null. */
BA_DETAIL_FN const char *ba_detail_cache_check_bins(const ba_heap *h, const ba_detail_thread_cache *tc,
                                                    const void **where)
{
   unsigned i;
   for (i = 2; i < BA_DETAIL_CACHE_BINS; ++i) {
      const ba_detail_cache_bin *b = &tc->bins[i];
      const char *what;
      if (b->room > b->limit) { *where = b; return "a thread cache's count is overwritten"; }
      if ((what = ba_detail_cache_check_blocks(h, b->head, b->limit - b->room, (size_t)i << 4, where, 0)) != 0)
         return what;
   }
   return 0;
}

/* Checks the magazines of the depot. Returns: what is wrong (with *where), or null. */
BA_DETAIL_FN const char *ba_detail_depot_check(const ba_heap *h, const void **where)
{
   ba_detail_depot *d = &ba_detail_depot_storage;
   const char *what = 0;
   unsigned i, m;
   int entered_depot = ba_detail_depot_enter();
   for (i = 2; i < BA_DETAIL_CACHE_BINS && !what; ++i) {
      if (d->count[i] > BA_DETAIL_DEPOT_MAGAZINES) { *where = &d->count[i]; what = "the depot's count is overwritten"; }
      for (m = 0; m < d->count[i] && !what; ++m)
         what = ba_detail_cache_check_blocks(h, d->magazine[i][m].first, d->magazine[i][m].length, (size_t)i << 4, where, 0);
   }
   ba_detail_depot_leave(entered_depot);
   return what;
}

/* Checks, for ba_check, the calling thread's cache and the depot, and with every_thread the
 * caches of the other threads too (which the caller knows to be quiescent: their owners change
 * them without a lock). Returns: what is wrong (with *where), or null. */
BA_DETAIL_FN const char *ba_detail_cache_check(ba_heap *h, int every_thread, const void **where)
{
   ba_detail_thread_cache *own = ba_detail_thread_cache_ptr;
   const char *what = 0;
   if (ba_detail_cache_is_real(own)) what = ba_detail_cache_check_bins(h, own, where);
   if (!what && every_thread) {
      int entered = ba_detail_registry_enter();
      const ba_detail_thread_cache *tc;
      for (tc = ba_detail_caches; tc && !what; tc = tc->next)
         if (tc != own) what = ba_detail_cache_check_bins(h, tc, where);
      ba_detail_registry_leave(entered);
   }
   return what ? what : ba_detail_depot_check(h, where);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_THREAD_CACHE_H */
