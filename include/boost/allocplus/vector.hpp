// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_VECTOR_HPP
#define BOOST_ALLOCPLUS_VECTOR_HPP

// ba::vector<T, A>: std::vector's interface and guarantees (C++17), with any allocator; with a
// version-2 allocator it grows in place (forward, then backward), uses the size it receives,
// and shrinks in place. Elements that are bitwise relocatable (ba::is_trivially_relocatable)
// move with memcpy.

#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/allocator_traits.hpp>
#include <boost/allocplus/is_trivially_relocatable.hpp>
#include <boost/allocplus/detail/iterator_category.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>         // checked builds: the preconditions
#include <boost/allocplus/detail/vector_annotation.hpp>   // ASan: spare capacity unaddressable
#include <boost/allocplus/detail/uninitialized_relocate.hpp>
#include <boost/allocplus/detail/vector_insert_proxy.hpp>    // what one growth path inserts

#include <boost/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace boost { namespace allocplus {

//! What ba::vector asked of its allocator, as the benchmarks count it: new buffers, forward and
//! backward expansions in place, shrinks in place. Counted only in programs built with
//! BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS defined (in every translation unit alike), per thread,
//! for every ba::vector of the thread: the vector's layout stays the same, so reset before the
//! vector you measure and read after it.
struct vector_alloc_stats {
   std::size_t num_alloc = 0;
   std::size_t num_expand_fwd = 0;
   std::size_t num_expand_bwd = 0;
   std::size_t num_shrink = 0;
};

namespace detail {

#if defined(BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS)
inline vector_alloc_stats &thread_vector_alloc_stats() noexcept
{
   static thread_local vector_alloc_stats s;
   return s;
}
#define BOOST_ALLOCPLUS_VECTOR_COUNT(field) (++::boost::allocplus::detail::thread_vector_alloc_stats().field)
#else
#define BOOST_ALLOCPLUS_VECTOR_COUNT(field) ((void)0)
#endif

} // namespace detail

//! A sequence in one contiguous buffer: std::vector's interface and guarantees (C++17), with any
//! allocator (std, std::pmr, stateful ones, whose pointer type is T*).
//!
//! With a version-2 allocator (ba::allocator<T>, the default) growth asks, in one
//! allocation_command, for at least size() + n elements and preferably the grown capacity
//! (1.6 times the capacity): the allocator expands the buffer forward in place, or backward (only
//! for element types whose move cannot throw or that are bitwise relocatable, so that the strong
//! guarantee survives), or gives a new buffer; the capacity is what it received. shrink_to_fit
//! shrinks in place, moving nothing, and never throws. With any allocator that has
//! allocate_at_least, the capacity is the count it returns.
//!
//! T may be incomplete where the vector is only declared (a member of T itself). There is no
//! vector<bool> specialization. Iterators are pointers.
//!
//! Checked builds (BOOST_ALLOCPLUS_CHECKED, on unless NDEBUG is defined) check the preconditions
//! that cost a comparison, as libstdc++ does under _GLIBCXX_ASSERTIONS, and report a violation to
//! the core's diagnostic handler: operator[] out of range, front, back and pop_back on an empty
//! vector, and insert, emplace and erase positions outside the vector (an iterator of another
//! vector included). Unchecked builds compile none of it.
//!
//! With BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE defined (in every translation unit alike), every
//! growth moves the elements to a new buffer and frees the old one, as std::vector does, so that
//! AddressSanitizer reports an iterator, pointer or reference kept across a growth when it is used.
template <class T, class A = allocator<T>>
class vector {
   // First, so that these are the errors a user reads (the allocator's own may follow).
   static_assert(!std::is_const<T>::value && !std::is_volatile<T>::value,
                 "ba::vector<T, A>: T must not be const or volatile (as for std::vector): use ba::vector<T> "
                 "and a const vector, or a const pointer to its elements");
   using alloc_traits = allocator_traits<A>;
   static_assert(std::is_same<typename alloc_traits::value_type, T>::value,
                 "ba::vector<T, A>: A::value_type must be T (use an allocator of T, e.g. ba::allocator<T>, or "
                 "rebind yours to T)");
   static_assert(!std::is_same<typename alloc_traits::value_type, T>::value  // else said above
                    || std::is_same<typename alloc_traits::pointer, T *>::value,
                 "ba::vector<T, A>: A::pointer must be T* (fancy pointers are not supported)");

public:
   using value_type = T;
   using allocator_type = A;
   using size_type = typename alloc_traits::size_type;
   using difference_type = typename alloc_traits::difference_type;
   using reference = T &;
   using const_reference = const T &;
   using pointer = T *;
   using const_pointer = const T *;
   using iterator = T *;
   using const_iterator = const T *;
   using reverse_iterator = std::reverse_iterator<iterator>;
   using const_reverse_iterator = std::reverse_iterator<const_iterator>;

   // --- construction, copy, destruction ----------------------------------------------------

