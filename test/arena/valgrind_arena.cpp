// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Run under valgrind, one mode per run; memcheck must see each block of an arena as a block:
//   clean            containers over the arena, the slot table and the tree, over-aligned blocks,
//                    in-place and moving reallocation, defragment(), release(): memcheck must have
//                    nothing to say
//   grow             the same over a small buffer that grows by regions from the core's default
//                    heap, and over no buffer at all; release() and destruction give the regions
//                    back: memcheck must have nothing to say
//   use_after_free_in_region  a write into a freed block of a region: memcheck reports it
//   leak             a block of 40 bytes (48 usable) is lost and the arena dropped with it (an
//                    unchecked build, which does not stop on it): memcheck reports it
//   use_after_free   a write into a freed block: memcheck reports it
//   read_after_free_links  a read of the first word of a freed block, where the arena keeps its
//                    links: memcheck reports it
//   read_after_free_compact  a read of a freed node of 24 bytes (a compact block, all of whose
//                    bytes hold the arena's links once free): memcheck reports it
//   use_after_free_over_aligned  a write into the header of a freed block aligned to 256: memcheck
//                    reports it
//   undefined_size   a size memcheck sees as undefined passed to allocate: memcheck reports it (the
//                    arena's own accesses to its free blocks are not reported, its arguments are)
#include <boost/allocplus/arena.hpp>
#include <boost/allocplus/arena_allocator.hpp>

#include <valgrind/memcheck.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ba = boost::allocplus;

