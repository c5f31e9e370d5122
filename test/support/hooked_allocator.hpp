// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_HOOKED_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_HOOKED_ALLOCATOR_HPP

// The one adaptor under the test kit's counting_allocator and failing_allocator: it forwards the
// whole interface of an inner allocator A (version 1 or 2, through ba::allocator_traits, so a
// version-1 A gets the traits' fallbacks) and calls a Hooks policy around every call:
//
//   struct Hooks {
//      using state_type = ...;                        // shared by copies and rebinds
//      static state_type &default_state();            // for default-constructed adaptors
//      static bool fail_now(state_type &);            // before a call that may allocate: fail it?
//      static void allocated(state_type &, n);        // n new blocks (allocate*, new by command)
//      static void deallocated(state_type &, n);      // n blocks given back
//      static void command_done(state_type &, command, old reuse, result, reuse after);
//      static void burst_allocated(state_type &, nodes);
//      static void burst_deallocated(state_type &, nodes);
//   };
//
// The adaptor has the version of A, its propagation traits, and compares equal to another when
// both share the state and their inner allocators are equal.

#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator_traits.hpp>

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

namespace allocplus_test {

namespace ba = boost::allocplus;

//! Hooks that do nothing; derive a policy from it and hide what it needs.
template <class State>
struct null_hooks {
   using state_type = State;
   static bool fail_now(State &) { return false; }
   static void allocated(State &, std::size_t) {}
   static void deallocated(State &, std::size_t) {}
   static void command_done(State &, ba::allocation_type, const void *, const void *, const void *) {}
   static void burst_allocated(State &, std::size_t) {}
   static void burst_deallocated(State &, std::size_t) {}
};

template <class A, class Hooks>
class hooked_allocator {
   using inner_traits = ba::allocator_traits<A>;

   template <class, class>
   friend class hooked_allocator;

public:
   using inner_allocator_type = A;
   using state_type = typename Hooks::state_type;
   using value_type = typename inner_traits::value_type;
   using pointer = typename inner_traits::pointer;
   using const_pointer = typename inner_traits::const_pointer;
   using void_pointer = typename inner_traits::void_pointer;
   using const_void_pointer = typename inner_traits::const_void_pointer;
   using size_type = typename inner_traits::size_type;
   using difference_type = typename inner_traits::difference_type;
   using version = std::integral_constant<unsigned, ba::allocator_version<A>::value>;
   using multiallocation_chain = typename inner_traits::multiallocation_chain;

   using propagate_on_container_copy_assignment = typename inner_traits::propagate_on_container_copy_assignment;
   using propagate_on_container_move_assignment = typename inner_traits::propagate_on_container_move_assignment;
   using propagate_on_container_swap = typename inner_traits::propagate_on_container_swap;
   using is_always_equal = std::false_type;

   template <class U>
   struct rebind {
      using other = hooked_allocator<typename inner_traits::template rebind_alloc<U>, Hooks>;
   };

   //! An adaptor over a default-constructed A, reporting to Hooks::default_state().
   template <class B = A, class = std::enable_if_t<std::is_default_constructible<B>::value>>
   hooked_allocator() : inner_(), state_(&Hooks::default_state())
   {}
   explicit hooked_allocator(state_type &s) : inner_(), state_(&s) {}
   hooked_allocator(state_type &s, const A &inner) : inner_(inner), state_(&s) {}
   template <class B>
   hooked_allocator(const hooked_allocator<B, Hooks> &other) : inner_(other.inner_), state_(other.state_)
   {}

   A &inner() noexcept { return inner_; }
   const A &inner() const noexcept { return inner_; }
   state_type &state() const noexcept { return *state_; }

   [[nodiscard]] pointer allocate(size_type n)
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      pointer p = inner_traits::allocate(inner_, n);
      Hooks::allocated(*state_, 1);
      return p;
   }
   void deallocate(pointer p, size_type n) noexcept
   {
      Hooks::deallocated(*state_, 1);
      inner_traits::deallocate(inner_, p, n);
   }
   [[nodiscard]] ba::allocation_result<pointer, size_type> allocate_at_least(size_type n)
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      ba::allocation_result<pointer, size_type> r = inner_traits::allocate_at_least(inner_, n);
      Hooks::allocated(*state_, 1);
      return r;
   }
   size_type max_size() const noexcept { return inner_traits::max_size(inner_); }
   hooked_allocator select_on_container_copy_construction() const
   {
      return hooked_allocator(*state_, inner_traits::select_on_container_copy_construction(inner_));
   }

   // The version-2 interface (used when A is version 2; for a version-1 A the traits fall back).

   [[nodiscard]] pointer allocation_command(ba::allocation_type command, size_type limit,
                                            size_type &prefer_in_received_out, pointer &reuse)
   {
      const pointer old = reuse;
      const bool may_allocate = (command & (ba::allocate_new | ba::expand_fwd | ba::expand_bwd))
                                && !(command & (ba::shrink_in_place | ba::try_shrink_in_place));
      if (may_allocate && Hooks::fail_now(*state_)) {
         if constexpr (version::value >= 2) prefer_in_received_out = reuse ? inner_traits::size(inner_, reuse) : 0;
         reuse = pointer();
         Hooks::command_done(*state_, command, old, nullptr, nullptr);
         if (command & ba::nothrow_allocation) return pointer();
         throw std::bad_alloc();
      }
      pointer r;
      try {
         r = inner_traits::allocation_command(inner_, command, limit, prefer_in_received_out, reuse);
      } catch (...) {
         Hooks::command_done(*state_, command, old, nullptr, nullptr);
         throw;
      }
      Hooks::command_done(*state_, command, old, r, reuse);
      return r;
   }
   size_type size(pointer p) const noexcept { return inner_traits::size(inner_, p); }
   [[nodiscard]] pointer allocate_one()
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      pointer p = inner_traits::allocate_one(inner_);
      Hooks::allocated(*state_, 1);
      return p;
   }
   void deallocate_one(pointer p) noexcept
   {
      Hooks::deallocated(*state_, 1);
      inner_traits::deallocate_one(inner_, p);
   }
   void allocate_individual(size_type n, multiallocation_chain &chain)
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      inner_traits::allocate_individual(inner_, n, chain);
      Hooks::burst_allocated(*state_, n);
   }
   void deallocate_individual(multiallocation_chain &chain) noexcept
   {
      Hooks::burst_deallocated(*state_, chain.size());
      inner_traits::deallocate_individual(inner_, chain);
   }
   void allocate_many(size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      inner_traits::allocate_many(inner_, elem_size, n, chain);
      Hooks::burst_allocated(*state_, n);
   }
   void allocate_many(const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      if (Hooks::fail_now(*state_)) throw std::bad_alloc();
      inner_traits::allocate_many(inner_, elem_sizes, n, chain);
      Hooks::burst_allocated(*state_, n);
   }
   void deallocate_many(multiallocation_chain &chain) noexcept
   {
      Hooks::burst_deallocated(*state_, chain.size());
      inner_traits::deallocate_many(inner_, chain);
   }

   template <class B>
   friend bool operator==(const hooked_allocator &a, const hooked_allocator<B, Hooks> &b) noexcept
   {
      return &a.state() == &b.state() && a.inner() == b.inner();
   }
   template <class B>
   friend bool operator!=(const hooked_allocator &a, const hooked_allocator<B, Hooks> &b) noexcept
   {
      return !(a == b);
   }

private:
   A inner_;
   state_type *state_;
};

} // namespace allocplus_test

#endif
