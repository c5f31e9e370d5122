/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The heap's lock: a futex mutex with three states, 0 free, 1 held, 2 held with threads that may
 * sleep on it (Drepper, "Futexes are tricky", mutex3). The uncontended path is one atomic
 * exchange; a thread that finds the lock held spins a short while, then sleeps in the kernel
 * until the holder wakes it. It sleeps rather than spins and yields because the heap's lock is
 * taken mostly on the slow paths of per-thread caches, where a hold may be long (a trim, a
 * segment from the system): on a machine of two cores a waiter that yields still burns a core
 * that the holder or another thread needs.
 * A heap's use_lock says which lock it has:
 *  - BA_DETAIL_LOCK_NONE: none; its owner serializes.
 *  - BA_DETAIL_LOCK_PLAIN: the futex mutex, skipped while the process has one thread (glibc tells,
 *    as it does for its own locks). Threads made by a raw clone(CLONE_VM) are not threads to glibc:
 *    they are not supported, as glibc's malloc does not support them.
 *  - BA_DETAIL_LOCK_FORK: a plain lock that the thread calling fork holds from the prepare handler
 *    to the parent's or child's (registry.h). That thread may use the heap meanwhile (the
 *    handlers of other libraries run then): the slow path lets it in and its unlock leaves the
 *    lock held.
 *  - BA_DETAIL_LOCK_SHARED: a heap in memory shared by processes. Its lock is lock_owner, the pid
 *    of the holder, taken and released out of line and never skipped (a single-threaded process
 *    is not alone there); lock_word stays 1, so that the inline exchange always sends it there.
 *    A waiter spins and yields (a private futex cannot reach another process), and one that
 *    waits long checks that the holder still lives, and reports it if not.
 * The inline paths are written so that one comparison of use_lock with glibc's single-threaded
 * flag decides whether to exchange (NONE never, PLAIN when threads exist, the others always).
 * A release reads lock_word: 0 means that nothing is to be released (a lock skipped, a heap
 * without one); else the word unlock_word names is exchanged with 0 out of line, and a 2 it held
 * sends a wake. A store alone cannot release it: a waiter that set 2 after the releaser read 1
 * would sleep with nobody to wake it.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H

#include <boost/allocplus/core/detail/structures.h>
#include <boost/allocplus/core/detail/state.h>

#include <fcntl.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#ifndef O_CLOEXEC
#  define O_CLOEXEC 02000000   /* strict C11 hides it; the Linux ABI's value */
#endif

#if !defined(__cplusplus)
/* Strict C11 hides glibc's declaration (C++ compilers define _GNU_SOURCE); repeating it is harmless. */
extern long syscall(long number, ...);
#endif

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

#define BA_DETAIL_LOCK_NONE   0
#define BA_DETAIL_LOCK_PLAIN  1
#define BA_DETAIL_LOCK_FORK   2
/* Above any value of glibc's single-threaded flag (a char), so that it is never skipped. */
#define BA_DETAIL_LOCK_SHARED 0x1000

/* The slow path below finds the heap from its lock word. */
typedef char ba_detail_lock_word_comes_first[offsetof(ba_heap, lock_word) == 0 ? 1 : -1];

/* use_lock changes only in the fork handlers, between PLAIN and FORK, by the thread that holds the
 * lock: a thread that reads it without the lock (to try it) reads it atomically, one that holds
 * the lock (to release it) needs not. */
BA_DETAIL_FN int ba_detail_lock_mode(const ba_heap *h) { return __atomic_load_n(&h->use_lock, __ATOMIC_RELAXED); }

/* A test-and-test-and-set spinlock: the registry's (registry.h), held for short walks of its list. */
BA_DETAIL_FN void ba_detail_spin_wait(int *word)
{
   unsigned spins = 0;
   for (;;) {
      if (!__atomic_load_n(word, __ATOMIC_RELAXED) && !__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))
         return;
      if (++spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
         __builtin_ia32_pause();
#endif
      } else {
         spins = 0;
         sched_yield();
      }
   }
}
BA_DETAIL_FN void ba_detail_spin_acquire(int *word)
{
   if (BA_DETAIL_UNLIKELY(__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE))) ba_detail_spin_wait(word);
}
BA_DETAIL_FN void ba_detail_spin_release(int *word) { __atomic_store_n(word, 0, __ATOMIC_RELEASE); }

