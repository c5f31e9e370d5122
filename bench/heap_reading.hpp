// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// What the heap under an allocator has handed out and has from the system, for the memory tables:
// glibc's malloc (mallinfo2), our core (ba_stats) and Boost.Container's dlmalloc.
#ifndef ALLOCPLUS_BENCH_HEAP_READING_HPP
#define ALLOCPLUS_BENCH_HEAP_READING_HPP

#include <boost/allocplus/core/dlmalloc.h>
#include <boost/container/detail/dlmalloc.hpp>

#include <malloc.h>

namespace ba_bench {

//! The heap under an allocator, whose statistics the memory tables read.
enum class heap_kind { glibc, ba_core, boost_dlmalloc };

struct heap_reading {
   double in_use = 0;
   double system = 0;
};

//! What the heap has handed out and what it has from the system. Ours: the calling thread's
//! caches are flushed first (ba_thread_cache_flush, the node pools' bins too), so that nodes
//! waiting in them count as their pool's and blocks in the core's caches as free. Glibc's figures
//! describe nothing under LD_PRELOAD of another malloc (ba_bench::malloc_is_glibc).
inline heap_reading read_heap(heap_kind heap)
{
   heap_reading r;
   switch (heap) {
   case heap_kind::glibc: {
      const struct mallinfo2 mi = mallinfo2();
      r.in_use = static_cast<double>(mi.uordblks + mi.hblkhd);
      r.system = static_cast<double>(mi.arena + mi.hblkhd);
      break;
   }
   case heap_kind::ba_core: {
      ba_thread_cache_flush();
      ba_heap_stats s;
      ba_stats(&s);
      r.in_use = static_cast<double>(s.in_use_bytes + s.cached_bytes);
      r.system = static_cast<double>(s.system_bytes);
      break;
   }
   case heap_kind::boost_dlmalloc:
      r.in_use = static_cast<double>(boost::container::dlmalloc_in_use_memory());
      r.system = static_cast<double>(boost::container::dlmalloc_footprint());
      break;
   }
   return r;
}

} // namespace ba_bench

#endif
