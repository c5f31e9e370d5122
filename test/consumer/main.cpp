// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Built by a separate project against an installed or add_subdirectory'd allocplus (or with the
// flags of its pkg-config file): proves the headers are found, Boost's with them, the target
// carries C++17 and the thread library, and the core and the C++ face work. Every public header
// is included: each reaches Boost (Config, Core, Intrusive) through its internals.
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/allocplus/core/dlmalloc.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace ba = boost::allocplus;

static bool fail(const char *what)
{
   std::fprintf(stderr, "consumer: %s\n", what);
   return false;
}

static bool core_works()
{
   void *p = ba_malloc(100);
   if (!p || ba_usable_size(p) < 100) return fail("ba_malloc failed");
   std::memset(p, 0xA5, 100);
   ba_free(p);
   ba_check_report report = {nullptr, nullptr};
   if (!ba_check(&report)) return fail(report.what ? report.what : "ba_check failed");
   return true;
}

static bool containers_work()
{
   ba::vector<int> v;
   for (int i = 0; i != 10000; ++i) v.push_back(i);
   v.resize(10);
   v.shrink_to_fit();
   ba::list<int> l(100, 7);          // one burst of 100 nodes (a multiallocation_chain)
   l.erase(l.begin(), l.end());
   if (v.size() != 10 || v[9] != 9 || !l.empty()) return fail("ba::vector / ba::list failed");

   ba::heap h;
   ba::vector<long, ba::heap_allocator<long>> hv{ba::heap_allocator<long>(h)};
   hv.assign(1000, 3);
   static_assert(ba::is_trivially_relocatable<long>::value, "long is bitwise relocatable");
   static_assert(ba::expand_fwd == 0x02u, "Boost.Container's value");
   using traits = ba::allocator_traits<ba::allocator<int>>;
   ba::allocator<int> a;
   int *p = traits::allocate(a, 4);
   traits::deallocate(a, p, 4);
   if (hv.size() != 1000 || !h.check()) return fail("ba::heap failed");
   return true;
}

int main()
{
   // The thread library is linked: a block allocated here is freed by another thread.
   void *block = ba_malloc(64);
   std::thread t([block] { ba_free(block); });
   t.join();
   return core_works() && containers_work() ? 0 : 1;
}
