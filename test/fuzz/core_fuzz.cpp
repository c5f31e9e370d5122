// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// libFuzzer target for the C core. An input is one of two kinds of program:
//
// - A model program (any input that does not start with the corruption tag below): heap
//   operations (malloc, calloc, free, realloc, memalign, every allocation_command, bursts of
//   nodes and arrays, multidealloc, trim, footprint limits) run on a heap from mmap, on a heap
//   over a buffer and on the default heap through the thread's cache (ba_malloc, ba_free, mixed
//   with ba_heap_free), against a model of the live blocks. Every block carries a fill pattern checked
//   before it moves or dies, and ba_heap_check runs after every operation. Any difference is a
//   crash. The program uses the heap as the documentation allows, so nothing may be reported.
// - A corruption program (an input that starts with "corrupt!"): operations on a heap of its own,
//   over a buffer of the fuzzer's, that also write into freed and neighbouring memory as the
//   defects of issue 17 do: an overflow of a block's last word and one bit past it (a forged
//   previous-size word, a cleared "previous in use" bit), 8-byte writes after free into freed
//   small (quick-listed) and large (binned) blocks, a second free of a block that may have merged
//   with its neighbours, a second free of a node of a multidealloc run. Every corruption must be
//   reported (the diagnostic handler runs; the fuzzer leaves it by longjmp and destroys the heap)
//   rather than exploited: a block handed out outside the buffer, misaligned, or over a block the
//   fuzzer still holds, a held block's contents changed by the heap, or ba_heap_check failing
//   with nothing reported, is a crash (__builtin_trap).
//
// The corpus in test/fuzz/corpus holds both kinds; test/fuzz/regressions holds one corruption
// program per defect (found by the fuzzer, or written from an issue's scenario), each of which must
// now be reported; the test replays both. CORE_FUZZ_TRACE=1 prints what a corruption program does.
#include <boost/allocplus/core/dlmalloc.h>

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

// Reads the operation program; past the end it yields zeros.
class program_reader {
public:
   program_reader(const std::uint8_t *data, std::size_t size) : data_(data), size_(size) {}
   bool done() const { return pos_ >= size_; }
   std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
   std::size_t number(std::size_t bound)   // in [0, bound)
   {
      std::size_t v = byte();
      v = (v << 8) | byte();
      v = (v << 8) | byte();
      return bound ? v % bound : 0;
   }
   // Mostly small sizes, sometimes large ones, rarely huge ones.
   std::size_t size()
   {
      std::uint8_t kind = byte();
      if (kind < 160) return number(512);
      if (kind < 240) return number(16384);
      if (kind < 254) return number(512 * 1024);
      return number(4 * 1024 * 1024);
   }
private:
   const std::uint8_t *data_;
   std::size_t size_;
   std::size_t pos_ = 0;
};

struct block {
   unsigned char *p;
   std::size_t bytes;     // bytes the model knows the contents of
   unsigned char seed;
};

[[noreturn]] void fail(const char *what, const block &b, std::size_t at)
{
   std::fprintf(stderr, "core_fuzz: %s (block %p, %zu bytes, offset %zu)\n", what, static_cast<void *>(b.p), b.bytes, at);
   std::abort();
}

unsigned char pattern(const block &b, std::size_t i) { return static_cast<unsigned char>(b.seed + i * 131); }
void fill(const block &b) { for (std::size_t i = 0; i < b.bytes; ++i) b.p[i] = pattern(b, i); }
void verify(const block &b, const char *when)
{
   for (std::size_t i = 0; i < b.bytes; ++i)
      if (b.p[i] != pattern(b, i)) fail(when, b, i);
}

//! The heaps' clock (their decay delay): milliseconds the program moves.
std::uint64_t fuzz_now_ms = 1;
std::uint64_t fuzz_clock() { return fuzz_now_ms; }

