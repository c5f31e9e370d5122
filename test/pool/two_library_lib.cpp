// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Built twice, as two shared libraries with hidden visibility (TWO_LIBRARY_PREFIX names the
// functions of each): both must use the process's one pool for 24-byte nodes of each allocator.
#include "two_library_lib.hpp"

#include <boost/allocplus/adaptive_pool.hpp>
#include <boost/allocplus/node_allocator.hpp>

namespace ba = boost::allocplus;

namespace {
struct node24 {
   char bytes[24];
};
using allocator_24 = ba::node_allocator<node24>;
using adaptive_24 = ba::adaptive_pool<node24>;
} // namespace

#define TWO_LIBRARY_CAT2(a, b) a##b
#define TWO_LIBRARY_CAT(a, b) TWO_LIBRARY_CAT2(a, b)
#define TWO_LIBRARY_FN(name) TWO_LIBRARY_CAT(TWO_LIBRARY_PREFIX, name)

void *TWO_LIBRARY_FN(_allocate_node)() { return allocator_24().allocate(1); }
void TWO_LIBRARY_FN(_deallocate_node)(void *p) { allocator_24().deallocate(static_cast<node24 *>(p), 1); }
const void *TWO_LIBRARY_FN(_pool_address)() { return &ba::detail::shared_node_pool_for<24, alignof(node24), 256>(); }
ba::node_pool_statistics TWO_LIBRARY_FN(_statistics)() { return allocator_24::statistics(); }
void *TWO_LIBRARY_FN(_allocate_adaptive_node)() { return adaptive_24().allocate(1); }
void TWO_LIBRARY_FN(_deallocate_adaptive_node)(void *p) { adaptive_24().deallocate(static_cast<node24 *>(p), 1); }
ba::adaptive_pool_statistics TWO_LIBRARY_FN(_adaptive_statistics)() { return adaptive_24::statistics(); }
