// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Opting a type of yours in as bitwise relocatable: ba::vector then moves its elements to a new
// buffer with memcpy instead of one move constructor and one destructor each.

#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/allocplus/vector.hpp>

#include <cstdio>
#include <memory>
#include <type_traits>

namespace ba = boost::allocplus;

// Owns its buffer through a unique_ptr: nothing points into the object itself, so moving its
// bytes is a valid move. Its move constructor (which counts) is not what growth uses any more.
struct handle {
   static inline int moves = 0;
   std::unique_ptr<int[]> data;
   explicit handle(int n) : data(new int[static_cast<unsigned>(n)]()) {}
   handle(handle &&other) noexcept : data(std::move(other.data)) { ++moves; }
   handle &operator=(handle &&other) noexcept = default;
};

template <>
struct boost::allocplus::is_trivially_relocatable<handle> : std::true_type {};

int main()
{
   ba::vector<handle, std::allocator<handle>> v;   // new buffers on every growth
   for (int i = 0; i != 1000; ++i) v.emplace_back(8);
   std::printf("%zu handles, %d move constructions by growth\n", v.size(), handle::moves);
   static_assert(!ba::is_trivially_relocatable<std::string>::value,
                 "never for types that may point into themselves");
   return handle::moves == 0 && v.back().data[7] == 0 ? 0 : 1;
}
