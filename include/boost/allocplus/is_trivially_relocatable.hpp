// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_IS_TRIVIALLY_RELOCATABLE_HPP
#define BOOST_ALLOCPLUS_IS_TRIVIALLY_RELOCATABLE_HPP

// ba::is_trivially_relocatable<T>: whether an object of T may be moved to another address by
// copying its bytes (memcpy) and then forgetting the source without running its destructor.
// ba::vector uses it to move its elements to a new buffer, or down after a backward expansion,
// with one memcpy / memmove.

#include <boost/allocplus/detail/config.hpp>

#include <type_traits>

namespace boost { namespace allocplus {

//! Whether T is bitwise relocatable: moving an object to new storage with memcpy, and ending the
//! lifetime of the source without calling its destructor, is equivalent to a move construction
//! followed by the destruction of the source.
//!
//! True for trivially copyable types. Specialize it (as std::true_type) for a type of yours that
//! holds no pointer into itself and whose address nobody else remembers, e.g. a handle
//! holding a std::unique_ptr. Never specialize it for a type that points into itself: libstdc++'s
//! std::string (its short-string buffer), std::list, std::map / std::set and std::unordered_*
//! (their sentinel nodes live inside the object) are NOT relocatable. In libstdc++ (GCC 12)
//! std::unique_ptr with the default deleter, std::shared_ptr, std::weak_ptr and std::vector with
//! std::allocator hold only pointers to elsewhere and are relocatable; the library does not say
//! so for them, because another standard library may differ: specialize for them yourself if your
//! program is only ever built with libstdc++.
template <class T>
struct is_trivially_relocatable : std::is_trivially_copyable<T> {};

template <class T>
inline constexpr bool is_trivially_relocatable_v = is_trivially_relocatable<T>::value;

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_IS_TRIVIALLY_RELOCATABLE_HPP
