// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_ITERATOR_CATEGORY_HPP
#define BOOST_ALLOCPLUS_DETAIL_ITERATOR_CATEGORY_HPP

// What the containers ask of an iterator type: whether it is one at all (so that a constructor
// or insert taking (first, last) does not capture (n, value)), and whether it can be walked
// twice (so that the count is known and the elements come in one allocation or one burst).

#include <iterator>
#include <type_traits>

namespace boost { namespace allocplus { namespace detail {

//! Takes part in overload resolution only for input iterators.
template <class It>
using require_input_iterator = std::enable_if_t<
   std::is_convertible<typename std::iterator_traits<It>::iterator_category, std::input_iterator_tag>::value>;

//! Whether [first, last) may be walked twice (std::distance first, then the copy).
template <class It>
constexpr bool is_forward_iterator() noexcept
{
   return std::is_convertible<typename std::iterator_traits<It>::iterator_category, std::forward_iterator_tag>::value;
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ITERATOR_CATEGORY_HPP