class heap_model {
public:
   //! through_cache: h is the default heap, and its mallocs and (some of its) frees go through
   //! the thread's cache (ba_malloc, ba_free), the rest straight to the heap (ba_heap_*).
   explicit heap_model(ba_heap *h, bool through_cache = false) : heap_(h), through_cache_(through_cache)
   {
      ba_heap_set_clock(h, fuzz_clock);
   }

   void step(program_reader &in)
   {
      switch (in.byte() % 12) {
      case 0: case 1: allocate(in); break;
      case 2: release(in); break;
      case 3: reallocate(in); break;
      case 4: aligned(in); break;
      case 5: case 6: command(in); break;
      case 7: shrink(in); break;
      case 8: burst(in); break;
      case 9: burst_free(in); break;
      case 10:
         if (in.byte() % 2) through_cache_ ? (void)ba_trim(in.number(1 << 20)) : (void)ba_heap_trim(heap_, in.number(1 << 20));
         else decay(in);
         break;
      default: limit(in); break;
      }
      ba_check_report report;
      if (!(through_cache_ ? ba_check_quiescent(&report) : ba_heap_check(heap_, &report))) {
         std::fprintf(stderr, "core_fuzz: ba_heap_check: %s at %p\n", report.what, report.where);
         std::abort();
      }
   }

   void release_all()
   {
      for (block &b : live_) {
         verify(b, "contents before the final free");
         if (through_cache_) ba_free(b.p); else ba_heap_free(heap_, b.p);
      }
      live_.clear();
   }

private:
   // Time passes (the heap gives back what stayed unused for its delay), the delay changes.
   void decay(program_reader &in)
   {
      fuzz_now_ms += in.number(3000);
      ba_heap_set_option(heap_, BA_OPTION_DECAY_MS, in.number(2000));
      if (in.byte() % 2) ba_heap_collect(heap_);
   }

