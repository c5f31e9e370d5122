/* Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
 * (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
 *
 * The C core compiled and used as C11 (no C++ anywhere in this program): every public function is
 * called from C, and this unit and c_other_tu.c free each other's blocks. The implementation is
 * compiled once, in c_impl.c. Exit status 0 on success; each failed check is printed. */
#include <boost/allocplus/core/dlmalloc.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "c_other_tu.h"

static int failures = 0;

#define CHECK(cond)                                                                               \
   do {                                                                                           \
      if (!(cond)) {                                                                              \
         fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                \
         ++failures;                                                                              \
      }                                                                                           \
   } while (0)

static int aligned(const void *p, size_t a) { return (uintptr_t)p % a == 0; }

static size_t in_use_chunks(void)
{
   ba_heap_stats s;
   ba_stats(&s);
   return s.in_use_chunks;
}

static void test_cross_unit_frees(void)
{
   void *mine[100];
   void *theirs[100];
   size_t i, before = in_use_chunks();
   CHECK(ba_default_heap() != NULL);
   CHECK(ba_default_heap() == other_default_heap());
   for (i = 0; i < 100; ++i) {
      mine[i] = ba_malloc(10 + i * 17);
      CHECK(mine[i] != NULL);
      if (mine[i]) memset(mine[i], 0x5C, 10 + i * 17);
      theirs[i] = other_allocate(10 + i * 17, 0x6D);
      CHECK(theirs[i] != NULL);
   }
   CHECK(in_use_chunks() == before + 200);
   for (i = 0; i < 100; ++i) {
      const unsigned char *b = (const unsigned char *)theirs[i];
      size_t j;
      int ok = 1;
      for (j = 0; j < 10 + i * 17; ++j) ok &= b[j] == 0x6D;
      CHECK(ok);
      ba_free(theirs[i]);                                     /* allocated by the other unit */
      CHECK(other_free_checked(mine[i], 10 + i * 17, 0x5C));  /* and the other way round */
   }
   CHECK(in_use_chunks() == before);
   CHECK(ba_check(NULL) == 1);
}

static void test_malloc_family(void)
{
   void *p, *q, *r;
   size_t n;
   p = ba_malloc(0);
   q = ba_malloc(0);
   CHECK(p && q && p != q);
   ba_free(p);
   ba_free(q);
   for (n = 1; n < 3000; n += 101) {
      p = ba_malloc(n);
      CHECK(p && aligned(p, BA_MALLOC_ALIGNMENT) && ba_usable_size(p) >= n);
      ba_free(p);
   }
   p = ba_calloc(100, 10);
   CHECK(p != NULL);
   if (p) {
      const unsigned char *b = (const unsigned char *)p;
      int zero = 1;
      for (n = 0; n < 1000; ++n) zero &= b[n] == 0;
      CHECK(zero);
   }
   CHECK(ba_calloc((size_t)-1, 2) == NULL);
   CHECK(ba_malloc((size_t)-1) == NULL);
   r = ba_realloc(p, 4000);
   CHECK(r != NULL && ((unsigned char *)r)[999] == 0);
   q = ba_realloc(r, 0);
   CHECK(q == r);
   ba_free(q);
   p = ba_realloc(NULL, 10);
   CHECK(p != NULL && ba_usable_size(p) >= 10);
   ba_free(p);
   p = ba_memalign(256, 100);
   CHECK(p && aligned(p, 256));
   ba_free(p);
   CHECK(ba_memalign(24, 100) == NULL);
   CHECK(ba_usable_size(NULL) == 0);
   ba_free(NULL);
}

static void test_allocation_command(void)
{
   size_t rec = 0;
   ba_command_ret r = ba_allocation_command(BA_ALLOCATE_NEW, 8, 0, 10, 20, &rec, NULL);
   ba_command_ret e;
   CHECK(r.first != NULL && r.second == 0 && rec >= 20);
   e = ba_allocation_command(BA_SHRINK_IN_PLACE, 8, 0, 15, 2, &rec, r.first);
   CHECK(e.first == r.first && e.second == 1 && rec >= 2 && rec <= 15);
   e = ba_allocation_command(BA_ALLOCATE_NEW, 0, 0, 1, 1, &rec, NULL);
   CHECK(e.first == NULL && e.second == 0);
   e = ba_allocation_command(BA_ALLOCATE_NEW, 8, 0, 5, 4, &rec, NULL);
   CHECK(e.first == NULL);
   ba_free(r.first);
}

static void test_bursts(void)
{
   ba_chain c, d;
   size_t before = in_use_chunks();
   size_t lengths[3];
   lengths[0] = 1; lengths[1] = 10; lengths[2] = 100;
   ba_chain_init(&c);
   ba_chain_init(&d);
   CHECK(other_burst(100, 24, &c) == 1 && c.size == 100);
   CHECK(ba_multialloc_arrays(3, lengths, 4, BA_MULTIALLOC_ALL_CONTIGUOUS, &d) == 1 && d.size == 3);
   ba_chain_splice_back(&c, &d);
   CHECK(c.size == 103 && ba_chain_empty(&d));
   ba_free(ba_chain_pop_front(&c));
   ba_multidealloc(&c);   /* nodes the other unit allocated */
   CHECK(ba_chain_empty(&c));
   CHECK(ba_multialloc_nodes(50, 8, 5, &c) == 1);
   other_multidealloc(&c);
   CHECK(ba_chain_empty(&c));
   CHECK(in_use_chunks() == before);
}

static void test_heaps(void)
{
   static unsigned char buf[64 * 1024];
   ba_heap *h = ba_create_heap(0, 1);
   ba_heap *b;
   ba_heap_stats s;
   ba_check_report report;
   void *p, *q;
   CHECK(h != NULL);
   if (!h) return;
   CHECK(ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1024 * 1024) == 1);
   p = ba_heap_malloc(h, 100);
   q = other_heap_malloc(h, 3 * 1024 * 1024);
   CHECK(p && q);
   ba_heap_stats_get(h, &s);
   CHECK(s.in_use_chunks == 2 && s.huge_blocks == 1);
   ba_heap_free(h, q);
   ba_heap_free(h, p);
   CHECK(ba_heap_check(h, &report) == 1 && report.what == NULL);
   CHECK(ba_heap_set_footprint_limit(h, 1024 * 1024) == (size_t)-1);
   CHECK(ba_heap_malloc(h, 4 * 1024 * 1024) == NULL);
   CHECK(ba_destroy_heap(h) > 0);

   CHECK(ba_create_heap_over(buf, 100, 0) == NULL);
   b = ba_create_heap_over(buf, sizeof buf, 0);
   CHECK(b != NULL);
   if (!b) return;
   p = ba_heap_malloc(b, 1000);
   CHECK(p && (unsigned char *)p >= buf && (unsigned char *)p + 1000 <= buf + sizeof buf);
   CHECK(ba_heap_malloc(b, sizeof buf) == NULL);
   ba_heap_free(b, p);
   CHECK(ba_heap_check(b, NULL) == 1);
   CHECK(ba_destroy_heap(b) == 0);
}

int main(void)
{
   test_cross_unit_frees();
   test_malloc_family();
   test_allocation_command();
   test_bursts();
   test_heaps();
   CHECK(ba_check(NULL) == 1);
   CHECK(ba_trim(0) < (size_t)-1);
   if (failures) {
      fprintf(stderr, "%d check(s) failed\n", failures);
      return 1;
   }
   puts("core_c_build_test: all checks passed");
   return 0;
}
