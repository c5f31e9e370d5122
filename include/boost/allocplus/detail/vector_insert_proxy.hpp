// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_VECTOR_INSERT_PROXY_HPP
#define BOOST_ALLOCPLUS_DETAIL_VECTOR_INSERT_PROXY_HPP

// What ba::vector inserts, behind one interface, so that one growth path (expand forward,
// expand backward, or a new buffer) serves emplace, insert of n copies, insert of a range and
// resize:
//
//   proxy.construct_n(a, dst, n)      builds the n new elements in the raw memory at dst; on an
//                                     exception destroys those it built and rethrows
//   proxy.stable(a, first, last, f)   calls f(p) with a proxy p of the same values whose source is
//                                     not in [first, last): the proxy itself, or one over a
//                                     temporary copy. A vector calls it before it moves elements
//                                     the value may come from (v.push_back(v[0]) and a backward
//                                     expansion); it may throw (building the temporary).

#include <boost/allocplus/detail/uninitialized_relocate.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <utility>

namespace boost { namespace allocplus { namespace detail {

//! Inserts nothing (reserve: growth alone), so it asks nothing of T.
template <class A, class T>
struct no_element_proxy {
   void construct_n(A &, T *, std::size_t) noexcept {}
   template <class F>
   void stable(A &, const T *, const T *, F &&f)
   {
      f(*this);
   }
};

//! Inserts value-initialized elements (resize(n)).
template <class A, class T>
struct value_init_proxy {
   void construct_n(A &a, T *dst, std::size_t n)
   {
      construct_each(a, dst, n, [&a](T *p) { std::allocator_traits<A>::construct(a, p); });
   }
   template <class F>
   void stable(A &, const T *, const T *, F &&f)
   {
      f(*this);
   }
};

//! Inserts copies of one value (insert(pos, n, value), resize(n, value)), which may be an
//! element of the vector.
template <class A, class T>
struct copy_value_proxy {
   const T *value;

   void construct_n(A &a, T *dst, std::size_t n)
   {
      const T &v = *value;
      construct_each(a, dst, n, [&a, &v](T *p) { std::allocator_traits<A>::construct(a, p, v); });
   }
   template <class F>
   void stable(A &a, const T *first, const T *last, F &&f)
   {
      if (!std::less<const T *>()(value, first) && std::less<const T *>()(value, last)) {
         temporary_value<A, T> copy(a, *value);
         copy_value_proxy p{copy.ptr()};
         f(p);
      } else {
         f(*this);
      }
   }
};

//! Inserts [first, first + n) of a forward range, which is not in the vector (as std requires).
template <class A, class T, class It>
struct range_proxy {
   It first;

   void construct_n(A &a, T *dst, std::size_t n)
   {
      It &it = first;
      construct_each(a, dst, n, [&a, &it](T *p) {
         std::allocator_traits<A>::construct(a, p, *it);
         ++it;
      });
   }
   template <class F>
   void stable(A &, const T *, const T *, F &&f)
   {
      f(*this);
   }
};

//! Inserts the value of a temporary by relocating it (nothrow): what emplace becomes before a
//! backward expansion moves the elements its arguments may refer to.
template <class A, class T>
struct relocate_proxy {
   temporary_value<A, T> *value;

   void construct_n(A &, T *dst, std::size_t n) noexcept
   {
      (void)n;   // always 1
      value->relocate_to(dst);
   }
   template <class F>
   void stable(A &, const T *, const T *, F &&f)
   {
      f(*this);
   }
};

//! Inserts one element built from Args (emplace, emplace_back, insert(pos, value)).
template <class A, class T, class... Args>
struct emplace_proxy {
   std::tuple<Args &&...> args;

   void construct_n(A &a, T *dst, std::size_t n)
   {
      (void)n;   // always 1
      std::apply([&a, dst](auto &&...xs) { std::allocator_traits<A>::construct(a, dst, std::forward<Args>(xs)...); },
                 args);
   }
   //! Requires: relocates_nothrow<T>() (the temporary is relocated into place).
   template <class F>
   void stable(A &a, const T *, const T *, F &&f)
   {
      std::apply(
         [&a, &f](auto &&...xs) {
            temporary_value<A, T> value(a, std::forward<Args>(xs)...);
            relocate_proxy<A, T> p{&value};
            f(p);
         },
         args);
   }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_VECTOR_INSERT_PROXY_HPP
