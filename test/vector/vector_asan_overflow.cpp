// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Built only under ASan: ba::vector annotates its spare capacity, so reading the element just
// past size() (inside the capacity) must be reported as a container-overflow. With the argument
// "in-bounds" it reads the last element instead and must exit 0.

#include <boost/allocplus/vector.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace ba = boost::allocplus;

int main(int argc, char **argv)
{
   const bool in_bounds = argc > 1 && std::strcmp(argv[1], "in-bounds") == 0;
   ba::vector<int> v;
   for (int i = 0; i != 100; ++i) v.push_back(i);
   v.pop_back();
   v.erase(v.begin(), v.begin() + 10);
   v.insert(v.begin(), 3, 7);
   ba::vector<std::string> s(5, "five");   // a non-trivial element on a fresh buffer
   s.reserve(50);
   if (v.capacity() <= v.size()) return 2;   // the read below must be inside the buffer
   const volatile int *p = v.data();
   const int x = in_bounds ? p[v.size() - 1] : p[v.size()];
   std::printf("read %d (capacity %zu, size %zu)\n", x, v.capacity(), v.size());
   return 0;
}
