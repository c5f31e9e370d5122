/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Bursts: many blocks in one call. multialloc carves runs of adjacent chunks out of one chunk each
 * (all or nothing: on failure what was taken is given back); free_chain frees a chain, merging runs
 * of chunks adjacent in memory into one free, and stops at a block that is not one of the heap's,
 * leaving the chain and the statistics in a stated state for the report. The chain is intrusive: each block's first word links
 * to the next.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_BURST_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_BURST_H

#include <boost/allocplus/core/detail/allocate.h>
#include <boost/allocplus/core/detail/free.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Bytes of burst element i (the node size, or lengths[i] elements); at least the chain's link. */
BA_DETAIL_FN size_t ba_detail_burst_bytes(const size_t *lengths, size_t i, size_t elem_size)
{
   size_t bytes = lengths ? ba_detail_bytes_of(lengths[i], elem_size) : elem_size;
   return bytes < sizeof(void *) ? sizeof(void *) : bytes;
}
/* Padded chunk size of burst element i, or 0 if too big. */
BA_DETAIL_FN size_t ba_detail_burst_nb(const size_t *lengths, size_t i, size_t elem_size)
{
   size_t bytes = ba_detail_burst_bytes(lengths, i, elem_size);
   return bytes >= BA_DETAIL_MAX_REQUEST ? 0 : ba_detail_request2size(bytes);
}
/* Carves count in-use chunks of nb bytes (blocks of `bytes` asked for) from p on, each linked to
 * the next as a chain; the first keeps pinuse (its own PINUSE bit). Returns the chunk after them.
 * (Its own loop, not the general one's: with one size, a node costs a header and a link; the
 * general loop's per-element size and branch made the carve 15 instructions a node.) */
BA_DETAIL_FN ba_detail_ch *ba_detail_burst_carve_nodes(ba_detail_ch *p, size_t nb, size_t count, size_t pinuse,
   size_t bytes)
{
   const size_t head = nb | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE;
   p->head = nb | pinuse | BA_DETAIL_CINUSE;
   for (;;) {
      ba_detail_ch *next = ba_detail_plus(p, nb);
      ba_detail_block_born(ba_detail_chunk2mem(p), nb - BA_DETAIL_CHUNK_OVERHEAD, bytes);
      *(void **)ba_detail_chunk2mem(p) = ba_detail_chunk2mem(next);   /* the chain's link */
      p = next;
      if (--count == 0) return p;
      p->head = head;
   }
}

/* GCC -O3 sees the loop below run up to 2^64 times once it is inlined where it cannot tell that
 * last > first, and warns of an index that would wrap; it cannot (a run is at most a request). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
/* Allocates elements [first, last) as one run: one chunk split into adjacent in-use chunks, linked
 * in address order and appended to *out in one step. A run of one element may be a huge block.
 * Returns the bytes, or 0. */
