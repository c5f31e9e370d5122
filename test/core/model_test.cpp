// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// Randomized model test of the C core: a bounded live set of blocks, each filled with its own
// pattern, under millions of mixed operations (malloc, calloc, free, realloc, memalign, every kind
// of allocation_command, bursts, multidealloc, huge blocks, trim, footprint-limit windows). The
// model knows what every block must hold and checks it before every free and after every move, and
// checks what each operation promises (alignment, usable size, received objects, the order of the
// allocation_command attempts, in-place results, zeroed bytes). ba_heap_check runs after every
// step for the first steps, then periodically; at checking level 2 (BOOST_ALLOCPLUS_CHECKED=2) after
// every step, with fewer steps.
//
// A failure names the seed and the step; rerun with ALLOCPLUS_TEST_SEED=<seed> to reproduce.

#define BOOST_TEST_MODULE allocplus core model
#include "core/core_test_kit.hpp"
#include "core/test_scale.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace allocplus_test;

namespace {

// ---------------------------------------------------------------------------------------------
// Patterns, word by word (the model fills and verifies a lot of bytes).

inline std::uint64_t pattern_word(std::uint32_t seed, std::size_t word_index)
{
   std::uint64_t x = (static_cast<std::uint64_t>(seed) << 32 | seed) ^ (word_index * 0x9E3779B97F4A7C15ull);
   x ^= x >> 29;
   return x * 0xBF58476D1CE4E5B9ull;
}

inline unsigned char model_byte(std::uint32_t seed, std::size_t i)
{
   return static_cast<unsigned char>(pattern_word(seed, i / 8) >> (8 * (i % 8)));
}

void model_fill(void *p, std::size_t n, std::uint32_t seed)
{
   unsigned char *b = static_cast<unsigned char *>(p);
   std::size_t words = n / 8;
   for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t x = pattern_word(seed, w);
      std::memcpy(b + 8 * w, &x, 8);
   }
   for (std::size_t i = words * 8; i < n; ++i) b[i] = model_byte(seed, i);
}

//! Returns: the first offset whose byte differs from the pattern, or n.
std::size_t model_mismatch(const void *p, std::size_t n, std::uint32_t seed)
{
   const unsigned char *b = static_cast<const unsigned char *>(p);
   std::size_t words = n / 8;
   for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t x = pattern_word(seed, w), y;
      std::memcpy(&y, b + 8 * w, 8);
      if (x != y)
         for (std::size_t i = 8 * w;; ++i)
            if (b[i] != model_byte(seed, i)) return i;
   }
   for (std::size_t i = words * 8; i < n; ++i)
      if (b[i] != model_byte(seed, i)) return i;
   return n;
}

// ---------------------------------------------------------------------------------------------
// The heap under test, reached through the default heap's shorthands when it is the default heap
// (so both entry points are exercised).

struct heap_api {
   ba_heap *h;
   bool shorthands;   // ba_malloc & co. instead of ba_heap_malloc(h, ...)

   void *malloc_(std::size_t n) const { return shorthands ? ba_malloc(n) : ba_heap_malloc(h, n); }
   void free_(void *p) const { shorthands ? ba_free(p) : ba_heap_free(h, p); }
   void *calloc_(std::size_t n, std::size_t s) const { return shorthands ? ba_calloc(n, s) : ba_heap_calloc(h, n, s); }
   void *realloc_(void *p, std::size_t n) const { return shorthands ? ba_realloc(p, n) : ba_heap_realloc(h, p, n); }
   void *memalign_(std::size_t a, std::size_t n) const
   {
      return shorthands ? ba_memalign(a, n) : ba_heap_memalign(h, a, n);
   }
   ba_command_ret command(unsigned cmd, std::size_t s, std::size_t a, std::size_t limit, std::size_t pref,
                          std::size_t *rec, void *reuse) const
   {
      return shorthands ? ba_allocation_command(cmd, s, a, limit, pref, rec, reuse)
                        : ba_heap_allocation_command(h, cmd, s, a, limit, pref, rec, reuse);
   }
   int nodes(std::size_t n, std::size_t s, std::size_t c, ba_chain *ch) const
   {
      return shorthands ? ba_multialloc_nodes(n, s, c, ch) : ba_heap_multialloc_nodes(h, n, s, c, ch);
   }
   int arrays(std::size_t n, const std::size_t *l, std::size_t s, std::size_t c, ba_chain *ch) const
   {
      return shorthands ? ba_multialloc_arrays(n, l, s, c, ch) : ba_heap_multialloc_arrays(h, n, l, s, c, ch);
   }
   void multidealloc(ba_chain *ch) const { shorthands ? ba_multidealloc(ch) : ba_heap_multidealloc(h, ch); }
   std::size_t trim(std::size_t pad) const { return shorthands ? ba_trim(pad) : ba_heap_trim(h, pad); }
   int check(ba_check_report *r) const { return shorthands ? ba_check(r) : ba_heap_check(h, r); }
   ba_heap_stats stats() const
   {
      ba_heap_stats s;
      if (shorthands) ba_stats(&s); else ba_heap_stats_get(h, &s);
      return s;
   }
};

