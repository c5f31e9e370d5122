// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The headers in a program built with -fno-exceptions (as many game and embedded code bases are):
// they must compile warning-free there and work; what would throw aborts instead. Not a
// Boost.Test program, since Boost.Test needs exceptions: it exits non-zero on a wrong result.

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/vector.hpp>
#include <boost/container/list.hpp>
#include <boost/container/vector.hpp>

#include <cstdio>

namespace ba = boost::allocplus;

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#  error "this test must be built with -fno-exceptions"
#endif

int main()
{
   int failures = 0;
   auto expect = [&failures](bool ok, const char *what) {
      if (!ok) {
         std::printf("no_exceptions_test: %s\n", what);
         ++failures;
      }
   };

   ba::vector<int> v(10, 1);
   v.insert(v.begin(), 3, 2);   // growth: expansion or a new buffer
   for (int i = 0; i != 1000; ++i) v.push_back(i);
   v.resize(13);
   v.shrink_to_fit();
   expect(v.size() == 13 && v[0] == 2 && v[3] == 1 && v.capacity() < 1000, "ba::vector");

   ba::list<int> l(v.begin(), v.end());   // one burst
   l.sort();
   l.unique();
   expect(l.size() == 2 && l.front() == 1 && l.back() == 2, "ba::list");

   boost::container::vector<int, ba::allocator<int>> bv(5, 1);
   boost::container::list<int, ba::allocator<int>> bl(5, 1);
   expect(bv.size() == 5 && bl.size() == 5, "boost::container over ba::allocator");

   ba::heap h;
   ba::vector<int, ba::heap_allocator<int>> hv{ba::heap_allocator<int>(h)};
   hv.assign(100, 7);
   expect(hv.size() == 100 && hv[99] == 7 && h.check(), "ba::heap_allocator");

   return failures == 0 ? 0 : 1;
}
