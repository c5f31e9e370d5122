/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The bins of free chunks: 64 exact-size small bins (doubly linked rings, a bitmap of the
 * non-empty ones) and 32 tree bins (bitwise tries of size-ordered rings, a bitmap likewise), the
 * designated victim (the last split remainder, preferred for a small request that has no exact
 * fit, for locality), and the merge of a free chunk into the top.
 *
 * Invariants: a chunk is in a bin iff it is free and neither the top nor the designated victim; a
 * bin's bit is set iff the bin is not empty; a tree node's children split its bin by the next bit
 * of their size. Unlinking checks the links it writes through (a ring's neighbours point back; a
 * tree node's parent and children lie in the heap, and the parent points to the node) and the
 * size of a chunk taken from a small bin: a forged link is reported as a corruption, not followed.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_BINS_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_BINS_H

#include <boost/allocplus/core/detail/chunk.h>
#include <boost/allocplus/core/detail/usage_error.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN int ba_detail_is_small(size_t s) { return (s >> BA_DETAIL_SMALLBIN_SHIFT) < BA_DETAIL_NSMALLBINS; }
BA_DETAIL_FN unsigned ba_detail_small_index(size_t s) { return (unsigned)(s >> BA_DETAIL_SMALLBIN_SHIFT); }
BA_DETAIL_FN size_t ba_detail_small_index2size(unsigned i) { return (size_t)i << BA_DETAIL_SMALLBIN_SHIFT; }
BA_DETAIL_FN unsigned ba_detail_least_bit(unsigned x) { return x & (0u - x); }
BA_DETAIL_FN unsigned ba_detail_left_bits(unsigned x) { return (x << 1) | (0u - (x << 1)); }
BA_DETAIL_FN unsigned ba_detail_bit2idx(unsigned x) { return (unsigned)__builtin_ctz(x); }
BA_DETAIL_FN uint64_t ba_detail_small_bit(unsigned i) { return (uint64_t)1 << i; }
BA_DETAIL_FN uint64_t ba_detail_left_bits64(uint64_t x) { return (x << 1) | ((uint64_t)0 - (x << 1)); }
BA_DETAIL_FN unsigned ba_detail_lowest_index64(uint64_t x) { return (unsigned)__builtin_ctzll((unsigned long long)x); }

BA_DETAIL_FN unsigned ba_detail_tree_index(size_t s)
{
   size_t x = s >> BA_DETAIL_TREEBIN_SHIFT;
   if (x == 0) return 0;
   if (x > 0xFFFF) return BA_DETAIL_NTREEBINS - 1;
   {
      unsigned k = (unsigned)(BA_DETAIL_SIZE_BITS - 1) - (unsigned)__builtin_clzl((unsigned long)x);
      return (k << 1) + (unsigned)((s >> (k + (BA_DETAIL_TREEBIN_SHIFT - 1))) & 1);
   }
}
/* The smallest size of tree bin i. */
BA_DETAIL_FN size_t ba_detail_tree_min_size(unsigned i)
{
   return ((size_t)1 << ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT))
        | ((size_t)(i & 1) << ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT - 1));
}
/* The shift that brings the first bit that tells children apart in bin i to the top. */
BA_DETAIL_FN unsigned ba_detail_tree_leftshift(unsigned i)
{
   return i == BA_DETAIL_NTREEBINS - 1 ? 0
        : (unsigned)(BA_DETAIL_SIZE_BITS - 1) - ((i >> 1) + BA_DETAIL_TREEBIN_SHIFT - 2);
}
BA_DETAIL_FN ba_detail_tch *ba_detail_leftmost_child(const ba_detail_tch *t)
{ return t->child[0] ? t->child[0] : t->child[1]; }

#define BA_DETAIL_BIN_CORRUPTED "corrupted free list (a write after free or an overrun?)"

/* Whether a tree link read from a free chunk names a chunk inside the heap, aligned (dlmalloc's
 * ok_address, and the alignment): an unlink writes through the parent and child links, so a forged
 * one would be a write where the forger chose. */
