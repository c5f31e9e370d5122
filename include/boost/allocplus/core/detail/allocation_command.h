/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * allocation_command: expand forward and backward, shrink in place, allocate new, with limit,
 * preferred and received sizes (see dlmalloc.h). The general path (command, grow_command,
 * shrink_command) tries the steps in dlmalloc.h's order. Beside it are the short paths that a
 * growing vector takes all the time and that are inlined into the container (inline_command, with
 * expand_into_top and new_at_preferred): each answers exactly as the general path would, or leaves
 * the command to it untouched.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATION_COMMAND_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATION_COMMAND_H

#include <boost/allocplus/core/detail/realloc.h>
#include <boost/allocplus/core/detail/resize.h>
#include <boost/allocplus/core/detail/free.h>
#include <boost/allocplus/core/detail/accounting.h>
#include <boost/allocplus/core/detail/thread_cache.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* lcm(size, alignment) for a power-of-two alignment: size times the powers of two the alignment
 * has and size lacks. Returns 0 on overflow. */
BA_DETAIL_FN size_t ba_detail_backward_step(size_t size, size_t alignment)
{
   unsigned size_twos = (unsigned)__builtin_ctzl((unsigned long)size);
   unsigned align_twos = (unsigned)__builtin_ctzl((unsigned long)alignment);
   unsigned shift = align_twos > size_twos ? align_twos - size_twos : 0;
   return size > (BA_DETAIL_MAX_REQUEST >> shift) ? 0 : size << shift;
}

/* Expands in-use chunk *pp in place (forward, then backward by whole multiples of
 * lcm(size, alignment)) so that it holds at least min_bytes and up to max_bytes of payload (both
 * below BA_DETAIL_MAX_REQUEST). Returns 1 on success. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_expand(ba_heap *h, ba_detail_ch **pp, unsigned command,
   size_t size, size_t alignment, size_t min_bytes, size_t max_bytes)
{
   size_t step;
   if ((command & BA_EXPAND_FWD)
       && ba_detail_expand_fwd(h, *pp, ba_detail_request2size(min_bytes), ba_detail_request2size(max_bytes)))
      return 1;
   /* The step is worked out only here: forward expansion, the common case, does not need it. */
   if ((command & BA_EXPAND_BWD) && (step = ba_detail_backward_step(size, alignment)) != 0
       && ba_detail_expand_bwd(h, pp, step, min_bytes, max_bytes, (command & BA_EXPAND_FWD) != 0))
      return 1;
   /* A block that already holds the minimum is a success, whichever direction was asked. */
   return ba_detail_usable(*pp) >= min_bytes;
}

/* Whether an object size is one allocation_command accepts: neither 0 nor too large to represent
 * (one comparison: size - 1 wraps around for 0). */
BA_DETAIL_FN int ba_detail_valid_object_size(size_t size)
{
   return size - 1 < BA_DETAIL_MAX_REQUEST - 1;
}

/* Whether alignment is 0 (the default) or a power of two no larger than every block's. */
BA_DETAIL_FN int ba_detail_default_alignment(size_t alignment)
{
   return alignment <= BA_DETAIL_ALIGN && (alignment & (alignment - 1)) == 0;
}

/* The command a growing vector sends all the time: expand forward (and nothing else: no zeroing,
 * no shrink) small chunk p, which the top follows, to exactly the preferred size. Written apart
 * from the general path (which gives the same result) so that it is short enough for the
 * compiler to inline into the container: measured, it halves the cost of a small vector's
 * growth. Returns 1 when done, with *received set; 0 leaves everything as it was. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_expand_into_top(ba_heap *h, unsigned command, size_t size,
   size_t alignment, size_t limit_objects, size_t preferred_objects, ba_detail_ch *p, size_t *received)
{
   const size_t head = p->head, old_size = head & ~BA_DETAIL_FLAG_BITS;
   size_t bytes, nb, usable;
   if ((command & (BA_EXPAND_FWD | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_EXPAND_FWD
       || ba_detail_plus(p, old_size) != h->top || (head & BA_DETAIL_INUSE_BITS) == 0 /* huge */
       || !ba_detail_default_alignment(alignment) || limit_objects > preferred_objects || size == 0
       || __builtin_mul_overflow(preferred_objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST)
      return 0;
   nb = ba_detail_request2size(bytes);
   if (old_size >= nb || old_size + h->topsize < nb + BA_DETAIL_MIN_CHUNK) return 0;
   ba_detail_take_from_top(h, p, old_size, nb);
   usable = nb - BA_DETAIL_CHUNK_OVERHEAD;
   *received = ba_detail_count_of(usable, size);
   ba_detail_block_moved(ba_detail_chunk2mem(p), ba_detail_chunk2mem(p), usable, *received * size);
   return 1;
}

