// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// libFuzzer target for the C core: the input is a program of heap operations (malloc, calloc,
// free, realloc, memalign, every allocation_command, bursts of nodes and arrays, multidealloc,
// trim, footprint limits) run on a heap from mmap and on a heap over a buffer, against a model
// of the live blocks. Every block carries a fill pattern checked before it moves or dies, and
// ba_heap_check runs after every operation. Any difference is a crash.
#include <boost/allocplus/core/dlmalloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

class heap_model {
public:
   explicit heap_model(ba_heap *h) : heap_(h) {}

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
      case 10: ba_heap_trim(heap_, in.number(1 << 20)); break;
      default: limit(in); break;
      }
      ba_check_report report;
      if (!ba_heap_check(heap_, &report)) {
         std::fprintf(stderr, "core_fuzz: ba_heap_check: %s at %p\n", report.what, report.where);
         std::abort();
      }
   }

   void release_all()
   {
      for (block &b : live_) { verify(b, "contents before the final free"); ba_heap_free(heap_, b.p); }
      live_.clear();
   }

private:
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
      void *p = zeroed ? ba_heap_calloc(heap_, 1, n) : ba_heap_malloc(heap_, n);
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
      ba_heap_free(heap_, b.p);
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
   std::vector<block> live_;
};

alignas(64) unsigned char buffer_storage[1 << 20];

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
   program_reader in(data, size);
   ba_heap *mapped = ba_create_heap(in.byte() & 1 ? 0 : std::size_t(1) << 20, 0);
   ba_heap_set_option(mapped, BA_OPTION_MMAP_THRESHOLD, std::size_t(64) << 10);
   ba_heap_set_option(mapped, BA_OPTION_RELEASE_RATE, 7);
   ba_heap *over = ba_create_heap_over(buffer_storage, sizeof buffer_storage, 0);
   {
      heap_model a(mapped), b(over);
      for (unsigned steps = 0; !in.done() && steps < 4000; ++steps) {
         if (in.byte() & 1) a.step(in); else b.step(in);
      }
      a.release_all();
      b.release_all();
   }
   ba_heap_stats stats;
   ba_heap_stats_get(mapped, &stats);
   if (stats.in_use_bytes != 0 || stats.in_use_chunks != 0) { std::fprintf(stderr, "core_fuzz: in-use bytes after freeing everything\n"); std::abort(); }
   ba_destroy_heap(mapped);
   ba_destroy_heap(over);
   return 0;
}