/* An identifier of the calling thread, the same in the child of a fork as in the parent. */
BA_DETAIL_FN uintptr_t ba_detail_thread_id(void) { return (uintptr_t)pthread_self(); }

/* Returns: whether the calling thread is the one forking now (it holds the locks from the fork's
 * prepare handler on, registry.h, and is let through them). No call to pthread_self while nobody
 * forks: the pools take their locks on every burst. */
BA_DETAIL_FN int ba_detail_is_fork_owner(void)
{
   uintptr_t owner = __atomic_load_n(&ba_detail_fork_owner, __ATOMIC_RELAXED);
   return BA_DETAIL_UNLIKELY(owner != 0) && owner == ba_detail_thread_id();
}

/* Returns: whether process pid has ended (gone, or a zombie not yet reaped), as /proc tells; 0
 * when it cannot tell. */
BA_DETAIL_FN int ba_detail_process_ended(int pid)
{
   char path[40], stat[512];
   int fd;
   ssize_t n;
   const char *state;
   snprintf(path, sizeof path, "/proc/%d/stat", pid);
   if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return errno == ENOENT;
   n = read(fd, stat, sizeof stat - 1);
   close(fd);
   if (n <= 0) return 0;
   stat[n] = 0;
   /* "pid (name) S ...": the name may hold anything, so the state follows the last ')'. */
   state = strrchr(stat, ')');
   return state && (state[1] == ' ') && (state[2] == 'Z' || state[2] == 'X');
}

/* Takes the lock of a process-shared heap: lock_owner goes from 0 to this process's pid. A holder
 * that has ended is reported to the diagnostic handler (the heap may be half updated): waiting
 * would hang this process for ever. The check runs every few thousand yields, seldom enough that
 * a long legitimate hold costs nothing. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_shared_lock(ba_heap *h)
{
   int me = (int)getpid();
   unsigned spins = 0, yields = 0;
   for (;;) {
      int owner = __atomic_load_n(&h->lock_owner, __ATOMIC_RELAXED);
      if (!owner && __atomic_compare_exchange_n(&h->lock_owner, &owner, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
         return;
      if (++spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
         __builtin_ia32_pause();
#endif
         continue;
      }
      spins = 0;
      sched_yield();
      if (++yields % 4096 == 0 && owner && owner != me && ba_detail_process_ended(owner)) {
         ba_diagnostic_handler handler = __atomic_load_n(&ba_detail_handler, __ATOMIC_ACQUIRE);
         static const char what[] = "the lock of a process-shared heap is held by a process that ended";
         if (handler) {
            handler(what, h, h);
         } else {
            fprintf(stderr, "allocplus core heap %p: %s (pid %d)\n", (void *)h, what, owner);
            fflush(stderr);
         }
         abort();
      }
   }
}

/* Sleeps while *word is 2 (or until woken, or a signal): the kernel checks the value and queues
 * the thread atomically, so a release that changes it first is never missed. */
BA_DETAIL_FN void ba_detail_futex_wait(int *word)
{
   (void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, (void *)0, (void *)0, 0);
}
/* Releases h's lock, held (lock_word is not 0): exchanges the word unlock_word names (structures.h)
 * with 0, and wakes a thread that sleeps on it when it held 2. The word is lock_word; lock_owner,
 * always 0, while the thread that forks keeps the lock for the fork; a process-shared heap's
 * lock_owner, the holder's pid (pid 2 makes a futex call that wakes nobody). Out of line, so that
 * the unlocks of the fast paths stay short: a process with threads pays a call beside the
 * exchange. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_release_held(ba_heap *h)
{
   int *word = h->unlock_word;
   /* A 2 says that a thread may sleep; lock_sleepers says whether one does (a waiter that took the
    * lock while spinning leaves a 2 too, and no sleeper). Both are read-modify-writes or
    * sequentially consistent: a sleeper counts itself before its exchange, a release exchanges
    * before it reads the count, so one of the two sees the other. */
   if (__atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST) == 2 && __atomic_load_n(&h->lock_sleepers, __ATOMIC_SEQ_CST))
      (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}

/* How many times a waiter reads the word, a pause apart, before it sleeps: a few microseconds (a
 * pause takes 10 to 140 cycles by the processor), longer than the short holds (a quick-list
 * refill, a split) and shorter than a sleep and a wake, two system calls. */
