// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_LIST_NODE_HPP
#define BOOST_ALLOCPLUS_DETAIL_LIST_NODE_HPP

// The node of ba::list and its iterator. The links are a plain two-pointer struct (not
// templated on T, so the list's header and every link operation exist while T is incomplete),
// driven by Boost.Intrusive's circular_list_algorithms; the value sits after them in raw storage
// and is built and destroyed by the list through its allocator.

#include <boost/allocplus/detail/circular_links.hpp>

#include <cstddef>
#include <iterator>
#include <new>
#include <type_traits>

namespace boost { namespace allocplus {

template <class T, class A>
class list;

namespace detail {

//! The links of a node (and the list's header). `next` is the first word and a block_link: a
//! node's `next` is also its link in a multiallocation_chain, so nodes leave a list for a burst
//! deallocation already chained.
using list_links = circular_links;
using list_node_traits = circular_links_traits;
using list_algorithms = circular_links_algorithms;

//! A node: the links, then room for one T (built by the list's allocator).
template <class T>
struct list_node : list_links {
   alignas(T) unsigned char storage[sizeof(T)];

   T *value() noexcept { return std::launder(reinterpret_cast<T *>(storage)); }
   static list_node *from(list_links *l) noexcept { return static_cast<list_node *>(l); }
   static const list_node *from(const list_links *l) noexcept { return static_cast<const list_node *>(l); }
};

//! The bidirectional iterator of ba::list<T> (Const: the const_iterator). Holds a link pointer
//! only, so it is complete while T is not.
template <class T, bool Const>
class list_iterator {
   template <class, class>
   friend class allocplus::list;
   friend class list_iterator<T, !Const>;

public:
   using iterator_category = std::bidirectional_iterator_tag;
   using value_type = T;
   using difference_type = std::ptrdiff_t;
   using pointer = std::conditional_t<Const, const T *, T *>;
   using reference = std::conditional_t<Const, const T &, T &>;

   list_iterator() noexcept : node_(nullptr) {}
   //! iterator to const_iterator.
   template <bool C = Const, class = std::enable_if_t<C>>
   list_iterator(const list_iterator<T, false> &other) noexcept : node_(other.node_)
   {}

   reference operator*() const noexcept { return *list_node<T>::from(node_)->value(); }
   pointer operator->() const noexcept { return list_node<T>::from(node_)->value(); }
   list_iterator &operator++() noexcept
   {
      node_ = node_->next_links();
      return *this;
   }
   list_iterator operator++(int) noexcept
   {
      list_iterator r(*this);
      node_ = node_->next_links();
      return r;
   }
   list_iterator &operator--() noexcept
   {
      node_ = node_->prev;
      return *this;
   }
   list_iterator operator--(int) noexcept
   {
      list_iterator r(*this);
      node_ = node_->prev;
      return r;
   }
   friend bool operator==(const list_iterator &a, const list_iterator &b) noexcept { return a.node_ == b.node_; }
   friend bool operator!=(const list_iterator &a, const list_iterator &b) noexcept { return a.node_ != b.node_; }

private:
   explicit list_iterator(list_links *n) noexcept : node_(n) {}
   list_links *node_;
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_LIST_NODE_HPP
