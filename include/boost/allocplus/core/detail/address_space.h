/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * Address space from the system: reserve (PROT_NONE, no swap charged; smaller when the system
 * refuses), commit, decommit (the pages go back, the range stays reserved) and release; whether a
 * caller's buffer lies in memory shared with other processes; and the footprint (the committed
 * bytes a heap holds) with its limit, which the paths that grow a heap ask before they commit.
 */
#ifndef BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H
#define BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H

#include <boost/allocplus/core/detail/instrumentation.h>
#include <boost/allocplus/core/detail/structures.h>

#include <fcntl.h>
#ifndef O_CLOEXEC
#  define O_CLOEXEC 02000000   /* strict C11 hides it; the Linux ABI's value */
#endif

BOOST_ALLOCPLUS_CORE_BEGIN_FUNCS

BA_DETAIL_FN char *ba_detail_reserve(size_t bytes)
{
   void *p = mmap(0, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   return p == MAP_FAILED ? (char *)0 : (char *)p;
}
/* Reserves `want` bytes or, when the system refuses (an address-space limit: ulimit -v, a
 * container's), half as much each time, down to `need` (both multiples of `page`). Under a limit
 * of a few hundred MiB the default heap's 1 GiB then shrinks to what fits, as glibc's malloc
 * works there. Returns: the base, with *got the bytes reserved; null when even `need` is refused. */
BA_DETAIL_FN char *ba_detail_reserve_up_to(size_t want, size_t need, size_t page, size_t *got)
{
   for (;;) {
      char *base = ba_detail_reserve(want);
      if (base || want <= need) {
         *got = want;
         return base;
      }
      want = (want / 2 + page - 1) & ~(page - 1);
      if (want < need) want = need;
   }
}
BA_DETAIL_FN int ba_detail_commit(char *at, size_t bytes)
{
   return mprotect(at, bytes, PROT_READ | PROT_WRITE) == 0;
}
/* Gives the pages back and keeps the address range reserved. */
BA_DETAIL_FN void ba_detail_decommit(char *at, size_t bytes)
{
   ba_detail_unpoison(at, bytes);
   void *p = mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
   (void)p;
}
/* Unmaps a reservation of `reserved` bytes whose first `committed` were committed. Only those
 * can be poisoned, so only their shadow is cleared: under ASan clearing the whole reservation
 * (64 MiB or more after a huge block) wrote 1/8 of it in shadow pages at every free. */
BA_DETAIL_FN void ba_detail_release(char *at, size_t reserved, size_t committed)
{
   ba_detail_unpoison(at, committed);
   munmap(at, reserved);
}

/* Reads a hexadecimal number at *at and moves *at past it. */
BA_DETAIL_FN uintptr_t ba_detail_read_hex(const char **at, const char *end)
{
   uintptr_t v = 0;
   for (; *at < end; ++*at) {
      char c = **at;
      unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16u;
      if (d == 16u) break;
      v = v * 16 + d;
   }
   return v;
}

/* Returns: 1 if the line of /proc/self/maps at [line, end) ("start-end perms ...") is a shared
 * mapping that meets [lo, hi), -1 if it lies at or after hi (the lines are in address order),
 * else 0. */
BA_DETAIL_FN int ba_detail_maps_line_shares(const char *line, const char *end, uintptr_t lo, uintptr_t hi)
{
   uintptr_t start = ba_detail_read_hex(&line, end), stop;
   if (line == end || *line != '-') return 0;
   ++line;
   stop = ba_detail_read_hex(&line, end);
   if (start >= hi) return -1;
   if (stop <= lo || end - line < 5) return 0;
   return line[4] == 's';   /* " rw-s": the fourth permission is s(hared) or p(rivate) */
}

/* Returns: whether some page of [at, at + bytes) lies in a mapping shared with other processes
 * (MAP_SHARED, shm_open, a shared file), as /proc/self/maps tells; 0 when it cannot tell (no
 * /proc). Reads the file with system calls only: no allocation, no stdio. Costs one pass over
 * the process's mappings (tens of microseconds), once per heap created over a buffer. */
BA_DETAIL_FN int ba_detail_in_shared_mapping(const void *at, size_t bytes)
{
   char buffer[2048];
   size_t held = 0;
   int skipping = 0, found = 0;
   uintptr_t lo = (uintptr_t)at, hi = lo + bytes;
   int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
   if (fd < 0) return 0;
   while (!found) {
      const char *line = buffer, *nl;
      ssize_t n = read(fd, buffer + held, sizeof buffer - held);
      if (n <= 0) break;
      held += (size_t)n;
      while ((nl = (const char *)memchr(line, '\n', (size_t)(buffer + held - line))) != 0) {
         int verdict = skipping ? 0 : ba_detail_maps_line_shares(line, nl, lo, hi);
         skipping = 0;
         line = nl + 1;
         if (verdict != 0) { found = verdict > 0; goto done; }
      }
      held = (size_t)(buffer + held - line);
      if (held == sizeof buffer) {
         /* A line longer than the buffer (a long path): judge it by its start, skip the rest. */
         int verdict = ba_detail_maps_line_shares(buffer, buffer + held, lo, hi);
         if (verdict != 0) { found = verdict > 0; break; }
         skipping = 1;
         held = 0;
      } else {
         memmove(buffer, line, held);
      }
   }
done:
   close(fd);
   return found;
}

/* Returns: whether the footprint may grow by `bytes`. */
BA_DETAIL_FN int ba_detail_footprint_allows(const ba_heap *h, size_t bytes)
{
   return bytes <= h->footprint_limit && h->footprint <= h->footprint_limit - bytes;
}
BA_DETAIL_FN void ba_detail_footprint_add(ba_heap *h, size_t bytes)
{
   h->footprint += bytes;
   if (h->footprint > h->max_footprint) h->max_footprint = h->footprint;
}

BOOST_ALLOCPLUS_CORE_END_FUNCS

#endif /* BOOST_ALLOCPLUS_CORE_DETAIL_ADDRESS_SPACE_H */