namespace {

alignas(64) unsigned char buffer[1 << 20];

// A list, a map with `keys` keys (a third erased) and a vector over a, all gone at the end.
void containers_over(ba::arena &a, int keys)
{
   std::list<int, ba::arena_allocator<int>> l(1000, 7, ba::arena_allocator<int>(a));
   std::map<int, int, std::less<int>, ba::arena_allocator<std::pair<const int, int>>> m{
      ba::arena_allocator<std::pair<const int, int>>(a)};
   for (int i = 0; i < keys; ++i) m[i] = i;
   for (int i = 0; i < keys; i += 3) m.erase(i);
   std::vector<int, ba::arena_allocator<int>> v{ba::arena_allocator<int>(a)};
   for (int i = 0; i < 20000; ++i) v.push_back(i);
   l.clear();
   // Nodes of 24 bytes: compact blocks, freed among live ones and taken again.
   std::list<std::int64_t, ba::arena_allocator<std::int64_t>> nodes(500, 1, ba::arena_allocator<std::int64_t>(a));
   std::unordered_map<std::int64_t, std::int64_t, std::hash<std::int64_t>, std::equal_to<std::int64_t>,
                      ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>>
      u{ba::arena_allocator<std::pair<const std::int64_t, std::int64_t>>(a)};
   for (std::int64_t i = 0; i < keys; ++i) u[i] = i;
   for (std::int64_t i = 0; i < keys; i += 2) u.erase(i);
   bool drop = true;
   for (auto it = nodes.begin(); it != nodes.end(); drop = !drop) it = drop ? nodes.erase(it) : std::next(it);
   for (std::int64_t i = 0; i < keys; i += 2) u[i] = i;
   nodes.resize(700, 2);
}

void clean()
{
   ba::arena a(buffer, sizeof buffer);
   containers_over(a, 1000);
   void *big = a.allocate(40000);     // the tree
   void *sep = a.allocate(100, 256);  // over-aligned
   std::memset(big, 1, 40000);
   std::memset(sep, 2, 100);
   a.deallocate(big);
   void *again = a.allocate(20000);   // split from the tree block
   std::memset(again, 3, 20000);
   void *grown = a.reallocate(sep, 5000);   // at the bump end: in place
   std::memset(grown, 4, 5000);
   void *moved = a.reallocate(again, 30000);   // not at the bump end: moves
   std::memset(moved, 5, 30000);
   void *last = a.allocate(64);
   a.deallocate(moved);
   a.defragment();                    // merges the freed blocks, inside the superblock
   std::memset(last, 7, 64);
   a.release();
   // Growth in place into the free block after a block: a small one, a large one, then one that
   // ends at the bump pointer (and the bump room past it); every byte of the block written.
   void *p = a.allocate(100), *q = a.allocate(200), *r = a.allocate(40000), *s = a.allocate(16);
   a.deallocate(q);
   if (!a.try_resize_in_place(p, 250)) std::abort();   // 80 bytes of q split off, free
   std::memset(p, 8, a.capacity(p));
   if (!a.try_resize_in_place(p, 320)) std::abort();   // the 80 bytes taken too
   std::memset(p, 8, a.capacity(p));
   a.deallocate(r);
   if (!a.try_resize_in_place(p, 20000)) std::abort();
   std::memset(p, 9, a.capacity(p));
   a.deallocate(s);
   if (!a.try_resize_in_place(p, 60000)) std::abort();
   std::memset(p, 10, a.capacity(p));
   a.release();
   void *fresh = a.allocate(128);
   std::memset(fresh, 6, 128);
   a.deallocate(fresh);
}

void grow()
{
   alignas(16) unsigned char small[512];
   {
      ba::arena a(small, sizeof small, ba_default_heap());
      containers_over(a, 3000);
      void *big = a.allocate(40000);
      std::memset(big, 1, 40000);
      a.defragment();
      a.release();   // `big` dies with its region
      void *fresh = a.allocate(128);
      std::memset(fresh, 6, 128);
      void *grown = a.allocate(100000);   // a region again
      std::memset(grown, 6, 100000);
      a.deallocate(fresh);
      a.deallocate(grown);
   }
   ba::arena none(ba_default_heap());
   std::vector<int, ba::arena_allocator<int>> v{ba::arena_allocator<int>(none)};
   for (int i = 0; i < 50000; ++i) v.push_back(i);
}

void use_after_free_in_region()
{
   ba::arena a(ba_default_heap());
   unsigned char *p = static_cast<unsigned char *>(a.allocate(64));
   void *keep = a.allocate(64);
   a.deallocate(p);
   p[40] = 1;
   a.deallocate(keep);
}

void leak()
{
   ba::arena a(buffer, sizeof buffer);
   void *lost = a.allocate(40);
   std::memset(lost, 1, 40);
   lost = nullptr;
}

void use_after_free()
{
   ba::arena a(buffer, sizeof buffer);
   unsigned char *p = static_cast<unsigned char *>(a.allocate(64));
   void *keep = a.allocate(64);
   a.deallocate(p);
   p[40] = 1;
   a.deallocate(keep);
}

void read_after_free_links()
{
   ba::arena a(buffer, sizeof buffer);
   volatile std::uintptr_t *p = static_cast<std::uintptr_t *>(a.allocate(64));
   void *keep = a.allocate(64);
   p[0] = 1;
   a.deallocate(const_cast<std::uintptr_t *>(p));
   std::uintptr_t seen = p[0];   // the block's link now
   (void)seen;
   a.deallocate(keep);
}

void read_after_free_compact()
{
   ba::arena a(buffer, sizeof buffer);
   volatile std::int64_t *p = static_cast<std::int64_t *>(a.allocate(24, alignof(std::int64_t)));
   void *keep = a.allocate(24, alignof(std::int64_t));
   p[0] = 1;
   a.deallocate(const_cast<std::int64_t *>(p));
   std::int64_t seen = p[0];   // the free block's header now
   (void)seen;
   a.deallocate(keep);
}

void use_after_free_over_aligned()
{
   ba::arena a(buffer, sizeof buffer);
   unsigned char *p = static_cast<unsigned char *>(a.allocate(100, 256));
   void *keep = a.allocate(64);
   a.deallocate(p);
   p[-1] = 1;   // the header before the user bytes
   a.deallocate(keep);
}

void undefined_size()
{
   ba::arena a(buffer, sizeof buffer);
   std::size_t size = 64;
   VALGRIND_MAKE_MEM_UNDEFINED(&size, sizeof size);
   void *p = a.allocate(size);
   a.deallocate(p);
}

} // namespace

int main(int argc, char **argv)
{
   const std::string mode = argc > 1 ? argv[1] : "clean";
   if (mode == "leak") leak();
   else if (mode == "use_after_free") use_after_free();
   else if (mode == "grow") grow();
   else if (mode == "use_after_free_in_region") use_after_free_in_region();
   else if (mode == "read_after_free_links") read_after_free_links();
   else if (mode == "read_after_free_compact") read_after_free_compact();
   else if (mode == "use_after_free_over_aligned") use_after_free_over_aligned();
   else if (mode == "undefined_size") undefined_size();
   else clean();
   return 0;
}
