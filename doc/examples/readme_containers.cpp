// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The README's example: the containers, and a std container over a ba allocator.
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/vector.hpp>
#include <map>

namespace ba = boost::allocplus;

int main()
{
   ba::vector<int> v;                   // grows in place: forward, else backward, else moves
   for (int i = 0; i != 1000000; ++i) v.push_back(i);
   v.resize(10);
   v.shrink_to_fit();                   // in place: nothing moves, nothing throws
   ba::list<int> l(1000, 7);            // 1000 nodes in one allocator call...
   l.erase(l.begin(), l.end());         // ...and back in one
   std::map<int, int, std::less<>, ba::allocator<std::pair<const int, int>>> m{{1, 2}};
   return v.capacity() < 1000 && l.empty() && m.at(1) == 2 ? 0 : 1;
}