BA_DETAIL_FN size_t ba_detail_burst_run(ba_heap *h, const size_t *lengths, size_t elem_size, size_t first,
   size_t last, size_t total, ba_chain *out)
{
   char *mem = (char *)ba_detail_malloc_chunk(h, total, last - first == 1);
   ba_detail_ch *p;
   size_t size, i, pinuse, node_nb = lengths ? 0 : ba_detail_burst_nb(0, 0, elem_size);
   size_t remaining = last - first;   /* at least one */
   int huge;
   if (!mem) return 0;
   p = ba_detail_mem2chunk(mem);
   size = ba_detail_chunksize(p);
   pinuse = p->head & BA_DETAIL_PINUSE;
   huge = ba_detail_is_huge(p);
   if (!lengths) {
      if (remaining > 1) {
         p = ba_detail_burst_carve_nodes(p, node_nb, remaining - 1, pinuse, ba_detail_burst_bytes(0, 0, elem_size));
         size -= (remaining - 1) * node_nb;
         pinuse = BA_DETAIL_PINUSE;
      }
   } else {
      /* Counted down, not `i + 1 < last`: GCC -O3 then sees the loop cannot run past the array. */
      for (i = first; --remaining != 0; ++i) {
         size_t nb = ba_detail_burst_nb(lengths, i, elem_size);
         ba_detail_ch *next = ba_detail_plus(p, nb);
         p->head = nb | pinuse | BA_DETAIL_CINUSE;
         pinuse = BA_DETAIL_PINUSE;
         ba_detail_block_born(ba_detail_chunk2mem(p), nb - BA_DETAIL_CHUNK_OVERHEAD, ba_detail_burst_bytes(lengths, i, elem_size));
         *(void **)ba_detail_chunk2mem(p) = ba_detail_chunk2mem(next);   /* the chain's link */
         p = next;
         size -= nb;
      }
   }
   /* The last element takes what the run chunk had beyond the total (less than a minimum chunk);
    * the chunk after the run already has PINUSE set. */
   if (!huge) p->head = size | pinuse | BA_DETAIL_CINUSE;
   ba_detail_block_born(ba_detail_chunk2mem(p), ba_detail_usable(p), ba_detail_burst_bytes(lengths, last - 1, elem_size));
   *(void **)ba_detail_chunk2mem(p) = 0;
   if (out->last) *(void **)out->last = mem; else out->first = mem;
   out->last = ba_detail_chunk2mem(p);
   out->size += last - first;
   return ba_detail_chunksize(p) + (size_t)((char *)p - (mem - 2 * BA_DETAIL_WORD));
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Frees the blocks of a chain without accounting or trimming; merges runs adjacent in memory,
 * forgetting the headers inside a run (so that a second free of any of its blocks is reported).
 * Adds the bytes freed (chunk sizes) to *bytes and the blocks to *chunks. Returns: null when every
 * block was freed (the chain is then empty); else what is wrong with the first block that is not
 * an in-use block of h, which is then chain->first: the blocks before it were freed, it and
 * those after it are left in the chain (its size counts them). */
BA_DETAIL_FN const char *ba_detail_free_chain(ba_heap *h, ba_chain *chain, size_t *bytes, size_t *chunks)
{
   const char *fault = 0;
   size_t count = 0, freed = 0;   /* locals, not *bytes: the heap's stores could alias it */
   void *node = chain->first;
   while (node && (fault = ba_detail_block_fault(h, node)) == 0) {
      void *next = ba_chain_next(node);
      ba_detail_ch *p = ba_detail_mem2chunk(node);
      size_t psize = ba_detail_chunksize(p);
      ++count;
      freed += psize;
      ba_detail_block_died(node, ba_detail_usable(p));
      if (ba_detail_is_huge(p)) {
         ba_detail_huge_free(h, p);
         node = next;
         continue;
      }
      /* Swallow the next blocks while each is the chunk just after: one dispose for the run. */
      while (next && ba_detail_mem2chunk(next) == ba_detail_plus(p, psize)
             && (fault = ba_detail_next_block_fault(h, ba_detail_plus(p, psize))) == 0) {
         ba_detail_ch *q = ba_detail_mem2chunk(next);
         size_t qsize = ba_detail_chunksize(q);
         void *after = ba_chain_next(next);
         ba_detail_block_died(next, ba_detail_usable(q));
         ba_detail_forget_header(q);
         ++count;
         freed += qsize;
         psize += qsize;
         next = after;
      }
      ba_detail_dispose_chunk(h, p, psize);
      ba_detail_count_release(h, psize);
      node = next;
      if (fault) break;
   }
   *chunks += count;
   *bytes += freed;
   if (!fault) {
      ba_chain_init(chain);
      return 0;
   }
   chain->first = node;
   chain->size -= count;
   return fault;
}

/* Allocates n elements in runs (see ba_multialloc_nodes) onto *chain. All or nothing. Returns
 * the bytes allocated, or 0 (and *chain untouched) when memory is out. */
BA_DETAIL_FN size_t ba_detail_multialloc(ba_heap *h, size_t n, const size_t *lengths, size_t elem_size,
   size_t contiguous, ba_chain *chain)
{
   ba_chain got;
   size_t i = 0, bytes = 0;
   size_t run_bytes = ~(size_t)0, run_count = ~(size_t)0;
   if (contiguous == BA_MULTIALLOC_DEFAULT_CONTIGUOUS) run_bytes = BA_DETAIL_BURST_RUN_BYTES;
   else if (contiguous != BA_MULTIALLOC_ALL_CONTIGUOUS) {
      if (lengths) run_bytes = ba_detail_bytes_of(contiguous, elem_size);
      else run_count = contiguous;
   }
   ba_chain_init(&got);
   while (i < n) {
      size_t j = i, total = 0, run;
      if (!lengths) {
         /* Nodes: the run's length follows from one size, no walk needed. */
         size_t nb = ba_detail_burst_nb(0, 0, elem_size), count = n - i, fit;
         if (nb == 0) goto fail;
         fit = run_bytes / nb;
         if (fit > BA_DETAIL_MAX_REQUEST / nb) fit = BA_DETAIL_MAX_REQUEST / nb - 1;
         if (fit == 0) fit = 1;
         if (count > fit) count = fit;
         if (count > run_count) count = run_count;
         j = i + count;
         total = count * nb;
      }
      while (lengths && j < n) {
         size_t nb = ba_detail_burst_nb(lengths, j, elem_size);
         if (nb == 0 || total + nb >= BA_DETAIL_MAX_REQUEST) { if (j == i) goto fail; break; }
         if (j > i && (total + nb > run_bytes || j - i >= run_count)) break;
         total += nb;
         ++j;
      }
      run = ba_detail_burst_run(h, lengths, elem_size, i, j, total, &got);
      if (!run) goto fail;
      bytes += run;
      i = j;
   }
   ba_chain_splice_back(chain, &got);
   ba_detail_decay_note(h);   /* the runs may have come from the top: its low mark */
   return bytes;
fail:
   {
      size_t freed = 0, chunks = 0;
      ba_detail_free_chain(h, &got, &freed, &chunks);   /* blocks just carved: no fault */
      ba_detail_maybe_trim(h);
      return 0;
   }
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_BURST_H */