/* Returns: whether checked chunk p might satisfy `command` in place at `bytes` (as the general
 * path's expansion step would: a block already that large counts); 0 only when it surely cannot:
 * no expansion asked, or nothing free after it (or no expand_fwd) and nothing free or held before
 * it (or no expand_bwd). Conservative and cheap: for the growth of a vector that has to move. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE int ba_detail_may_expand(ba_heap *h, unsigned command, ba_detail_ch *p,
   size_t bytes)
{
   const size_t head = p->head, size = head & ~BA_DETAIL_FLAG_BITS;
   const ba_detail_ch *next = ba_detail_plus(p, size);
   if (!(command & (BA_EXPAND_FWD | BA_EXPAND_BWD))) return 0;
   if ((head & BA_DETAIL_INUSE_BITS) == 0 || size - BA_DETAIL_CHUNK_OVERHEAD >= bytes) return 1;   /* huge; holds it */
   /* Forward: the top or a free chunk (neither has CINUSE), or a quick chunk (expand_fwd takes
    * it back from its list). */
   if ((command & BA_EXPAND_FWD) && (next->head & (BA_DETAIL_CINUSE | BA_DETAIL_QUICK)) != BA_DETAIL_CINUSE)
      return 1;
   return (command & BA_EXPAND_BWD) && (!(head & BA_DETAIL_PINUSE) || ba_detail_quick_may_precede(h, p));
}

/* Allocates a new block of `bytes` (below BA_DETAIL_MAX_REQUEST) aligned to `alignment` for
 * allocation_command: where it can grow if the command expands (its owner means to grow it; the
 * short path, new_at_preferred, chooses the same), forward into free memory after it, or backward
 * into the owner's old block before it once that is freed. */
BA_DETAIL_FN void *ba_detail_command_new(ba_heap *h, unsigned command, size_t alignment, size_t bytes)
{
   if (alignment > BA_DETAIL_ALIGN) return ba_detail_memalign(h, alignment, bytes);
   return (command & (BA_EXPAND_FWD | BA_EXPAND_BWD)) ? ba_detail_malloc_growable(h, ba_detail_request2size(bytes))
                                    : ba_detail_malloc_chunk(h, ba_detail_request2size(bytes), 1);
}

/* A new block at the preferred size when there is no block p to reuse (a vector's first buffer)
 * or p surely cannot grow in place (the buffer a vector moves to): the command's short path for
 * it, one allocation, answering as the general path would. Returns: the block, or null
 * to leave the command (and any failure) to the general path. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE void *ba_detail_new_at_preferred(ba_heap *h, unsigned command, size_t size,
   size_t alignment, size_t limit_objects, size_t preferred_objects, ba_detail_ch *p, size_t *received)
{
   size_t bytes, usable;
   void *mem;
   if ((command & (BA_ALLOCATE_NEW | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_ALLOCATE_NEW
       || !ba_detail_default_alignment(alignment) || limit_objects > preferred_objects
       || !ba_detail_valid_object_size(size)
       || __builtin_mul_overflow(preferred_objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST
       || (p && ba_detail_may_expand(h, command, p, bytes)))
      return 0;
   mem = ba_detail_command_new(h, command, BA_DETAIL_ALIGN, bytes);
   if (!mem) return 0;
   usable = ba_detail_usable(ba_detail_mem2chunk(mem));
   *received = ba_detail_count_of(usable, size);
   ba_detail_block_born(mem, usable, *received * size);
   return mem;
}

/* Returns: the objects of `size` that chunk p's payload holds (as its owner sees it). */
BA_DETAIL_FN size_t ba_detail_objects(const ba_detail_ch *p, size_t size)
{
   return ba_detail_count_of(ba_detail_exposed(ba_detail_chunk2mem(p), ba_detail_usable(p)), size);
}

