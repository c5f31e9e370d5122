// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_ALLOCATION_COMMAND_HPP
#define BOOST_ALLOCPLUS_ALLOCATION_COMMAND_HPP

// The commands of allocation_command, the one call of a version-2 allocator that allocates,
// expands in place (forward, backward or both), or shrinks in place, with a minimum (limit) size,
// a preferred size and the size actually received. The values are Boost.Container's
// (boost/container/detail/allocation_type.hpp) and the C core's (BA_ALLOCATE_NEW...), so one
// command reaches any of the three.

#include <boost/allocplus/detail/config.hpp>

namespace boost { namespace allocplus {

//! A bitwise-or of the commands below.
using allocation_type = unsigned;

//! Allocate a new block (after the expansions asked for in the same command failed).
inline constexpr allocation_type allocate_new = 0x01u;
//! Expand `reuse` forward: its start stays where it is.
inline constexpr allocation_type expand_fwd = 0x02u;
//! Expand `reuse` backward: its start moves down by a whole number of objects (and of the
//! alignment), so the objects already in it keep whole-object offsets from the new start.
inline constexpr allocation_type expand_bwd = 0x04u;
//! Shrink `reuse` in place. Here `limit` is the most objects the caller accepts and the preferred
//! size the fewest (the reverse of the expanding commands).
inline constexpr allocation_type shrink_in_place = 0x08u;
//! Fail by returning null instead of throwing.
inline constexpr allocation_type nothrow_allocation = 0x10u;
//! Zero the bytes the block gains (all of a new block).
inline constexpr allocation_type zero_memory = 0x20u;
//! Report what shrink_in_place would receive, without shrinking.
inline constexpr allocation_type try_shrink_in_place = 0x40u;

}} // namespace boost::allocplus

#endif // BOOST_ALLOCPLUS_ALLOCATION_COMMAND_HPP
