// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef BOOST_ALLOCPLUS_DETAIL_ARENA_BLOCK_HPP
#define BOOST_ALLOCPLUS_DETAIL_ARENA_BLOCK_HPP

// The layout of a block inside a ba::arena, and the two free stores built in freed memory: the
// slot lists (one per 16-byte size class) and the tree of larger blocks. The arena owns no memory
// of its own for them: a free block is its own list or tree node.
//
//   block start                           user pointer (aligned as asked)
//   | header (16) | lead padding ... | header (16) | user bytes ...        | next block
//
// The header at the block's start lets a walk step from block to block; the one just before the
// user pointer lets deallocate find the start. Without lead padding (16-byte alignment) they are
// the same header.
//
// A compact block (a request for 8-byte alignment or less of at most arena_compact_node_limit
// bytes, or whose size leaves at most 8 bytes in its last granule, as a node of three pointers
// does) has a header of one word instead, and its user pointer is 8 bytes past its start: 8 mod
// 16, where every other block's is 0 mod 16, so that the pointer alone says which header it has.
// A 24-byte node then takes a 32-byte block, not 48; a 48-byte node a 64-byte block, as with a
// full header, and the compact block's shorter free.
//
//   block start   user pointer (8 mod 16)
//   | word (8) | user bytes ...          | next block
//
// Freed memory is what a write after free or an overrun reaches first, so the links kept there are
// never trusted: a slot list's link is the core's protected link (core/detail/free_list.h), and
// every free block carries a check word (its address and size mixed with a per-arena key) that a
// forged block cannot match. The arena checks a block before it hands it out, unlinks it or
// rebalances around it; a mismatch is reported, never followed.

#include <boost/allocplus/core/dlmalloc.h>   // BOOST_ALLOCPLUS_CORE_ASAN
#include <boost/allocplus/core/detail/free_list.h>
#include <boost/allocplus/detail/circular_links.hpp>

#include <boost/intrusive/parent_from_member.hpp>
#include <boost/intrusive/set.hpp>

#include <cstddef>
#include <cstdint>

#if defined(BOOST_ALLOCPLUS_CORE_ASAN)
#  include <sanitizer/asan_interface.h>
#  define BOOST_ALLOCPLUS_ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#  define BOOST_ALLOCPLUS_ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#  define BOOST_ALLOCPLUS_ARENA_POISON(p, n) ((void)(p), (void)(n))
#  define BOOST_ALLOCPLUS_ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace boost { namespace allocplus { namespace detail {

// Under valgrind (level-2 checked builds where its header exists, or BOOST_ALLOCPLUS_VALGRIND=1) the buffer
// is a pool's superblock for memcheck and every block handed out a block of its own in it: memcheck
// reports blocks leaked, and reads and writes of freed blocks and of the room past the bump
// pointer. A live block's header is addressable; a free block is not, every byte of it, though the
// arena keeps its links there: the arena reads and writes them inside an arena_vg_quiet window.
// Elsewhere these do nothing.
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_create(const void *pool, void *buffer, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_CREATE_MEMPOOL_EXT(pool, 0, 0, VALGRIND_MEMPOOL_METAPOOL);
   if (bytes == 0) return;   // no buffer: the regions join as they come
   VALGRIND_MEMPOOL_ALLOC(pool, buffer, bytes);
   VALGRIND_MAKE_MEM_NOACCESS(buffer, bytes);
#else
   (void)pool, (void)buffer, (void)bytes;
#endif
}
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_destroy(const void *pool, void *buffer, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_DESTROY_MEMPOOL(pool);
   VALGRIND_MAKE_MEM_DEFINED(buffer, bytes);
#else
   (void)pool, (void)buffer, (void)bytes;
#endif
}
// A region from the upstream joins the pool as a superblock of its own, and leaves it before it
// goes back (defined again, as the upstream handed it out).
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_add_region(const void *pool, void *region, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MEMPOOL_ALLOC(pool, region, bytes);
   VALGRIND_MAKE_MEM_NOACCESS(region, bytes);
#else
   (void)pool, (void)region, (void)bytes;
#endif
}
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_remove_region(const void *pool, void *region, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MEMPOOL_FREE(pool, region);
   VALGRIND_MAKE_MEM_DEFINED(region, bytes);
#else
   (void)pool, (void)region, (void)bytes;
#endif
}
// The arena's own words at p: addressable from now on.
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_expose(void *p, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MAKE_MEM_DEFINED(p, bytes);
#else
   (void)p, (void)bytes;
#endif
}
// Bytes nobody may touch (the room past the bump pointer).
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_hide(void *p, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MAKE_MEM_NOACCESS(p, bytes);
#else
   (void)p, (void)bytes;
#endif
}
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_hand_out(void *user, std::size_t bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_MALLOCLIKE_BLOCK(user, bytes, 0, 0);
#else
   (void)user, (void)bytes;
#endif
}
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_take_back(void *user) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   VALGRIND_FREELIKE_BLOCK(user, 0);
#else
   (void)user;
