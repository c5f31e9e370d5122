// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Run under valgrind, one mode per run; memcheck must see each node of the pools as a block:
//   clean            both pools under std containers, bursts, release_free_blocks, drained
//                    blocks taken again, and a second
//                    thread: memcheck must have nothing to say
//   leak             one 40-byte node of ba::node_allocator is lost: memcheck reports it
//   use_after_free   a write into a freed node: memcheck reports it
//   double_free      an 8-byte node freed twice, not the node freed last (which release builds do
//                    not check for nodes of one word): memcheck reports it
// The node pools by default; the adaptive pools with ALLOCPLUS_VALGRIND_ADAPTIVE defined.
#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/node_allocator.hpp>
#include <boost/allocplus/private_adaptive_pool.hpp>
#include <boost/allocplus/private_node_allocator.hpp>

#include <cstring>
#include <list>
#include <map>
#include <thread>
#include <vector>

namespace ba = boost::allocplus;

namespace {
#if defined(ALLOCPLUS_VALGRIND_ADAPTIVE)
template <class T>
using shared_pool = ba::adaptive_pool<T>;
template <class T>
using private_pool = ba::private_adaptive_pool<T>;
#else
template <class T>
using shared_pool = ba::node_allocator<T>;
template <class T>
using private_pool = ba::private_node_allocator<T>;
#endif

struct node40 {
   char bytes[40];
};
struct node8 {
   char bytes[8];
};

void clean()
{
   {
      std::list<int, shared_pool<int>> shared(1000, 7);
      std::map<int, int, std::less<int>, private_pool<std::pair<const int, int>>> own;
      for (int i = 0; i < 1000; ++i) own[i] = i;
      for (int i = 0; i < 1000; i += 3) own.erase(i);
      // Nodes allocated by another thread, freed by this one.
      std::list<int, shared_pool<int>> theirs;
      std::thread other([&] { theirs.assign(500, 1); });
      other.join();
      shared.splice(shared.end(), theirs);
      shared.clear();
      own.clear();
   }
   shared_pool<int>::release_free_blocks();
   shared_pool<node40> burst;
   ba::multiallocation_chain<node40> chain;
   burst.allocate_individual(100, chain);
   burst.deallocate_individual(chain);
   // Blocks drained and taken again (an adaptive pool's are relinked in address order).
   private_pool<int> kept;   // (one pool set for every round: copies share it)
   for (int round = 0; round < 3; ++round) {
      std::list<int, shared_pool<int>> again(2000, round);
      std::list<int, private_pool<int>> own_again(2000, round, kept);
   }
}

void leak()
{
   node40 *lost = shared_pool<node40>().allocate(1);
   std::memset(lost, 1, sizeof *lost);
   lost = nullptr;
}

void use_after_free()
{
   shared_pool<node40> a;
   node40 *keep = a.allocate(1);
   node40 *freed = a.allocate(1);
   a.deallocate(freed, 1);
   freed->bytes[20] = 1;
   a.deallocate(keep, 1);
}

void double_free()
{
   shared_pool<node8> a;
   // (keep stays in use, and is not freed: with none in use the pool itself reports any free,
   // and the pool counted the double free as a free.)
   node8 *keep = a.allocate(1);
   node8 *first = a.allocate(1);
   node8 *second = a.allocate(1);
   a.deallocate(first, 1);
   a.deallocate(second, 1);
   a.deallocate(first, 1);
   (void)keep;
}
} // namespace

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "clean";
   if (std::strcmp(mode, "leak") == 0) leak();
   else if (std::strcmp(mode, "use_after_free") == 0) use_after_free();
   else if (std::strcmp(mode, "double_free") == 0) double_free();
   else clean();
   return 0;
}
