// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_MULTIALLOCATION_CHAIN_HPP
#define BOOST_ALLOCPLUS_MULTIALLOCATION_CHAIN_HPP

// The chain a burst travels in: blocks linked through their first word, null after the last,
// with the first, the last and the count at hand. It is the C core's `ba_chain` in C++ clothes
// (an intrusive Boost.Intrusive slist whose node is exactly that first word), so a burst goes
// from the core to a container and back in O(1), and it has every member Boost.Container 1.81's
// containers call on an allocator's `multiallocation_chain` (the interface of
// boost::container::dtl::basic_multiallocation_chain and transform_multiallocation_chain).
//
// A chain does not own its blocks: destroying a non-empty chain leaks them. Give them back with
// the allocator's deallocate_individual / deallocate_many, or take them out with pop_front.

#include <boost/allocplus/detail/block_link.hpp>
#include <boost/allocplus/detail/config.hpp>
#include <boost/intrusive/slist.hpp>
#include <boost/intrusive/trivial_value_traits.hpp>

#include <cstddef>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus {

namespace detail {

namespace bi = boost::intrusive;

//! The node of a chain: one `next` pointer, laid over the first word of a block.
using chain_node = block_link;

//! Linear (null-terminated, as the core's chains are), with the last node cached (push_back and
//! splicing at the end in O(1)) and the size counted.
using chain_list = bi::slist<chain_node, bi::value_traits<bi::trivial_value_traits<block_link_traits, bi::normal_link>>,
                             bi::linear<true>, bi::cache_last<true>, bi::constant_time_size<true>,
                             bi::size_type<std::size_t>>;

static_assert(sizeof(chain_node) == sizeof(void *),
              "a chain node must be exactly the first word of a block");

//! The first and the last node of an extracted chain (Boost.Intrusive's twin).
template <class Pointer>
struct pointer_twin {
   Pointer first;
   Pointer second;

   pointer_twin() noexcept : first(), second() {}
   pointer_twin(Pointer f, Pointer s) noexcept : first(f), second(s) {}
   template <class P>
   pointer_twin(const pointer_twin<P> &other) noexcept : first(other.first), second(other.second) {}
};

//! The blocks of a chain taken out of it (extract_data().first), handed out first to last:
//! walk() returns the next one, then null. A one-pointer value, which the pools' bursts take by
//! value: the compiler keeps the pointer in a register. A chain's own members, read through a
//! reference, are read again after every store into a block (a pool's free link or mark), and
//! each step of a range erase waited on the stores of the step before.
class chain_walk {
public:
   //! Requires: first is null or the first block of blocks linked as a chain's (the last link null).
   explicit chain_walk(void *first) noexcept
      : next_(first ? chain_list::value_traits::to_node_ptr(*static_cast<chain_node *>(first)) : chain_list::node_ptr())
   {
   }

   //! Returns: the next block (its link is read first: the caller may overwrite it), or null.
   void *operator()() noexcept
   {
      const chain_list::node_ptr node = next_;
      if (!node) return nullptr;
      next_ = chain_list::node_traits::get_next(node);
      return chain_list::value_traits::to_value_ptr(node);
   }
   //! Returns: the block operator() returns next, or null.
   void *peek() const noexcept { return next_ ? chain_list::value_traits::to_value_ptr(next_) : nullptr; }

private:
   chain_list::node_ptr next_;
};

//! The iterator of a typed chain: a chain iterator that dereferences to the block as a T.
template <class T>
class chain_iterator {
public:
   using base_iterator = chain_list::iterator;
   using iterator_category = std::forward_iterator_tag;
   using value_type = std::remove_cv_t<T>;
   using difference_type = std::ptrdiff_t;
   using pointer = T *;
   using reference = std::add_lvalue_reference_t<T>;

   chain_iterator() noexcept = default;
   explicit chain_iterator(base_iterator it) noexcept : it_(it) {}

   reference operator*() const noexcept { return *operator->(); }
   pointer operator->() const noexcept { return static_cast<T *>(static_cast<void *>(&*it_)); }

   chain_iterator &operator++() noexcept { ++it_; return *this; }
   chain_iterator operator++(int) noexcept { chain_iterator r(*this); ++it_; return r; }

   friend bool operator==(const chain_iterator &a, const chain_iterator &b) noexcept { return a.it_ == b.it_; }
   friend bool operator!=(const chain_iterator &a, const chain_iterator &b) noexcept { return a.it_ != b.it_; }

   //! The untyped iterator.
   base_iterator base() const noexcept { return it_; }

private:
   base_iterator it_;
};

} // namespace detail