   //! Effects: an empty vector with a value-initialized allocator, built in place (no copy or
   //!   move of an allocator). Throws: what A's default constructor throws.
   vector() noexcept(std::is_nothrow_default_constructible<A>::value) : m_() {}
   explicit vector(const A &a) noexcept : m_(a) {}
   //! Effects: n value-initialized elements. Throws: std::length_error beyond max_size().
   explicit vector(size_type n, const A &a = A()) : m_(a)
   {
      detail::value_init_proxy<A, T> p;
      init_n(n, p);
   }
   //! Effects: n copies of value.
   vector(size_type n, const T &value, const A &a = A()) : m_(a)
   {
      detail::copy_value_proxy<A, T> p{std::addressof(value)};
      init_n(n, p);
   }
   //! Effects: copies of [first, last) (one allocation for forward iterators).
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   vector(InputIt first, InputIt last, const A &a = A()) : m_(a)
   {
      init_range(first, last);
   }
   vector(std::initializer_list<T> il, const A &a = A()) : m_(a) { init_range(il.begin(), il.end()); }
   vector(const vector &other) : m_(alloc_traits::select_on_container_copy_construction(other.al()))
   {
      detail::range_proxy<A, T, const T *> p{other.m_.start};
      init_n(other.m_.size, p);
   }
   vector(const vector &other, const A &a) : m_(a)
   {
      detail::range_proxy<A, T, const T *> p{other.m_.start};
      init_n(other.m_.size, p);
   }
   //! Effects: takes other's buffer; other is left empty. Throws: nothing.
   vector(vector &&other) noexcept : m_(std::move(other.al())) { take(other); }
   //! Effects: takes other's buffer when a == other's allocator, else moves its elements.
   vector(vector &&other, const A &a) : m_(a)
   {
      if constexpr (alloc_traits::is_always_equal::value) {
         take(other);
      } else if (al() == other.al()) {
         take(other);
      } else {
         detail::range_proxy<A, T, std::move_iterator<T *>> p{std::make_move_iterator(other.m_.start)};
         init_n(other.m_.size, p);
      }
   }
   ~vector() { release(); }