#endif
}
BOOST_ALLOCPLUS_CORE_NO_ASAN inline void arena_vg_resize(void *user, std::size_t old_bytes, std::size_t new_bytes) noexcept
{
#if defined(BA_DETAIL_VALGRIND)
   if (old_bytes != new_bytes) VALGRIND_RESIZEINPLACE_BLOCK(user, old_bytes, new_bytes, 0);
#else
   (void)user, (void)old_bytes, (void)new_bytes;
#endif
}

// For the lifetime of one, memcheck reports nothing of the calling thread: the arena's own reads
// and writes of the words in its free blocks, which stay unaddressable so that a read or write
// after free of any of their bytes is reported (memcheck's way for allocators that keep records
// in memory the program may not touch: a load from there reads as defined). Every public call of
// an arena that may touch its blocks holds one; it calls no code of the caller's but the
// diagnostic handler, on a misuse it found. The call's arguments are checked first: an
// undefined size or pointer is still reported, where the caller passed it.
class arena_vg_quiet {
public:
#if defined(BA_DETAIL_VALGRIND)
   template <class... Arguments>
   explicit arena_vg_quiet(const Arguments &...arguments) noexcept
   {
      (check_defined(arguments), ...);
      VALGRIND_DISABLE_ERROR_REPORTING;
   }
   ~arena_vg_quiet() { VALGRIND_ENABLE_ERROR_REPORTING; }
#else
   template <class... Arguments>
   explicit arena_vg_quiet(const Arguments &...) noexcept {}
   ~arena_vg_quiet() {}   // (user-provided: a window is never an unused variable)
#endif
   arena_vg_quiet(const arena_vg_quiet &) = delete;
   arena_vg_quiet &operator=(const arena_vg_quiet &) = delete;

private:
#if defined(BA_DETAIL_VALGRIND)
   template <class Value>
   static void check_defined(const Value &value) noexcept
   {
      (void)VALGRIND_CHECK_VALUE_IS_DEFINED(value);
   }
#endif
};

inline constexpr std::size_t arena_granule = 16;            // block sizes and addresses are multiples
inline constexpr std::size_t arena_header_size = 16;
inline constexpr std::size_t arena_min_block = 32;          // a header and a free list's link
inline constexpr std::size_t arena_slot_limit = 16 * 1024;  // larger free blocks go to the tree
inline constexpr std::size_t arena_slot_count = arena_slot_limit / arena_granule + 1;   // index: size / 16

// A free block's state: even, so that it is never a live block's tag (odd: the arena's
// live_tag). A block taken into another has state 0, neither.
inline constexpr std::uint16_t arena_free = 0xF4EEu;

// A compact block's header word: its size (a multiple of 16, below 2^48), arena_compact_flag, and
// its tag (the arena's live_tag of its start and size, at 8-byte alignment) in the top 16 bits. A
// full header's first word is its size alone, so the flag tells a walk which header a block has.
inline constexpr std::size_t arena_compact_header_size = 8;
inline constexpr std::uintptr_t arena_compact_flag = 1;
inline constexpr unsigned arena_compact_tag_shift = 48;
inline constexpr std::uintptr_t arena_compact_size_mask =
   ((std::uintptr_t(1) << arena_compact_tag_shift) - 1) & ~std::uintptr_t(arena_granule - 1);
inline constexpr std::size_t arena_compact_alignment = 8;   // the most a compact block's user pointer has
// A request at arena_compact_alignment or less of at most this many bytes (a container's node) gets
// a compact block whatever its size: its free takes the compact block's shorter path. A larger one
// gets a compact block only where the word saves a granule (arena::compact_request).
inline constexpr std::size_t arena_compact_node_limit = 256;
inline constexpr std::uint16_t arena_compact_align_log2 = 3;

struct arena_header {
   std::size_t size;          // bytes of the whole block: headers, lead and user bytes
   std::uint32_t lead;        // bytes from the block's start to the header before the user pointer
   std::uint16_t align_log2;  // the alignment asked for, kept so a move keeps it (a free tree block: arena_in_tree or arena_in_ring)
   std::uint16_t state;       // a live block's tag (its start and size, keyed), or arena_free
};
static_assert(sizeof(arena_header) == arena_header_size, "a header is one granule");

// A free block in a slot list: its header, the protected link to the next one (ba_detail_link_store)
// and the check word (the rest of the block is unused).
struct arena_slot_block {
   arena_header header;
   std::uintptr_t link;
   std::uintptr_t check;
};
static_assert(sizeof(arena_slot_block) == arena_min_block, "the smallest block is a slot block");