/* The shrink half of allocation_command: see dlmalloc.h. Every shrink_to_fit of a vector comes
 * here, so it is inlined into allocation_command, which is inlined into the container, whose
 * constant command then removes it from the growth paths. Measured: as a cold function 36 more
 * instructions a shrink (1.2x Boost.Container's time); as a call of its own 1.1-1.5x. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE ba_command_ret ba_detail_shrink_command(ba_heap *h, unsigned command,
   size_t size, size_t max_objects, size_t min_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   size_t exposed = ba_detail_exposed(ba_detail_chunk2mem(p), ba_detail_usable(p));
   size_t current = ba_detail_count_of(exposed, size), nb, usable_after;
   *received = current;
   if (min_objects > current) return ret;
   nb = ba_detail_request2size(min_objects * size);
   usable_after = exposed;
   if (ba_detail_is_huge(p)) {
      size_t page = ba_detail_page();
      size_t commit = ba_detail_round_up(p->prev_foot + nb + BA_DETAIL_WORD, page);
      if (commit < ba_detail_huge_of(p)->committed) usable_after = commit - p->prev_foot - BA_DETAIL_HUGE_OVERHEAD;
   } else if (ba_detail_chunksize(p) >= nb + BA_DETAIL_MIN_CHUNK) {
      usable_after = nb - BA_DETAIL_CHUNK_OVERHEAD;
   }
   /* Never report more than the owner sees now (under ASan, what it asked for). */
   if (usable_after > exposed) usable_after = exposed;
   if (ba_detail_count_of(usable_after, size) > max_objects) return ret;
   *received = ba_detail_count_of(usable_after, size);
   if (command & BA_SHRINK_IN_PLACE) {
      ba_detail_shrink_chunk(h, p, nb);
      ba_detail_block_moved(ba_detail_chunk2mem(p), ba_detail_chunk2mem(p), ba_detail_usable(p), *received * size);
   }
   ret.first = ba_detail_chunk2mem(p);
   ret.second = 1;
   return ret;
}

/* Finishes a successful allocation or expansion: the caller may use the objects the block holds
 * (`bytes`) and, after an expansion, every byte it could use before (old_bytes at old_mem). With
 * zero_memory, the bytes gained are zeroed. */
BA_DETAIL_FN void ba_detail_command_done(unsigned command, char *old_mem, char *mem, size_t bytes,
   size_t old_bytes, int is_new)
{
   size_t usable = ba_detail_usable(ba_detail_mem2chunk(mem));
   char *old_end = old_mem + old_bytes, *end = mem + bytes;
   if (is_new) {
      ba_detail_block_born(mem, usable, bytes);
      if (command & BA_ZERO_MEMORY) memset(mem, 0, bytes);
      return;
   }
   if (end < old_end) end = old_end;
   ba_detail_block_moved(old_mem, mem, usable, (size_t)(end - mem));
   if (command & BA_ZERO_MEMORY) {
      memset(mem, 0, (size_t)(old_mem - mem));
      memset(old_end, 0, (size_t)(end - old_end));
   }
}

/* The expanding and allocating half of allocation_command (valid size and alignment, alignment
 * at least BA_DETAIL_ALIGN, limit_objects <= preferred_objects), on checked chunk p or null. In the
 * order of dlmalloc.h: expand to preferred, new at preferred, expand to limit, new at limit, each
 * only if the command asks for it. This is the path of every growing vector: nothing is worked
 * out before the step that needs it. */
BA_DETAIL_FN BA_DETAIL_ALWAYS_INLINE ba_command_ret ba_detail_grow_command(ba_heap *h, unsigned command, size_t size, size_t alignment,
   size_t limit_objects, size_t preferred_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   const int expand = p && (command & (BA_EXPAND_FWD | BA_EXPAND_BWD));
   const size_t preferred_bytes = ba_detail_bytes_of(preferred_objects, size);
   char *old_mem = p ? (char *)ba_detail_chunk2mem(p) : 0;
   /* Under ASan an expansion keeps what the owner saw before, which may be less than usable. */
   size_t old_bytes = p ? ba_detail_exposed(old_mem, ba_detail_usable(p)) : 0;
   if (preferred_bytes < BA_DETAIL_MAX_REQUEST) {
      if (expand && ba_detail_expand(h, &p, command, size, alignment, preferred_bytes, preferred_bytes)) goto expanded;
      if ((command & BA_ALLOCATE_NEW) && (ret.first = ba_detail_command_new(h, command, alignment, preferred_bytes)) != 0)
         goto done;
   }
   if (limit_objects < preferred_objects) {
      /* Worked out only now: most commands succeed at the preferred size. */
      const size_t limit_bytes = ba_detail_bytes_of(limit_objects, size);
      /* A preferred size too large to represent still lets the limit be reached. */
      const size_t most = preferred_bytes < BA_DETAIL_MAX_REQUEST ? preferred_bytes : limit_bytes;
      if (limit_bytes >= BA_DETAIL_MAX_REQUEST) goto failed;
      if (expand && ba_detail_expand(h, &p, command, size, alignment, limit_bytes, most)) goto expanded;
      if ((command & BA_ALLOCATE_NEW) && (ret.first = ba_detail_command_new(h, command, alignment, limit_bytes)) != 0)
         goto done;
   }
failed:
   *received = p ? ba_detail_count_of(old_bytes, size) : 0;
   return ret;
expanded:
   ret.first = ba_detail_chunk2mem(p);
   ret.second = 1;
done:
   *received = ba_detail_count_of(ba_detail_usable(ba_detail_mem2chunk(ret.first)), size);
   ba_detail_command_done(command, old_mem, (char *)ret.first, *received * size, old_bytes, !ret.second);
   return ret;
}