struct model_config {
   std::size_t slots = 2000;
   std::size_t steps = 1000000;
   std::size_t dense_checks = 2000;   // ba_heap_check after each of the first steps
   std::size_t check_every = 4096;    // then every so many steps
   bool bounded = false;              // allocations may fail at any time (a heap over a buffer)
   bool huge = true;                  // huge blocks now and then
   bool footprint_windows = false;    // periods under a footprint limit, where allocations may fail
   std::uint64_t seed = 1;
};

struct block {
   unsigned char *p = nullptr;
   std::size_t size = 0;     // the bytes that hold the pattern
   std::uint32_t seed = 0;
};

constexpr std::size_t object_sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 40, 48, 64, 100, 128};

class model {
public:
   model(heap_api api, model_config cfg) : api_(api), cfg_(cfg), rng_(cfg.seed), slots_(cfg.slots)
   {
      base_chunks_ = api_.stats().in_use_chunks;
   }

   void run()
   {
      BOOST_TEST_MESSAGE("model: seed " << cfg_.seed << ", " << cfg_.steps << " steps, " << cfg_.slots << " slots");
      for (step_ = 0; step_ < cfg_.steps; ++step_) {
         one_step();
         if (step_ < cfg_.dense_checks || step_ % cfg_.check_every == 0) check_heap();
         if (step_ % cfg_.check_every == 0) check_stats();
      }
      check_heap();
      check_stats();
      clear();
      check_heap();
      check_stats();
      std::ostringstream os;
      for (std::size_t i = 0; i < counts_.size(); ++i) os << " " << op_names[i] << "=" << counts_[i];
      BOOST_TEST_MESSAGE("model: done;" << os.str() << "; failed allocations " << failed_allocations_);
   }

   //! Frees every live block (verifying it).
   void clear()
   {
      for (block &b : slots_)
         if (b.p) release(b);
   }

private:
   enum op { op_malloc, op_calloc, op_free, op_realloc, op_memalign, op_new, op_fwd, op_bwd, op_any,
             op_shrink, op_try_shrink, op_nodes, op_arrays, op_multidealloc, op_huge, op_trim, op_count };
   static constexpr const char *op_names[op_count] = {
      "malloc", "calloc", "free", "realloc", "memalign", "new", "fwd", "bwd", "expand_or_new",
      "shrink", "try_shrink", "nodes", "arrays", "multidealloc", "huge", "trim"};

   heap_api api_;
   model_config cfg_;
   std::mt19937_64 rng_;
   std::vector<block> slots_;
   std::size_t live_ = 0;
   std::size_t base_chunks_ = 0;
   std::uint32_t next_seed_ = 1;
   std::size_t step_ = 0;
   op current_ = op_malloc;
   std::vector<std::size_t> counts_ = std::vector<std::size_t>(op_count);
   std::size_t failed_allocations_ = 0;
   std::size_t limit_until_ = 0;      // a footprint-limit window ends at this step

