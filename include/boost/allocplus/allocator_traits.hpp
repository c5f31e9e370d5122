// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ALLOCATOR_TRAITS_HPP
#define BOOST_ALLOCPLUS_ALLOCATOR_TRAITS_HPP

// ba::allocator_traits<A>: std::allocator_traits plus every operation of a version-2 allocator,
// for every allocator. A version-2 allocator (a nested `version` whose ::value is 2, as
// Boost.Container reads it) is called directly; any other allocator gets a fallback
// (allocation_command = allocate a new block, allocate_individual = a loop, allocate_at_least =
// allocate), so a container is written once against these traits.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/config.hpp>

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#if defined(__has_include)
#  if __has_include(<version>)
#    include <version>
#  endif
#endif

namespace boost { namespace allocplus {

#if defined(__cpp_lib_allocate_at_least)
//! The result of allocate_at_least: the block and how many objects it holds (count is at least
//! what was asked for). C++23's std::allocation_result where the library has it.
template <class Pointer, class SizeType = std::size_t>
using allocation_result = std::allocation_result<Pointer, SizeType>;
#else
//! The result of allocate_at_least: the block and how many objects it holds (count is at least
//! what was asked for). C++23's std::allocation_result, for libraries that lack it.
template <class Pointer, class SizeType = std::size_t>
struct allocation_result {
   Pointer ptr;
   SizeType count;
};
#endif

namespace detail {

template <class A, class = void>
struct version_of : std::integral_constant<unsigned, 1> {};
template <class A>
struct version_of<A, std::void_t<typename A::version>>
   : std::integral_constant<unsigned, static_cast<unsigned>(A::version::value)> {};

template <class A, class = void>
struct has_member_allocate_at_least : std::false_type {};
template <class A>
struct has_member_allocate_at_least<
   A, std::void_t<decltype(std::declval<A &>().allocate_at_least(std::size_t()))>> : std::true_type {};

template <class A, class ValueType, class = void>
struct chain_of { using type = multiallocation_chain<ValueType>; };
template <class A, class ValueType>
struct chain_of<A, ValueType, std::void_t<typename A::multiallocation_chain>> {
   using type = typename A::multiallocation_chain;
};

template <class T, class Source, unsigned Version, unsigned DisableMask>
class core_allocator_base;

//! The version-2 allocators over the core (ba::allocator, ba::heap_allocator) with their
//! growth's short paths inline: what ba::allocator_traits::allocation_command calls for them.
//! Their public allocation_command calls the core for growth (see core_allocator_base).
//! Only for A whose allocation_command is the base's own, reachable and of version 2: a type
//! derived from ours that redeclares allocation_command, hides the base, or says version 1 gets
//! its own member, as any allocator does.
struct inline_allocation_command {
   template <class A, class = void>
   struct applies_to : std::false_type {};
   template <class A>
   struct applies_to<A, std::void_t<typename A::core_allocator_type, decltype(&A::allocation_command)>>
      : std::integral_constant<bool,
           std::is_convertible<A *, typename A::core_allocator_type *>::value
           && std::is_same<decltype(&A::allocation_command),
                           decltype(&A::core_allocator_type::allocation_command)>::value
           && version_of<A>::value == 2> {};
   template <class A>
   static constexpr bool applies = applies_to<A>::value;

