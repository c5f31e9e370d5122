// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_LIST_HPP
#define BOOST_ALLOCPLUS_LIST_HPP

// ba::list<T, A>: std::list's interface and guarantees (C++17), with any allocator; with a
// version-2 allocator every operation on many nodes allocates them in one allocate_individual
// call and frees them in one deallocate_individual call.

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/detail/iterator_category.hpp>
#include <boost/allocplus/detail/list_node.hpp>     // the node, its links and the iterator
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>   // checked builds: preconditions, unequal allocators

#include <boost/config.hpp>
#include <boost/core/no_exceptions_support.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus {

//! A doubly linked list: std::list's interface and guarantees (C++17), with any allocator (std,
//! std::pmr, stateful ones, whose pointer type is a raw pointer).
//!
//! With a version-2 allocator (ba::allocator<T>, the default) every operation that makes many
//! nodes gets them in one allocate_individual call (n-insert, range insert with forward
//! iterators, assign, copy construction and assignment, growing resize), and every operation
//! that frees many gives them back in one deallocate_individual call (range erase, clear,
//! destruction, shrinking assign and resize, remove, remove_if, unique). With other allocators
//! nodes come and go one at a time. If building the k-th element of a burst throws, the elements
//! built are destroyed, every node of the burst is returned and the list is unchanged.
//!
//! T may be incomplete where the list is only declared (a member of T itself). Splicing or
//! merging between lists whose allocators compare unequal is undefined, as in std; checked
//! builds (BOOST_ALLOCPLUS_CHECKED, on unless NDEBUG is defined) report it to the core's
//! diagnostic handler.
//!
//! Checked builds also report the precondition violations found at constant cost: front, back,
//! pop_front and pop_back on an empty list; erasing end() (erase(pos), or a non-empty range
//! erase(first, last) whose first is end()); splicing other's end() as an element, a list into
//! itself, or a range before its own first element; a singular (default-constructed) iterator;
//! and any iterator but end() given to an empty list (it is another list's). An iterator of
//! another, non-empty list, or of an element already erased, is not found: a node does not know
//! its list, so telling would take a walk of the list (AddressSanitizer reports the use of an
//! erased element's node). Unchecked builds compile none of it.
template <class T, class A = allocator<T>>
class list {
   // First, so that these are the errors a user reads (the allocator's own may follow).
   static_assert(!std::is_const<T>::value && !std::is_volatile<T>::value,
                 "ba::list<T, A>: T must not be const or volatile (as for std::list): use ba::list<T> "
                 "and a const list, or a const_iterator");
   static_assert(std::is_same<typename std::allocator_traits<A>::value_type, T>::value,
                 "ba::list<T, A>: A::value_type must be T (use an allocator of T, e.g. ba::allocator<T>, or "
                 "rebind yours to T)");
   static_assert(!std::is_same<typename std::allocator_traits<A>::value_type, T>::value  // else said above
                    || std::is_same<typename std::allocator_traits<A>::pointer, T *>::value,
                 "ba::list<T, A>: A::pointer must be T* (fancy pointers are not supported: the nodes are "
                 "linked by raw pointers)");

   using node_type = detail::list_node<T>;
   using node_allocator = typename allocator_traits<A>::template rebind_alloc<node_type>;
   using node_traits = allocator_traits<node_allocator>;
   using chain_type = typename node_traits::multiallocation_chain;
   using links = detail::list_links;
   using algo = detail::list_algorithms;

public:
   using value_type = T;
   using allocator_type = A;
   using size_type = typename std::allocator_traits<A>::size_type;
   using difference_type = typename std::allocator_traits<A>::difference_type;
   using reference = T &;
   using const_reference = const T &;
   using pointer = typename std::allocator_traits<A>::pointer;
   using const_pointer = typename std::allocator_traits<A>::const_pointer;
   using iterator = detail::list_iterator<T, false>;
   using const_iterator = detail::list_iterator<T, true>;
   using reverse_iterator = std::reverse_iterator<iterator>;
   using const_reverse_iterator = std::reverse_iterator<const_iterator>;

   // --- construction, copy, destruction ----------------------------------------------------