   // --- helpers -------------------------------------------------------------------------------
   std::size_t rand(std::size_t lo, std::size_t hi)   // [lo, hi]
   {
      return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_);
   }
   bool chance(unsigned per_mille) { return rand(0, 999) < per_mille; }

   [[noreturn]] void fail(const std::string &what)
   {
      std::ostringstream os;
      os << "model: step " << step_ << " (" << op_names[current_] << "), seed " << cfg_.seed << ": " << what;
      BOOST_FAIL(os.str());
      throw 0;   // not reached
   }
   void expect(bool cond, const char *what)
   {
      if (!cond) fail(what);
   }

   bool may_fail() const { return cfg_.bounded || step_ < limit_until_; }

   void allocation_failed(const char *what)
   {
      if (!may_fail()) fail(std::string(what) + " returned null with memory to spare");
      ++failed_allocations_;
   }

   std::size_t random_size()
   {
      std::size_t r = rand(0, 999);
      if (r < 750) return rand(0, 128);
      if (r < 950) return rand(129, 2048);
      if (r < 995) return rand(2049, 32 * KiB);
      return rand(32 * KiB, 256 * KiB);
   }

   void check_block(const block &b, const char *when)
   {
      std::size_t at = model_mismatch(b.p, b.size, b.seed);
      if (at != b.size) {
         std::ostringstream os;
         os << "block " << static_cast<const void *>(b.p) << " of " << b.size << " bytes changed at offset " << at
            << " (" << when << ")";
         fail(os.str());
      }
   }

   //! Registers a fresh block of `size` pattern bytes at p.
   void adopt(block &b, void *p, std::size_t size)
   {
      expect(reinterpret_cast<std::uintptr_t>(p) % 16 == 0, "block not aligned to 16");
      expect(ba_usable_size(p) >= size, "usable size below the request");
      b.p = static_cast<unsigned char *>(p);
      b.size = size;
      b.seed = next_seed_++;
      model_fill(b.p, b.size, b.seed);
      ++live_;
   }

   void release(block &b)
   {
      check_block(b, "before free");
      api_.free_(b.p);
      b = block();
      --live_;
   }

   block &random_slot() { return slots_[rand(0, slots_.size() - 1)]; }

   //! A random slot, emptied (its block freed) if needed.
   block &empty_slot()
   {
      block &b = random_slot();
      if (b.p) release(b);
      return b;
   }

   // --- the step ------------------------------------------------------------------------------
   void one_step()
   {
      // A footprint-limit window now and then: allocations may fail inside it, and the heap must
      // stay sound and work again once it is lifted.
      if (cfg_.footprint_windows) {
         if (step_ == limit_until_ && step_ != 0) ba_heap_set_footprint_limit(api_.h, size_max);
         if (step_ >= limit_until_ && step_ % 100000 == 50000) {
            ba_heap_set_footprint_limit(api_.h, api_.stats().system_bytes + rand(0, 2) * MiB);
            limit_until_ = step_ + 5000;
         }
      }
      static const unsigned weights[op_count] = {
         200, 40, 200, 110, 40, 50, 60, 50, 60, 35, 15, 12, 12, 18, 1, 1};
      static const unsigned total = std::accumulate(std::begin(weights), std::end(weights), 0u);
      unsigned r = static_cast<unsigned>(rand(0, total - 1));
      unsigned k = 0;
      while (r >= weights[k]) r -= weights[k++];
      current_ = static_cast<op>(k);
      if (current_ == op_huge && (!cfg_.huge || cfg_.bounded)) current_ = op_malloc;
      ++counts_[current_];
      switch (current_) {
      case op_malloc: do_malloc(); break;
      case op_calloc: do_calloc(); break;
      case op_free: { block &b = random_slot(); if (b.p) release(b); else do_malloc(); } break;
      case op_realloc: do_realloc(); break;
      case op_memalign: do_memalign(); break;
      case op_new: do_command(BA_ALLOCATE_NEW); break;
      case op_fwd: do_command(BA_EXPAND_FWD); break;
      case op_bwd: do_command(BA_EXPAND_BWD); break;
      case op_any: do_command(BA_EXPAND_FWD | BA_EXPAND_BWD | BA_ALLOCATE_NEW); break;
      case op_shrink: do_shrink(BA_SHRINK_IN_PLACE); break;
      case op_try_shrink: do_shrink(BA_TRY_SHRINK_IN_PLACE); break;
      case op_nodes: do_burst(false); break;
      case op_arrays: do_burst(true); break;
      case op_multidealloc: do_multidealloc(); break;
      case op_huge: do_huge(); break;
      case op_trim: do_trim(); break;
      case op_count: break;
      }
   }

   void do_malloc()
   {
      block &b = empty_slot();
      std::size_t n = random_size();
      void *p = api_.malloc_(n);
      if (!p) return allocation_failed("malloc");
      adopt(b, p, n);
   }

   void do_calloc()
   {
      block &b = empty_slot();
      std::size_t size = rand(1, 64), n = random_size() / size;
      void *p = api_.calloc_(n, size);
      if (!p) return allocation_failed("calloc");
      expect(all_zero(p, n * size), "calloc block not zeroed");
      adopt(b, p, n * size);
   }

   void do_memalign()
   {
      block &b = empty_slot();
      std::size_t a = std::size_t(1) << rand(0, 13);
      std::size_t n = random_size();
      void *p = api_.memalign_(a, n);
      if (!p) return allocation_failed("memalign");
      expect(reinterpret_cast<std::uintptr_t>(p) % a == 0, "memalign block misaligned");
      adopt(b, p, n);
   }

   void do_huge()
   {
      block &b = empty_slot();
      std::size_t n = rand(1 * MiB, 3 * MiB);
      void *p = api_.malloc_(n);
      if (!p) return allocation_failed("malloc (huge)");
      adopt(b, p, n);
   }

   void do_trim()
   {
      ba_heap_stats before = api_.stats();
      std::size_t released = api_.trim(rand(0, 1) ? 0 : rand(0, 4 * MiB));
      ba_heap_stats after = api_.stats();
      expect(after.system_bytes + released == before.system_bytes, "trim: system_bytes did not drop by what it released");
   }

   void do_realloc()
   {
      block &b = random_slot();
      if (!b.p) return do_malloc();
      check_block(b, "before realloc");
      std::size_t n = rand(0, 3) == 0 ? rand(0, b.size) : random_size();
      unsigned char *old = b.p;
      std::size_t old_size = b.size;
      void *p = api_.realloc_(b.p, n);
      if (!p) {
         allocation_failed("realloc");
         check_block(b, "after a failed realloc");
         return;
      }
      b.p = static_cast<unsigned char *>(p);
      b.size = std::min(old_size, n);
      check_block(b, "after realloc");   // the first min(old, new) bytes moved along
      expect(ba_usable_size(p) >= n, "realloc: usable size below the request");
      expect(reinterpret_cast<std::uintptr_t>(p) % 16 == 0, "realloc: block not aligned");
      // realloc(p, 0) shrinks p and returns it (a huge block may be remapped; the rest stays put).
      if (n == 0 && old_size < 512 * KiB) expect(p == old, "realloc(p, 0) moved the block");
      b.size = n;
      b.seed = next_seed_++;
      model_fill(b.p, b.size, b.seed);
   }

   void do_command(unsigned what)
   {
      std::size_t s = object_sizes[rand(0, std::size(object_sizes) - 1)];
      bool zero = chance(200);
      unsigned cmd = what | (zero ? BA_ZERO_MEMORY : 0u) | (chance(500) ? BA_NOTHROW_ALLOCATION : 0u);
      std::size_t align = 0;
      if (!(cmd & (BA_EXPAND_FWD | BA_EXPAND_BWD)) && chance(200)) align = std::size_t(1) << rand(0, 12);
      block &b = (cmd & (BA_EXPAND_FWD | BA_EXPAND_BWD)) ? random_slot() : empty_slot();
      void *reuse = b.p;
      if (!reuse) cmd = (cmd & ~unsigned(BA_EXPAND_FWD | BA_EXPAND_BWD)) | BA_ALLOCATE_NEW;   // nothing to expand
      std::size_t holds = reuse ? ba_usable_size(reuse) / s : 0;
      std::size_t max_objects = (chance(5) && cfg_.huge && !cfg_.bounded ? 4 * MiB : 256 * KiB) / s;
      std::size_t preferred = std::min(max_objects, holds + 1 + rand(0, std::max<std::size_t>(holds, 64)));
      if (rand(0, 3) == 0) preferred = rand(1, std::max<std::size_t>(1, std::min(max_objects, 2 * holds + 64)));
      std::size_t limit = rand(0, 2) == 0 ? preferred : rand(1, preferred);
      if (reuse) check_block(b, "before allocation_command");

      std::size_t old_usable = reuse ? ba_usable_size(reuse) : 0;
      std::size_t rec = 0x5a5a5a5a;
      ba_command_ret r = api_.command(cmd, s, align, limit, preferred, &rec, reuse);

      if (!r.first) {
         expect(r.second == 0, "failure with second != 0");
         if (cmd & BA_ALLOCATE_NEW) allocation_failed("allocation_command (new)");
         if (reuse) {
            if (!(cmd & BA_ALLOCATE_NEW)) {
               expect(rec == holds, "failed expansion: received is not the objects reuse holds");
               // Fails only where it may: an expansion whose limit the block already holds succeeds.
               expect(limit > holds, "expansion to a limit the block already holds failed");
            }
            expect(ba_usable_size(reuse) == old_usable, "failed expansion changed the block");
            check_block(b, "after a failed allocation_command");
         }
         return;
      }
      expect(reinterpret_cast<std::uintptr_t>(r.first) % std::max<std::size_t>(16, align) == 0,
             "allocation_command: block misaligned");
      expect(rec >= limit, "received below limit");
      expect(rec * s <= ba_usable_size(r.first), "received more objects than the block holds");
      // The order of attempts: expand to preferred, else new at preferred (which cannot fail here),
      // and only then the limit.
      if ((cmd & BA_ALLOCATE_NEW) && !may_fail()) expect(rec >= preferred, "settled for limit although a new block of preferred fitted");

      unsigned char *np = static_cast<unsigned char *>(r.first);
      if (r.second) {
         expect(reuse != nullptr, "{p, 1} without a block to expand");
         if (np != reuse) {
            expect((cmd & BA_EXPAND_BWD) != 0, "block moved without expand_bwd");
            expect(np < b.p, "backward expansion moved the start up");
            std::size_t moved = static_cast<std::size_t>(b.p - np);
            expect(moved % std::lcm(s, std::size_t(16)) == 0, "backward expansion: distance not a multiple of lcm(sizeof, 16)");
            expect(b.p + std::min(b.size, holds * s) <= np + ba_usable_size(np),
                   "backward expansion: old objects outside the block");
            if (zero) expect(all_zero(np, moved), "zero_memory: bytes gained below not zeroed");
         } else {
            // Without expand_fwd the end stays put. (Under ASan ba_usable_size reports the bytes
            // asked for, not the chunk's, so `holds` may undercount what the block holds.)
            if (!under_asan)
               expect((cmd & BA_EXPAND_FWD) != 0 || rec <= holds, "in-place growth without expand_fwd");
         }
         // The old objects stay where they were. Bytes past the objects the block held (the
         // slack of a last partial object) are not objects: zero_memory counts them as gained and
         // may zero them, and under ASan they may be poisoned.
         block objects{b.p, std::min(b.size, holds * s), b.seed};
         check_block(objects, "after in-place expansion");
         unsigned char *old_end = b.p + old_usable, *new_end = np + rec * s;
         if (zero && new_end > old_end) expect(all_zero(old_end, static_cast<std::size_t>(new_end - old_end)),
                                                "zero_memory: bytes gained after not zeroed");
         b.p = np;
         b.size = rec * s;
         b.seed = next_seed_++;
         model_fill(b.p, b.size, b.seed);
      } else {
         expect((cmd & BA_ALLOCATE_NEW) != 0, "new block without allocate_new");
         if (zero) expect(all_zero(np, rec * s), "zero_memory: new block not zeroed");
         if (reuse) {
            // What a vector does: move the objects over, free the old block.
            std::size_t keep = std::min(b.size, rec * s);
            std::memcpy(np, b.p, keep);
            block moved{np, keep, b.seed};
            check_block(moved, "copied");
            release(b);
         }
         adopt(b, np, rec * s);
      }
   }

   void do_shrink(unsigned what)
   {
      block &b = random_slot();
      if (!b.p) return do_malloc();
      check_block(b, "before shrink");
      std::size_t s = object_sizes[rand(0, std::size(object_sizes) - 1)];
      std::size_t u = ba_usable_size(b.p);
      std::size_t holds = u / s;
      if (holds == 0) return;
      std::size_t minimum = rand(0, holds);          // preferred
      std::size_t maximum = rand(minimum, holds);    // limit
      if (chance(100)) maximum = rand(minimum, holds + 10);
      std::size_t rec = 0x5a5a5a5a;
      ba_command_ret r = api_.command(what, s, 0, maximum, minimum, &rec, b.p);
      if (!r.first) {
         expect(r.second == 0, "failed shrink with second != 0");
         expect(rec == holds, "failed shrink: received is not the objects the block holds");
         if (!under_asan)   // (under ASan `holds` counts the bytes asked for, not the chunk's)
            expect(maximum < holds, "shrink failed although the block already holds no more than the maximum");
         expect(ba_usable_size(b.p) == u, "failed shrink changed the block");
         return;
      }
      expect(r.first == b.p && r.second == 1, "shrink did not return {reuse, 1}");
      expect(rec >= minimum && rec <= maximum, "shrink: received outside [minimum, maximum]");
      if (what == BA_TRY_SHRINK_IN_PLACE) {
         expect(ba_usable_size(b.p) == u, "try_shrink changed the block");
      } else {
         expect(rec == ba_usable_size(b.p) / s, "shrink: received is not the objects the block holds");
         b.size = std::min(b.size, rec * s);
      }
      check_block(b, "after shrink");
   }

   void do_burst(bool arrays)
   {
      std::size_t n = rand(0, 3) == 0 ? rand(0, 2) : rand(3, 48);
      std::size_t contiguous = rand(0, 2) == 0 ? BA_MULTIALLOC_DEFAULT_CONTIGUOUS
                              : rand(0, 1) ? BA_MULTIALLOC_ALL_CONTIGUOUS : rand(1, 8);
      std::vector<std::size_t> sizes(n);
      ba_chain c;
      ba_chain_init(&c);
      int ok;
      std::size_t elem = 1;
      if (arrays) {
         elem = rand(1, 24);
         for (std::size_t &l : sizes) l = rand(0, 3) == 0 ? 0 : rand(1, 300 / elem + 1);
         ok = api_.arrays(n, sizes.data(), elem, contiguous, &c);
         for (std::size_t &l : sizes) l *= elem;
      } else {
         std::size_t size = rand(0, 3) == 0 ? rand(1, 16) : rand(1, 600);
         std::fill(sizes.begin(), sizes.end(), size);
         ok = api_.nodes(n, size, contiguous, &c);
      }
      if (!ok) {
         expect(ba_chain_empty(&c) && c.size == 0, "failed burst touched the chain");
         if (n) allocation_failed("burst");
         else fail("a burst of 0 failed");
         return;
      }
      expect(c.size == n, "burst: chain size is not n");
      std::vector<void *> nodes;
      for (void *x = c.first; x; x = ba_chain_next(x)) nodes.push_back(x);
      expect(nodes.size() == n, "burst: chain length is not n");
      if (n) expect(c.last == nodes.back(), "burst: chain last is not the last node");
      for (std::size_t i = 0; i < n; ++i) {
         block &b = empty_slot();
         adopt(b, nodes[i], std::max(sizes[i], sizeof(void *)));
      }
   }

   void do_multidealloc()
   {
      std::size_t k = rand(1, 64);
      ba_chain c;
      ba_chain_init(&c);
      for (std::size_t i = 0; i < k; ++i) {
         block &b = random_slot();
         // A chain node is a block of at least one pointer (under ASan a smaller request keeps
         // the rest of its chunk poisoned).
         if (!b.p || ba_usable_size(b.p) < sizeof(void *)) continue;
         check_block(b, "before multidealloc");
         ba_chain_push_back(&c, b.p);
         b = block();
         --live_;
      }
      api_.multidealloc(&c);
      expect(ba_chain_empty(&c) && c.size == 0 && c.last == nullptr, "multidealloc left the chain non-empty");
   }

   void check_heap()
   {
      ba_check_report r = {nullptr, nullptr};
      if (api_.check(&r) != 1) {
         std::ostringstream os;
         os << "heap check: " << (r.what ? r.what : "(no report)") << " at " << r.where;
         fail(os.str());
      }
   }

   void check_stats()
   {
      ba_heap_stats s = api_.stats();
      if (s.in_use_chunks != base_chunks_ + live_) {
         std::ostringstream os;
         os << "stats: in_use_chunks " << s.in_use_chunks << ", the model has " << base_chunks_ + live_;
         fail(os.str());
      }
      expect(s.peak_in_use_bytes >= s.in_use_bytes, "stats: peak_in_use_bytes below in_use_bytes");
      expect(s.peak_system_bytes >= s.system_bytes, "stats: peak_system_bytes below system_bytes");
      expect(s.system_bytes <= s.footprint_limit, "stats: system_bytes above the footprint limit");
      expect(s.in_use_bytes + s.free_bytes <= s.system_bytes || cfg_.bounded, "stats: in use + free above system bytes");
   }
};