BA_DETAIL_FN int ba_detail_tree_link_ok(const ba_heap *h, const ba_detail_tch *t)
{
   return (const char *)t >= h->least_addr && (const char *)t < h->greatest_addr
          && ((uintptr_t)t & BA_DETAIL_ALIGN_MASK) == 0;
}

/* Returns: t, a tree link just read from a free chunk (null allowed), after checking it; *steps
 * counts the links a walk followed, bounded by a few times the trie's depth (a walk down, then its
 * leftmost children): a forged cycle is reported, not followed forever. */
BA_DETAIL_FN ba_detail_tch *ba_detail_tree_step(ba_heap *h, ba_detail_tch *t, unsigned *steps)
{
   if (t && BA_DETAIL_UNLIKELY(!ba_detail_tree_link_ok(h, t) || ++*steps > 4 * BA_DETAIL_SIZE_BITS))
      ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, t);
   return t;
}

BA_DETAIL_FN void ba_detail_insert_small(ba_heap *h, ba_detail_ch *p, size_t s)
{
   unsigned i = ba_detail_small_index(s);
   ba_detail_ch *b = &h->smallbins[i];
   ba_detail_ch *f = b;
   if (!(h->smallmap & ba_detail_small_bit(i))) h->smallmap |= ba_detail_small_bit(i);
   else if (BA_DETAIL_UNLIKELY((f = b->fd)->bk != b)) ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, f);
   b->fd = p;
   f->bk = p;
   p->fd = f;
   p->bk = b;
}

BA_DETAIL_FN void ba_detail_unlink_small(ba_heap *h, ba_detail_ch *p, size_t s)
{
   ba_detail_ch *f = p->fd, *b = p->bk;
   unsigned i = ba_detail_small_index(s);
   if (BA_DETAIL_UNLIKELY(f->bk != p || b->fd != p))
      ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, p);
   if (f == b) h->smallmap &= ~ba_detail_small_bit(i);
   else { f->bk = b; b->fd = f; }
}

BA_DETAIL_FN void ba_detail_unlink_first_small(ba_heap *h, ba_detail_ch *b, ba_detail_ch *p, unsigned i)
{
   ba_detail_ch *f = p->fd;
   if (BA_DETAIL_UNLIKELY(f->bk != p || p->head != (ba_detail_small_index2size(i) | BA_DETAIL_PINUSE)))
      ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, p);
   if (b == f) h->smallmap &= ~ba_detail_small_bit(i);
   else { b->fd = f; f->bk = b; }
}

BA_DETAIL_FN void ba_detail_insert_large(ba_heap *h, ba_detail_tch *x, size_t s)
{
   unsigned i = ba_detail_tree_index(s);
   ba_detail_tch **slot = &h->treebins[i];
   x->index = i;
   x->child[0] = x->child[1] = 0;
   if (!(h->treemap & (1u << i))) {
      h->treemap |= 1u << i;
      *slot = x;
      x->parent = (ba_detail_tch *)(void *)slot;   /* a root's parent is its bin slot */
      x->c.fd = x->c.bk = &x->c;
      return;
   }
   {
      ba_detail_tch *t = *slot;
      size_t k = s << ba_detail_tree_leftshift(i);
      unsigned steps = 0;
      for (;;) {
         if (ba_detail_chunksize(&t->c) != s) {
            ba_detail_tch **c = &t->child[(k >> (BA_DETAIL_SIZE_BITS - 1)) & 1];
            k <<= 1;
            if (*c) { t = ba_detail_tree_step(h, *c, &steps); continue; }
            *c = x;
            x->parent = t;
            x->c.fd = x->c.bk = &x->c;
         } else {
            ba_detail_ch *f = t->c.fd;
            if (BA_DETAIL_UNLIKELY(f->bk != &t->c)) ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, t);
            t->c.fd = f->bk = &x->c;
            x->c.fd = f;
            x->c.bk = &t->c;
            x->parent = 0;
         }
         return;
      }
   }
}