#define BA_DETAIL_LOCK_SPINS 100

/* Waits for h's plain lock and takes it (the inline exchange failed).
 * The thread takes it as 2, the state that makes its release wake a sleeper, even when it finds it
 * free while spinning: its failed exchange may have replaced a 2 with a 1 (try_lock is one exchange,
 * and cannot tell), and a sleeper would then wait for a wake nobody sends. A sleeper counts
 * itself in lock_sleepers, so that the release of a 2 calls futex only when one may be asleep
 * (mutex3 calls it after any contention, finding nobody when the waiter took the lock spinning). */
BA_DETAIL_FN void ba_detail_park_lock(ba_heap *h)
{
   int *word = &h->lock_word;
   unsigned spins;
   for (spins = 0; spins < BA_DETAIL_LOCK_SPINS; ++spins) {
      int expected = 0;
      if (!__atomic_load_n(word, __ATOMIC_RELAXED)
          && __atomic_compare_exchange_n(word, &expected, 2, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
         return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
   }
   __atomic_add_fetch(&h->lock_sleepers, 1, __ATOMIC_SEQ_CST);
   while (__atomic_exchange_n(word, 2, __ATOMIC_SEQ_CST) != 0)
      ba_detail_futex_wait(word);
   __atomic_sub_fetch(&h->lock_sleepers, 1, __ATOMIC_RELAXED);
}

/* The slow path of a heap's lock, from the first exchange that failed (word is &h->lock_word):
 * a process-shared heap's lock, a thread that forks entering a heap it holds for the fork, or a
 * wait for the plain lock. (Named for the spinlock it was; free.h calls it.) */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_spin_lock_slow(int *word)
{
   ba_heap *h = (ba_heap *)(void *)word;
   int mode = ba_detail_lock_mode(h);
   if (mode == BA_DETAIL_LOCK_SHARED) {
      ba_detail_shared_lock(h);
      return;
   }
   if (mode == BA_DETAIL_LOCK_FORK && ba_detail_is_fork_owner()) {
      /* This thread holds the lock for the fork: its exchange may have replaced a 2, which the
       * fork's release must see to wake the sleepers. */
      __atomic_store_n(word, 2, __ATOMIC_RELAXED);
      return;
   }
   ba_detail_park_lock(h);
}

/* glibc's flag: 1 while the process has one thread (then no other thread can hold or want the
 * lock, and only this thread could create one, which it does not do while inside the heap), else
 * 0. The atomic exchange, the largest cost of a small malloc, is skipped while it is 1. */
BA_DETAIL_FN int ba_detail_single_threaded(void)
{
#if defined(BA_DETAIL_HAVE_SINGLE_THREADED)
   return __libc_single_threaded;
#else
   return 0;
#endif
}
/* Returns: whether h is now locked (or needs no lock), without waiting; 0 when the slow path must
 * decide (another thread holds the lock, or the lock is a fork's or process-shared). A mode at or
 * below the single-threaded flag needs no lock: NONE always, PLAIN while there is one thread. */
BA_DETAIL_FN int ba_detail_try_lock(ba_heap *h)
{
   return ba_detail_lock_mode(h) <= ba_detail_single_threaded()
       || !__atomic_exchange_n(&h->lock_word, 1, __ATOMIC_ACQUIRE);
}
BA_DETAIL_FN void ba_detail_lock(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(!ba_detail_try_lock(h))) ba_detail_spin_lock_slow(&h->lock_word);
}
/* Releases whatever kind of lock h has. A lock_word of 0 says that there is nothing to release:
 * a lock skipped while the process has one thread (no other thread can have changed it) or a heap
 * without a lock. Else the lock is held (the word of a process-shared heap or of a fork's lock is
 * not 0 either), and ba_detail_release_held releases it through unlock_word. Where the lock was
 * skipped that is no atomic exchange, and one instruction more than a spinlock's store (two in a
 * malloc, whose result then waits for the call in a saved register): callgrind,
 * test/core/fast_path_cost.py. */
BA_DETAIL_FN void ba_detail_unlock(ba_heap *h)
{
   if (__atomic_load_n(&h->lock_word, __ATOMIC_RELAXED) != 0) ba_detail_release_held(h);
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_LOCK_H */
