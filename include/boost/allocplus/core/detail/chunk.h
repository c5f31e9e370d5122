/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Operations on chunk headers: sizes and flags, the conversions between a chunk and the memory
 * it hands out, request padding and sizes of arrays, and the writes that keep the boundary tags
 * consistent (setting a chunk free writes its size at both ends; setting it in use tells the next
 * chunk through PINUSE). The PINUSE bit of an in-use chunk is written with relaxed atomics:
 * ba_usable_size reads heads without the lock.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_CHUNK_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_CHUNK_H

#include <boost/allocplus/core/detail/structures.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

typedef ba_detail_chunk ba_detail_ch;
typedef ba_detail_tree_chunk ba_detail_tch;

BA_DETAIL_FN size_t ba_detail_chunksize(const ba_detail_ch *p) { return p->head & ~BA_DETAIL_FLAG_BITS; }
BA_DETAIL_FN int ba_detail_cinuse(const ba_detail_ch *p) { return (p->head & BA_DETAIL_CINUSE) != 0; }
BA_DETAIL_FN int ba_detail_pinuse(const ba_detail_ch *p) { return (p->head & BA_DETAIL_PINUSE) != 0; }
BA_DETAIL_FN int ba_detail_is_huge(const ba_detail_ch *p) { return (p->head & BA_DETAIL_INUSE_BITS) == 0; }
BA_DETAIL_FN ba_detail_ch *ba_detail_plus(const void *p, size_t s) { return (ba_detail_ch *)((char *)p + s); }
BA_DETAIL_FN ba_detail_ch *ba_detail_minus(const void *p, size_t s) { return (ba_detail_ch *)((char *)p - s); }
BA_DETAIL_FN void *ba_detail_chunk2mem(const ba_detail_ch *p) { return (char *)p + 2 * BA_DETAIL_WORD; }
BA_DETAIL_FN ba_detail_ch *ba_detail_mem2chunk(const void *m) { return (ba_detail_ch *)((char *)m - 2 * BA_DETAIL_WORD); }
BA_DETAIL_FN size_t ba_detail_overhead(const ba_detail_ch *p)
{ return ba_detail_is_huge(p) ? BA_DETAIL_HUGE_OVERHEAD : BA_DETAIL_CHUNK_OVERHEAD; }
BA_DETAIL_FN size_t ba_detail_usable(const ba_detail_ch *p) { return ba_detail_chunksize(p) - ba_detail_overhead(p); }