   //! Effects: an empty list with a value-initialized allocator (of nodes), built in place: no
   //!   copy, move or conversion of an allocator. Throws: what the allocator's default constructor throws.
   list() noexcept(std::is_nothrow_default_constructible<node_allocator>::value) : m_() {}
   explicit list(const A &a) noexcept : m_(node_allocator(a)) {}
   //! Effects: n value-initialized elements, in one burst with a version-2 allocator.
   //! Throws: std::length_error when n > max_size(); what the allocator or T throws (nothing leaks).
   //! Complexity: linear in n.
   explicit list(size_type n, const A &a = A()) : m_(node_allocator(a)) { insert_value_initialized(cend(), n); }
   //! Effects: n copies of value, in one burst with a version-2 allocator. Throws: as list(n).
   list(size_type n, const T &value, const A &a = A()) : m_(node_allocator(a)) { insert(cend(), n, value); }
   //! Effects: copies of [first, last): in one burst for forward iterators and a version-2 allocator.
   //! Throws: as list(n). Complexity: linear in the length of the range.
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   list(InputIt first, InputIt last, const A &a = A()) : m_(node_allocator(a))
   {
      insert(cend(), first, last);
   }
   list(std::initializer_list<T> il, const A &a = A()) : m_(node_allocator(a)) { insert(cend(), il); }
   //! Effects: a copy of other, with select_on_container_copy_construction of its allocator; one
   //!   burst with a version-2 allocator. Throws: what the allocator or T's copy throws.
   list(const list &other) : m_(node_traits::select_on_container_copy_construction(other.nal()))
   {
      insert(cend(), other.begin(), other.end());
   }
   list(const list &other, const A &a) : m_(node_allocator(a)) { insert(cend(), other.begin(), other.end()); }
   //! Effects: takes other's nodes (other is left empty). Throws: nothing. Complexity: constant.
   list(list &&other) noexcept : m_(std::move(other.nal())) { take(other); }
   //! Effects: takes other's nodes when a == other's allocator, else moves its elements into
   //!   new nodes (one burst). Complexity: constant, or linear when the allocators differ.
   list(list &&other, const A &a) : m_(node_allocator(a))
   {
      if (node_traits::is_always_equal::value || nal() == other.nal()) take(other);
      else insert(cend(), std::make_move_iterator(other.begin()), std::make_move_iterator(other.end()));
   }
   //! Effects: destroys the elements and frees the nodes (one burst with a version-2 allocator).
   ~list() { dispose(head()->next_links(), head()); }

   //! Copy assignment; the allocator propagates as propagate_on_container_copy_assignment says
   //! (when it does and the allocators differ, the old nodes are freed first).
   //! Effects: assign(other.begin(), other.end()). Throws: as assign (basic guarantee).
   list &operator=(const list &other)
   {
      if (this == &other) return *this;
      if constexpr (node_traits::propagate_on_container_copy_assignment::value) {
         if (!node_traits::is_always_equal::value && !(nal() == other.nal())) clear();
         nal() = other.nal();
      }
      assign(other.begin(), other.end());
      return *this;
   }
   //! Move assignment: frees this list's nodes and takes other's when the allocator propagates
   //! or is equal; otherwise move-assigns the elements (basic guarantee).
   //! Complexity: linear in size(); also in other.size() when the elements move.
   list &operator=(list &&other) noexcept(node_traits::propagate_on_container_move_assignment::value
                                          || node_traits::is_always_equal::value)
   {
      if (this == &other) return *this;
      if constexpr (node_traits::propagate_on_container_move_assignment::value) {
         clear();
         nal() = std::move(other.nal());
         take(other);
      } else {
         if (node_traits::is_always_equal::value || nal() == other.nal()) {
            clear();
            take(other);
         } else {
            assign(std::make_move_iterator(other.begin()), std::make_move_iterator(other.end()));
         }
      }
      return *this;
   }
   list &operator=(std::initializer_list<T> il)
   {
      assign(il.begin(), il.end());
      return *this;
   }

   //! Effects: replaces the contents with n copies of value (not an element of *this): the
   //!   first elements are assigned, the missing ones built in one burst, the extra ones freed in
   //!   one burst. Throws: what T or the allocator throws (basic guarantee). Complexity: linear.
   void assign(size_type n, const T &value)
   {
      links *p = head()->next_links();
      for (; p != head() && n != 0; p = p->next_links(), --n) *value_of(p) = value;
      if (n != 0) insert(cend(), n, value);
      else erase(const_iterator(p), cend());
   }
   //! Effects: replaces the contents with [first, last) (not in *this), as assign(n, value).
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   void assign(InputIt first, InputIt last)
   {
      links *p = head()->next_links();
      for (; p != head() && first != last; p = p->next_links(), ++first) *value_of(p) = *first;
      if (first != last) insert(cend(), first, last);
      else erase(const_iterator(p), cend());
   }
   void assign(std::initializer_list<T> il) { assign(il.begin(), il.end()); }

   allocator_type get_allocator() const noexcept { return allocator_type(nal()); }

   // --- element access and iterators --------------------------------------------------------