   //! Copy assignment; the allocator propagates as propagate_on_container_copy_assignment says.
   //! Strong guarantee when a new buffer is needed, basic otherwise (as std::vector); when the
   //! allocator propagates and the two compare unequal, the old elements go first (as in std),
   //! so a throwing copy then leaves the vector empty.
   vector &operator=(const vector &other)
   {
      if (this == &other) return *this;
      if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
         if (!alloc_traits::is_always_equal::value && !(al() == other.al())) release();
         al() = other.al();
      }
      assign_forward(other.m_.start, other.m_.start + other.m_.size, other.m_.size);
      return *this;
   }
   //! Move assignment: takes other's buffer when the allocator propagates or is equal, else
   //! moves the elements one by one.
   vector &operator=(vector &&other) noexcept(alloc_traits::propagate_on_container_move_assignment::value
                                              || alloc_traits::is_always_equal::value)
   {
      if (this == &other) return *this;
      if constexpr (alloc_traits::propagate_on_container_move_assignment::value) {
         release();
         al() = std::move(other.al());
         take(other);
      } else {
         if (alloc_traits::is_always_equal::value || al() == other.al()) {
            release();
            take(other);
         } else {
            assign_forward(std::make_move_iterator(other.m_.start),
                           std::make_move_iterator(other.m_.start + other.m_.size), other.m_.size);
         }
      }
      return *this;
   }
   vector &operator=(std::initializer_list<T> il)
   {
      assign_forward(il.begin(), il.end(), il.size());
      return *this;
   }

   //! Effects: replaces the contents with n copies of value (which may be an element).
   void assign(size_type n, const T &value)
   {
      if (n > m_.cap) {
         vector tmp(n, value, al());
         swap_buffers(tmp);
      } else if (n <= m_.size) {
         std::fill_n(m_.start, n, value);
         shrink_size(n);
      } else {
         std::fill_n(m_.start, m_.size, value);
         detail::copy_value_proxy<A, T> p{std::addressof(value)};
         construct_at_end(n - m_.size, p);
      }
   }
   //! Effects: replaces the contents with [first, last), which is not in *this.
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   void assign(InputIt first, InputIt last)
   {
      if constexpr (detail::is_forward_iterator<InputIt>()) {
         assign_forward(first, last, static_cast<size_type>(std::distance(first, last)));
      } else {
         clear();
         for (; first != last; ++first) emplace_back(*first);
      }
   }
   void assign(std::initializer_list<T> il) { assign_forward(il.begin(), il.end(), il.size()); }

   allocator_type get_allocator() const noexcept { return al(); }

   // --- element access ----------------------------------------------------------------------

   //! Returns: the element at n. Throws: std::out_of_range when n >= size().
   reference at(size_type n)
   {
      if (n >= m_.size) detail::throw_out_of_range("ba::vector::at: index out of range");
      return m_.start[n];
   }
   const_reference at(size_type n) const
   {
      if (n >= m_.size) detail::throw_out_of_range("ba::vector::at: index out of range");
      return m_.start[n];
   }
   //! Requires: n < size() (checked builds report a violation to the diagnostic handler).
   //! Returns: the element at n. Complexity: constant.
   reference operator[](size_type n) noexcept
   {
      BOOST_ALLOCPLUS_INDEX_PRECONDITION(n, m_.size, "ba::vector::operator[]", this);
      return m_.start[n];
   }
   const_reference operator[](size_type n) const noexcept
   {
      BOOST_ALLOCPLUS_INDEX_PRECONDITION(n, m_.size, "ba::vector::operator[]", this);
      return m_.start[n];
   }
   //! Requires: !empty() (checked builds report a violation). Returns: the first element.
   reference front() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::vector::front: the vector is empty", this);
      return *m_.start;
   }
   const_reference front() const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::vector::front: the vector is empty", this);
      return *m_.start;
   }
   //! Requires: !empty() (checked builds report a violation). Returns: the last element.
   reference back() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::vector::back: the vector is empty", this);
      return m_.start[m_.size - 1];
   }
   const_reference back() const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::vector::back: the vector is empty", this);
      return m_.start[m_.size - 1];
   }
   T *data() noexcept { return m_.start; }
   const T *data() const noexcept { return m_.start; }

   // --- iterators ---------------------------------------------------------------------------

   iterator begin() noexcept { return m_.start; }
   const_iterator begin() const noexcept { return m_.start; }
   const_iterator cbegin() const noexcept { return m_.start; }
   iterator end() noexcept { return m_.start + m_.size; }
   const_iterator end() const noexcept { return m_.start + m_.size; }
   const_iterator cend() const noexcept { return m_.start + m_.size; }
   reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
   const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
   const_reverse_iterator crbegin() const noexcept { return const_reverse_iterator(end()); }
   reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
   const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
   const_reverse_iterator crend() const noexcept { return const_reverse_iterator(begin()); }

   // --- capacity ----------------------------------------------------------------------------

   [[nodiscard]] bool empty() const noexcept { return m_.size == 0; }
   size_type size() const noexcept { return m_.size; }
   size_type capacity() const noexcept { return m_.cap; }
   //! Returns: the most elements a vector can hold: the allocator's max_size(), at most
   //!   PTRDIFF_MAX / sizeof(T).
   size_type max_size() const noexcept
   {
      const size_type by_difference =
         static_cast<size_type>(std::numeric_limits<difference_type>::max()) / sizeof(T);
      const size_type by_allocator = alloc_traits::max_size(al());
      return by_allocator < by_difference ? by_allocator : by_difference;
   }

   //! Effects: capacity() >= n afterwards. With a version-2 allocator, asks for exactly n (at
   //!   least) and expands in place when it can; otherwise moves the elements to a new buffer.
   //! Throws: std::length_error when n > max_size(); what the allocator throws; the strong
   //!   guarantee holds (unless a move of a non-copyable T throws, as in std).
   void reserve(size_type n)
   {
      if (n <= m_.cap) return;
      if (n > max_size()) detail::throw_length_error("ba::vector::reserve: n exceeds max_size()");
      detail::no_element_proxy<A, T> none;
      grow_insert(m_.size, 0, none, n, n);
   }

   //! Effects: gives back the capacity beyond size(). With a version-2 allocator the buffer
   //!   shrinks in place (as far as the allocator can cut it): no element moves, no iterator is
   //!   invalidated, and nothing is thrown. With other allocators the elements move to a new
   //!   buffer of size() elements (allocate_at_least), unless it would be no smaller; an empty
   //!   vector frees its buffer.
   //! Throws: with a version-2 allocator nothing; otherwise what the allocation or T's copy
   //!   throws, with no effect.
   void shrink_to_fit()
   {
      if (m_.cap == m_.size) return;
      unannotated guard(*this);
      if (m_.size == 0) {
         free_buffer(m_.start, m_.cap);
         m_.start = nullptr;
         m_.cap = 0;
         return;
      }
      if constexpr (alloc_traits::is_version_2) {
         // At most capacity() - 1: a shrink that cannot cut the block fails (and is not counted).
         size_type received = m_.size;
         T *reuse = m_.start;
         T *const r = alloc_traits::allocation_command(al(), shrink_in_place | nothrow_allocation, m_.cap - 1,
                                                       received, reuse);
         if (r) {
            m_.cap = received;
            BOOST_ALLOCPLUS_VECTOR_COUNT(num_shrink);
         }
      } else {
         allocation_result<T *, size_type> r = alloc_traits::allocate_at_least(al(), m_.size);
         if (r.count >= m_.cap) {
            alloc_traits::deallocate(al(), r.ptr, r.count);
            return;
         }
#if !defined(BOOST_NO_EXCEPTIONS)
         try {
#endif
            detail::transfer_n(al(), m_.start, m_.size, r.ptr);
#if !defined(BOOST_NO_EXCEPTIONS)
         } catch (...) {
            alloc_traits::deallocate(al(), r.ptr, r.count);
            throw;
         }
#endif
         BOOST_ALLOCPLUS_VECTOR_COUNT(num_alloc);
         detail::end_transferred(al(), m_.start, m_.size);
         alloc_traits::deallocate(al(), m_.start, m_.cap);
         m_.start = r.ptr;
         m_.cap = r.count;
      }
   }

   // --- modifiers ---------------------------------------------------------------------------

   //! Effects: destroys every element; the capacity stays. Throws: nothing.
   void clear() noexcept { shrink_size(0); }

   //! Requires (every insert and emplace): pos in [begin(), end()] (checked builds report a
   //!   violation, an iterator of another vector included, to the diagnostic handler).
   //! Effects: inserts a copy of value before pos (value may be an element).
   //! Returns: an iterator to the new element.
   //! Throws: std::length_error beyond max_size(); what the allocator or T throws. Strong
   //!   guarantee at the end, or when T's move cannot throw; basic otherwise (as std).
   iterator insert(const_iterator pos, const T &value)
   {
      check_position(pos, "ba::vector::insert: the position is not in the vector");
      return emplace(pos, value);
   }
   iterator insert(const_iterator pos, T &&value)
   {
      check_position(pos, "ba::vector::insert: the position is not in the vector");
      return emplace(pos, std::move(value));
   }
   //! Effects: inserts n copies of value before pos (value may be an element).
   iterator insert(const_iterator pos, size_type n, const T &value)
   {
      require_move_assignable();
      check_position(pos, "ba::vector::insert: the position is not in the vector");
      detail::copy_value_proxy<A, T> p{std::addressof(value)};
      return insert_n(index_of(pos), n, p);
   }
   //! Effects: inserts [first, last) (not in *this) before pos: with forward iterators in one
   //!   growth step (expanding in place when it can), else one by one at the end and rotated.
   template <class InputIt, class = detail::require_input_iterator<InputIt>>
   iterator insert(const_iterator pos, InputIt first, InputIt last)
   {
      require_move_assignable();
      check_position(pos, "ba::vector::insert: the position is not in the vector");
      const size_type at = index_of(pos);
      if constexpr (detail::is_forward_iterator<InputIt>()) {
         detail::range_proxy<A, T, InputIt> p{first};
         return insert_n(at, static_cast<size_type>(std::distance(first, last)), p);
      } else {
         const size_type old_size = m_.size;
         // What was appended goes on an exception: the contents are as they were.
         append_each(first, last, [&] { shrink_size(old_size); });
         std::rotate(m_.start + at, m_.start + old_size, m_.start + m_.size);
         return m_.start + at;
      }
   }
   iterator insert(const_iterator pos, std::initializer_list<T> il) { return insert(pos, il.begin(), il.end()); }

   //! Effects: inserts T(args...) before pos; args may refer to elements.
   //! Returns: an iterator to the new element. Throws: as insert.
   template <class... Args>
   iterator emplace(const_iterator pos, Args &&...args)
   {
      require_move_assignable();
      check_position(pos, "ba::vector::emplace: the position is not in the vector");
      detail::emplace_proxy<A, T, Args...> p{std::forward_as_tuple(std::forward<Args>(args)...)};
      return insert_n(index_of(pos), 1, p);
   }

   //! Requires: pos in [begin(), end()) (checked builds report a violation, end() and an
   //!   iterator of another vector included, to the diagnostic handler).
   //! Effects: removes the element at pos. Returns: the iterator after it.
   //! Throws: what T's move assignment throws.
   iterator erase(const_iterator pos)
   {
      BOOST_ALLOCPLUS_PRECONDITION(offset_of(pos) < m_.size * sizeof(T),
                                   "ba::vector::erase: the position is not an element of the vector", this);
      return erase(pos, pos + 1);
   }
   //! Requires: begin() <= first <= last <= end() (checked builds report a violation).
   //! Effects: removes [first, last). Returns: the iterator after them.
   iterator erase(const_iterator first, const_iterator last)
   {
      BOOST_ALLOCPLUS_PRECONDITION(offset_of(first) <= offset_of(last) && offset_of(last) <= m_.size * sizeof(T),
                                   "ba::vector::erase: the range is not in the vector", this);
      T *const f = m_.start + (first - m_.start);
      if (first != last) {
         T *const new_end = std::move(m_.start + (last - m_.start), m_.start + m_.size, f);
         shrink_size(static_cast<size_type>(new_end - m_.start));
      }
      return f;
   }

   //! Effects: appends a copy of value (which may be an element). Strong guarantee.
   //! Complexity: amortized constant.
   void push_back(const T &value) { emplace_back(value); }
   void push_back(T &&value) { emplace_back(std::move(value)); }

   //! Effects: appends T(args...) (args may refer to elements). Strong guarantee.
   //! Returns: the new element. Complexity: amortized constant.
   template <class... Args>
   reference emplace_back(Args &&...args)
   {
      // The end computed before the test, from a size read once: GCC then keeps the start in a
      // register across a loop of push_backs, as it does for Boost's (one load fewer each).
      const size_type used = m_.size;
      T *const p = m_.start + used;
      if (used != m_.cap) {
         if constexpr (detail::annotates_containers()) {
            detail::emplace_proxy<A, T, Args...> proxy{std::forward_as_tuple(std::forward<Args>(args)...)};
            construct_at_end(1, proxy);
         } else {
            alloc_traits::construct(al(), p, std::forward<Args>(args)...);
            m_.size = used + 1;
         }
         return *p;
      }
      return *emplace_back_grow(std::forward<Args>(args)...);
   }

   //! Requires: !empty() (checked builds report a violation to the diagnostic handler).
   //! Effects: destroys the last element. Throws: nothing.
   void pop_back() noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(m_.size != 0, "ba::vector::pop_back: the vector is empty", this);
      shrink_size(m_.size - 1);
   }

   //! Effects: value-initialized elements appended, or the last ones destroyed, to make n.
   void resize(size_type n)
   {
      if (n <= m_.size) {
         shrink_size(n);
      } else {
         // Checked here, before any path: GCC 12 otherwise warns (-Warray-bounds) of the
         // construction that a constant n beyond max_size() never reaches.
         if (n > max_size()) detail::throw_length_error("ba::vector::resize: n exceeds max_size()");
         detail::value_init_proxy<A, T> p;
         insert_n(m_.size, n - m_.size, p);
      }
   }
   //! Effects: copies of value (which may be an element) appended, or the last elements
   //!   destroyed, to make n.
   void resize(size_type n, const T &value)
   {
      if (n <= m_.size) {
         shrink_size(n);
      } else {
         if (n > max_size()) detail::throw_length_error("ba::vector::resize: n exceeds max_size()");
         detail::copy_value_proxy<A, T> p{std::addressof(value)};
         insert_n(m_.size, n - m_.size, p);
      }
   }

   //! Effects: exchanges the contents (and the allocators when propagate_on_container_swap).
   //! Throws: nothing.
   void swap(vector &other) noexcept
   {
      if constexpr (alloc_traits::propagate_on_container_swap::value) {
         using std::swap;
         swap(al(), other.al());
      }
      swap_buffers(other);
   }

   // --- allocation statistics (BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS) ----------------------------

   //! Returns: what the vectors of this thread asked of their allocators since the last
   //!   reset_alloc_stats() (all zero unless BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS is defined).
   static vector_alloc_stats alloc_stats() noexcept
   {
#if defined(BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS)
      return detail::thread_vector_alloc_stats();
#else
      return vector_alloc_stats();
#endif
   }
   //! Effects: zeroes the counts of this thread.
   static void reset_alloc_stats() noexcept
   {
#if defined(BOOST_ALLOCPLUS_VECTOR_ALLOC_STATS)
      detail::thread_vector_alloc_stats() = vector_alloc_stats();
#endif
   }
   std::size_t num_alloc() const noexcept { return alloc_stats().num_alloc; }
   std::size_t num_expand_fwd() const noexcept { return alloc_stats().num_expand_fwd; }
   std::size_t num_expand_bwd() const noexcept { return alloc_stats().num_expand_bwd; }
   std::size_t num_shrink() const noexcept { return alloc_stats().num_shrink; }