BA_DETAIL_FN size_t ba_detail_pad_request(size_t n)
{ return (n + BA_DETAIL_CHUNK_OVERHEAD + BA_DETAIL_ALIGN_MASK) & ~BA_DETAIL_ALIGN_MASK; }
/* Precondition: n < BA_DETAIL_MAX_REQUEST. */
BA_DETAIL_FN size_t ba_detail_request2size(size_t n)
{ return n < BA_DETAIL_MIN_REQUEST ? BA_DETAIL_MIN_CHUNK : ba_detail_pad_request(n); }
BA_DETAIL_FN size_t ba_detail_round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }
BA_DETAIL_FN int ba_detail_is_pow2(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

/* objects * size in bytes, or BA_DETAIL_MAX_REQUEST when that cannot be allocated. */
BA_DETAIL_FN size_t ba_detail_bytes_of(size_t objects, size_t size)
{
   size_t bytes;
   return __builtin_mul_overflow(objects, size, &bytes) || bytes >= BA_DETAIL_MAX_REQUEST ? BA_DETAIL_MAX_REQUEST : bytes;
}

/* The head of an in-use block is read without the lock (ba_usable_size) while the heap flips its
 * PINUSE bit under the lock when the chunk before it is freed or allocated: both sides use relaxed
 * atomics, which are plain moves on common targets. */
BA_DETAIL_FN size_t ba_detail_load_head(const ba_detail_ch *p) { return __atomic_load_n(&p->head, __ATOMIC_RELAXED); }
BA_DETAIL_FN void ba_detail_set_pinuse_of(ba_detail_ch *p)
{ __atomic_store_n(&p->head, ba_detail_load_head(p) | BA_DETAIL_PINUSE, __ATOMIC_RELAXED); }
BA_DETAIL_FN void ba_detail_clear_pinuse_of(ba_detail_ch *p)
{ __atomic_store_n(&p->head, ba_detail_load_head(p) & ~BA_DETAIL_PINUSE, __ATOMIC_RELAXED); }

BA_DETAIL_FN void ba_detail_set_foot(ba_detail_ch *p, size_t s) { ba_detail_plus(p, s)->prev_foot = s; }
BA_DETAIL_FN void ba_detail_set_free_chunk(ba_detail_ch *p, size_t s)
{ p->head = s | BA_DETAIL_PINUSE; ba_detail_set_foot(p, s); }
BA_DETAIL_FN void ba_detail_set_free_with_pinuse(ba_detail_ch *p, size_t s, ba_detail_ch *next)
{ ba_detail_clear_pinuse_of(next); ba_detail_set_free_chunk(p, s); }
/* Marks p in use with size s, keeping its PINUSE bit, and tells the next chunk. */
BA_DETAIL_FN void ba_detail_set_inuse(ba_detail_ch *p, size_t s)
{
   p->head = (p->head & BA_DETAIL_PINUSE) | s | BA_DETAIL_CINUSE;
   ba_detail_set_pinuse_of(ba_detail_plus(p, s));
}
BA_DETAIL_FN void ba_detail_set_inuse_and_pinuse(ba_detail_ch *p, size_t s)
{
   p->head = s | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE;
   ba_detail_set_pinuse_of(ba_detail_plus(p, s));
}
BA_DETAIL_FN void ba_detail_set_size_and_pinuse_of_inuse(ba_detail_ch *p, size_t s)
{ p->head = s | BA_DETAIL_PINUSE | BA_DETAIL_CINUSE; }

/* Sets the range of addresses h's chunks lie in (least > greatest: none). Written under the lock,
 * read without it by the per-thread caches (hence atomic). */
BA_DETAIL_FN void ba_detail_set_address_range(ba_heap *h, char *least, char *greatest)
{
   __atomic_store_n(&h->least_addr, least, __ATOMIC_RELAXED);
   __atomic_store_n(&h->greatest_addr, greatest, __ATOMIC_RELAXED);
   __atomic_store_n(&h->aligned_span, least < greatest ? (size_t)(greatest - least) / BA_DETAIL_ALIGN : 0, __ATOMIC_RELAXED);
}

/* Whether chunk address c lies in h's range and is aligned: a misaligned offset, rotated, is
 * larger than any span. */
BA_DETAIL_FN int ba_detail_in_address_range(const ba_heap *h, const void *c)
{
   uintptr_t offset = (uintptr_t)c - (uintptr_t)BA_DETAIL_LOAD_RACY(h->least_addr);
   unsigned shift = BA_DETAIL_ALIGN == 16 ? 4u : 3u;
   return ((offset >> shift) | (offset << (BA_DETAIL_SIZE_BITS - shift))) < BA_DETAIL_LOAD_RACY(h->aligned_span);
}

/* The heap's top, read without the lock where any value it had is safe to act on (a stale one
 * only sends a free down another path). The heap writes it with plain stores under its lock: under
 * TSan the read is an instruction TSan does not see (an atomic load would still race the stores,
 * and GCC instruments a no_sanitize function inlined into its caller). */
#if defined(BA_DETAIL_TSAN) && (defined(__x86_64__) || defined(__i386__))
BA_DETAIL_FN uintptr_t ba_detail_top_hint(const ba_heap *h)
{
   uintptr_t top;
   __asm__ volatile("mov %1, %0" : "=r"(top) : "m"(h->top));
   return top;
}
#else
BA_DETAIL_FN uintptr_t ba_detail_top_hint(const ba_heap *h) { return (uintptr_t)h->top; }
#endif

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_CHUNK_H */