   template <class T, class Source, unsigned DisableMask>
   BOOST_FORCEINLINE static T *call(core_allocator_base<T, Source, 2, DisableMask> &a, unsigned command,
                                    std::size_t limit, std::size_t &prefer_in_received_out, T *&reuse)
   {
      return a.template command_with_paths<true>(command, limit, prefer_in_received_out, reuse);
   }
   //! Frees p, a buffer grown through call (core_allocator_base::deallocate_grown).
   template <class T, class Source, unsigned DisableMask>
   static void deallocate_grown(core_allocator_base<T, Source, 2, DisableMask> &a, T *p) noexcept
   {
      a.deallocate_grown(p);
   }
};

template <class T>
T *to_raw_pointer(T *p) noexcept { return p; }
template <class Pointer>
auto to_raw_pointer(const Pointer &p) noexcept { return to_raw_pointer(p.operator->()); }

} // namespace detail

//! The version of allocator A: A::version::value when A has a nested `version`, else 1.
template <class A>
struct allocator_version : detail::version_of<A> {};

template <class A>
inline constexpr unsigned allocator_version_v = allocator_version<A>::value;

//! std::allocator_traits<A> (every member of it), plus the version-2 interface for every A.
template <class A>
struct allocator_traits : std::allocator_traits<A> {
private:
   using std_traits = std::allocator_traits<A>;

public:
   using allocator_type = A;
   using value_type = typename std_traits::value_type;
   using pointer = typename std_traits::pointer;
   using size_type = typename std_traits::size_type;
   //! std::integral_constant<unsigned, 1 or 2>.
   using version = std::integral_constant<unsigned, allocator_version<A>::value>;
   static constexpr bool is_version_2 = version::value >= 2;
   //! A::multiallocation_chain, else ba::multiallocation_chain<value_type>.
   using multiallocation_chain = typename detail::chain_of<A, value_type>::type;

   template <class U>
   using rebind_alloc = typename std_traits::template rebind_alloc<U>;
   template <class U>
   using rebind_traits = allocator_traits<rebind_alloc<U>>;

   //! Returns: a.allocate_at_least(n) when A has it, else {a.allocate(n), n}.
   //! Throws: what A's allocation throws.
   [[nodiscard]] static allocation_result<pointer, size_type> allocate_at_least(A &a, size_type n)
   {
      if constexpr (detail::has_member_allocate_at_least<A>::value) {
         auto r = a.allocate_at_least(n);
         return {r.ptr, static_cast<size_type>(r.count)};
      } else {
         return {std_traits::allocate(a, n), n};
      }
   }

   //! Effects: a.allocation_command(...) for a version-2 allocator (for ba::allocator and
   //!   ba::heap_allocator, the same command with its growth's short paths inline). Otherwise: a shrink or a
   //!   command without allocate_new fails; else a new block of prefer_in_received_out objects
   //!   (of limit objects if that fails) is allocated with allocate_at_least, its count is written
   //!   to prefer_in_received_out, and reuse becomes null (a new block is never `reuse`).
   //! Returns: the block, or null on failure with nothrow_allocation.
   //! Throws: std::bad_alloc (or what A's allocation throws) on failure without nothrow_allocation.
   //! (Forced inline: a forwarding layer between a container and the allocator's short paths.)
   [[nodiscard]] BOOST_FORCEINLINE static pointer allocation_command(A &a, allocation_type command, size_type limit,
                                                                     size_type &prefer_in_received_out,
                                                                     pointer &reuse)
   {
      if constexpr (detail::inline_allocation_command::applies<A>) {
         return detail::inline_allocation_command::call(a, command, limit, prefer_in_received_out, reuse);
      } else if constexpr (is_version_2) {
         return a.allocation_command(command, limit, prefer_in_received_out, reuse);
      } else {
         reuse = pointer();
         if ((command & (shrink_in_place | try_shrink_in_place)) || !(command & allocate_new)) {
            if (command & nothrow_allocation) return pointer();
            detail::throw_bad_alloc();
         }
         const size_type preferred = prefer_in_received_out < limit ? limit : prefer_in_received_out;
         allocation_result<pointer, size_type> r{pointer(), 0};
#if !defined(BOOST_NO_EXCEPTIONS)
         try {
            r = allocate_at_least(a, preferred);
         } catch (...) {
            if (limit < preferred) {
               try {
                  r = allocate_at_least(a, limit);
               } catch (...) {
                  if (command & nothrow_allocation) return pointer();
                  throw;
               }
            } else {
               if (command & nothrow_allocation) return pointer();
               throw;
            }
         }
#else
         r = allocate_at_least(a, preferred);
#endif
         if constexpr (!std::is_void<value_type>::value) {
            if (command & zero_memory)
               std::memset(static_cast<void *>(detail::to_raw_pointer(r.ptr)), 0, r.count * sizeof(value_type));
         }
         prefer_in_received_out = r.count;
         return r.ptr;
      }
   }