   //! Requires: !empty() (checked builds report a violation to the diagnostic handler).
   //! Returns: the first element.
   reference front() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::front: the list is empty", this);
      return *value_of(head()->next_links());
   }
   const_reference front() const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::front: the list is empty", this);
      return *value_of(head()->next_links());
   }
   //! Requires: !empty() (checked builds report a violation). Returns: the last element.
   reference back() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::back: the list is empty", this);
      return *value_of(head()->prev);
   }
   const_reference back() const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::back: the list is empty", this);
      return *value_of(head()->prev);
   }

   iterator begin() noexcept { return iterator(head()->next_links()); }
   const_iterator begin() const noexcept { return const_iterator(head()->next_links()); }
   const_iterator cbegin() const noexcept { return begin(); }
   iterator end() noexcept { return iterator(head()); }
   const_iterator end() const noexcept { return const_iterator(head()); }
   const_iterator cend() const noexcept { return end(); }
   reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
   const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
   const_reverse_iterator crbegin() const noexcept { return rbegin(); }
   reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
   const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
   const_reverse_iterator crend() const noexcept { return rend(); }

   // --- capacity ----------------------------------------------------------------------------

   [[nodiscard]] bool empty() const noexcept { return m_.size == 0; }
   //! Complexity: constant.
   size_type size() const noexcept { return m_.size; }
   //! Returns: the most elements a list can hold: the node allocator's max_size(), at most
   //!   the largest difference_type.
   size_type max_size() const noexcept
   {
      const size_type by_difference = static_cast<size_type>(std::numeric_limits<difference_type>::max());
      const size_type by_allocator = node_traits::max_size(nal());
      return by_allocator < by_difference ? by_allocator : by_difference;
   }

   // --- modifiers ---------------------------------------------------------------------------

   //! Effects: destroys every element and frees every node (one burst with a version-2
   //!   allocator). Throws: nothing. Complexity: linear.
   void clear() noexcept
   {
      dispose(head()->next_links(), head());
      m_.reset();
   }

   //! Requires (every insert and emplace): pos is an iterator of this list (checked builds
   //!   report a singular one, and one of another list when this list is empty, to the
   //!   diagnostic handler; one of another list is not found otherwise).
   //! Effects: inserts T(args...) before pos (args may refer to elements).
   //! Returns: an iterator to the new element.
   //! Throws: std::length_error when size() == max_size(); what the allocator or T throws, with
   //!   no effect (strong guarantee). Complexity: constant.
   template <class... Args>
   iterator emplace(const_iterator pos, Args &&...args)
   {
      check_position(pos, "ba::list::emplace: the position is not in the list (singular, or of another list)");
      if (m_.size == max_size()) detail::throw_length_error("ba::list: size would exceed max_size()");
      links *const n = new_node(std::forward<Args>(args)...);
      algo::link_before(pos.node_, n);
      ++m_.size;
      return iterator(n);
   }
   iterator insert(const_iterator pos, const T &value)
   {
      check_position(pos, "ba::list::insert: the position is not in the list (singular, or of another list)");
      return emplace(pos, value);
   }
   iterator insert(const_iterator pos, T &&value)
   {
      check_position(pos, "ba::list::insert: the position is not in the list (singular, or of another list)");
      return emplace(pos, std::move(value));
   }
   //! Effects: inserts n copies of value (which may be an element) before pos, the nodes in one
   //!   burst with a version-2 allocator.
   //! Returns: an iterator to the first new element, or pos when n == 0.
   //! Throws: std::length_error when size() + n > max_size(); what the allocator or T throws,
   //!   with no effect (strong guarantee; every node obtained is returned). Complexity: linear in n.
   iterator insert(const_iterator pos, size_type n, const T &value)
   {
      return insert_made(pos, n, [this, &value](T *p) { node_traits::construct(nal(), p, value); });
   }
   //! Effects: inserts copies of [first, last) (not in *this) before pos: for forward iterators
   //!   the nodes in one burst with a version-2 allocator, else one at a time.
   //! Returns, Throws: as insert(pos, n, value). Complexity: linear in the length of the range.
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   iterator insert(const_iterator pos, InputIt first, InputIt last)
   {
      if constexpr (detail::is_forward_iterator<InputIt>()) {
         const size_type n = static_cast<size_type>(std::distance(first, last));
         return insert_made(pos, n, [this, &first](T *p) {
            node_traits::construct(nal(), p, *first);
            ++first;
         });
      } else {
         return insert_input(pos, first, last);
      }
   }
   iterator insert(const_iterator pos, std::initializer_list<T> il) { return insert(pos, il.begin(), il.end()); }

   //! Requires: pos is an element of this list (checked builds report end(), a singular
   //!   iterator and any iterator given to an empty list to the diagnostic handler; an element
   //!   of another list is not found otherwise).
   //! Effects: destroys and frees the element at pos.
   //! Returns: the iterator after it. Throws: nothing. Complexity: constant.
   iterator erase(const_iterator pos) noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(pos.node_ != head() && pos.node_ != nullptr && m_.size != 0,
                                   "ba::list::erase: the position is not an element of the list (end(), singular, "
                                   "or of another list)",
                                   this);
      links *const n = pos.node_;
      links *const next = n->next_links();
      algo::unlink(n);
      --m_.size;
      destroy_value(n);
      node_traits::deallocate_one(nal(), node_type::from(n));
      return iterator(next);
   }
   //! Requires: [first, last) is a range of this list (checked builds report a non-empty range
   //!   that starts at end(), singular iterators, and any range but [end(), end()) given to an
   //!   empty list, to the diagnostic handler).
   //! Effects: destroys [first, last) and frees its nodes (one burst with a version-2 allocator).
   //! Returns: last. Throws: nothing. Complexity: linear in the length of the range.
   iterator erase(const_iterator first, const_iterator last) noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(is_range_of(first, last),
                                   "ba::list::erase: the range is not in the list (it starts at end(), is singular, "
                                   "or is of another list)",
                                   this);
      if (first != last) {
         algo::unlink(first.node_, last.node_);
         m_.size -= dispose(first.node_, last.node_);
      }
      return iterator(last.node_);
   }

   //! Effects, Throws: as emplace (strong guarantee). Returns: the new element.
   template <class... Args>
   reference emplace_back(Args &&...args)
   {
      return *emplace(cend(), std::forward<Args>(args)...);
   }
   template <class... Args>
   reference emplace_front(Args &&...args)
   {
      return *emplace(cbegin(), std::forward<Args>(args)...);
   }
   void push_back(const T &value) { emplace(cend(), value); }
   void push_back(T &&value) { emplace(cend(), std::move(value)); }
   void push_front(const T &value) { emplace(cbegin(), value); }
   void push_front(T &&value) { emplace(cbegin(), std::move(value)); }
   //! Requires: !empty() (checked builds report a violation to the diagnostic handler).
   //! Effects: erases the last (first) element. Throws: nothing. Complexity: constant.
   void pop_back() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::pop_back: the list is empty", this);
      erase(const_iterator(head()->prev));
   }
   void pop_front() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::list::pop_front: the list is empty", this);
      erase(cbegin());
   }

   //! Effects: appends value-initialized elements (one burst with a version-2 allocator), or
   //!   erases the last ones (one burst), to make n.
   //! Throws: as insert(pos, n, value) (strong guarantee). Complexity: linear in the difference,
   //!   plus min(n, size() - n) to find the first element to erase.
   void resize(size_type n)
   {
      if (n > m_.size) insert_value_initialized(cend(), n - m_.size);
      else erase(position_of(n), cend());
   }
   //! Effects: as resize(n), appending copies of value (which may be an element).
   void resize(size_type n, const T &value)
   {
      if (n > m_.size) insert(cend(), n - m_.size, value);
      else erase(position_of(n), cend());
   }

   //! Effects: exchanges the contents (and the allocators when propagate_on_container_swap).
   //!   Iterators stay valid, pointing into the other list. Throws: nothing. Complexity: constant.
   void swap(list &other) noexcept
   {
      if constexpr (node_traits::propagate_on_container_swap::value) {
         using std::swap;
         swap(nal(), other.nal());
      }
      algo::swap_nodes(head(), other.head());
      std::swap(m_.size, other.m_.size);
   }

   // --- list operations ---------------------------------------------------------------------

   //! Requires: get_allocator() == other.get_allocator(); &other != this; pos an iterator of
   //!   this list, as for insert (checked builds report each violation to the diagnostic
   //!   handler, as far as insert's are found).
   //! Effects: moves every element of other before pos; no element is copied or moved.
   //! Throws: nothing. Complexity: constant.
   void splice(const_iterator pos, list &other) noexcept
   {
      check_same_allocator(other, "ba::list::splice: the lists' allocators are unequal");
      BOOST_ALLOCPLUS_PRECONDITION(&other != this, "ba::list::splice: other is this list", this);
      check_position(pos, "ba::list::splice: the position is not in the list (singular, or of another list)");
      if (other.empty()) return;
      algo::transfer(pos.node_, other.head()->next_links(), other.head());
      m_.size += other.m_.size;
      other.m_.size = 0;
   }
   void splice(const_iterator pos, list &&other) noexcept { splice(pos, other); }
   //! Requires: equal allocators and pos as in splice(pos, other) (other may be *this); it is an
   //!   element of other (checked builds report other.end(), a singular iterator and any
   //!   iterator of an empty other to the diagnostic handler).
   //! Effects: moves the element at it before pos. Throws: nothing. Complexity: constant.
   void splice(const_iterator pos, list &other, const_iterator it) noexcept
   {
      check_same_allocator(other, "ba::list::splice: the lists' allocators are unequal");
      check_position(pos, "ba::list::splice: the position is not in the list (singular, or of another list)");
      BOOST_ALLOCPLUS_PRECONDITION(it.node_ != other.head() && it.node_ != nullptr && other.m_.size != 0,
                                   "ba::list::splice: the iterator is not an element of other (other.end(), singular, "
                                   "or of another list)",
                                   this);
      if (pos.node_ == it.node_ || pos.node_ == it.node_->next_links()) return;
      algo::transfer(pos.node_, it.node_);
      if (&other != this) {
         ++m_.size;
         --other.m_.size;
      }
   }
   void splice(const_iterator pos, list &&other, const_iterator it) noexcept { splice(pos, other, it); }
   //! Requires: equal allocators and pos as in splice(pos, other) (other may be *this);
   //!   [first, last) a range of other, pos not in it (checked builds report a range of other
   //!   as erase(first, last) does, and pos == first in a non-empty range; pos further inside
   //!   the range is not found: that would take a walk).
   //! Effects: moves [first, last) before pos. Throws: nothing.
   //! Complexity: constant when &other == this, else linear in the length of the range.
   void splice(const_iterator pos, list &other, const_iterator first, const_iterator last) noexcept
   {
      check_same_allocator(other, "ba::list::splice: the lists' allocators are unequal");
      check_position(pos, "ba::list::splice: the position is not in the list (singular, or of another list)");
      BOOST_ALLOCPLUS_PRECONDITION(other.is_range_of(first, last),
                                   "ba::list::splice: the range is not in other (it starts at other.end(), is "
                                   "singular, or is of another list)",
                                   this);
      BOOST_ALLOCPLUS_PRECONDITION(first == last || pos.node_ != first.node_,
                                   "ba::list::splice: the position is the first element of the range", this);
      if (first == last) return;
      if (&other != this) {
         const size_type n = static_cast<size_type>(std::distance(first, last));
         m_.size += n;
         other.m_.size -= n;
      }
      algo::transfer(pos.node_, first.node_, last.node_);
   }
   void splice(const_iterator pos, list &&other, const_iterator first, const_iterator last) noexcept
   {
      splice(pos, other, first, last);
   }

   //! Requires: both lists sorted by comp; allocators equal (checked as in splice).
   //! Effects: moves every element of other into *this, sorted, stably (of equivalent elements,
   //!   those of *this come first); nothing when &other == this.
   //! Throws: what comp throws (then both lists hold every element, in an unspecified order).
   //! Complexity: at most size() + other.size() - 1 comparisons.
   template <class Compare>
   void merge(list &other, Compare comp)
   {
      if (&other == this) return;
      check_same_allocator(other, "ba::list::merge: the lists' allocators are unequal");
      links *a = head()->next_links();
      links *b = other.head()->next_links();
      while (b != other.head()) {
         if (a == head()) {
            algo::transfer(head(), b, other.head());
            m_.size += other.m_.size;
            other.m_.size = 0;
            return;
         }
         if (comp(*value_of(b), *value_of(a))) {
            links *const next = b->next_links();
            algo::transfer(a, b);
            ++m_.size;
            --other.m_.size;
            b = next;
         } else {
            a = a->next_links();
         }
      }
   }
   template <class Compare>
   void merge(list &&other, Compare comp)
   {
      merge(other, comp);
   }
   void merge(list &other) { merge(other, std::less<>()); }
   void merge(list &&other) { merge(other, std::less<>()); }

   //! Effects: erases every element equal to value (which may be an element); the nodes are
   //!   freed together at the end (one burst with a version-2 allocator).
   //! Throws: what operator== throws (the elements found so far are erased).
   //! Complexity: size() comparisons.
   void remove(const T &value)
   {
      remove_if([&value](const T &x) { return x == value; });
   }
   //! Effects: erases every element for which pred is true, as remove.
   template <class Predicate>
   void remove_if(Predicate pred)
   {
      graveyard dead(*this);
      for (links *p = head()->next_links(); p != head();) {
         links *const next = p->next_links();
         if (pred(*value_of(p))) dead.bury(p);
         p = next;
      }
   }

   //! Effects: of each run of consecutive elements for which pred(first of the run, element) is
   //!   true, keeps the first; the others are freed together at the end (one burst).
   //! Throws: what pred throws (the elements found so far are erased).
   //! Complexity: size() - 1 comparisons.
   template <class BinaryPredicate>
   void unique(BinaryPredicate pred)
   {
      graveyard dead(*this);
      links *kept = head()->next_links();
      if (kept == head()) return;
      for (links *p = kept->next_links(); p != head();) {
         links *const next = p->next_links();
         if (pred(*value_of(kept), *value_of(p))) dead.bury(p);
         else kept = p;
         p = next;
      }
   }
   void unique() { unique(std::equal_to<>()); }

   //! Effects: sorts by comp, stably, relinking nodes (no element is copied or moved, nothing is
   //!   allocated): a bottom-up merge sort in place, runs of 1, 2, 4, ... merged pairwise.
   //! Throws: what comp throws (then the list holds every element, in an unspecified order).
   //! Complexity: O(n log n) comparisons and link walks, O(1) extra memory.
   template <class Compare>
   void sort(Compare comp)
   {
      const size_type n = m_.size;
      links *const h = head();
      for (size_type width = 1; width < n; width *= 2) {
         links *run = h->next_links();
         while (run != h) {
            links *const mid = advance_at_most(run, width, h);
            if (mid == h) break;
            links *const stop = advance_at_most(mid, width, h);
            merge_runs(run, mid, stop, comp);
            run = stop;
         }
      }
   }
   void sort() { sort(std::less<>()); }

   //! Effects: reverses the order of the elements. Throws: nothing. Complexity: linear.
   void reverse() noexcept { algo::reverse(head()); }

