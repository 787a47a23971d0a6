#include "fillbase/fast_fill.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace wmb::fill {
namespace {

// Four 64-bit lanes. GCC and Clang lower this to AVX2, two SSE2 halves, or NEON.
typedef uint64_t u64x4 __attribute__((vector_size(32)));

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Two groups of four xoshiro256+ generators (eight lanes); state in structure-of-arrays form.
struct Xoshiro8 {
  u64x4 a0, a1, a2, a3;
  u64x4 b0, b1, b2, b3;

  explicit Xoshiro8(uint64_t seed) {
    // Hash the seed first, so that seeds in any arithmetic progression (even one of splitmix's own
    // increment) start unrelated streams.
    uint64_t sm = seed;
    sm = splitmix64(sm) ^ 0x6A09E667F3BCC909ull;
    u64x4* regs[8] = {&a0, &a1, &a2, &a3, &b0, &b1, &b2, &b3};
    for (u64x4* r : regs)
      for (int j = 0; j < 4; ++j) (*r)[j] = splitmix64(sm);
    // xoshiro's state must not be all zero in any lane; splitmix64 output makes that vanishingly
    // unlikely, but make sure.
    for (int j = 0; j < 4; ++j) {
      if ((a0[j] | a1[j] | a2[j] | a3[j]) == 0) a0[j] = 1;
      if ((b0[j] | b1[j] | b2[j] | b3[j]) == 0) b0[j] = 1;
    }
  }

  // Vectors pass by reference only: no vector-ABI dependence between the avx2 and default clones.
  static inline void step(u64x4& result, u64x4& s0, u64x4& s1, u64x4& s2, u64x4& s3) {
    result = s0 + s3;
    const u64x4 t = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 45) | (s3 >> 19);
  }
};

#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define WMB_FILL_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef WMB_FILL_CLONES
#define WMB_FILL_CLONES
#endif

// Writes `blocks` blocks of 64 bytes. Returns nothing; the state advances.
WMB_FILL_CLONES
void fill_blocks(unsigned char* out, size_t blocks, Xoshiro8& g) {
  u64x4 a0 = g.a0, a1 = g.a1, a2 = g.a2, a3 = g.a3;
  u64x4 b0 = g.b0, b1 = g.b1, b2 = g.b2, b3 = g.b3;
  for (size_t i = 0; i < blocks; ++i) {
    u64x4 ra, rb;
    Xoshiro8::step(ra, a0, a1, a2, a3);
    Xoshiro8::step(rb, b0, b1, b2, b3);
    std::memcpy(out + 64 * i, &ra, 32);
    std::memcpy(out + 64 * i + 32, &rb, 32);
  }
  g.a0 = a0; g.a1 = a1; g.a2 = a2; g.a3 = a3;
  g.b0 = b0; g.b1 = b1; g.b2 = b2; g.b3 = b3;
}

WMB_FILL_CLONES
void fill_word(unsigned char* out, size_t words, uint64_t word) {
  for (size_t i = 0; i < words; ++i) std::memcpy(out + 8 * i, &word, 8);
}

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

void fill_random(void* p, size_t bytes, uint64_t seed) {
  auto* out = static_cast<unsigned char*>(p);
  Xoshiro8 g(seed);
  const size_t blocks = bytes / 64;
  fill_blocks(out, blocks, g);
  const size_t rest = bytes - blocks * 64;
  if (rest) {
    unsigned char tail[64];
    fill_blocks(tail, 1, g);
    std::memcpy(out + blocks * 64, tail, rest);
  }
}

void fill_value(void* p, size_t bytes, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (bits == 0) {
    std::memset(p, 0, bytes);
    return;
  }
  auto* out = static_cast<unsigned char*>(p);
  const uint64_t word = (uint64_t{bits} << 32) | bits;
  const size_t words = bytes / 8;
  fill_word(out, words, word);
  const size_t rest = bytes - words * 8;
  if (rest) std::memcpy(out + words * 8, &word, rest);
}

size_t mapped_size(size_t bytes) { return round_up(bytes == 0 ? 1 : bytes, kMapGranule); }

void* map_fresh(size_t bytes, HugePages huge) {
  const size_t len = mapped_size(bytes);
  if (len < bytes) {  // overflow
    errno = ENOMEM;
    return nullptr;
  }
  void* p = nullptr;
#if defined(__linux__)
  // Over-map by one granule and trim, so the region starts on a huge-page boundary.
  void* raw = mmap(nullptr, len + kMapGranule, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw != MAP_FAILED) {
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = round_up(start, kMapGranule);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = aligned + len;
    const uintptr_t raw_end = start + len + kMapGranule;
    if (raw_end > end) munmap(reinterpret_cast<void*>(end), raw_end - end);
    p = reinterpret_cast<void*>(aligned);
  }
#endif
  if (!p) {
    void* q = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) return nullptr;  // errno from mmap
    p = q;
  }
#if defined(MADV_HUGEPAGE)
  if (huge == HugePages::Advise) {
    const int saved = errno;
    (void)madvise(p, len, MADV_HUGEPAGE);
    errno = saved;
  }
#else
  (void)huge;
#endif
  return p;
}

void unmap(void* p, size_t bytes) {
  if (p) munmap(p, mapped_size(bytes));
}

}  // namespace wmb::fill
