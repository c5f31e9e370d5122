// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_BLOCK_LINK_HPP
#define BOOST_ALLOCPLUS_DETAIL_BLOCK_LINK_HPP

// The link a multiallocation_chain threads through the first word of each of its blocks, and
// the node traits Boost.Intrusive's slist drives it with. ba::list's node links begin with one
// (circular_links derives from it), so a list's nodes leave for a burst free already chained:
// our chain and the pools read the very `next` the list wrote, through the type it was written
// with (the C core's burst free reads the word as a void *).

namespace boost { namespace allocplus { namespace detail {

//! One word: the next block of a chain (null after the last).
struct block_link {
   block_link *next;
};

//! Boost.Intrusive node traits over block_link (for an slist of blocks).
struct block_link_traits {
   using node = block_link;
   using node_ptr = block_link *;
   using const_node_ptr = const block_link *;
   static node_ptr get_next(const_node_ptr n) noexcept { return n->next; }
   static void set_next(node_ptr n, node_ptr next) noexcept { n->next = next; }
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_BLOCK_LINK_HPP