private:
   //! The allocator (empty-base optimized) and the buffer: elements [start, start + size),
   //! raw memory up to start + cap.
   struct members : A {
      T *start = nullptr;
      size_type size = 0;
      size_type cap = 0;

      //! The allocator value-initialized in place, as std::vector's default constructor does.
      members() noexcept(std::is_nothrow_default_constructible<A>::value) : A() {}
      explicit members(const A &a) noexcept : A(a) {}
      explicit members(A &&a) noexcept : A(std::move(a)) {}
   };

   //! Makes the whole buffer addressable (ASan) for the lifetime of the guard, then marks the
   //! spare capacity of whatever buffer the vector has at its end.
   struct unannotated {
      vector &v;
      explicit unannotated(vector &owner) noexcept : v(owner) { detail::unpoison_buffer(v.m_.start, v.m_.cap); }
      unannotated(const unannotated &) = delete;
      unannotated &operator=(const unannotated &) = delete;
      ~unannotated() { v.annotate_from_scratch(); }
   };

   A &al() noexcept { return m_; }
   const A &al() const noexcept { return m_; }

   //! Whether growth may ask for a backward expansion: only where moving the old elements down
   //! cannot throw (so the strong guarantee survives).
   static constexpr bool may_expand_bwd() noexcept { return detail::relocates_nothrow<T>(); }

   //! The expansions a growth asks for (and the first buffer's command announces, so that the
   //! allocator places it where they can happen): forward, and backward where may_expand_bwd.
   static constexpr allocation_type growth_expansions() noexcept
   {
      return expand_fwd | (may_expand_bwd() ? expand_bwd : 0u);
   }

   //! Whether growth may expand the buffer in place at all: not with
   //! BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE, under which every growth takes a new buffer (and
   //! frees the old one, so AddressSanitizer sees what was kept of it), as std::vector's does.
   static constexpr bool grows_in_place() noexcept
   {
#if defined(BOOST_ALLOCPLUS_VECTOR_ALWAYS_REALLOCATE)
      return false;
#else
      return true;
#endif
   }

   void annotate(size_type old_mid, size_type new_mid) const noexcept
   {
      detail::annotate_contiguous(m_.start, m_.cap, old_mid, new_mid);
   }
   //! For a buffer just received (or after allocator calls on it): ASan marks set anew.
   void annotate_from_scratch() const noexcept { detail::annotate_from_scratch(m_.start, m_.cap, m_.size); }

   size_type index_of(const_iterator pos) const noexcept { return static_cast<size_type>(pos - m_.start); }

   //! Returns: the distance in bytes from begin() to p, as addresses (any pointer, an iterator of
   //!   another vector or a null one too, gives a value: below begin() a huge one), for the checks.
   std::uintptr_t offset_of(const T *p) const noexcept
   {
      return reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(m_.start);
   }

   //! Checked builds: reports `what` unless pos is in [begin(), end()].
   void check_position(const_iterator pos, const char *what) const noexcept
   {
      BOOST_ALLOCPLUS_PRECONDITION(offset_of(pos) <= m_.size * sizeof(T), what, this);
      (void)pos;
      (void)what;
   }

   //! The capacity growth aims for when `limit` elements must fit (or the limit, when more), at
   //! most max_size(): geometric, so push_back is amortized constant. With a version-2
   //! allocator 1.6 times the capacity (as Boost.Container): below the golden ratio, the blocks
   //! a vector freed earlier add up to the next one, so the allocator can expand it backward into
   //! them (with 2, the factor std::vector uses and ours with other allocators, they never do).
   size_type growth_target(size_type limit) const noexcept
   {
      const size_type most = max_size();
      size_type grown;
      // cap * 3 cannot overflow (cap <= PTRDIFF_MAX / 8 * 5): one division where two were.
      if constexpr (alloc_traits::is_version_2)
         grown = m_.cap > most / 8 * 5 ? most : m_.cap + m_.cap * 3 / 5;
      else grown = m_.cap > most / 2 ? most : m_.cap * 2;
      return grown < limit ? limit : grown;
   }

   //! Effects: takes other's buffer (other becomes empty); the allocators are already right.
   void take(vector &other) noexcept
   {
      m_.start = other.m_.start;
      m_.size = other.m_.size;
      m_.cap = other.m_.cap;
      other.m_.start = nullptr;
      other.m_.size = other.m_.cap = 0;
   }

   void swap_buffers(vector &other) noexcept
   {
      std::swap(m_.start, other.m_.start);
      std::swap(m_.size, other.m_.size);
      std::swap(m_.cap, other.m_.cap);
   }

   //! Effects: destroys the elements and frees the buffer; the vector is empty, with no buffer.
   void release() noexcept
   {
      if (!m_.start) return;
      detail::destroy_n(al(), m_.start, m_.size);
      detail::unpoison_buffer(m_.start, m_.cap);
      free_buffer(m_.start, m_.cap);
      m_.start = nullptr;
      m_.size = m_.cap = 0;
   }

   //! Effects: destroys the elements from n on. Requires: n <= size().
   void shrink_size(size_type n) noexcept
   {
      detail::destroy_n(al(), m_.start + n, m_.size - n);
      annotate(m_.size, n);
      m_.size = n;
   }

   //! A new buffer of at least n elements and the elements it holds: allocate + size for a
   //! version-2 allocator (measured: ba::allocator's allocate and size cost 6 ns less than an
   //! allocate_new command, which is 15% of a vector of 10 push_backs), else allocate_at_least.
   allocation_result<T *, size_type> allocate_buffer(size_type n)
   {
      if constexpr (alloc_traits::is_version_2) {
         T *const p = alloc_traits::allocate(al(), n);
         return {p, alloc_traits::size(al(), p)};
      } else {
         return alloc_traits::allocate_at_least(al(), n);
      }
   }

   //! A first buffer of at least n elements for a vector that will grow into it: from a
   //! version-2 allocator an allocate_new command that says so (the expansions the growth will
   //! ask for, as an allocator that masks expand_fwd still sees expand_bwd), which the allocator
   //! may serve from memory that can grow in place (ba::allocator: the heap's top rather than the
   //! thread's cache, where the block would sit between cached blocks; but a small block in a
   //! process with threads comes from the cache); else allocate_buffer.
   allocation_result<T *, size_type> allocate_growable_buffer(size_type n)
   {
      if constexpr (alloc_traits::is_version_2) {
         if (grows_in_place()) {
            T *reuse = nullptr;
            size_type received = n;
            T *const p = alloc_traits::allocation_command(al(), allocate_new | growth_expansions(), n, received, reuse);
            return {p, received};
         }
      }
      return allocate_buffer(n);
   }

   //! Frees buffer p of n elements. With ba::allocator<T, 2> (or another version-2 allocator
   //! over the core), whose growth takes its blocks from the heap itself, the free says so
   //! (detail::inline_allocation_command::deallocate_grown): in a process of one thread a block
   //! the thread's cache has no room for goes back to the heap, where the next growth looks.
   void free_buffer(T *p, size_type n) noexcept
   {
      if constexpr (detail::inline_allocation_command::applies<A> && grows_in_place())
         detail::inline_allocation_command::deallocate_grown(al(), p);
      else
         alloc_traits::deallocate(al(), p, n);
   }

   //! A new buffer of at least n elements (the constructors, assign).
   allocation_result<T *, size_type> new_buffer(size_type n)
   {
      if (n > max_size()) detail::throw_length_error("ba::vector: size exceeds max_size()");
      allocation_result<T *, size_type> r = allocate_buffer(n);
      BOOST_ALLOCPLUS_VECTOR_COUNT(num_alloc);
      return r;
   }

   //! Returns: a new buffer of at least n elements whose first n are built by proxy.
   //! Throws: what the allocation or proxy throws; then nothing is left allocated.
   template <class Proxy>
   allocation_result<T *, size_type> built_buffer(size_type n, Proxy &proxy)
   {
      allocation_result<T *, size_type> r = new_buffer(n);
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         proxy.construct_n(al(), r.ptr, n);
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         alloc_traits::deallocate(al(), r.ptr, r.count);
         throw;
      }