   void adopt(void *p, std::size_t bytes, unsigned char seed)
   {
      if (reinterpret_cast<std::uintptr_t>(p) % BA_MALLOC_ALIGNMENT != 0) fail("misaligned block", block{static_cast<unsigned char *>(p), bytes, 0}, 0);
      block b{static_cast<unsigned char *>(p), bytes, seed};
      fill(b);
      live_.push_back(b);
   }
   block take(std::size_t i)
   {
      block b = live_[i];
      live_[i] = live_.back();
      live_.pop_back();
      return b;
   }
   void allocate(program_reader &in)
   {
      std::size_t n = in.size();
      bool zeroed = in.byte() & 1;
      void *p = zeroed ? ba_heap_calloc(heap_, 1, n) : through_cache_ ? ba_malloc(n) : ba_heap_malloc(heap_, n);
      if (!p) return;   // the footprint limit may be in force
      if (ba_usable_size(p) < n) fail("usable size below the request", block{static_cast<unsigned char *>(p), n, 0}, 0);
      if (zeroed)
         for (std::size_t i = 0; i < n; ++i)
            if (static_cast<unsigned char *>(p)[i] != 0) fail("calloc block not zeroed", block{static_cast<unsigned char *>(p), n, 0}, i);
      adopt(p, n, in.byte());
   }
   void release(program_reader &in)
   {
      if (live_.empty()) return;
      block b = take(in.number(live_.size()));
      verify(b, "contents before free");
      if (through_cache_ && (in.byte() & 3) != 0) ba_free(b.p);
      else ba_heap_free(heap_, b.p);
   }
   void reallocate(program_reader &in)
   {
      if (live_.empty()) return;
      std::size_t i = in.number(live_.size());
      block &b = live_[i];
      verify(b, "contents before realloc");
      std::size_t n = in.size();
      void *p = ba_heap_realloc(heap_, b.p, n);
      if (!p) { verify(b, "contents after a failed realloc"); return; }
      block kept{static_cast<unsigned char *>(p), n < b.bytes ? n : b.bytes, b.seed};
      verify(kept, "contents after realloc");
      b = block{kept.p, n, in.byte()};
      fill(b);
   }
   void aligned(program_reader &in)
   {
      std::size_t alignment = std::size_t(1) << (in.byte() % 16);
      if (in.byte() == 0) alignment += 24;   // not a power of two: refused
      std::size_t n = in.size();
      void *p = ba_heap_memalign(heap_, alignment, n);
      if ((alignment & (alignment - 1)) != 0) {
         if (p) fail("memalign accepted an alignment that is not a power of two", block{static_cast<unsigned char *>(p), n, 0}, alignment);
         return;
      }
      if (!p) return;
      if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0) fail("memalign block misaligned", block{static_cast<unsigned char *>(p), n, 0}, alignment);
      adopt(p, n, in.byte());
   }
   void command(program_reader &in)
   {
      static const unsigned commands[] = {
         BA_EXPAND_FWD, BA_EXPAND_BWD, BA_EXPAND_FWD | BA_EXPAND_BWD, BA_ALLOCATE_NEW | BA_EXPAND_FWD,
         BA_ALLOCATE_NEW | BA_EXPAND_BWD, BA_ALLOCATE_NEW | BA_EXPAND_FWD | BA_EXPAND_BWD, BA_ALLOCATE_NEW};
      unsigned cmd = commands[in.byte() % 7] | ((in.byte() & 1) ? BA_ZERO_MEMORY : 0u);
      std::size_t size = 1 + in.number(96);
      std::size_t alignment = (in.byte() & 3) == 0 ? std::size_t(1) << (4 + in.byte() % 4) : 0;
      bool reuse = !live_.empty() && (cmd & (BA_EXPAND_FWD | BA_EXPAND_BWD));
      std::size_t index = reuse ? in.number(live_.size()) : 0;
      block old = reuse ? live_[index] : block{nullptr, 0, 0};
      std::size_t current = reuse ? old.bytes / size : 0;
      std::size_t held = reuse ? ba_usable_size(old.p) : 0;   // the bytes the block had: kept, not zeroed
      std::size_t preferred = current + in.size() / size + 1;
      std::size_t limit = current + 1 + in.number(preferred - current);
      if (reuse) verify(old, "contents before allocation_command");
      std::size_t received = 0;
      ba_command_ret r = ba_heap_allocation_command(heap_, cmd, size, alignment, limit, preferred, &received, old.p);
      if (!r.first) {
         if (reuse) verify(old, "contents after a failed allocation_command");
         return;
      }
      if (received < limit) fail("received fewer objects than the limit", old, received);
      if (ba_usable_size(r.first) < received * size) fail("usable size below the received objects", old, received);
      unsigned char *start = static_cast<unsigned char *>(r.first);
      if (r.second) {
         std::size_t moved = static_cast<std::size_t>(old.p - start);
         if (moved % size != 0 || old.p < start) fail("backward expansion moved by a partial object", old, moved);
         // In place, the block keeps the alignment it had: a backward move is whole steps of it.
         if (alignment && reinterpret_cast<std::uintptr_t>(old.p) % alignment == 0
             && reinterpret_cast<std::uintptr_t>(start) % alignment != 0) fail("expanded block misaligned", old, alignment);
         block objects{old.p, current * size, old.seed};
         verify(objects, "objects after expansion in place");
         if (cmd & BA_ZERO_MEMORY) {
            for (std::size_t i = 0; i < moved; ++i) if (start[i] != 0) fail("gained bytes not zeroed (front)", old, i);
            for (std::size_t i = moved + held; i < received * size; ++i) if (start[i] != 0) fail("gained bytes not zeroed (back)", old, i);
         }
         live_[index] = block{start, received * size, in.byte()};
         fill(live_[index]);
      } else {
         if (alignment && reinterpret_cast<std::uintptr_t>(start) % alignment != 0) fail("new block misaligned", old, alignment);
         if (cmd & BA_ZERO_MEMORY)
            for (std::size_t i = 0; i < received * size; ++i) if (start[i] != 0) fail("new block not zeroed", old, i);
         adopt(start, received * size, in.byte());
      }
   }
   void shrink(program_reader &in)
   {
      if (live_.empty()) return;
      std::size_t index = in.number(live_.size());
      block &b = live_[index];
      std::size_t size = 1 + in.number(64);
      std::size_t current = b.bytes / size;
      std::size_t keep = in.number(current + 1);
      std::size_t most = keep + in.number(current + 1);
      unsigned cmd = (in.byte() & 1) ? BA_SHRINK_IN_PLACE : BA_TRY_SHRINK_IN_PLACE;
      std::size_t received = 0;
      ba_command_ret r = ba_heap_allocation_command(heap_, cmd, size, 0, most, keep, &received, b.p);
      if (r.first) {
         if (r.first != b.p || !r.second || received < keep || received > most) fail("bad shrink result", b, received);
         if (cmd == BA_SHRINK_IN_PLACE) b.bytes = keep * size;
      }
      verify(b, "contents after shrink");
   }
   void burst(program_reader &in)
   {
      std::size_t n = in.number(64);
      std::size_t element = 1 + in.number(600);
      static const std::size_t runs[] = {BA_MULTIALLOC_DEFAULT_CONTIGUOUS, BA_MULTIALLOC_ALL_CONTIGUOUS, 1, 5};
      std::size_t contiguous = runs[in.byte() % 4];
      bool arrays = in.byte() & 1;
      std::vector<std::size_t> lengths(n);
      for (std::size_t &l : lengths) l = in.number(40);
      ba_chain chain;
      ba_chain_init(&chain);
      int ok = arrays ? ba_heap_multialloc_arrays(heap_, n, lengths.data(), element, contiguous, &chain)
                      : ba_heap_multialloc_nodes(heap_, n, element, contiguous, &chain);
      if (!ok) {
         if (!ba_chain_empty(&chain)) fail("a failed burst left blocks in the chain", block{nullptr, 0, 0}, 0);
         return;
      }
      if (chain.size != n) fail("burst chain size", block{nullptr, 0, 0}, chain.size);
      std::size_t i = 0;
      for (void *p = chain.first; p; ++i) {
         void *next = ba_chain_next(p);
         std::size_t bytes = arrays ? lengths[i] * element : element;
         if (ba_usable_size(p) < bytes) fail("burst element too small", block{static_cast<unsigned char *>(p), bytes, 0}, i);
         adopt(p, bytes, in.byte());
         p = next;
      }
   }
   void burst_free(program_reader &in)
   {
      ba_chain chain;
      ba_chain_init(&chain);
      std::size_t n = in.number(24);
      // Newest first: a burst's elements, adopted in address order, come back adjacent.
      for (std::size_t j = 0; j < n && !live_.empty(); ++j) {
         std::size_t i = (in.byte() & 1) ? live_.size() - 1 : in.number(live_.size());
         if (live_[i].bytes < sizeof(void *)) continue;   // a chain node holds at least its link
         block b = take(i);
         verify(b, "contents before multidealloc");
         ba_chain_push_front(&chain, b.p);
      }
      ba_heap_multidealloc(heap_, &chain);
      if (!ba_chain_empty(&chain)) fail("multidealloc left blocks in the chain", block{nullptr, 0, 0}, 0);
   }
   void limit(program_reader &in)
   {
      ba_heap_stats stats;
      ba_heap_stats_get(heap_, &stats);
      std::size_t choice = in.byte() % 3;
      ba_heap_set_footprint_limit(heap_, choice == 0 ? stats.system_bytes + in.number(1 << 20) : SIZE_MAX);
   }

   ba_heap *heap_;
   bool through_cache_;
   std::vector<block> live_;
};