private:
   //! The allocator (empty-base optimized), the header of the circular list of nodes and the size.
   struct members : node_allocator {
      links header;
      size_type size;

      //! The allocator value-initialized in place, as std::list's default constructor does.
      members() noexcept(std::is_nothrow_default_constructible<node_allocator>::value) : node_allocator()
      {
         reset();
      }
      explicit members(const node_allocator &a) noexcept : node_allocator(a) { reset(); }
      explicit members(node_allocator &&a) noexcept : node_allocator(std::move(a)) { reset(); }
      void reset() noexcept
      {
         algo::init_header(&header);
         size = 0;
      }
   };

   //! Nodes taken out of the list by remove_if and unique, destroyed and freed together (in one
   //! burst) when the operation ends, normally or by an exception: the value remove compares
   //! with may be one of them.
   struct graveyard {
      list &owner;
      links circle;

      explicit graveyard(list &l) noexcept : owner(l) { algo::init_header(&circle); }
      graveyard(const graveyard &) = delete;
      graveyard &operator=(const graveyard &) = delete;
      ~graveyard() { owner.dispose(circle.next_links(), &circle); }
      void bury(links *n) noexcept
      {
         algo::transfer(&circle, n);
         --owner.m_.size;
      }
   };

   node_allocator &nal() noexcept { return m_; }
   const node_allocator &nal() const noexcept { return m_; }
   links *head() const noexcept { return const_cast<links *>(&m_.header); }
   static T *value_of(links *l) noexcept { return node_type::from(l)->value(); }

   //! Checked builds: reports `what` when pos is singular (a default-constructed iterator), or
   //! when this list is empty and pos is not its end() (then pos is another list's). Whether pos
   //! belongs to a non-empty list is not checked: a node does not know its list, so telling
   //! would take a walk.
   void check_position(const_iterator pos, const char *what) const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(pos.node_ != nullptr && (pos.node_ == head() || m_.size != 0), what, this);
      (void)pos;
      (void)what;
   }

   //! Returns (for the checks): whether [first, last) may be a range of this list, as far as a
   //! constant-time test can tell: neither iterator singular, and an empty range, or a non-empty
   //! one that does not start at end(); an empty list has only [end(), end()).
   bool is_range_of(const_iterator first, const_iterator last) const noexcept
   {
      if (first.node_ == nullptr || last.node_ == nullptr) return false;
      if (m_.size == 0) return first.node_ == head() && last.node_ == head();
      return first == last || first.node_ != head();
   }

   void check_same_allocator(const list &other, const char *what) const noexcept
   {
#if BOOST_ALLOCPLUS_CHECKED
      if constexpr (!node_traits::is_always_equal::value) {
         if (!(nal() == other.nal())) detail::report_usage_error(what, &other);
      }
#endif
      (void)other;
      (void)what;
   }

   //! Effects: takes other's nodes; this list is empty and the allocators are already right.
   void take(list &other) noexcept
   {
      if (other.m_.size == 0) return;
      algo::transfer(head(), other.head()->next_links(), other.head());
      m_.size = other.m_.size;
      other.m_.size = 0;
   }

   void destroy_value(links *n) noexcept { node_traits::destroy(nal(), value_of(n)); }

   //! A node holding T(args...), from allocate_one. Throws: what the allocator or T throws (the
   //! node is freed).
   template <class... Args>
   node_type *new_node(Args &&...args)
   {
      node_type *const n = ::new (static_cast<void *>(node_traits::allocate_one(nal()))) node_type;
      BOOST_TRY {
         node_traits::construct(nal(), n->value(), std::forward<Args>(args)...);
      }
      BOOST_CATCH(...) {
         node_traits::deallocate_one(nal(), n);
         BOOST_RETHROW
      }
      BOOST_CATCH_END
      return n;
   }

   //! Effects: puts node (its element not built, or destroyed) at the front of chain.
   static void put_in_front(chain_type &chain, node_type *node) noexcept
   {
      if constexpr (detail::chain_is_ours<chain_type>) {
         basic_multiallocation_chain &untyped = chain;
         untyped.push_front(static_cast<detail::block_link *>(node));   // (its link, not the node)
      } else {
         chain.push_front(node);
      }
   }

   //! Effects: destroys the elements of the nodes from first up to stop (following next) and
   //!   adds the nodes at the back of `chain` (the last node's next becomes the chain's: null).
   //! Returns: how many.
   size_type destroy_into(chain_type &chain, links *first, links *stop) noexcept
   {
      size_type n = 0;
      if constexpr (detail::chain_is_ours<chain_type>) {
         // A node's `next` is our chain's link (the links begin with a block_link), and it holds
         // the following node already: the nodes go in as they are, with no store each.
         links *const run = first;
         links *last = first;
         for (; first != stop; ++n) {
            last = first;
            first = first->next_links();
            destroy_value(last);
         }
         basic_multiallocation_chain &untyped = chain;
         untyped.incorporate_after(untyped.last(), static_cast<detail::block_link *>(run),
                                   static_cast<detail::block_link *>(last), n);
      } else {
         while (first != stop) {
            links *const next = first->next_links();
            destroy_value(first);
            chain.push_back(node_type::from(first));   // (another library's chain, e.g. Boost.Container's)
            first = next;
            ++n;
         }
      }
      return n;
   }

   //! Effects: destroys the elements of the nodes from first up to stop (following next; they
   //!   are out of the list, or the list is reset after) and frees the nodes: in one
   //!   deallocate_individual call with a version-2 allocator, else one by one.
   //! Returns: how many.
   size_type dispose(links *first, links *stop) noexcept
   {
      if constexpr (node_traits::is_version_2) {
         if (first == stop) return 0;
         chain_type chain;
         const size_type n = destroy_into(chain, first, stop);
         node_traits::deallocate_individual(nal(), chain);
         return n;
      } else {
         size_type n = 0;
         while (first != stop) {
            links *const next = first->next_links();
            destroy_value(first);
            node_traits::deallocate_one(nal(), node_type::from(first));
            first = next;
            ++n;
         }
         return n;
      }
   }

   //! Requires: circle is an empty detached circle (a local header).
   //! Effects: links n new nodes into circle, the element of each built by make(T *): with a
   //!   version-2 allocator from one allocate_individual call, else one allocate_one each.
   //! Throws: what the allocator or make throws; then every element built is destroyed, every
   //!   node obtained freed (with a version-2 allocator, in one deallocate_individual call with
   //!   the burst's unused nodes) and circle is empty.
   template <class Make>
   void build_n(links &circle, size_type n, Make &make)
   {
      if constexpr (node_traits::is_version_2) {
         chain_type chain;
         node_traits::allocate_individual(nal(), n, chain);
         node_type *current = nullptr;   // taken from the chain, its element not built yet
         BOOST_TRY {
            while (!chain.empty()) {
               current = ::new (static_cast<void *>(chain.pop_front())) node_type;
               make(current->value());
               algo::link_before(&circle, current);
            }
         }
         BOOST_CATCH(...) {
            put_in_front(chain, current);
            destroy_into(chain, circle.next_links(), &circle);
            algo::init_header(&circle);
            node_traits::deallocate_individual(nal(), chain);
            BOOST_RETHROW
         }
         BOOST_CATCH_END
      } else {
         BOOST_TRY {
            for (; n != 0; --n) {
               node_type *const node = ::new (static_cast<void *>(node_traits::allocate_one(nal()))) node_type;
               BOOST_TRY {
                  make(node->value());
               }
               BOOST_CATCH(...) {
                  node_traits::deallocate_one(nal(), node);
                  BOOST_RETHROW
               }
               BOOST_CATCH_END
               algo::link_before(&circle, node);
            }
         }
         BOOST_CATCH(...) {
            dispose(circle.next_links(), &circle);
            algo::init_header(&circle);
            BOOST_RETHROW
         }
         BOOST_CATCH_END
      }
   }

   //! Inserts n elements built by make before pos, all built before any is linked (strong
   //! guarantee). Returns: the first, or pos when n == 0.
   template <class Make>
   iterator insert_made(const_iterator pos, size_type n, Make make)
   {
      check_position(pos, "ba::list::insert: the position is not in the list (singular, or of another list)");
      if (n > max_size() - m_.size) detail::throw_length_error("ba::list: size would exceed max_size()");
      if (n == 0) return iterator(pos.node_);
      links circle;
      algo::init_header(&circle);
      build_n(circle, n, make);
      links *const first = circle.next_links();
      algo::transfer(pos.node_, first, &circle);
      m_.size += n;
      return iterator(first);
   }

   void insert_value_initialized(const_iterator pos, size_type n)
   {
      insert_made(pos, n, [this](T *p) { node_traits::construct(nal(), p); });
   }

   //! Inserts [first, last) of input iterators, one node at a time into a detached circle
   //! spliced in at the end (strong guarantee).
   template <class It>
   iterator insert_input(const_iterator pos, It first, It last)
   {
      check_position(pos, "ba::list::insert: the position is not in the list (singular, or of another list)");
      links circle;
      algo::init_header(&circle);
      size_type n = 0;
      BOOST_TRY {
         for (; first != last; ++first, ++n) {
            if (n == max_size() - m_.size) detail::throw_length_error("ba::list: size would exceed max_size()");
            algo::link_before(&circle, new_node(*first));
         }
      }
      BOOST_CATCH(...) {
         dispose(circle.next_links(), &circle);
         BOOST_RETHROW
      }
      BOOST_CATCH_END
      if (n == 0) return iterator(pos.node_);
      links *const f = circle.next_links();
      algo::transfer(pos.node_, f, &circle);
      m_.size += n;
      return iterator(f);
   }

   //! Returns: the element at index i (i <= size()), walked to from the nearer end.
   const_iterator position_of(size_type i) const noexcept
   {
      links *p;
      if (i <= m_.size / 2) {
         p = head()->next_links();
         for (; i != 0; --i) p = p->next_links();
      } else {
         p = head();
         for (size_type k = m_.size - i; k != 0; --k) p = p->prev;
      }
      return const_iterator(p);
   }

   //! Returns: the node `steps` after p, or stop if it comes first.
   static links *advance_at_most(links *p, size_type steps, links *stop) noexcept
   {
      for (; steps != 0 && p != stop; --steps) p = p->next_links();
      return p;
   }

   //! Merges the adjacent sorted runs [a, mid) and [mid, stop) in place, stably: a node of the
   //! second run moves in front of the first node of the first run that it is less than.
   template <class Compare>
   static void merge_runs(links *a, links *mid, links *stop, Compare &comp)
   {
      while (a != mid && mid != stop) {
         if (comp(*value_of(mid), *value_of(a))) {
            links *const next = mid->next_links();
            algo::transfer(a, mid);
            mid = next;   // the rest of the first run now ends before it
         } else {
            a = a->next_links();
         }
      }
   }

   members m_;
};

