/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * What the sanitizers and valgrind are told. Under ASan every byte the heap owns is poisoned except
 * the requested bytes of the blocks it handed out, so an overrun or a use after free of a block is
 * reported as it is for malloc's. Under valgrind, blocks are announced as malloc-like, so leaks are
 * reported. A block's life goes through block_born, block_moved and block_died; the other memory
 * the heap gets or gives back (commits, trims, releases, the tail of a shrink) is poisoned or
 * unpoisoned directly.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_INSTRUMENTATION_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_INSTRUMENTATION_H

#include <boost/allocplus/core/detail/config.h>

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN void ba_detail_poison(const void *p, size_t n)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   __asan_poison_memory_region(p, n);
#else
   (void)p; (void)n;
#endif
}
BA_DETAIL_FN void ba_detail_unpoison(const void *p, size_t n)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   __asan_unpoison_memory_region(p, n);
#else
   (void)p; (void)n;
#endif
}
/* A block of `usable` bytes at mem is handed out for `bytes` bytes. */
BA_DETAIL_FN void ba_detail_block_born(void *mem, size_t usable, size_t bytes)
{
   ba_detail_poison(mem, usable);
   ba_detail_unpoison(mem, bytes);
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MALLOCLIKE_BLOCK(mem, bytes, 0, 0);
#endif
}
/* A block kept its contents while it moved from old_mem to mem or changed size. */
BA_DETAIL_FN void ba_detail_block_moved(void *old_mem, void *mem, size_t usable, size_t bytes)
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_FREELIKE_BLOCK(old_mem, 0);
#else
   (void)old_mem;
#endif
   ba_detail_block_born(mem, usable, bytes);
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MAKE_MEM_DEFINED(mem, bytes);
#endif
}
/* A block is given back; the heap may then write its links into it. */
BA_DETAIL_FN void ba_detail_block_died(void *mem, size_t usable)
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_FREELIKE_BLOCK(mem, 0);
   VALGRIND_MAKE_MEM_UNDEFINED(mem, usable);
#endif
   ba_detail_poison(mem, usable);
}
/* Returns: the bytes of the block at mem its owner may use: all of them, or under ASan the ones
 * not poisoned (what it asked for). */
BA_DETAIL_FN size_t ba_detail_exposed(const void *mem, size_t usable)
{
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
   const char *bad = (const char *)__asan_region_is_poisoned((void *)(uintptr_t)mem, usable);
   return bad ? (size_t)(bad - (const char *)mem) : usable;
#else
   (void)mem;
   return usable;
#endif
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_INSTRUMENTATION_H */