alignas(64) unsigned char buffer_storage[1 << 20];

// ---------------------------------------------------------------------------------------------
// Corruption programs.
// ---------------------------------------------------------------------------------------------
namespace corruption {

constexpr char tag[] = "corrupt!";
constexpr std::size_t tag_size = sizeof tag - 1;
constexpr std::size_t word = sizeof(std::size_t);

// The heap's buffer, and memory outside it that a forged link may name (with a plausible chunk
// header written there, as an attacker would).
alignas(64) unsigned char arena[64 * 1024];
alignas(64) unsigned char decoy[1024];

std::jmp_buf escape;
const char *reported;   // the message of the report that ended the program, or null

void on_report(const char *message, const void *, const ba_heap *)
{
   reported = message;
   std::longjmp(escape, 1);
}

[[noreturn]] void exploited(const char *what, const void *where)
{
   std::fprintf(stderr, "core_fuzz: a corruption was exploited, not reported: %s (%p)\n", what, where);
   __builtin_trap();
}

// The fuzzer's own reads and writes of the heap's words (headers, links of freed blocks) are
// outside every block it holds: ASan, told by the core that they belong to no block, must let them.
__attribute__((no_sanitize("address"))) std::size_t read_word(const unsigned char *at)
{
   std::size_t v;
   std::memcpy(&v, at, word);
   return v;
}
__attribute__((no_sanitize("address"))) void write_word(unsigned char *at, std::size_t v)
{
   std::memcpy(at, &v, word);
}
// The size of the chunk of block p, from the header word before it (the low 3 bits are flags).
std::size_t chunk_of(const unsigned char *p) { return read_word(p - word) & ~std::size_t(7); }

struct held_block {
   unsigned char *p;
   std::size_t n;
   unsigned char seed;
   std::size_t forged_at;   // offset of a word of the block the fuzzer forged (not the heap), or n
};
struct freed_block {
   unsigned char *p;
   std::size_t chunk;   // its chunk's size when it was freed
};

bool overlap(const unsigned char *p, std::size_t n, const unsigned char *q, std::size_t m)
{
   return p < q + m && q < p + n;
}

// CORE_FUZZ_TRACE=1 prints each operation of a corruption program (to read a crash input).
bool trace()
{
   static const bool on = std::getenv("CORE_FUZZ_TRACE") != nullptr;
   return on;
}

class session {
public:
   explicit session(ba_heap *h) : heap_(h)
   {
      held_.reserve(256);
      freed_.reserve(256);
      // The lowest address a block may have: the heap's own record lies below it.
      void *first = ba_heap_malloc(heap_, 1);
      floor_ = static_cast<unsigned char *>(first);
      ba_heap_free(heap_, first);
   }

