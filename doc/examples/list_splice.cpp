// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// splice, merge and sort relink nodes: no element is copied or moved, nothing is allocated, and
// pointers to elements stay valid.

#include <boost/allocplus/list.hpp>

#include <cstdio>
#include <string>

namespace ba = boost::allocplus;

int main()
{
   ba::list<std::string> a{"pear", "fig", "apple"};
   ba::list<std::string> b{"kiwi", "banana"};
   const std::string *fig = &*std::next(a.begin());

   a.sort();    // stable merge sort in place: apple fig pear
   b.sort();    // banana kiwi
   a.merge(b);  // apple banana fig kiwi pear; b is empty
   a.splice(a.end(), a, a.begin());   // apple moves to the end

   for (const std::string &s : a) std::printf("%s ", s.c_str());
   std::printf("\n");
   const bool same_object = &*std::next(a.begin(), 1) == fig;   // banana fig ...
   return a.size() == 5 && b.empty() && a.back() == "apple" && same_object ? 0 : 1;
}
