// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_MEMORY_RESOURCE_HPP
#define BOOST_ALLOCPLUS_MEMORY_RESOURCE_HPP

// The library's std::pmr::memory_resource classes, one header each:
//   default_heap_resource()        the core's default heap (stateless, thread-safe)
//   heap_resource                  an independent heap, from the system or in a caller's buffer
//   synchronized_pool_resource     size-class pools shared by threads, per-thread bins
//   unsynchronized_pool_resource   size-class pools of its own, for one thread at a time
//   arena_resource                 a ba::arena (a buffer of yours), with an upstream when it is full
//   synchronized_adaptive_pool_resource, unsynchronized_adaptive_pool_resource
//                                  the same over adaptive pools: blocks back to the core as they empty

#include <boost/allocplus/detail/config.hpp>   // first: its C++17 check
#include <boost/allocplus/adaptive_pool_resource.hpp>
#include <boost/allocplus/arena_resource.hpp>
#include <boost/allocplus/default_heap_resource.hpp>
#include <boost/allocplus/heap_resource.hpp>
#include <boost/allocplus/synchronized_pool_resource.hpp>
#include <boost/allocplus/unsynchronized_pool_resource.hpp>

#endif // BOOST_ALLOCPLUS_MEMORY_RESOURCE_HPP