   // Runs the program, then gives everything back and takes everything again, so that whatever
   // the writes forged is used by the heap (and reported) before the final ba_heap_check.
   void run(program_reader &in)
   {
      for (unsigned steps = 0; !in.done() && steps < 512; ++steps) {
         step(in);
         verify_held();
      }
      while (!held_.empty()) release(held_.size() - 1);
      drain();
      while (!held_.empty()) release(held_.size() - 1);
      ba_check_report report;
      if (!ba_heap_check(heap_, &report)) {
         std::fprintf(stderr, "core_fuzz: ba_heap_check: %s at %p\n", report.what, report.where);
         exploited("ba_heap_check fails and nothing was reported", report.where);
      }
   }

private:
   void step(program_reader &in)
   {
      static const char *const names[] = {"malloc", "malloc", "free", "write after free", "overflow",
                                          "free again", "burst", "trim"};
      std::uint8_t op = in.byte() % 8;
      if (trace()) std::fprintf(stderr, "core_fuzz: %s\n", names[op]);
      switch (op) {
      case 0: case 1: allocate(request(in), in.byte()); break;
      case 2: if (!held_.empty()) release(in.number(held_.size())); break;
      case 3: write_after_free(in); break;
      case 4: overflow(in); break;
      case 5: free_again(in); break;
      case 6: burst(in); break;
      default: ba_heap_trim(heap_, 0); break;
      }
   }

