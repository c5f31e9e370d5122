/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Configuration of the core: the system headers it needs, the storage-class macros that make it
 * header-only in C++ and compiled once in C (BA_DETAIL_FN, BA_DETAIL_STATE, ...), and what the
 * build is: sanitizers (ASan, TSan), valgrind client requests, forced inlining of the paths that
 * containers inline. No code and no state.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_CONFIG_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_CONFIG_H

/* The files of core/detail/ are the implementation of dlmalloc.h, which includes them in order:
 * one included on its own would miss the files after it. (The test that each file includes what
 * it uses compiles them one by one, with dlmalloc.h's declarations only.) */
#if !defined(BOOST_ALLOCPLUS_CORE_DLMALLOC_H) \
    && !defined(BOOST_ALLOCPLUS_CORE_DETAIL_DECLARATIONS_ONLY)
#  error "include <boost/allocplus/core/dlmalloc.h>, not the files of its implementation"
#endif
#include <boost/allocplus/core/dlmalloc.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#  include <sys/single_threaded.h>
#  define BA_DETAIL_HAVE_SINGLE_THREADED 1
#endif

/* Strict C11 hides the BSD/Linux names; their values are the Linux ABI's. */
#ifndef MAP_ANONYMOUS
#  define MAP_ANONYMOUS 0x20
#endif
#ifndef MAP_NORESERVE
#  define MAP_NORESERVE 0x4000
#endif
#if !defined(MAP_FIXED_NOREPLACE) && defined(__linux__)
#  define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The state has default visibility: one heap per process even across shared libraries built
 * with hidden visibility. */
/* BA_DETAIL_OUT_OF_LINE_FN: a function kept out of its callers (C rejects noinline with inline). */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)
#  define BA_DETAIL_FN inline BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_OUT_OF_LINE_FN inline __attribute__((noinline)) BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_STATE __attribute__((visibility("default"))) inline
#else
#  define BA_DETAIL_FN static inline BOOST_ALLOCPLUS_CORE_NO_ASAN
#  define BA_DETAIL_OUT_OF_LINE_FN static __attribute__((noinline)) BOOST_ALLOCPLUS_CORE_NO_ASAN
   /* Weak, so that it merges with the C++ units' inline definition of the same object. */
#  define BA_DETAIL_STATE __attribute__((visibility("default"), weak))
#endif

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#endif
/* Valgrind client requests: on at checking level 2 where the header exists, or at any level when
 * asked (BOOST_ALLOCPLUS_VALGRIND=1). Not at level 1, which must stay near level 0's cost: the
 * requests of one block (born, then died) cost more than its allocation and free (callgrind,
 * ba::list over ba::allocator<T, 2>: 26 instructions a node inserted at level 0, 41 with them;
 * 42 a node erased, 72 with them). */
#if !defined(BOOST_ALLOCPLUS_VALGRIND) && BOOST_ALLOCPLUS_CHECKED_EXPENSIVE && defined(__has_include)
#  if __has_include(<valgrind/memcheck.h>)
#    define BOOST_ALLOCPLUS_VALGRIND 1
#  endif
#endif
#if defined(BOOST_ALLOCPLUS_VALGRIND) && BOOST_ALLOCPLUS_VALGRIND
#  include <valgrind/memcheck.h>
#  define BA_DETAIL_VALGRIND 1
#endif

#define BA_DETAIL_LIKELY(x)   __builtin_expect(!!(x), 1)
#define BA_DETAIL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the few steps of a hot path that the compiler would otherwise keep as calls (measured on
 * the growth of small vectors). Not under ASan: the core is built uninstrumented there
 * (BOOST_ALLOCPLUS_CORE_NO_ASAN), and Clang forcing one of its functions into an instrumented
 * C++ caller instruments it, so that its reads of the links in poisoned free nodes are reported. */
#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  define BA_DETAIL_ALWAYS_INLINE
#else
#  define BA_DETAIL_ALWAYS_INLINE __attribute__((always_inline))
#endif
/* What the C++ side calls on its hot paths and must not pay a call for: ba_detail_inline_command,
 * the allocation command with its short paths (our own containers' growth and every container's
 * shrink; see detail/core_allocator_base.hpp), and ba_detail_default (every call on the default
 * heap). In header-only builds these are forced into their callers. The C API functions
 * (ba_allocation_command, ba_heap_allocation_command) are ordinary functions around the command,
 * each with its own copy of the body; the general path stays one call away (ba_detail_command). */
#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY) && !defined(BOOST_ALLOCPLUS_CORE_ASAN)
   /* (Not under ASan: the core is built uninstrumented there, and GCC will not force such a
    * function into an instrumented caller.) */
#  define BA_DETAIL_INLINE_INTO_CALLERS BA_DETAIL_ALWAYS_INLINE
#else
#  define BA_DETAIL_INLINE_INTO_CALLERS
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define BA_DETAIL_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define BA_DETAIL_SANITIZED 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__)
#  define BA_DETAIL_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define BA_DETAIL_TSAN 1
#  endif
#endif

/* Reads a word other threads write under the heap's lock, without the lock, where any value the
 * word had is safe to act on (a stale one only sends the call down its slow path). A relaxed
 * atomic load under TSan, which would report the race; elsewhere a plain load: GCC keeps every
 * atomic load an instruction of its own, and the fast paths' compares take the word from memory
 * (a plain load saves one instruction per word read). */
#if defined(BA_DETAIL_TSAN)
#  define BA_DETAIL_LOAD_RACY(lvalue) __atomic_load_n(&(lvalue), __ATOMIC_RELAXED)
#else
#  define BA_DETAIL_LOAD_RACY(lvalue) (lvalue)
#endif

/* The core throws nothing (a diagnostic handler must not return into it: it exits or longjmps).
 * Said of the paths a fast path calls last, so that a noexcept C++ caller (ba::allocator's
 * deallocate) jumps to them instead of calling them: one call and return less. */
#define BA_DETAIL_NOTHROW __attribute__((nothrow))

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_CONFIG_H */
