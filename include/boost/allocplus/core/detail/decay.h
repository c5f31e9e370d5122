/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Giving the free top back to the system once it has stayed unused for a while (the decay of
 * jemalloc and the purge delay of mimalloc), instead of the moment it crosses the trim threshold.
 * A program that destroys a large container and builds it again then keeps its pages, while a
 * program that has freed its memory for good still gets it back.
 *
 * The measure is an epoch of decay_ms milliseconds. It begins when a free finds the top above the
 * trim threshold, and begins again when frees grow the top by more than the threshold (what they
 * gave waits its full delay). During it the heap notes the lowest size the top falls to (the top
 * shrinks only from its start, so the top's last `lowest` bytes were never touched during the
 * epoch). When it ends, those bytes beyond top_pad are given back, if they are more than the trim
 * threshold; the heap growing during an epoch means its memory was wanted, and nothing is given
 * back then. A program that frees and rebuilds the same megabytes within the delay never faults
 * them in again.
 *
 * No hidden thread and no clock read on a fast path: the epoch is advanced by the heap's slow
 * paths while one is running (a free into the top or the bins, a burst, an allocation through the
 * bins or from the system), which read the clock once every BA_DETAIL_DECAY_CLOCK_EVERY of them,
 * and by ba_heap_collect, which reads it at once. A program that goes idle after freeing keeps
 * the memory until its next such call (or ba_heap_collect, or ba_heap_trim, which gives back at
 * once). What is given back is only ever free top: a wrong guess costs page faults, never data.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_DECAY_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_DECAY_H

#include <boost/allocplus/core/detail/segments.h>

#include <time.h>
#if !defined(__cplusplus) && !defined(CLOCK_MONOTONIC)
/* Strict C11 hides the POSIX clocks (C++ compilers define _GNU_SOURCE); the Linux ABI's values. */
extern int clock_gettime(int clock, struct timespec *now);
#  define CLOCK_MONOTONIC 1
#  define CLOCK_MONOTONIC_COARSE 6
#endif

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

/* Returns: milliseconds of the coarse monotonic clock (a vDSO read, never a system call: the
 * precision, a few milliseconds, is plenty for a delay of a second). */
BA_DETAIL_FN uint64_t ba_detail_monotonic_ms(void)
{
   struct timespec t = {0, 0};   /* a refused call (a seccomp filter): time stands still, nothing decays */
#if defined(CLOCK_MONOTONIC_COARSE)
   clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
#else
   clock_gettime(CLOCK_MONOTONIC, &t);
#endif
   return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

BA_DETAIL_FN uint64_t ba_detail_now_ms(const ba_heap *h)
{
   return h->clock_ms ? h->clock_ms() : ba_detail_monotonic_ms();
}

/* An epoch begins with the top as it is. */
BA_DETAIL_FN void ba_detail_decay_begin(ba_heap *h, uint64_t now)
{
   h->decay_running = 1;
   h->decay_epoch_start = now;
   h->decay_lowest_top = h->topsize;
   h->decay_countdown = BA_DETAIL_DECAY_CLOCK_EVERY;
}

/* Ends the epoch if it has lasted decay_ms at `now`: gives back what stayed unused through it,
 * and begins the next one while the top is still above the threshold. Returns: the bytes given
 * back. */
BA_DETAIL_FN size_t ba_detail_decay_step(ba_heap *h, uint64_t now)
{
   size_t released = 0;
   if (now < h->decay_epoch_start) {
      /* A clock that went back (a user's: ba_heap_set_clock) begins the epoch again: memory waits
       * longer, never less than its delay. */
      h->decay_epoch_start = now;
      return 0;
   }
   if (now - h->decay_epoch_start < h->decay_ms) return 0;
   if (h->decay_lowest_top > h->trim_threshold) {
      /* Keep what the epoch used (topsize - lowest) and top_pad beyond it. */
      released = ba_detail_sys_trim(h, h->topsize - h->decay_lowest_top + h->top_pad);
      /* Nothing to give although the top stayed large: its end is pinned (a caller's buffer, a
       * segment's start); stop trying until the heap grows again. */
      if (released == 0) h->trim_check = ~(size_t)0;
   }
   if (h->topsize > h->trim_check) ba_detail_decay_begin(h, now);
   else h->decay_running = 0;
   return released;
}

/* The top's low mark. A top grown by more than the threshold since its lowest point was just
 * given a lot of memory (a container destroyed): the epoch begins again from here, so that what
 * was freed waits its full delay (and a container rebuilt within the delay keeps its pages). A
 * clock read at most once per threshold's worth of memory freed. */
BA_DETAIL_FN void ba_detail_decay_watch_top(ba_heap *h)
{
   if (h->topsize < h->decay_lowest_top) h->decay_lowest_top = h->topsize;
   else if (h->topsize - h->decay_lowest_top > h->trim_threshold) ba_detail_decay_begin(h, ba_detail_now_ms(h));
}

/* A slow path's note while an epoch runs: the top watched, and now and then the clock. */
BA_DETAIL_OUT_OF_LINE_FN void ba_detail_decay_tick(ba_heap *h)
{
   ba_detail_decay_watch_top(h);
   if (--h->decay_countdown != 0) return;
   h->decay_countdown = BA_DETAIL_DECAY_CLOCK_EVERY;
   ba_detail_decay_step(h, ba_detail_now_ms(h));
}

/* Called by the slow paths (with the heap locked): one load and branch while no epoch runs. */
BA_DETAIL_FN void ba_detail_decay_note(ba_heap *h)
{
   if (BA_DETAIL_UNLIKELY(h->decay_running)) ba_detail_decay_tick(h);
}

/* Whether h's top can never be given back (a caller's buffer), or is never to be (a delay of
 * SIZE_MAX): no epoch then, which would only cost every free into the top a tick. */
BA_DETAIL_FN int ba_detail_top_kept_for_good(const ba_heap *h)
{
   return h->decay_ms == ~(size_t)0 || (h->top_segment && (h->top_segment->flags & BA_DETAIL_SEGMENT_EXTERNAL));
}

/* The top is above the trim threshold after a free: an epoch begins (or the running one is
 * advanced); with a delay of 0, the top is trimmed at once. */
BA_DETAIL_FN void ba_detail_decay_top_is_large(ba_heap *h)
{
   if (h->decay_ms == 0) {
      if (ba_detail_sys_trim(h, h->top_pad) == 0) h->trim_check = ~(size_t)0;
   } else if (ba_detail_top_kept_for_good(h)) {
      h->trim_check = ~(size_t)0;   /* until the heap grows or the delay is set again */
   } else if (!h->decay_running) {
      ba_detail_decay_begin(h, ba_detail_now_ms(h));
   } else {
      ba_detail_decay_tick(h);
   }
}

/* ba_heap_collect with h locked: the clock read now. A top that grew past the threshold other
 * than by a free (a block next to it shrunk in place) begins its epoch here. */
BA_DETAIL_FN size_t ba_detail_collect(ba_heap *h)
{
   if (!h->decay_running) {
      if (h->topsize > h->trim_check) ba_detail_decay_top_is_large(h);
      return 0;
   }
   ba_detail_decay_watch_top(h);
   return ba_detail_decay_step(h, ba_detail_now_ms(h));
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_DECAY_H */