//! A chain of untyped blocks (`void*`): Boost.Container's basic_multiallocation_chain<void*>.
//!
//! Complexity: every member is constant time unless it says otherwise. Move-only, like Boost's.
class basic_multiallocation_chain {
   using list_type = detail::chain_list;
   using node_ptr = list_type::node_ptr;

public:
   using void_pointer = void *;
   using iterator = list_type::iterator;
   using size_type = std::size_t;
   using pointer_pair = detail::pointer_twin<void *>;

   basic_multiallocation_chain() noexcept = default;

   //! Effects: makes a chain of the n linked blocks from b to before_e (before_e's link is
   //!   overwritten with null).
   basic_multiallocation_chain(void *b, void *before_e, size_type n) noexcept
   {
      incorporate_after(before_begin(), b, before_e, n);
   }

   basic_multiallocation_chain(basic_multiallocation_chain &&other) noexcept = default;
   basic_multiallocation_chain &operator=(basic_multiallocation_chain &&other) noexcept = default;
   basic_multiallocation_chain(const basic_multiallocation_chain &) = delete;
   basic_multiallocation_chain &operator=(const basic_multiallocation_chain &) = delete;

   bool empty() const noexcept { return list_.empty(); }
   size_type size() const noexcept { return list_.size(); }

   iterator before_begin() noexcept { return list_.before_begin(); }
   iterator begin() noexcept { return list_.begin(); }
   iterator end() noexcept { return list_.end(); }
   //! Returns: the last block's iterator, or before_begin() when empty.
   iterator last() noexcept { return list_.last(); }

   //! Effects: forgets every block (they are not freed).
   void clear() noexcept { list_.clear(); }

   iterator insert_after(iterator it, void *m) noexcept { return list_.insert_after(it, to_node(m)); }
   void push_front(void *m) noexcept { list_.push_front(to_node(m)); }
   void push_back(void *m) noexcept { list_.push_back(to_node(m)); }

   //! Requires: !empty(). Returns: the first block, unlinked.
   void *pop_front() noexcept
   {
      void *m = &list_.front();
      list_.pop_front();
      return m;
   }

   //! Effects: moves the n blocks after before_b up to before_e (inclusive) of x after after_this.
   void splice_after(iterator after_this, basic_multiallocation_chain &x, iterator before_b,
                     iterator before_e, size_type n) noexcept
   {
      list_.splice_after(after_this, x.list_, before_b, before_e, n);
   }

   //! Effects: moves every block of x after after_this. Complexity: linear in the blocks before
   //!   after_this when it is not last() (the last node must be found again), else constant.
   void splice_after(iterator after_this, basic_multiallocation_chain &x) noexcept
   {
      list_.splice_after(after_this, x.list_);
   }

   //! Effects: forgets the n blocks after before_b up to (not including) e.
   void erase_after(iterator before_b, iterator e, size_type n) noexcept { list_.erase_after(before_b, e, n); }

   //! Effects: cuts [b, b + unit_bytes * num_units) into num_units blocks of unit_bytes (each at
   //!   least a pointer, suitably aligned) and links them after after_this.
   //! Returns: b + unit_bytes * num_units. Complexity: linear in num_units.
   void *incorporate_after(iterator after_this, void *b, size_type unit_bytes, size_type num_units) noexcept
   {
      char *elem = static_cast<char *>(b);
      if (num_units) {
         char *prev = elem;
         ::new (static_cast<void *>(prev)) detail::chain_node;
         elem += unit_bytes;
         for (size_type i = 1; i != num_units; ++i, elem += unit_bytes) {
            ::new (static_cast<void *>(elem)) detail::chain_node;
            list_type::node_traits::set_next(to_node_ptr(prev), to_node_ptr(elem));
            prev = elem;
         }
         list_.incorporate_after(after_this, to_node_ptr(b), to_node_ptr(prev), num_units);
      }
      return elem;
   }

   //! Requires: b .. before_e are n blocks linked through their first word (before_e's link is
   //!   overwritten), none of them in a chain; n == 0 leaves the chain as it is.
   //! Effects: links them after after_this.
   void incorporate_after(iterator after_this, void *b, void *before_e, size_type n) noexcept
   {
      if (n) list_.incorporate_after(after_this, to_node_ptr(b), to_node_ptr(before_e), n);
   }

   //! Requires: block and next are blocks in no chain.
   //! Effects: links next after block through block's first word, as incorporate_after(it, b,
   //!   before_e, n) takes blocks. Complexity: constant.
   //! Note: blocks linked so, then put in whole, cost less than a push_back each: push_back
   //!   reads the last block's link again from memory for every block.
   static void link_blocks(void *block, void *next) noexcept
   {
      list_type::node_traits::set_next(to_node_ptr(block), to_node_ptr(next));
   }