#endif
      return r;
   }

   //! Effects: the vector (without a buffer) takes buffer r holding n elements.
   void adopt(allocation_result<T *, size_type> r, size_type n) noexcept
   {
      m_.start = r.ptr;
      m_.size = n;
      m_.cap = r.count;
      annotate_from_scratch();
   }

   //! Effects (construction): a buffer of n elements built by proxy; on an exception it is
   //!   freed (the destructor does not run).
   template <class Proxy>
   void init_n(size_type n, Proxy &proxy)
   {
      if (n != 0) adopt(built_buffer(n, proxy), n);
   }

   template <class InputIt>
   void init_range(InputIt first, InputIt last)
   {
      if constexpr (detail::is_forward_iterator<InputIt>()) {
         detail::range_proxy<A, T, InputIt> p{first};
         init_n(static_cast<size_type>(std::distance(first, last)), p);
      } else {
         append_each(first, last, [&] { release(); });
      }
   }

   //! Effects: emplace_back(*it) for each it in [first, last) (input iterators: one pass); if
   //!   one throws, undo() runs before the exception leaves.
   template <class InputIt, class Undo>
   void append_each(InputIt first, InputIt last, Undo undo)
   {
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         for (; first != last; ++first) emplace_back(*first);
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         undo();
         throw;
      }