   //! Returns: the objects block p holds (a.size(p)). Version-2 allocators only: a version-1
   //!   allocator does not know the size of its blocks.
   static size_type size(const A &a, pointer p) noexcept
   {
      static_assert(is_version_2, "ba::allocator_traits::size needs a version-2 allocator");
      return a.size(p);
   }

   //! Returns: a block for one object (a.allocate_one(), else a.allocate(1)). Throws: bad_alloc.
   [[nodiscard]] static pointer allocate_one(A &a)
   {
      if constexpr (is_version_2) return a.allocate_one();
      else return std_traits::allocate(a, 1);
   }

   //! Effects: frees a block of allocate_one (a.deallocate_one(p), else a.deallocate(p, 1)).
   static void deallocate_one(A &a, pointer p) noexcept
   {
      if constexpr (is_version_2) a.deallocate_one(p);
      else std_traits::deallocate(a, p, 1);
   }

   //! Effects: adds n blocks of one object each to `chain` (a.allocate_individual(n, chain), else n
   //!   allocate(1) calls). Each is freed with deallocate_one or deallocate_individual.
   //! Throws: bad_alloc, with `chain` as it was (strong guarantee).
   static void allocate_individual(A &a, size_type n, multiallocation_chain &chain)
   {
      if constexpr (is_version_2) {
         a.allocate_individual(n, chain);
      } else {
         static_assert(sizeof(value_type) >= sizeof(void *) && alignof(value_type) >= alignof(void *),
                       "a node of a burst must be able to hold the chain's link");
         // Pushed to the front so that, on failure, the new nodes are the first i ones.
         size_type i = 0;
#if !defined(BOOST_NO_EXCEPTIONS)
         try {
#endif
            for (; i != n; ++i) chain.push_front(detail::to_raw_pointer(std_traits::allocate(a, 1)));
#if !defined(BOOST_NO_EXCEPTIONS)
         } catch (...) {
            while (i--) std_traits::deallocate(a, as_pointer(chain.pop_front()), 1);
            throw;
         }
#endif
      }
   }

   //! Effects: frees every block of `chain` (from allocate_one or allocate_individual); leaves it
   //!   empty.
   static void deallocate_individual(A &a, multiallocation_chain &chain) noexcept
   {
      if constexpr (is_version_2) {
         a.deallocate_individual(chain);
      } else {
         while (!chain.empty()) std_traits::deallocate(a, as_pointer(chain.pop_front()), 1);
      }
   }

   //! Effects: a.allocate_many(elem_size, n, chain): n blocks of elem_size objects. Version-2
   //!   allocators only (a version-1 deallocate needs each block's size).
   static void allocate_many(A &a, size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      static_assert(is_version_2, "ba::allocator_traits::allocate_many needs a version-2 allocator");
      a.allocate_many(elem_size, n, chain);
   }

   //! Effects: a.allocate_many(elem_sizes, n, chain): block i holds elem_sizes[i] objects.
   //!   Version-2 allocators only.
   static void allocate_many(A &a, const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      static_assert(is_version_2, "ba::allocator_traits::allocate_many needs a version-2 allocator");
      a.allocate_many(elem_sizes, n, chain);
   }

   //! Effects: a.deallocate_many(chain). Version-2 allocators only.
   static void deallocate_many(A &a, multiallocation_chain &chain) noexcept
   {
      static_assert(is_version_2, "ba::allocator_traits::deallocate_many needs a version-2 allocator");
      a.deallocate_many(chain);
   }

private:
   // A chain holds raw pointers (or A's own pointers, for A's own chain type).
   static pointer as_pointer(pointer p) noexcept { return p; }
   template <class P, class = std::enable_if_t<!std::is_same<P, pointer>::value>>
   static pointer as_pointer(P *p) noexcept { return std::pointer_traits<pointer>::pointer_to(*p); }
};

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ALLOCATOR_TRAITS_HPP