   void swap(basic_multiallocation_chain &x) noexcept { list_.swap(x.list_); }
   friend void swap(basic_multiallocation_chain &a, basic_multiallocation_chain &b) noexcept { a.swap(b); }

   //! Returns: the iterator of block p, which is in some chain.
   static iterator iterator_to(void *p) noexcept { return list_type::s_iterator_to(to_node(p)); }

   //! Returns: {first block, last block} ({null, null} when empty), still linked to each other;
   //!   the chain becomes empty.
   pointer_pair extract_data() noexcept
   {
      if (list_.empty()) return pointer_pair();
      pointer_pair r(&*list_.begin(), &*list_.last());
      list_.clear();
      return r;
   }

private:
   static detail::chain_node &to_node(void *p) noexcept { return *static_cast<detail::chain_node *>(p); }
   static node_ptr to_node_ptr(void *p) noexcept
   {
      return p ? list_type::value_traits::to_node_ptr(to_node(p)) : node_ptr();
   }

   list_type list_;
};

//! A chain of blocks of T: Boost.Container's
//! transform_multiallocation_chain<basic_multiallocation_chain<void*>, T>. Its iterators
//! dereference to T& (the raw memory of a block: nothing is constructed there).
template <class T>
class multiallocation_chain : public basic_multiallocation_chain {
   using base = basic_multiallocation_chain;

   static T *cast(void *p) noexcept { return static_cast<T *>(p); }

public:
   using value_type = T;
   using pointer = T *;
   using iterator = detail::chain_iterator<T>;
   using size_type = base::size_type;
   using pointer_pair = detail::pointer_twin<T *>;

   multiallocation_chain() noexcept = default;
   multiallocation_chain(multiallocation_chain &&) noexcept = default;
   multiallocation_chain &operator=(multiallocation_chain &&) noexcept = default;
   //! Effects: takes the blocks of an untyped chain.
   explicit multiallocation_chain(basic_multiallocation_chain &&other) noexcept : base(std::move(other)) {}

   bool empty() const noexcept { return base::empty(); }
   size_type size() const noexcept { return base::size(); }
   void clear() noexcept { base::clear(); }

   iterator before_begin() noexcept { return iterator(base::before_begin()); }
   iterator begin() noexcept { return iterator(base::begin()); }
   iterator end() noexcept { return iterator(base::end()); }
   iterator last() noexcept { return iterator(base::last()); }

   iterator insert_after(iterator it, T *m) noexcept { return iterator(base::insert_after(it.base(), m)); }
   void push_front(T *m) noexcept { base::push_front(m); }
   void push_back(T *m) noexcept { base::push_back(m); }
   T *pop_front() noexcept { return cast(base::pop_front()); }

   void splice_after(iterator after_this, multiallocation_chain &x, iterator before_b, iterator before_e,
                     size_type n) noexcept
   {
      base::splice_after(after_this.base(), x, before_b.base(), before_e.base(), n);
   }
   void splice_after(iterator after_this, multiallocation_chain &x) noexcept
   {
      base::splice_after(after_this.base(), x);
   }

   void erase_after(iterator before_b, iterator e, size_type n) noexcept
   {
      base::erase_after(before_b.base(), e.base(), n);
   }

   T *incorporate_after(iterator after_this, T *b, size_type unit_bytes, size_type num_units) noexcept
   {
      return cast(base::incorporate_after(after_this.base(), b, unit_bytes, num_units));
   }
   void incorporate_after(iterator after_this, T *b, T *before_e, size_type n) noexcept
   {
      base::incorporate_after(after_this.base(), b, before_e, n);
   }

   void swap(multiallocation_chain &x) noexcept { base::swap(x); }
   friend void swap(multiallocation_chain &a, multiallocation_chain &b) noexcept { a.swap(b); }

   static iterator iterator_to(T *p) noexcept { return iterator(base::iterator_to(p)); }

   pointer_pair extract_data() noexcept
   {
      base::pointer_pair d = base::extract_data();
      return pointer_pair(cast(d.first), cast(d.second));
   }
};

namespace detail {

//! Whether Chain is ours: its link is a block_link, the first word of a ba::list node's links
//! (another library's chain, Boost.Container's, links blocks its own way).
template <class Chain>
inline constexpr bool chain_is_ours = std::is_convertible_v<Chain *, basic_multiallocation_chain *>;

} // namespace detail

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_MULTIALLOCATION_CHAIN_HPP
