// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_TEST_SUPPORT_GROWN_BUFFER_PLACEMENT_HPP
#define BOOST_ALLOCPLUS_TEST_SUPPORT_GROWN_BUFFER_PLACEMENT_HPP

// Whether this process places the buffers a container grows apart from the thread's cache (from
// the heap itself, and back there), which tests of that placement need (Boost.Test-free).

#include <boost/allocplus/core/dlmalloc.h>

namespace allocplus_test {

//! Returns: null when a buffer a container means to grow comes from the heap itself and goes back
//!   there; else why not, for the test to say as it skips: checked builds at level 2 and C
//!   libraries that cannot say whether the process has one thread send every block through the
//!   thread's cache, and so does a process that has had a second thread.
inline const char *why_grown_buffers_go_through_the_cache() noexcept
{
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE || !defined(BA_DETAIL_HAVE_SINGLE_THREADED)
   return "checked builds (and C libraries that cannot say whether the process has one thread) "
          "send every block through the thread's cache";
#else
   return __libc_single_threaded ? nullptr
                                 : "the process has had a second thread: its vectors' buffers come from the cache";
#endif
}

}   // namespace allocplus_test

#endif