#else
      (void)undo;
#endif
   }

   //! Effects: the contents become [first, last) (n elements): in a new buffer built before the
   //!   old one is freed when n > capacity(), else by assignment and construction in place.
   template <class It>
   void assign_forward(It first, It last, size_type n)
   {
      if (n > m_.cap) {
         detail::range_proxy<A, T, It> p{first};
         const allocation_result<T *, size_type> r = built_buffer(n, p);
         release();
         adopt(r, n);
      } else if (n <= m_.size) {
         T *const new_end = std::copy(first, last, m_.start);
         shrink_size(static_cast<size_type>(new_end - m_.start));
      } else {
         It mid = first;
         std::advance(mid, m_.size);
         std::copy(first, mid, m_.start);
         detail::range_proxy<A, T, It> p{mid};
         construct_at_end(n - m_.size, p);
      }
      (void)last;
   }

   //! Requires: n <= capacity() - size(). Effects: builds n elements at the end (strong
   //!   guarantee), annotating them addressable first.
   template <class Proxy>
   void construct_at_end(size_type n, Proxy &proxy)
   {
      annotate(m_.size, m_.size + n);
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         proxy.construct_n(al(), m_.start + m_.size, n);
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         annotate(m_.size + n, m_.size);
         throw;
      }
#endif
      m_.size += n;
   }

   //! Inserts n elements of proxy at index at; returns them.
   template <class Proxy>
   T *insert_n(size_type at, size_type n, Proxy &proxy)
   {
      if (n <= m_.cap - m_.size) {
         construct_at_end(n, proxy);
         rotate_into_place(at, n);
         return m_.start + at;
      }
      if (n > max_size() - m_.size) detail::throw_length_error("ba::vector: size() + n exceeds max_size()");
      return grow_insert(at, n, proxy, m_.size + n, growth_target(m_.size + n));
   }

   //! Effects: the n elements just built at the end move to index at, the ones after at move
   //!   up (basic guarantee: every element stays valid). The values were read before anything
   //!   moved, so they may have come from elements.
   void rotate_into_place(size_type at, size_type n)
   {
      T *const first = m_.start + at;
      T *const mid = m_.start + (m_.size - n);
      if (first == mid) return;
      // Appends (push_back, resize, reserve) never get here, and need no assignment of T (as
      // std); the insertions that do get here require it (require_move_assignable).
      if constexpr (std::is_move_assignable<T>::value) {
         if (n == 1) {
            T value(std::move(*mid));
            std::move_backward(first, mid, mid + 1);
            *first = std::move(value);
         } else {
            std::rotate(first, mid, m_.start + m_.size);
         }
      }
   }

   //! What std requires of T for an insertion before any position (emplace, insert).
   static constexpr void require_move_assignable() noexcept
   {
      static_assert(std::is_move_assignable<T>::value,
                    "ba::vector: insert and emplace need a move-assignable T (push_back and emplace_back do not)");
   }

   //! The slow path of emplace_back: growth, kept out of line so the fast path stays small.
   template <class... Args>
   BOOST_NOINLINE T *emplace_back_grow(Args &&...args)
   {
      if (m_.size == max_size()) detail::throw_length_error("ba::vector: size() + 1 exceeds max_size()");
      detail::emplace_proxy<A, T, Args...> p{std::forward_as_tuple(std::forward<Args>(args)...)};
      return grow_insert(m_.size, 1, p, m_.size + 1, growth_target(m_.size + 1));
   }

   //! Requires: size() + n > capacity(); limit (size() + n at least) <= preferred <= max_size().
   //! Effects: one allocation_command for at least `limit` elements, `preferred` if possible:
   //!   forward expansion (then the insertion happens in place), backward expansion (the
   //!   elements move down, around the gap for the new ones), or a new buffer (the new elements
   //!   are built first, then the old ones moved over). The capacity is the size received.
   //! Returns: the first new element.
   //! Throws: what the allocator throws (nothing changed); what building the new elements
   //!   throws (the contents unchanged; with an expansion the capacity may have grown).
   template <class Proxy>
   T *grow_insert(size_type at, size_type n, Proxy &proxy, size_type limit, size_type preferred)
   {
      unannotated guard(*this);
      T *const old = m_.start;
      if (!old) {
         // Nothing to expand (and preferred == limit: the capacity is 0): a new buffer.
         BOOST_ALLOCPLUS_VECTOR_COUNT(num_alloc);
         const allocation_result<T *, size_type> b = allocate_growable_buffer(preferred);
         return insert_into_new(b.ptr, b.count, at, n, proxy);
      }
      T *reuse = old;
      size_type received = preferred;
      allocation_type command = allocate_new;
      if (alloc_traits::is_version_2 && grows_in_place())
         command |= growth_expansions();
      T *const r = alloc_traits::allocation_command(al(), command, limit, received, reuse);
      if (reuse) {
         if (r == old) {
            BOOST_ALLOCPLUS_VECTOR_COUNT(num_expand_fwd);
            m_.cap = received;
            proxy.construct_n(al(), m_.start + m_.size, n);
            m_.size += n;
            rotate_into_place(at, n);
            return m_.start + at;
         }
         if constexpr (may_expand_bwd()) {
            BOOST_ALLOCPLUS_VECTOR_COUNT(num_expand_bwd);
            return insert_after_bwd(r, received, at, n, proxy);
         }
      }
      BOOST_ALLOCPLUS_VECTOR_COUNT(num_alloc);
      return insert_into_new(r, received, at, n, proxy);
   }

   //! After a backward expansion to block r of `received` elements: the old elements are still
   //! where they were, `gap` elements from r. They move down (nothrow) around a hole of n at
   //! index at, where the new ones are built; if that throws, the hole closes again.
   template <class Proxy>
   T *insert_after_bwd(T *r, size_type received, size_type at, size_type n, Proxy &proxy)
   {
      T *const old = m_.start;
      const size_type count = m_.size;
      const size_type gap = static_cast<size_type>(old - r);
      m_.start = r;
      m_.cap = received;
      bool moved = false;
#if !defined(BOOST_NO_EXCEPTIONS)
      try {
#endif
         // The values to insert may be elements about to move: stable() copies them first.
         proxy.stable(al(), old, old + count, [&](auto &source) {
            moved = true;
            detail::relocate_within(al(), r + gap, r, at);
            detail::relocate_within(al(), r + gap + at, r + at + n, count - at);
#if !defined(BOOST_NO_EXCEPTIONS)
            try {
#endif
               source.construct_n(al(), r + at, n);
#if !defined(BOOST_NO_EXCEPTIONS)
            } catch (...) {
               detail::relocate_within(al(), r + at + n, r + at, count - at);
               throw;
            }
#endif
         });
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         if (!moved) detail::relocate_within(al(), r + gap, r, count);
         throw;
      }
#else
      (void)moved;
#endif
      m_.size = count + n;
      return r + at;
   }

   //! After allocation_command gave a new block r of `received` elements: the new elements are
   //! built first (while the values they come from are intact), then the old ones are moved
   //! (or copied, when T's move may throw and T can be copied) around them; on an exception
   //! everything built is destroyed, r freed, and the old buffer is as it was.
   template <class Proxy>
   T *insert_into_new(T *r, size_type received, size_type at, size_type n, Proxy &proxy)
   {
      T *const old = m_.start;
      const size_type count = m_.size;
#if !defined(BOOST_NO_EXCEPTIONS)
      int built = 0;   // 1: the new elements, 2: and those before them
      try {
#endif
         proxy.construct_n(al(), r + at, n);
#if !defined(BOOST_NO_EXCEPTIONS)
         built = 1;
#endif
         // An append has nothing after `at`, a first buffer nothing at all: transfer_n is a call
         // (GCC keeps its unrolled loop out of line), and two calls with nothing to do made the
         // 10-element rows 3-5% slower (measured, backward-expansion table).
         if (at != 0) detail::transfer_n(al(), old, at, r);
#if !defined(BOOST_NO_EXCEPTIONS)
         built = 2;
#endif
         if (count != at) detail::transfer_n(al(), old + at, count - at, r + at + n);
#if !defined(BOOST_NO_EXCEPTIONS)
      } catch (...) {
         if (built >= 1) detail::destroy_n(al(), r + at, n);
         if (built == 2) detail::destroy_n(al(), r, at);
         free_buffer(r, received);
         throw;
      }
#endif
      if (old) {
         detail::end_transferred(al(), old, count);
         free_buffer(old, m_.cap);
      }
      m_.start = r;
      m_.size = count + n;
      m_.cap = received;
      return r + at;
   }

   members m_;
};