   // A few sizes, so that blocks meet again in their quick list or bin: small ones (quick-listed
   // when freed) and large ones (binned, coalescing at once).
   static std::size_t request(program_reader &in)
   {
      std::uint8_t b = in.byte();
      return b < 160 ? 16 * (1 + b % 8) - 8 : 1024 + 512 * (b % 8);
   }

   // A block the heap handed out must lie in the buffer above its record, be aligned, and
   // overlap no block the fuzzer holds.
   void check_new(const unsigned char *p, std::size_t n) const
   {
      if (reinterpret_cast<std::uintptr_t>(p) % BA_MALLOC_ALIGNMENT != 0) exploited("a misaligned block", p);
      if (p < floor_ || p + n > arena + sizeof arena) exploited("a block outside the heap's buffer", p);
      for (const held_block &b : held_)
         if (overlap(p, n ? n : 1, b.p, b.n ? b.n : 1)) exploited("a block over one still in use", p);
   }
   static unsigned char pattern(const held_block &b, std::size_t i) { return static_cast<unsigned char>(b.seed + i * 61); }
   void adopt(unsigned char *p, std::size_t n, unsigned char seed)
   {
      check_new(p, n);
      held_block b{p, n, seed, n};
      for (std::size_t i = 0; i < n; ++i) p[i] = pattern(b, i);
      held_.push_back(b);
   }
   // The heap must never write into a block the fuzzer holds.
   __attribute__((no_sanitize("address"))) void verify_held() const
   {
      for (const held_block &b : held_)
         for (std::size_t i = 0; i < b.n; ++i)
            if (b.p[i] != pattern(b, i) && (i < b.forged_at || i >= b.forged_at + word))
               exploited("the heap wrote into a block still in use", b.p + i);
   }
   // Whether [p, p + n) touches a block the fuzzer holds (then it is not freed memory).
   bool in_held(const unsigned char *p, std::size_t n) const
   {
      for (const held_block &b : held_)
         if (overlap(p, n, b.p - 2 * word, b.n + 2 * word)) return true;
      return false;
   }

   void allocate(std::size_t n, unsigned char seed)
   {
      void *p = ba_heap_malloc(heap_, n);
      if (p) adopt(static_cast<unsigned char *>(p), n, seed);
   }
   void release(std::size_t i)
   {
      held_block b = held_[i];
      held_[i] = held_.back();
      held_.pop_back();
      freed_block f{b.p, chunk_of(b.p)};
      ba_heap_free(heap_, b.p);
      remember(f);
   }
   void remember(const freed_block &f)
   {
      if (freed_.size() == 256) freed_.erase(freed_.begin());
      freed_.push_back(f);
   }

   // A value an attacker would write over a link: a block in use (its chunk or its memory), a
   // chunk outside the buffer made to look like a free block of the right size, a misaligned
   // address, another freed chunk, or null.
   std::size_t forged_value(program_reader &in, std::size_t chunk)
   {
      std::uintptr_t v = 0;
      switch (in.byte() % 6) {
      case 0: if (!held_.empty()) v = reinterpret_cast<std::uintptr_t>(held_[in.number(held_.size())].p - 2 * word); break;
      case 1: if (!held_.empty()) v = reinterpret_cast<std::uintptr_t>(held_[in.number(held_.size())].p); break;
      case 2: {
         unsigned char *fake = decoy + 64 * in.number(sizeof decoy / 64 - 1);
         write_word(fake + word, chunk | 7);   // the head of an in-use, quick-listed chunk of that size
         v = reinterpret_cast<std::uintptr_t>(fake);
         break;
      }
      case 3: if (!held_.empty()) v = reinterpret_cast<std::uintptr_t>(held_[in.number(held_.size())].p - word); break;
      case 4: if (!freed_.empty()) v = reinterpret_cast<std::uintptr_t>(freed_[in.number(freed_.size())].p - 2 * word); break;
      default: break;
      }
      return v;
   }