/* allocation_command on a checked chunk p (null when there is no reuse block). Out of line: the
 * public function stays small enough to inline with its fast paths (see expand_into_top). */
BA_DETAIL_OUT_OF_LINE_FN ba_command_ret ba_detail_command(ba_heap *h, unsigned command, size_t size, size_t alignment,
   size_t limit_objects, size_t preferred_objects, size_t *received, ba_detail_ch *p)
{
   ba_command_ret ret = {0, 0};
   if (BA_DETAIL_UNLIKELY(!ba_detail_valid_object_size(size) || !ba_detail_is_pow2(alignment))) {
      *received = p && size ? ba_detail_objects(p, size) : 0;
      return ret;
   }
   if (alignment < BA_DETAIL_ALIGN) alignment = BA_DETAIL_ALIGN;
   if (BA_DETAIL_UNLIKELY(command & (BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE))) {
      if (!p) { *received = 0; return ret; }
      return ba_detail_shrink_command(h, command, size, limit_objects, preferred_objects, received, p);
   }
   if (BA_DETAIL_UNLIKELY(limit_objects > preferred_objects)) {
      *received = p ? ba_detail_objects(p, size) : 0;
      return ret;
   }
   return ba_detail_grow_command(h, command, size, alignment, limit_objects, preferred_objects, received, p);
}

/* Counts what a command did (under the lock): a block of old_size bytes grown or shrunk in place,
 * or a new block. */
BA_DETAIL_FN void ba_detail_note_command(ba_heap *h, ba_command_ret ret, size_t old_size)
{
   if (ret.first) {
      if (ret.second) ba_detail_note_resize(h, old_size, ba_detail_size_of_mem(ret.first));
      else ba_detail_note_alloc(h, ba_detail_size_of_mem(ret.first), 1);
   }
}

/* A command of the default heap that could not allocate, tried again (the general path) once the
 * calling thread's cache and the depot are given back: memory too, which the heap could not see. */
BA_DETAIL_OUT_OF_LINE_FN ba_command_ret ba_detail_command_reclaimed(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr)
{
   ba_command_ret ret;
   ba_detail_ch *p = 0;
   size_t old_size = 0, received = 0;
   ba_detail_cache_reclaim(h);
   ba_detail_lock(h);
   if (reuse_ptr) {
      p = ba_detail_checked_chunk(h, reuse_ptr);
      old_size = ba_detail_chunksize(p);
   }
   ret = ba_detail_command(h, command, sizeof_object, alignof_object ? alignof_object : BA_DETAIL_ALIGN,
                           limit_objects, preferred_objects, &received, p);
   ba_detail_note_command(h, ret, old_size);
   ba_detail_unlock(h);
   if (received_objects) *received_objects = received;
   return ret;
}

/* allocation_command on the default heap h in a process with threads (thread_cache.h, "Growing
 * blocks in a process with threads"): a command that may allocate a new block of a size the caches
 * hold gets one from the thread's cache, at the preferred size, without the lock. A block to reuse
 * is left as it is: the owner moves its objects to the new block. The locked path takes what this
 * cannot judge without the heap: a block to reuse that is not a small in-use block of the heap (it
 * reports a bad one), or that already holds the preferred objects (it keeps it).
 * Returns: 1 with *ret and *received set; 0 to leave the command to the locked path, untouched. */
