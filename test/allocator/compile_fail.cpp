// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Compiled by compile_fail.cmake once per CASE: case 0 must compile, every other case must be
// refused with its static_assert.
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/allocplus/list.hpp>
#include <boost/allocplus/vector.hpp>

#include <cstddef>
#include <memory>

namespace ba = boost::allocplus;

namespace {

//! A pointer-like class: an allocator's fancy pointer (as Boost.Interprocess's offset_ptr).
template <class T>
struct fancy_ptr {
   using element_type = T;
   T *raw = nullptr;
};

template <class T>
struct fancy_allocator {
   using value_type = T;
   using pointer = fancy_ptr<T>;
   pointer allocate(std::size_t n) { return pointer{std::allocator<T>().allocate(n)}; }
   void deallocate(pointer p, std::size_t n) { std::allocator<T>().deallocate(p.raw, n); }
};

} // namespace

int main()
{
#if CASE == 0
   struct fixed {
      const int id;
   };
   ba::vector<fixed> v;
   v.push_back(fixed{1});
   ba::allocator<int, 1> a1;
   ba::allocator<int, 2, ba::expand_fwd | ba::expand_bwd> a2;
   ba::allocator<int, 2, ba::allocate_new | ba::expand_bwd> a3;
   ba::list<fixed> l;
   ba::vector<const int *> pointers_to_const;
   alignas(16) static unsigned char buffer[ba::heap::min_buffer_size];
   ba::heap h(buffer);
   return a1.max_size() == 0 || a2.max_size() == 0 || a3.max_size() == 0 || v[0].id != 1 || !l.empty()
          || !pointers_to_const.empty() || !h.native_handle();
#elif CASE == 1
   ba::allocator<int, 3> a;   // Version must be 1 or 2
   return a.max_size() == 0;
#elif CASE == 2
   ba::allocator<int, 2, ba::allocate_new | ba::expand_fwd | ba::expand_bwd> a;   // nothing left
   return a.max_size() == 0;
#elif CASE == 3
   ba::allocator<int, 1, ba::expand_fwd> a;   // a mask on version 1
   return a.max_size() == 0;
#elif CASE == 4
   ba::heap_allocator<int, 0> *a = nullptr;   // Version must be 1 or 2
   return sizeof(*a) == 0;
#elif CASE == 5
   struct fixed {
      const int id;
   };
   ba::vector<fixed> v;
   v.push_back(fixed{1});             // appending needs no assignment...
   v.emplace(v.begin(), fixed{2});    // ...inserting before an element does
   return v[0].id;
#elif CASE == 6
   ba::vector<const int> v;   // T must not be const
   return v.empty();
#elif CASE == 7
   ba::list<const int> l;   // T must not be const
   return l.empty();
#elif CASE == 8
   ba::vector<int, ba::allocator<long>> v;   // an allocator of another type
   return v.empty();
#elif CASE == 9
   ba::list<int, std::allocator<long>> l;   // an allocator of another type
   return l.empty();
#elif CASE == 10
   ba::list<int, fancy_allocator<int>> l;   // a fancy pointer
   return l.empty();
#elif CASE == 11
   ba::vector<int, fancy_allocator<int>> v;   // a fancy pointer
   return v.empty();
#elif CASE == 12
   alignas(16) static unsigned char buffer[1024];   // below ba::heap::min_buffer_size
   ba::heap h(buffer);
   return h.native_handle() == nullptr;
#elif CASE == 13
   ba::vector<volatile int> v;   // T must not be volatile
   return v.empty();
#endif
}
