// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_STATEFUL_ALLOCATOR_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_STATEFUL_ALLOCATOR_HPP

// stateful_allocator<T, Propagate, Version>: an allocator with an identity (an int id). Two
// instances compare equal iff they have the same id; every block is registered with the id that
// allocated it, and freeing it through an allocator of another id is counted as a mismatch (what
// a container that ignores propagation does). Propagate sets propagate_on_container_copy_assignment,
// _move_assignment and _swap alike. Version 2 adds the version-2 interface (memory from the C
// core through ba::allocator<T, 2>), so containers that use expansion and bursts can be tested
// for propagation too.
//
//   propagating_allocator<int> a(1);           // ids 1 and 2 are unequal
//   non_propagating_allocator<int, 2> b(2);
//   ... BOOST_TEST(stateful_registry::instance().mismatches() == 0);

#include <boost/allocplus/allocation_command.hpp>
#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/multiallocation_chain.hpp>

#include <cstddef>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace allocplus_test {

namespace ba = boost::allocplus;

//! Which id owns which block, for every stateful_allocator of the process.
class stateful_registry {
public:
   static stateful_registry &instance()
   {
      static stateful_registry r;
      return r;
   }

   void add(const void *p, int id)
   {
      std::lock_guard<std::mutex> lock(mutex_);
      owners_[p] = id;
   }
   //! Effects: forgets p; a p unknown or owned by another id counts as a mismatch.
   void remove(const void *p, int id)
   {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = owners_.find(p);
      if (it == owners_.end() || it->second != id) ++mismatches_;
      if (it != owners_.end()) owners_.erase(it);
   }
   //! Effects: block `from` is now at `to` (a backward expansion).
   void move(const void *from, const void *to, int id)
   {
      remove(from, id);
      add(to, id);
   }
   std::size_t mismatches() const
   {
      std::lock_guard<std::mutex> lock(mutex_);
      return mismatches_;
   }
   //! Returns: the blocks of id that are still allocated.
   std::size_t live(int id) const
   {
      std::lock_guard<std::mutex> lock(mutex_);
      std::size_t n = 0;
      for (const auto &entry : owners_) n += entry.second == id;
      return n;
   }
   void reset_mismatches()
   {
      std::lock_guard<std::mutex> lock(mutex_);
      mismatches_ = 0;
   }

private:
   mutable std::mutex mutex_;
   std::unordered_map<const void *, int> owners_;
   std::size_t mismatches_ = 0;
};

template <class T, bool Propagate, unsigned Version = 1>
class stateful_allocator {
   static_assert(Version == 1 || Version == 2, "stateful_allocator has version 1 or 2");
   using engine = ba::allocator<T, 2>;

   template <class, bool, unsigned>
   friend class stateful_allocator;

public:
   using value_type = T;
   using size_type = std::size_t;
   using difference_type = std::ptrdiff_t;
   using version = std::integral_constant<unsigned, Version>;
   using multiallocation_chain = ba::multiallocation_chain<T>;
   using propagate_on_container_copy_assignment = std::integral_constant<bool, Propagate>;
   using propagate_on_container_move_assignment = std::integral_constant<bool, Propagate>;
   using propagate_on_container_swap = std::integral_constant<bool, Propagate>;
   using is_always_equal = std::false_type;

   template <class U>
   struct rebind {
      using other = stateful_allocator<U, Propagate, Version>;
   };

   explicit stateful_allocator(int id = 0) noexcept : id_(id) {}
   template <class U>
   stateful_allocator(const stateful_allocator<U, Propagate, Version> &other) noexcept : id_(other.id_)
   {}

   int id() const noexcept { return id_; }

   [[nodiscard]] T *allocate(size_type n) { return enrol(engine().allocate(n)); }
   void deallocate(T *p, size_type n) noexcept
   {
      registry().remove(p, id_);
      engine().deallocate(p, n);
   }
   size_type max_size() const noexcept { return engine().max_size(); }

   // Version 2 (used by containers only when Version == 2).

   [[nodiscard]] T *allocation_command(ba::allocation_type command, size_type limit, size_type &prefer_in_received_out,
                                       T *&reuse)
   {
      T *const old = reuse;
      T *r = engine().allocation_command(command, limit, prefer_in_received_out, reuse);
      if (r && !reuse) registry().add(r, id_);
      else if (r && r != old) registry().move(old, r, id_);
      return r;
   }
   size_type size(T *p) const noexcept { return engine().size(p); }
   [[nodiscard]] T *allocate_one() { return enrol(engine().allocate_one()); }
   void deallocate_one(T *p) noexcept { deallocate(p, 1); }
   void allocate_individual(size_type n, multiallocation_chain &chain) { allocate_many(1, n, chain); }
   void deallocate_individual(multiallocation_chain &chain) noexcept { deallocate_many(chain); }
   void allocate_many(size_type elem_size, size_type n, multiallocation_chain &chain)
   {
      multiallocation_chain got;
      engine().allocate_many(elem_size, n, got);
      enrol_all(got, chain);
   }
   void allocate_many(const size_type *elem_sizes, size_type n, multiallocation_chain &chain)
   {
      multiallocation_chain got;
      engine().allocate_many(elem_sizes, n, got);
      enrol_all(got, chain);
   }
   void deallocate_many(multiallocation_chain &chain) noexcept
   {
      for (auto it = chain.begin(); it != chain.end(); ++it) registry().remove(&*it, id_);
      engine().deallocate_many(chain);
   }

   template <class U>
   friend bool operator==(const stateful_allocator &a, const stateful_allocator<U, Propagate, Version> &b) noexcept
   {
      return a.id() == b.id();
   }
   template <class U>
   friend bool operator!=(const stateful_allocator &a, const stateful_allocator<U, Propagate, Version> &b) noexcept
   {
      return a.id() != b.id();
   }

private:
   static stateful_registry &registry() { return stateful_registry::instance(); }
   T *enrol(T *p)
   {
      registry().add(p, id_);
      return p;
   }
   void enrol_all(multiallocation_chain &got, multiallocation_chain &chain)
   {
      for (auto it = got.begin(); it != got.end(); ++it) registry().add(&*it, id_);
      const size_type n = got.size();
      const typename multiallocation_chain::pointer_pair d = got.extract_data();
      chain.incorporate_after(chain.before_begin(), d.first, d.second, n);
   }

   int id_;
};

template <class T, unsigned Version = 1>
using propagating_allocator = stateful_allocator<T, true, Version>;
template <class T, unsigned Version = 1>
using non_propagating_allocator = stateful_allocator<T, false, Version>;

} // namespace allocplus_test

#endif