BA_DETAIL_OUT_OF_LINE_FN int ba_detail_command_from_cache(ba_heap *h, unsigned command, size_t size, size_t alignment,
   size_t limit_objects, size_t preferred_objects, size_t *received, void *reuse_ptr, ba_command_ret *ret)
{
   size_t bytes, chunk, objects, reuse_head;
   void *mem;
   if ((command & (BA_ALLOCATE_NEW | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_ALLOCATE_NEW
       || !ba_detail_default_alignment(alignment) || limit_objects > preferred_objects
       || !ba_detail_valid_object_size(size)
       || __builtin_mul_overflow(preferred_objects, size, &bytes) || bytes > BA_DETAIL_CACHE_MAX_REQUEST)
      return 0;
   chunk = ba_detail_cache_chunk_size(bytes);
   if (reuse_ptr) {
      /* Read as ba_usable_size reads a head (no lock), once the chunk is known to lie in the heap. */
      const ba_detail_ch *p = ba_detail_mem2chunk(reuse_ptr);
      if (!ba_detail_in_address_range(h, p) || (reuse_head = ba_detail_cache_head(p)) == 0
          || ((command & (BA_EXPAND_FWD | BA_EXPAND_BWD)) && (reuse_head & ~BA_DETAIL_CINUSE) >= chunk))
         return 0;
   }
   /* Asked for all the objects its chunk holds, the block is exposed whole (under ASan). */
   objects = ba_detail_count_of(chunk - BA_DETAIL_CHUNK_OVERHEAD, size);
   if ((mem = ba_detail_cache_malloc(objects * size)) == 0) return 0;
   *received = objects;
   ret->first = mem;
   ret->second = 0;
   return 1;
}

BA_DETAIL_FN BA_DETAIL_INLINE_INTO_CALLERS ba_command_ret ba_detail_inline_command(ba_heap *h, unsigned command,
   size_t sizeof_object, size_t alignof_object, size_t limit_objects, size_t preferred_objects,
   size_t *received_objects, void *reuse_ptr)
{
   ba_command_ret ret = {0, 0};
   ba_detail_ch *p = 0;
   size_t old_size = 0, received = 0;
   /* Only a command that may take a new block may come from the thread's cache (a constant of the
    * container's growth: its shrink_to_fit keeps the plain lock, and its code as short as it was). */
   if (h != &ba_detail_default_heap_storage
       || (command & (BA_ALLOCATE_NEW | BA_ZERO_MEMORY | BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE)) != BA_ALLOCATE_NEW) {
      ba_detail_lock(h);
   } else if (BA_DETAIL_UNLIKELY(!ba_detail_lock_unless_cached(h))) {
      if (ba_detail_command_from_cache(h, command, sizeof_object, alignof_object, limit_objects, preferred_objects,
                                       &received, reuse_ptr, &ret)) {
         if (received_objects) *received_objects = received;
         return ret;
      }
      ba_detail_lock(h);
   }
   if (reuse_ptr) {
      p = ba_detail_checked_chunk(h, reuse_ptr);
      old_size = ba_detail_chunksize(p);
   }
   /* A vector's everyday commands are handled here, inline: growing into the top, shrink_to_fit,
    * and a new block (its first, or the one it moves to: one call to malloc_chunk). Everything
    * else (and their failures) is a call. */
   if (p && ba_detail_expand_into_top(h, command, sizeof_object, alignof_object, limit_objects,
                                      preferred_objects, p, &received)) {
      ret.first = reuse_ptr;
      ret.second = 1;
   } else if (p && (command & (BA_SHRINK_IN_PLACE | BA_TRY_SHRINK_IN_PLACE))
              && ba_detail_valid_object_size(sizeof_object)
              && ba_detail_default_alignment(alignof_object)) {
      ret = ba_detail_shrink_command(h, command, sizeof_object, limit_objects, preferred_objects, &received, p);
   } else if ((ret.first = ba_detail_new_at_preferred(h, command, sizeof_object, alignof_object, limit_objects,
                                                      preferred_objects, p, &received)) == 0) {
      ret = ba_detail_command(h, command, sizeof_object, alignof_object ? alignof_object : BA_DETAIL_ALIGN,
                              limit_objects, preferred_objects, &received, p);
   }
   ba_detail_note_command(h, ret, old_size);
   ba_detail_unlock(h);
   if (BA_DETAIL_UNLIKELY(!ret.first) && (command & BA_ALLOCATE_NEW) && h == &ba_detail_default_heap_storage)
      return ba_detail_command_reclaimed(h, command, sizeof_object, alignof_object, limit_objects,
                                         preferred_objects, received_objects, reuse_ptr);
   if (received_objects) *received_objects = received;
   return ret;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_ALLOCATION_COMMAND_H */
