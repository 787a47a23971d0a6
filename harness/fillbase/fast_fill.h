// Filling fresh memory near memory speed, without libtorch (so benchmarks can call it too).
//
// The cpu device maps each tensor's memory fresh (map_fresh), fills it in one pass (fill_random or
// fill_value) and hands it to at::from_blob with a deleter that calls unmap. Random data is the
// output of eight independent xoshiro256+ generators, written as 64-bit words: no short repeating
// pattern, so no compressor (macOS's memory compressor, zswap) can shrink it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wmb::fill {

// Huge-page size used to round mappings (2 MiB on x86-64 and arm64 Linux).
constexpr size_t kMapGranule = size_t{2} << 20;

// Writes `bytes` bytes of pseudo-random data at `p` (any alignment, any length). Different seeds
// give unrelated streams. One pass, no reads of `p`.
void fill_random(void* p, size_t bytes, uint64_t seed);

// Writes the float `value` into every 4-byte element of `p` (a trailing partial element gets the
// value's leading bytes). value == 0.0f is a memset; it still writes every page.
void fill_value(void* p, size_t bytes, float value);

enum class HugePages {
  // The system's policy (/sys/kernel/mm/transparent_hugepage/enabled): huge pages under
  // "always", 4 KiB pages under "madvise". The mapping is aligned either way.
  SystemDefault,
  // madvise(MADV_HUGEPAGE) on Linux (failure ignored). Faster on bare metal, but measured slower
  // on average, and erratic, in a Firecracker VM with free page reporting: huge pages come from the
  // free blocks the guest has handed back to the host, which must fault them in again
  // (0.3 to 7 GiB/s, against a steady 1.1 to 1.6 GiB/s with 4 KiB pages, at::randn 0.3 to 0.55).
  Advise,
};

// Maps `bytes` bytes (rounded up to kMapGranule) of fresh private anonymous memory, aligned to
// kMapGranule where possible. Returns nullptr on failure with errno set by mmap.
void* map_fresh(size_t bytes, HugePages huge = HugePages::SystemDefault);

// Unmaps memory from map_fresh; `bytes` is the size given to map_fresh.
void unmap(void* p, size_t bytes);

// The size map_fresh really maps for `bytes`.
size_t mapped_size(size_t bytes);

}  // namespace wmb::fill