   // An 8-byte write after free into a freed block: a quick-list link (small blocks), a bin's
   // links or a tree node's (large ones).
   void write_after_free(program_reader &in)
   {
      if (freed_.empty()) return;
      const freed_block &f = freed_[in.number(freed_.size())];
      std::size_t words = f.chunk > 2 * word ? (f.chunk - 2 * word) / word : 1;
      std::size_t k = in.byte() % (words < 6 ? words : 6);
      unsigned char *at = f.p + k * word;
      std::size_t v = forged_value(in, f.chunk);
      if (at < floor_ || at + word > arena + sizeof arena || in_held(at, word)) return;
      if (trace()) std::fprintf(stderr, "core_fuzz:   word %zu of a freed %zu-byte chunk := %#zx\n", k, f.chunk, v);
      write_word(at, v);
   }

   // An overflow of block i's last word (the next chunk's previous-size word) and one bit past it
   // (the next chunk's "previous in use" bit).
   void overflow(program_reader &in)
   {
      if (held_.empty()) return;
      held_block &b = held_[in.number(held_.size())];
      std::size_t chunk = chunk_of(b.p);
      unsigned char *next = b.p - 2 * word + chunk;   // the next chunk; its prev_foot is b's last word
      if (chunk < 4 * word || next < b.p || next + 2 * word > arena + sizeof arena) return;
      std::size_t distance = chunk;   // the true size: only the bit is forged
      switch (in.byte() % 4) {
      case 0: if (!held_.empty()) distance = static_cast<std::size_t>(next - (held_[in.number(held_.size())].p - 2 * word)); break;
      case 1: if (!freed_.empty()) distance = static_cast<std::size_t>(next - (freed_[in.number(freed_.size())].p - 2 * word)); break;
      case 2: distance = 16 * (1 + in.number(256)); break;
      default: break;
      }
      if (distance == 0 || distance > static_cast<std::size_t>(next - floor_) + 2 * word) distance = chunk;
      if (trace()) std::fprintf(stderr, "core_fuzz:   prev_foot of the chunk after a %zu-byte chunk := %zu\n", chunk, distance);
      write_word(next, distance);
      if (static_cast<std::size_t>(next - b.p) < b.n) b.forged_at = static_cast<std::size_t>(next - b.p);
      if (in.byte() % 4 != 0) write_word(next + word, read_word(next + word) & ~std::size_t(1));
   }

   // A second free of a freed block, which may have merged with its neighbours since, or have been
   // a node of a multidealloc run. Not of memory the fuzzer holds again (that free would be valid).
   void free_again(program_reader &in)
   {
      if (freed_.empty()) return;
      const freed_block &f = freed_[in.number(freed_.size())];
      if (f.p < floor_ || in_held(f.p - 2 * word, 2 * word + 1)) return;
      if (trace()) std::fprintf(stderr, "core_fuzz:   a %zu-byte chunk freed before\n", f.chunk);
      ba_heap_free(heap_, f.p);
   }

   // Nodes of one run, kept or given back at once with ba_heap_multidealloc.
   void burst(program_reader &in)
   {
      std::size_t n = 2 + in.number(7), element = 8 + in.number(300);
      bool give_back = in.byte() & 1;
      ba_chain chain;
      ba_chain_init(&chain);
      if (!ba_heap_multialloc_nodes(heap_, n, element, BA_MULTIALLOC_ALL_CONTIGUOUS, &chain)) return;
      for (void *p = chain.first; p; p = ba_chain_next(p)) check_new(static_cast<unsigned char *>(p), element);
      if (give_back) {
         for (void *p = chain.first; p; p = ba_chain_next(p))
            remember(freed_block{static_cast<unsigned char *>(p), chunk_of(static_cast<unsigned char *>(p))});
         ba_heap_multidealloc(heap_, &chain);
         return;
      }
      while (!ba_chain_empty(&chain)) adopt(static_cast<unsigned char *>(ba_chain_pop_front(&chain)), element, in.byte());
   }