model_config scaled_config(std::size_t steps, std::uint64_t seed)
{
   model_config c;
   c.seed = allocplus_test::seed(seed);
#if BOOST_ALLOCPLUS_CHECKED_EXPENSIVE
   // The checked build checks the heap after every step: fewer steps.
   c.steps = scaled(std::max<std::size_t>(steps / 20, 20000), 2000);
   c.dense_checks = c.steps;
#else
   c.steps = scaled(steps, 5000);
#endif
   return c;
}

} // namespace

BOOST_AUTO_TEST_CASE(model_on_a_created_heap)
{
   scoped_heap h(0, 1);
   ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 1 * MiB);
   model_config cfg = scaled_config(1200000, 0xA110C001);
   cfg.footprint_windows = true;
   model m(heap_api{h, false}, cfg);
   m.run();
}

BOOST_AUTO_TEST_CASE(model_on_a_created_heap_without_lock_trimming_eagerly)
{
   scoped_heap h(256 * KiB, 0);
   ba_heap_set_option(h, BA_OPTION_MMAP_THRESHOLD, 512 * KiB);
   ba_heap_set_option(h, BA_OPTION_TRIM_THRESHOLD, 64 * KiB);
   ba_heap_set_option(h, BA_OPTION_RELEASE_RATE, 1);
   ba_heap_set_option(h, BA_OPTION_HUGE_RESERVE, 0);
   model_config cfg = scaled_config(300000, 0xA110C002);
   cfg.slots = 500;
   model m(heap_api{h, false}, cfg);
   m.run();
}

BOOST_AUTO_TEST_CASE(model_on_the_default_heap)
{
   ba_heap_set_option(ba_default_heap(), BA_OPTION_MMAP_THRESHOLD, 1 * MiB);
   model_config cfg = scaled_config(1000000, 0xA110C003);
   model m(heap_api{ba_default_heap(), true}, cfg);
   m.run();
   BOOST_TEST(ba_check(nullptr) == 1);
}

BOOST_AUTO_TEST_CASE(model_on_a_heap_over_a_buffer)
{
   std::unique_ptr<unsigned char[]> buf(new unsigned char[4 * MiB]);
   ba_heap *h = ba_create_heap_over(buf.get(), 4 * MiB, 1);
   BOOST_REQUIRE(h);
   model_config cfg = scaled_config(500000, 0xA110C004);
   cfg.bounded = true;
   cfg.huge = false;
   {
      model m(heap_api{h, false}, cfg);
      m.run();
   }
   ALLOCPLUS_CHECK_HEAP(h);
   BOOST_TEST(ba_destroy_heap(h) == 0u);
}