//! Deduction from an iterator range: vector(first, last[, alloc]).
template <class InputIt, class Alloc = allocator<typename std::iterator_traits<InputIt>::value_type>,
          class = detail::require_input_iterator<InputIt>>
vector(InputIt, InputIt, Alloc = Alloc()) -> vector<typename std::iterator_traits<InputIt>::value_type, Alloc>;

template <class T, class A>
bool operator==(const vector<T, A> &x, const vector<T, A> &y)
{
   return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}
template <class T, class A>
bool operator!=(const vector<T, A> &x, const vector<T, A> &y)
{
   return !(x == y);
}
template <class T, class A>
bool operator<(const vector<T, A> &x, const vector<T, A> &y)
{
   return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
}
template <class T, class A>
bool operator>(const vector<T, A> &x, const vector<T, A> &y)
{
   return y < x;
}
template <class T, class A>
bool operator<=(const vector<T, A> &x, const vector<T, A> &y)
{
   return !(y < x);
}
template <class T, class A>
bool operator>=(const vector<T, A> &x, const vector<T, A> &y)
{
   return !(x < y);
}

//! Effects: x.swap(y).
template <class T, class A>
void swap(vector<T, A> &x, vector<T, A> &y) noexcept(noexcept(x.swap(y)))
{
   x.swap(y);
}

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_VECTOR_HPP