// One entry of the slot table: the first free block of a size (its address; 0: none) and how many
// the list holds, side by side, so that a free or an allocation touches one cache line of it.
struct arena_slot_list {
   std::size_t head = 0;
   std::size_t count = 0;
};

// The free blocks over the slot limit of one size form a ring (Boost.Intrusive's circular list
// algorithms over these links); the tree holds one block of each size and the others hang in its
// ring, so freeing or taking a block of a size the tree has already leaves the tree as it is.
using arena_ring_links = circular_links;
using arena_ring = circular_links_algorithms;

// Where a free block over the slot limit is filed, kept in its header's align_log2 (unused while a
// block is free) and mixed into its check word, so that a write after free cannot move it from
// one to the other unnoticed.
inline constexpr std::uint16_t arena_in_tree = 0;
inline constexpr std::uint16_t arena_in_ring = 1;

// A free block over the slot limit: its header, the tree's hook (used while it is the tree's block
// of its size), the links of its size's ring, the check word.
struct arena_tree_block {
   arena_header header;
   boost::intrusive::set_member_hook<boost::intrusive::optimize_size<true>,
                                     boost::intrusive::link_mode<boost::intrusive::normal_link>>
      hook;
   arena_ring_links same_size;
   std::uintptr_t check;
};

inline arena_tree_block *tree_block_of(arena_ring_links *links) noexcept
{
   return boost::intrusive::get_parent_from_member(links, &arena_tree_block::same_size);
}

// Bytes of a tree block that stay addressable under ASan while it is free: the tree's code and the
// ring's (instrumented) read and write the links of other blocks when they rebalance or relink.
inline constexpr std::size_t arena_tree_node_bytes =
   (sizeof(arena_tree_block) + arena_granule - 1) / arena_granule * arena_granule;

struct arena_block_size_less {
   bool operator()(const arena_tree_block &a, const arena_tree_block &b) const noexcept
   {
      return a.header.size < b.header.size;
   }
   bool operator()(const arena_tree_block &a, std::size_t b) const noexcept { return a.header.size < b; }
   bool operator()(std::size_t a, const arena_tree_block &b) const noexcept { return a < b.header.size; }
};

using arena_tree =
   boost::intrusive::set<arena_tree_block,
                              boost::intrusive::member_hook<arena_tree_block, decltype(arena_tree_block::hook),
                                                            &arena_tree_block::hook>,
                              boost::intrusive::compare<arena_block_size_less>,
                              boost::intrusive::constant_time_size<true>>;

// A stretch of memory the arena carves blocks from: the caller's buffer, or a region chained from
// the upstream heap, whose record sits at its own start (the caller's buffer's record is a member
// of the arena, so the buffer keeps every byte it had). Blocks never span two regions. A walk of a
// region's blocks goes from `begin` to its top: the bump pointer for the arena's current region,
// `top` for the others (fixed when the arena moved on).
struct arena_region {
   unsigned char *begin = nullptr;   // the first block (16-byte aligned)
   unsigned char *end = nullptr;     // past the last byte blocks may use (begin + a multiple of 16)
   unsigned char *top = nullptr;     // where a walk stops, once the region is no longer current
   std::size_t bytes = 0;            // bytes taken from the upstream (0: the caller's buffer)
   boost::intrusive::set_member_hook<boost::intrusive::optimize_size<true>,
                                     boost::intrusive::link_mode<boost::intrusive::normal_link>>
      hook;
};

// Bytes of a chained region before its first block: the record, rounded to the granule.
inline constexpr std::size_t arena_region_record_bytes =
   (sizeof(arena_region) + arena_granule - 1) / arena_granule * arena_granule;

// Regions by address, so the region of a pointer is found in logarithmic time.
struct arena_region_address_less {
   bool operator()(const arena_region &a, const arena_region &b) const noexcept { return a.begin < b.begin; }
   bool operator()(const arena_region &a, const unsigned char *b) const noexcept { return a.begin < b; }
   bool operator()(const unsigned char *a, const arena_region &b) const noexcept { return a < b.begin; }
};

using arena_region_set =
   boost::intrusive::set<arena_region,
                         boost::intrusive::member_hook<arena_region, decltype(arena_region::hook), &arena_region::hook>,
                         boost::intrusive::compare<arena_region_address_less>,
                         boost::intrusive::constant_time_size<true>>;

inline constexpr bool is_power_of_two(std::size_t x) noexcept { return x != 0 && (x & (x - 1)) == 0; }

inline std::uintptr_t align_up(std::uintptr_t x, std::size_t a) noexcept
{
   return (x + (a - 1)) & ~static_cast<std::uintptr_t>(a - 1);
}

inline unsigned log2_of_power_of_two(std::size_t x) noexcept
{
   unsigned n = 0;
   while (x >>= 1) ++n;
   return n;
}

}}} // namespace boost::allocplus::detail

#endif // BOOST_ALLOCPLUS_DETAIL_ARENA_BLOCK_HPP
