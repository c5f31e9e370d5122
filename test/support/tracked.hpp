// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_TRACKED_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_TRACKED_HPP

// Element types for container and allocator tests: they count their instances, constructions,
// copies, moves and assignments, notice being used after destruction, and throw on the k-th
// construction / copy / move when told to.
//
//   using elem = allocplus_test::tracked<struct my_test>;   // one set of counters per Tag
//   elem::counters().reset();
//   elem::counters().throw_on_copy(3);                      // the 3rd copy from now throws
//   ... BOOST_TEST(elem::counters().live == 0);
//
// Bytes sets sizeof (at least sizeof(int), e.g. 12 for an object size that is not a multiple of
// the alignment), Align the alignment (e.g. 64 for an over-aligned type), NoexceptMove whether
// the move constructor is noexcept (and then never throws).

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace allocplus_test {

//! What a tracked element throws.
struct tracked_exception : std::runtime_error {
   tracked_exception() : std::runtime_error("allocplus_test::tracked: planned failure") {}
};

//! The counters of one tracked type, and its throw plan.
struct tracked_counters {
   long live = 0;               // objects constructed and not yet destroyed
   long constructions = 0;      // from a value (or default)
   long copies = 0;             // copy constructions
   long moves = 0;              // move constructions
   long copy_assignments = 0;
   long move_assignments = 0;
   long destructions = 0;
   long max_live = 0;

   // Countdowns: n > 0 means the n-th such operation from now throws (once); 0 means never.
   long construction_countdown = 0;
   long copy_countdown = 0;     // copy constructions and copy assignments
   long move_countdown = 0;     // move constructions (when not noexcept) and move assignments

   void throw_on_construction(long k) { construction_countdown = k; }
   void throw_on_copy(long k) { copy_countdown = k; }
   void throw_on_move(long k) { move_countdown = k; }
   void never_throw() { construction_countdown = copy_countdown = move_countdown = 0; }

   //! Effects: zeroes every count except `live` (objects alive now stay counted) and the plan.
   void reset()
   {
      const long alive = live;
      *this = tracked_counters();
      live = max_live = alive;
   }

   long copies_and_moves() const { return copies + moves; }

   //! Returns: whether the countdown c reached its operation (and then disarms it).
   static bool due(long &c)
   {
      if (c == 0) return false;
      return --c == 0;
   }
};

namespace detail {
template <std::size_t Bytes>
struct tracked_padding { unsigned char bytes[Bytes - sizeof(int) - sizeof(unsigned)]; };
template <>
struct tracked_padding<sizeof(int) + sizeof(unsigned)> {};
} // namespace detail

template <class Tag = void, std::size_t Bytes = sizeof(int) + sizeof(unsigned), bool NoexceptMove = false,
          std::size_t Align = alignof(int)>
class alignas(Align) tracked : private detail::tracked_padding<Bytes> {
   static_assert(Bytes >= sizeof(int) + sizeof(unsigned), "tracked needs room for its value and its state");
   static constexpr unsigned alive_mark = 0xA11CEu;
   static constexpr unsigned dead_mark = 0xDEADu;

public:
   static tracked_counters &counters()
   {
      static tracked_counters c;
      return c;
   }

   tracked() : tracked(0) {}
   //! Throws: tracked_exception when the construction countdown is due.
   tracked(int v) : value_(v), state_(0)
   {
      if (tracked_counters::due(counters().construction_countdown)) throw tracked_exception();
      ++counters().constructions;
      born();
   }
   tracked(const tracked &other) : value_(other.value()), state_(0)
   {
      if (tracked_counters::due(counters().copy_countdown)) throw tracked_exception();
      ++counters().copies;
      born();
   }
   tracked(tracked &&other) noexcept(NoexceptMove) : value_(other.value()), state_(0)
   {
      if (!NoexceptMove && tracked_counters::due(counters().move_countdown)) throw_now();
      ++counters().moves;
      born();
   }
   tracked &operator=(const tracked &other)
   {
      check();
      if (tracked_counters::due(counters().copy_countdown)) throw tracked_exception();
      value_ = other.value();
      ++counters().copy_assignments;
      return *this;
   }
   tracked &operator=(tracked &&other) noexcept(NoexceptMove)
   {
      check();
      if (!NoexceptMove && tracked_counters::due(counters().move_countdown)) throw_now();
      value_ = other.value();
      ++counters().move_assignments;
      return *this;
   }
   ~tracked()
   {
      check();
      state_ = dead_mark;
      --counters().live;
      ++counters().destructions;
   }

   //! Returns: the value. Throws std::logic_error when the object is dead or was never built
   //!   (a container that lost track of its elements).
   int value() const
   {
      check();
      return value_;
   }
   bool alive() const { return state_ == alive_mark; }

   friend bool operator==(const tracked &a, const tracked &b) { return a.value() == b.value(); }
   friend bool operator!=(const tracked &a, const tracked &b) { return a.value() != b.value(); }
   friend bool operator<(const tracked &a, const tracked &b) { return a.value() < b.value(); }

private:
   void born()
   {
      state_ = alive_mark;
      if (++counters().live > counters().max_live) counters().max_live = counters().live;
   }
   void check() const
   {
      if (state_ != alive_mark) throw std::logic_error("allocplus_test::tracked used while not alive");
   }
   // Out of line so that a noexcept(true) instantiation never contains a throw expression.
   [[noreturn]] static void throw_now() { throw tracked_exception(); }

   int value_;
   unsigned state_;
};

} // namespace allocplus_test

#endif
