// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_SET_HPP
#define BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_SET_HPP

// What a private pool allocator's handle points to: the pools of one container (engines:
// node_pool, adaptive_node_pool), one per node size and alignment (a container rebinds its
// allocator to its node type, std::allocate_shared to its control block), shared by the handle's
// copies and counted by them. Not thread-safe, as the allocators over it; checked builds report
// two threads inside one set at once.

#include <boost/allocplus/detail/config.hpp>
#include <boost/allocplus/detail/node_pool.hpp>
#include <boost/allocplus/detail/single_thread_guard.hpp>
#include <boost/allocplus/detail/throw_exception.hpp>
#include <boost/allocplus/detail/usage_error.hpp>

#include <cstddef>
#include <new>
#include <utility>

namespace boost { namespace allocplus { namespace detail {

template <class Pool>
class private_pool_set;

//! A counted reference to a private_pool_set (boost::intrusive_ptr's shape, without the atomics:
//! the set is used from one thread at a time).
template <class Pool>
class private_pool_set_ptr {
public:
   private_pool_set_ptr() noexcept = default;
   explicit private_pool_set_ptr(private_pool_set<Pool> *set) noexcept : set_(set) {}   // adopts a count of 1
   BOOST_FORCEINLINE private_pool_set_ptr(const private_pool_set_ptr &x) noexcept : set_(x.set_) { add_ref(); }
   private_pool_set_ptr(private_pool_set_ptr &&x) noexcept : set_(std::exchange(x.set_, nullptr)) {}
   BOOST_FORCEINLINE ~private_pool_set_ptr() { release(); }
   private_pool_set_ptr &operator=(private_pool_set_ptr x) noexcept
   {
      std::swap(set_, x.set_);
      return *this;
   }

   private_pool_set<Pool> *get() const noexcept { return set_; }
   private_pool_set<Pool> *operator->() const noexcept { return set_; }
   private_pool_set<Pool> &operator*() const noexcept { return *set_; }
   explicit operator bool() const noexcept { return set_ != nullptr; }

private:
   BOOST_FORCEINLINE void add_ref() const noexcept
   {
      if (set_) ++set_->references_;
   }
   BOOST_FORCEINLINE void release() noexcept
   {
      if (set_ && --set_->references_ == 0) destroy(set_);
      set_ = nullptr;
   }
   // (Out of line: the count's update is on every node of std::allocate_shared, which copies
   // the allocator into each control block; the set's destruction is rare and long.)
   BOOST_NOINLINE static void destroy(private_pool_set<Pool> *set) noexcept { delete set; }

   private_pool_set<Pool> *set_ = nullptr;
};

template <class Pool>
class private_pool_set {
public:
   using parameters = typename Pool::parameters;
   using statistics_type = typename Pool::statistics_type;

   //! Returns: a new, empty set (count 1), or null when memory is out. Takes no memory for pools.
   static private_pool_set_ptr<Pool> make(const char *owner, const parameters &params) noexcept
   {
      return private_pool_set_ptr<Pool>(new (std::nothrow) private_pool_set(owner, params));
   }

   private_pool_set(const private_pool_set &) = delete;
   private_pool_set &operator=(const private_pool_set &) = delete;

   //! Returns: the pool of nodes of (size, alignment), made if there is none yet.
   //! Throws: std::bad_alloc when it must be made and memory is out.
   //! Complexity: constant when the size's slot remembers its pool (below), else linear in the
   //!   pools.
   Pool &pool_for(std::size_t size, std::size_t alignment)
   {
      if (Pool *p = find(size, alignment)) return *p;
      return make_pool(size, alignment);
   }

   //! Returns: the pool of nodes of (size, alignment), or null.
   //! Complexity: as pool_for.
   Pool *find(std::size_t size, std::size_t alignment) const noexcept
   {
      entry *e = recent_[slot_of(size)];
      if (BOOST_LIKELY(e != nullptr && e->serves(size, alignment))) return &e->pool;
      return find_slow(size, alignment);
   }

   //! Effects: each pool gives back its blocks that have no node in use. Returns: their number.
   std::size_t release_free_blocks() noexcept
   {
      std::size_t released = 0;
      for (entry *e = first_; e; e = e->next) released += e->pool.release_free_blocks();
      return released;
   }

   //! Returns: the totals of every pool (node_size: the pools' node size when there is one pool,
   //!   else 0).
   statistics_type statistics() const noexcept
   {
      statistics_type total;
      std::size_t pools = 0;
      for (entry *e = first_; e; e = e->next, ++pools) total.add(e->pool.statistics());
      if (pools != 1) total.node_size = 0;
      return total;
   }

   //! Returns: null when every pool's invariants hold, else the first broken one.
   const char *check() const noexcept
   {
      for (entry *e = first_; e; e = e->next)
         if (const char *broken = e->pool.check()) return broken;
      return nullptr;
   }

   //! Checked builds: marks the set with the calling thread for the lifetime of a guard; another
   //! thread that enters meanwhile is reported (the set is not for two threads at once).
   class usage_guard {
   public:
      // (Forced inline, as single_thread_guard's: a guard whose destructor also runs on an
      // exception's path is otherwise left out of line, and costs a call on every node.)
      BOOST_FORCEINLINE explicit usage_guard(private_pool_set &set) noexcept : guard_(set.user_, set.owner_, &set) {}
      BOOST_FORCEINLINE ~usage_guard() {}

   private:
      single_thread_guard guard_;
   };

private:
   friend class private_pool_set_ptr<Pool>;

   struct entry {
      entry(const char *owner, std::size_t size, std::size_t alignment, const parameters &params) noexcept
         : size(size), alignment(alignment), pool(owner, size, alignment, params)
      {
      }
      bool serves(std::size_t s, std::size_t a) const noexcept { return s == size && a == alignment; }
      const std::size_t size, alignment;
      Pool pool;
      entry *next = nullptr;
   };

   private_pool_set(const char *owner, const parameters &params) noexcept : owner_(owner), params_(params) {}

   // Each node size has a slot that remembers the pool last found for a size of that slot: a
   // program that allocates several node sizes in turn (std::allocate_shared of five types; a
   // map and its strings) finds each pool with one comparison, not a walk of the list of pools.
   // Sizes are multiples of 8 mostly, hence the shift; two sizes in one slot take turns.
   static constexpr std::size_t slots = 16;
   static constexpr std::size_t slot_of(std::size_t size) noexcept { return (size >> 3) % slots; }

   BOOST_NOINLINE Pool &make_pool(std::size_t size, std::size_t alignment)
   {
      entry *e = new (std::nothrow) entry(owner_, size, alignment, params_);
      if (!e) throw_bad_alloc();
      e->next = first_;
      first_ = e;
      recent_[slot_of(size)] = e;
      return e->pool;
   }

   BOOST_NOINLINE Pool *find_slow(std::size_t size, std::size_t alignment) const noexcept
   {
      for (entry *e = first_; e; e = e->next)
         if (e->serves(size, alignment)) {
            recent_[slot_of(size)] = e;
            return &e->pool;
         }
      return nullptr;
   }

   ~private_pool_set()
   {
      while (first_) delete std::exchange(first_, first_->next);
   }

   const char *const owner_;
   const parameters params_;
   std::size_t references_ = 1;
   entry *first_ = nullptr;
   mutable entry *recent_[slots] = {};   // (find is const: the slots are a cache)
   single_thread_user user_;   // (checked builds: the thread inside the set)
};

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_PRIVATE_POOL_SET_HPP