BA_DETAIL_FN void ba_detail_unlink_large(ba_heap *h, ba_detail_tch *x)
{
   ba_detail_tch *xp = x->parent;
   ba_detail_tch *r;
   if (x->c.bk != &x->c) {
      ba_detail_ch *f = x->c.fd;
      r = (ba_detail_tch *)(void *)x->c.bk;
      if (BA_DETAIL_UNLIKELY(f->bk != &x->c || r->c.fd != &x->c))
         ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, x);
      f->bk = &r->c;
      r->c.fd = f;
   } else {
      ba_detail_tch **rp;
      unsigned steps = 0;
      if ((r = *(rp = &x->child[1])) != 0 || (r = *(rp = &x->child[0])) != 0) {
         ba_detail_tch **cp;
         ba_detail_tree_step(h, r, &steps);
         while (*(cp = &r->child[1]) != 0 || *(cp = &r->child[0]) != 0) r = ba_detail_tree_step(h, *(rp = cp), &steps);
         *rp = 0;
      }
   }
   if (xp != 0) {
      ba_detail_tch **slot;
      if (BA_DETAIL_UNLIKELY(x->index >= BA_DETAIL_NTREEBINS)) ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, x);
      slot = &h->treebins[x->index];
      if (x == *slot) {
         if ((*slot = r) == 0) h->treemap &= ~(1u << x->index);
      } else {
         if (BA_DETAIL_UNLIKELY(!ba_detail_tree_link_ok(h, xp) || (xp->child[0] != x && xp->child[1] != x)))
            ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, x);
         xp->child[xp->child[0] == x ? 0 : 1] = r;
      }
      if (r != 0) {
         ba_detail_tch *c0, *c1;
         r->parent = xp;
         if ((c0 = x->child[0]) != 0) {
            if (BA_DETAIL_UNLIKELY(!ba_detail_tree_link_ok(h, c0))) ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, x);
            r->child[0] = c0;
            c0->parent = r;
         }
         if ((c1 = x->child[1]) != 0) {
            if (BA_DETAIL_UNLIKELY(!ba_detail_tree_link_ok(h, c1))) ba_detail_heap_corrupted(h, BA_DETAIL_BIN_CORRUPTED, x);
            r->child[1] = c1;
            c1->parent = r;
         }
      }
   }
}

/* Whether free tree chunk x may grow to size ns where it is, without an unlink and an insert: it
 * is its bin's root (a root may hold any size of its bin; a child's size is bound by its path),
 * alone with its size, and ns is of the same bin. A chunk freed after its free neighbour (a list
 * destroyed in order) grows so, most of the time. */
BA_DETAIL_FN int ba_detail_tree_root_may_grow(const ba_heap *h, const ba_detail_tch *x, size_t ns)
{
   return x->index < BA_DETAIL_NTREEBINS && h->treebins[x->index] == x && x->c.bk == &x->c
          && ba_detail_tree_index(ns) == x->index;
}

BA_DETAIL_FN void ba_detail_insert_chunk(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (ba_detail_is_small(s)) ba_detail_insert_small(h, p, s);
   else ba_detail_insert_large(h, (ba_detail_tch *)(void *)p, s);
}

BA_DETAIL_FN void ba_detail_unlink_chunk(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (ba_detail_is_small(s)) ba_detail_unlink_small(h, p, s);
   else ba_detail_unlink_large(h, (ba_detail_tch *)(void *)p);
}

/* Makes p (size s) the designated victim; the previous one goes to its bin. */
BA_DETAIL_FN void ba_detail_replace_dv(ba_heap *h, ba_detail_ch *p, size_t s)
{
   if (h->dvsize != 0) ba_detail_insert_chunk(h, h->dv, h->dvsize);
   h->dvsize = s;
   h->dv = p;
}

/* The free chunk p of psize bytes, right before the top, becomes the start of the top. */
BA_DETAIL_FN void ba_detail_merge_into_top(ba_heap *h, ba_detail_ch *p, size_t psize)
{
   h->topsize += psize;
   h->top = p;
   p->head = h->topsize | BA_DETAIL_PINUSE;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_BINS_H */