//! Deduction from an iterator range: list(first, last[, alloc]).
template <class InputIt, class Alloc = allocator<typename std::iterator_traits<InputIt>::value_type>,
          class = detail::require_input_iterator<InputIt>>
list(InputIt, InputIt, Alloc = Alloc()) -> list<typename std::iterator_traits<InputIt>::value_type, Alloc>;

//! Returns: whether x and y hold equal elements in the same order. Complexity: linear.
template <class T, class A>
bool operator==(const list<T, A> &x, const list<T, A> &y)
{
   return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}
template <class T, class A>
bool operator!=(const list<T, A> &x, const list<T, A> &y)
{
   return !(x == y);
}
//! Returns: the lexicographical comparison of x and y. Complexity: linear.
template <class T, class A>
bool operator<(const list<T, A> &x, const list<T, A> &y)
{
   return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
}
template <class T, class A>
bool operator>(const list<T, A> &x, const list<T, A> &y)
{
   return y < x;
}
template <class T, class A>
bool operator<=(const list<T, A> &x, const list<T, A> &y)
{
   return !(y < x);
}
template <class T, class A>
bool operator>=(const list<T, A> &x, const list<T, A> &y)
{
   return !(x < y);
}

//! Effects: x.swap(y).
template <class T, class A>
void swap(list<T, A> &x, list<T, A> &y) noexcept
{
   x.swap(y);
}

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_LIST_HPP
