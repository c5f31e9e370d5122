// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_ALLOCATOR_TEST_KIT_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_ALLOCATOR_TEST_KIT_HPP

// The shared test kit of allocators and containers, all of it (header-only, Boost.Test-free):
//
//   tracked.hpp                       element types that count instances and throw on the k-th
//                                     construction / copy / move
//   failing_allocator.hpp             an adaptor whose k-th allocation attempt fails
//   counting_allocator.hpp            an adaptor counting allocations, expansions (fwd/bwd),
//                                     shrinks and bursts
//   stateful_allocator.hpp            allocators with an identity, propagating or not
//   constructor_counting_allocator.hpp  allocators counting their own default constructions,
//                                     copies, moves and conversions; one without a constructor
//   expansion_limited_allocator.hpp   version-2 allocators that expand only forward or only
//                                     backward, deterministically
//   hooked_allocator.hpp              the adaptor under counting and failing
//
// Adaptors compose: counting_allocator<failing_allocator<ba::allocator<T>>>.

#include "support/constructor_counting_allocator.hpp"
#include "support/counting_allocator.hpp"
#include "support/expansion_limited_allocator.hpp"
#include "support/failing_allocator.hpp"
#include "support/stateful_allocator.hpp"
#include "support/tracked.hpp"

#endif
