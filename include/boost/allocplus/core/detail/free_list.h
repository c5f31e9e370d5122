/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The hardened singly linked free list: the one way every engine of the library links freed
 * blocks through their own memory (the core's quick lists today; the per-thread caches, the node
 * and adaptive pools and the arena's slot table use it too). Freed memory is what a write after
 * free or an overrun reaches first, so a link kept there is the easiest thing to forge: planted,
 * it would make a later allocation return an address of the writer's choice.
 *
 * Links are protected as glibc's safe-linking (2.32) protects its tcache: a link is stored as the
 * next node's address XORed with the address of the word that holds it, shifted right by 12 (its
 * page number, which ASLR randomizes). Planting a chosen address then needs the address of the
 * heap too, and a planted small value or a partial overwrite decodes to a wild address that is
 * misaligned 15 times in 16: every read of a link checks the alignment (ba_detail_link_valid), and
 * the engine checks the node it pops (the quick lists: its size and its in-list flag).
 *
 * No state and no list type: an engine keeps its list heads (unprotected, in its own records) and
 * its counts, and stores and reads its links through these functions (quick_list.h).
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_FREE_LIST_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_FREE_LIST_H

#include <boost/allocplus/core/detail/config.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* The key of a link stored at `slot`: its page number. */
BA_DETAIL_FN uintptr_t ba_detail_link_key(const void *slot) { return (uintptr_t)slot >> 12; }

/* Stores at `slot` (a word of freed memory) the protected link to `next` (null allowed). */
BA_DETAIL_FN void ba_detail_link_store(void *slot, const void *next)
{
   *(uintptr_t *)slot = ba_detail_link_key(slot) ^ (uintptr_t)next;
}

/* Returns: the node the link stored at `slot` names; check it with ba_detail_link_valid before
 * using it. */
BA_DETAIL_FN void *ba_detail_link_load(const void *slot)
{
   return (void *)(ba_detail_link_key(slot) ^ *(const uintptr_t *)slot);
}

/* Returns: whether `node`, read from a link, is aligned as every node of the list is (`align_mask`
 * is the alignment less one). Null is valid: it ends a list. */
BA_DETAIL_FN int ba_detail_link_valid(const void *node, uintptr_t align_mask)
{
   return ((uintptr_t)node & align_mask) == 0;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_FREE_LIST_H */
