// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_BENCH_SEED000_MY_INT_HPP
#define ALLOCPLUS_BENCH_SEED000_MY_INT_HPP

// The element type of seed 000's vector tables, shared by every benchmark that reproduces them.

namespace allocplus_bench {

//! The seed's MyInt: an int with a user-written copy constructor (no move constructor), made
//! noexcept so that a vector may expand backward.
class my_int {
public:
   my_int(int i = 0) noexcept : int_(i) {}
   my_int(const my_int &other) noexcept : int_(other.int_) {}
   my_int &operator=(const my_int &other) noexcept
   {
      int_ = other.int_;
      return *this;
   }
   int get() const noexcept { return int_; }

private:
   int int_;
};

} // namespace allocplus_bench

#endif
