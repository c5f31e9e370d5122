// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_CONSTRUCTOR_COUNTING_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_CONSTRUCTOR_COUNTING_ALLOCATOR_HPP

// constructor_counting_allocator<T>: std::allocator's memory, counting how the allocator objects
// themselves are made (default constructions, copies, moves, conversions from another value type)
// in one set of counters per process, so a test sees what a container does with its allocator:
//
//   allocator_constructions::reset();
//   ba::vector<int, constructor_counting_allocator<int>> v;
//   BOOST_TEST(allocator_constructions::get().defaults == 1);
//   BOOST_TEST(allocator_constructions::get().copies + allocator_constructions::get().moves == 0);
//
// Not synchronized: one thread at a time.

#include <cstddef>
#include <memory>

namespace allocplus_test {

struct allocator_constructions {
   long defaults = 0;      // default (value-initialized) constructions
   long copies = 0;        // copy constructions and copy assignments
   long moves = 0;         // move constructions and move assignments
   long conversions = 0;   // constructions from an allocator of another value type (rebinding)

   static allocator_constructions &get()
   {
      static allocator_constructions c;
      return c;
   }
   static void reset() { get() = allocator_constructions(); }
   long total() const { return defaults + copies + moves + conversions; }
};

template <class T>
class constructor_counting_allocator {
public:
   using value_type = T;

   constructor_counting_allocator() noexcept { ++allocator_constructions::get().defaults; }
   constructor_counting_allocator(const constructor_counting_allocator &) noexcept
   {
      ++allocator_constructions::get().copies;
   }
   constructor_counting_allocator(constructor_counting_allocator &&) noexcept
   {
      ++allocator_constructions::get().moves;
   }
   template <class U>
   constructor_counting_allocator(const constructor_counting_allocator<U> &) noexcept
   {
      ++allocator_constructions::get().conversions;
   }
   constructor_counting_allocator &operator=(const constructor_counting_allocator &) noexcept
   {
      ++allocator_constructions::get().copies;
      return *this;
   }
   constructor_counting_allocator &operator=(constructor_counting_allocator &&) noexcept
   {
      ++allocator_constructions::get().moves;
      return *this;
   }

   [[nodiscard]] T *allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
   void deallocate(T *p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }

   template <class U>
   friend bool operator==(const constructor_counting_allocator &, const constructor_counting_allocator<U> &) noexcept
   {
      return true;
   }
   template <class U>
   friend bool operator!=(const constructor_counting_allocator &, const constructor_counting_allocator<U> &) noexcept
   {
      return false;
   }
};

//! An allocator with state and no constructor of its own: a default-initialized one holds an
//! indeterminate id, a value-initialized one holds 0.
template <class T>
struct value_initialized_allocator {
   using value_type = T;
   int id;

   value_initialized_allocator() = default;
   template <class U>
   value_initialized_allocator(const value_initialized_allocator<U> &other) noexcept : id(other.id)
   {}

   [[nodiscard]] T *allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
   void deallocate(T *p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }

   template <class U>
   friend bool operator==(const value_initialized_allocator &a, const value_initialized_allocator<U> &b) noexcept
   {
      return a.id == b.id;
   }
   template <class U>
   friend bool operator!=(const value_initialized_allocator &a, const value_initialized_allocator<U> &b) noexcept
   {
      return a.id != b.id;
   }
};

} // namespace allocplus_test

#endif