   // Takes every block the heap can give, large sizes first, so that every free chunk, bin and
   // quick list is used (and what was forged in them reported).
   void drain()
   {
      static const std::size_t sizes[] = {4000, 1000, 200, 16};
      for (std::size_t n : sizes)
         for (unsigned i = 0; i < 4096 && held_.size() < 4096; ++i) {
            void *p = ba_heap_malloc(heap_, n);
            if (!p) break;
            adopt(static_cast<unsigned char *>(p), n, static_cast<unsigned char>(i));
         }
   }

   ba_heap *heap_;
   unsigned char *floor_;
   std::vector<held_block> held_;
   std::vector<freed_block> freed_;
};

// Runs a corruption program on a heap of its own, which is destroyed afterwards, reported or not.
void run(const std::uint8_t *data, std::size_t size)
{
   ba_heap *h = ba_create_heap_over(arena, sizeof arena, 0);
   if (!h) { std::fprintf(stderr, "core_fuzz: no heap over the buffer\n"); std::abort(); }
   ba_diagnostic_handler previous = ba_set_diagnostic_handler(on_report);
   reported = nullptr;
   {
      // Nothing changed after the setjmp lives in this frame (the session is on the heap), and
      // nothing with a destructor lives below it, so the longjmp of a report is well defined.
      std::unique_ptr<program_reader> in(new program_reader(data, size));
      std::unique_ptr<session> s(new session(h));
      if (setjmp(escape) == 0) s->run(*in);
   }
   if (reported && trace()) std::fprintf(stderr, "core_fuzz: reported: %s\n", reported);
   ba_set_diagnostic_handler(previous);
   ba_destroy_heap(h);   // allowed after a report of corruption; the buffer is ours again
}

} // namespace corruption

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
   if (size >= corruption::tag_size && std::memcmp(data, corruption::tag, corruption::tag_size) == 0) {
      corruption::run(data + corruption::tag_size, size - corruption::tag_size);
      return 0;
   }
   program_reader in(data, size);
   ba_heap *mapped = ba_create_heap(in.byte() & 1 ? 0 : std::size_t(1) << 20, 0);
   ba_heap_set_option(mapped, BA_OPTION_MMAP_THRESHOLD, std::size_t(64) << 10);
   ba_heap_set_option(mapped, BA_OPTION_RELEASE_RATE, 7);
   ba_heap *over = ba_create_heap_over(buffer_storage, sizeof buffer_storage, 0);
   // The default heap too, with the thread's cache in front of it: what it holds at the start
   // (nothing of this program's) is what it must hold at the end.
   ba_thread_cache_flush();
   ba_heap_stats at_start;
   ba_heap_stats_get(ba_default_heap(), &at_start);
   {
      heap_model a(mapped), b(over), c(ba_default_heap(), true);
      for (unsigned steps = 0; !in.done() && steps < 4000; ++steps) {
         switch (in.byte() % 3) {
         case 0: a.step(in); break;
         case 1: b.step(in); break;
         default: c.step(in); break;
         }
      }
      a.release_all();
      b.release_all();
      c.release_all();
   }
   ba_heap_stats stats;
   ba_heap_stats_get(mapped, &stats);
   if (stats.in_use_bytes != 0 || stats.in_use_chunks != 0) { std::fprintf(stderr, "core_fuzz: in-use bytes after freeing everything\n"); std::abort(); }
   ba_heap_set_footprint_limit(ba_default_heap(), SIZE_MAX);
   ba_thread_cache_flush();
   ba_heap_stats_get(ba_default_heap(), &stats);
   if (stats.in_use_bytes != at_start.in_use_bytes || stats.in_use_chunks != at_start.in_use_chunks) {
      std::fprintf(stderr, "core_fuzz: the default heap's in-use bytes changed after freeing everything\n");
      std::abort();
   }
   ba_destroy_heap(mapped);
   ba_destroy_heap(over);
   return 0;
}
