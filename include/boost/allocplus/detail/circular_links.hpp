// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_CIRCULAR_LINKS_HPP
#define BOOST_ALLOCPLUS_DETAIL_CIRCULAR_LINKS_HPP

// Two plain links and Boost.Intrusive's circular list algorithms over them: the links of
// ba::list's nodes and of the arena's rings of same-size free blocks. Not templated, so the
// links exist while the type around them is incomplete.

#include <boost/allocplus/detail/block_link.hpp>
#include <boost/intrusive/circular_list_algorithms.hpp>

namespace boost { namespace allocplus { namespace detail {

//! `next` (the base) is the first word: a list node's `next` is also the link a
//! multiallocation_chain reads, so a node joins a chain with no store.
struct circular_links : block_link {
   circular_links *prev;

   //! Returns: `next`, as the circular_links it is (every link of a circle is one).
   circular_links *next_links() const noexcept { return static_cast<circular_links *>(next); }
};

struct circular_links_traits {
   using node = circular_links;
   using node_ptr = circular_links *;
   using const_node_ptr = const circular_links *;
   static node_ptr get_next(const_node_ptr n) noexcept { return n->next_links(); }
   static void set_next(node_ptr n, node_ptr next) noexcept { n->next = next; }
   static node_ptr get_previous(const_node_ptr n) noexcept { return n->prev; }
   static void set_previous(node_ptr n, node_ptr prev) noexcept { n->prev = prev; }
};

using circular_links_algorithms = boost::intrusive::circular_list_algorithms<circular_links_traits>;

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_CIRCULAR_LINKS_HPP
