// The MPS heap allocator as bookkeeping, without Metal: which heap a buffer is cut from, what
// Metal's driver counts, when PyTorch refuses and what it prints. No memory is held here; the fill
// child's mps-model device puts real CPU memory behind it and `wmbench predict` runs it dry.
//
// Read from pytorch/pytorch aten/src/ATen/mps/MPSAllocator.h and MPSAllocator.mm (the search
// tool's read_file; several stored versions, the newest with getHeapTier):
//
//   - Heap tiers (MPSAllocator.h, HeapBlock::createHeapBlock / getHeapTier), on the aligned size:
//       size <= kMaxSmallAlloc (1 MiB)                       -> kSmallHeap (8 MiB), small pool
//       size <  kMinLargeAlloc (10 MiB)                      -> kLargeHeap (32 MiB)
//       size <  kXLargeHeap / 2 (512 MiB) and no pressure    -> kXLargeHeap (1 GiB), shared by later buffers
//       otherwise                                            -> exactly the size rounded up to kRoundLarge (2 MiB),
//                                                               one buffer (is_split = false)
//     So a 512 MiB step (the write-up's) gets a heap of its own, and 32 or 64 MiB steps share 1 GiB heaps.
//   - get_free_heap: a new heap only when no heap of the pool has room (pool.heaps.lower_bound).
//   - alloc_buffer / get_free_buffer both start with
//       `current_allocated_size() + params.size() > m_max_total_allowed_size` -> refuse,
//     where current_allocated_size() is [MTLDevice currentAllocatedSize]: every heap's whole size
//     plus MPS's own buffers ("other allocations"). A heap's unused room does not help once the
//     driver count is near the limit.
//   - alloc_buffer_block: `TORCH_CHECK(size < m_max_buffer_size, "Invalid buffer size: ", ...)`
//     first (m_max_buffer_size = [m_device maxBufferLength]); then
//     `has_memory_pressure = !(pool.usage & SMALL) && getLowWatermarkValue() <= 0`; on a miss, garbage
//     collection under pressure, then the retries (release cached buffers, then all), then the OOM.
//   - getLowWatermarkValue(): LOW 0.0 -> SSIZE_MAX (never pressure); else
//       max<ssize_t>(0, (ssize_t)(m_low_watermark_limit - current_allocated_size()) / 1048576)
//     (integer MiB, the unsigned difference cast to signed: above the limit it is negative -> 0).
//   - The OOM text: "MPS allocated" = m_total_allocated_memory (the heaps' sizes), "other
//     allocations" = current_allocated_size() - that; with HIGH 0.0 there is no ", max allowed: M"
//     and the text ends "... on <pool> pool." (no hint).
//   - free(): the buffer goes back to its pool, cached, still inside its heap; the heap goes only on
//     emptyCache() or the allocator's own retries / garbage collection.
//
// Not known from PyTorch's source, assumed here (Metal's behaviour):
//   - a heap holds exactly its descriptor size (heapAvailableSize = maxAvailableSizeWithAlignment);
//   - a buffer takes its request rounded up to 16 KiB (heapBufferSizeAndAlignWithLength on Apple
//     silicon's 16 KiB pages);
//   - a heap's free room is one run (no fragmentation: the fill allocates and never frees).
// Simplified: garbage collection and the retries release cached buffers oldest first and drop heaps
// left empty (PyTorch orders by gc_count age and, in the newest source, frees only whole free heaps).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/units.h"
#include "mpsmodel/revision.h"
#include "mpsmodel/watermark.h"

namespace wmb::mpsmodel {

// MPSAllocator.h
constexpr uint64_t kMaxSmallAlloc = 1 * MiB;   // largest "small" allocation
constexpr uint64_t kMinLargeAlloc = 10 * MiB;  // allocations between 1 and 10 MiB use kLargeHeap
constexpr uint64_t kRoundLarge = 2 * MiB;      // large allocations are rounded up to 2 MiB
constexpr uint64_t kSmallHeap = 8 * MiB;
constexpr uint64_t kLargeHeap = 32 * MiB;
constexpr uint64_t kXLargeHeap = 1024 * MiB;
// Assumed (Metal): heapBufferSizeAndAlignWithLength rounds to the 16 KiB page.
constexpr uint64_t kBufferAlign = 16 * KiB;

enum class HeapTier { Small, Large, XLarge, Oversize };
const char* tier_name(HeapTier t);  // "small", "large", "xlarge", "oversize"

// getHeapTier(size, has_memory_pressure), on the aligned size.
HeapTier heap_tier(uint64_t aligned, bool pressure);
// The heap createHeapBlock makes for that tier: 8 MiB, 32 MiB, 1 GiB, or `aligned` rounded up to 2 MiB.
uint64_t heap_size(HeapTier t, uint64_t aligned);

// What the model is given besides the watermark variables and the recommended max.
struct ModelParams {
  // MPS's own buffers, counted by the driver but not by the heaps (448.00 KiB in the write-up's message).
  uint64_t other_bytes = kDefaultOtherBytes;
  std::string revision = "current";  // revision.h
  // Metal's maxBufferLength; nullopt: no "Invalid buffer size" check.
  std::optional<uint64_t> max_buffer;
  // The sandbox (a scaled-down Mac). Decision (issue 15 item 3): the step keeps the tier the
  // unscaled step is in on the Mac modelled - not tiers scaled by the RAM factor, because the
  // sandbox's step is a power of two chosen by min_steps and could fall on either side of a
  // scaled 512 MiB boundary, and because Metal's pages and 2 MiB rounding cannot be scaled. The
  // write-up's 512 MiB step is in the oversize tier, so each 32 MiB sandbox step gets a heap of
  // exactly its size, as each 512 MiB step does on the 48 GB Mac: "MPS allocated" = held, and the
  // stop is at the same fraction of max allowed. The runner passes --model-unscaled-step.
  // A request of `size` is placed in the tier its unscaled
  // counterpart (size x tier_scale) is in on the Mac modelled, and the shared heaps are that
  // Mac's heaps scaled down by the same factor. 1.0 = PyTorch as it is. Metal's 16 KiB pages and
  // 2 MiB rounding are not scaled.
  double tier_scale = 1.0;
};

// Metal's maxBufferLength estimated from RAM: 9/16 of it, from two posted values (M1 Max 64 GB:
// 36 GB, gfx-rs/wgpu#2502; M4 Pro 48 GB: ~27 GB, exo-explore/exo#1048). An estimate: a Mac reads it.
uint64_t estimated_max_buffer(uint64_t ram);

class MpsAllocatorModel {
 public:
  // Throws std::invalid_argument for an unknown revision or tier_scale < 1 (or not finite).
  MpsAllocatorModel(WatermarkConfig cfg, uint64_t recommended_max, ModelParams params = {});

  // PyTorch validates the watermark variables when the allocator is first used: allocate() calls
  // this itself at its first call; it throws ModelError with PyTorch's text while invalid.
  void check_config();
  // torch.mps.set_per_process_memory_fraction(F) before the first allocation: the call starts the
  // allocator, so it throws ModelError with PyTorch's text at once (the fraction's ValueError, or
  // the variables' error); afterwards max allowed = F x recommended max.
  void set_memory_fraction(double fraction);

  // One tensor's buffer of `bytes` (as MPSHeapAllocatorImpl::malloc): returns its id. Throws
  // ModelError with PyTorch's text ("Invalid buffer size: ...", "MPS backend out of memory (...)");
  // nothing is counted then.
  uint64_t allocate(uint64_t bytes);
  // free(): the buffer becomes cached in its heap. Unknown ids are ignored.
  void free(uint64_t id);
  // Frees the newest buffer in use that was asked for with `bytes` (for callers that do not keep ids).
  void free_latest_of_size(uint64_t bytes);
  // emptyCache(): every cached buffer is released, and every heap left empty.
  void empty_cache();

  // get_allocation_size: 16 KiB pages (assumed), then (current revision) the power-of-two buckets.
  uint64_t allocation_size(uint64_t bytes) const;
  HeapTier tier_of(uint64_t aligned, bool pressure) const;

  uint64_t heaps_bytes() const { return heaps_bytes_; }     // "MPS allocated" (m_total_allocated_memory)
  uint64_t in_use_bytes() const { return in_use_bytes_; }   // buffers in use (m_current_allocated_memory)
  uint64_t other() const { return params_.other_bytes; }
  uint64_t driver() const { return heaps_bytes_ + params_.other_bytes; }  // currentAllocatedSize
  size_t heap_count() const { return heaps_.size(); }
  uint64_t max_allowed() const { return limits_.max_allowed; }  // kNoLimit with HIGH 0.0 (or invalid)
  uint64_t low_limit() const { return limits_.low_limit; }
  bool limited() const { return limits_.limited(); }
  // getLowWatermarkValue() in MiB; INT64_MAX when LOW is 0.0.
  int64_t low_watermark_value() const;
  bool memory_pressure() const { return low_watermark_value() <= 0; }
  uint64_t recommended_max() const { return recommended_max_; }
  const WatermarkConfig& config() const { return cfg_; }
  const std::optional<std::string>& config_error() const { return config_error_; }
  const Revision& revision() const { return *rev_; }
  const ModelParams& params() const { return params_; }
  // PyTorch's OOM text for a refused request of `aligned` bytes, in the model's current state.
  std::string oom_text(uint64_t aligned) const;

 private:
  struct Heap {
    uint64_t size = 0;
    uint64_t used = 0;  // buffers cut from it, in use or cached
    bool small = false;
    int buffers = 0;
  };
  struct Buffer {
    uint64_t size = 0;       // aligned
    uint64_t requested = 0;  // as asked for
    uint64_t heap = 0;
    bool small = false;
    bool in_use = true;
    uint64_t freed_at = 0;  // order of free(), for "oldest first"
  };

  bool over_limit(uint64_t aligned) const;
  void note_room(uint64_t heap_id);  // keeps open_heaps_ (heaps with room) up to date
  std::optional<uint64_t> reuse_cached(uint64_t aligned, bool small);
  std::optional<uint64_t> cut_from_heap(uint64_t aligned, uint64_t requested, bool small, bool pressure);
  void release_buffer(uint64_t id);
  uint64_t cached_bytes(bool small) const;
  void garbage_collect(bool small);
  void release_cached(bool small_pool_only, bool small);

  WatermarkConfig cfg_;
  uint64_t recommended_max_;
  ModelParams params_;
  const Revision* rev_;
  Limits limits_;
  std::optional<std::string> config_error_;
  bool checked_ = false;
  std::map<uint64_t, Heap> heaps_;
  std::map<uint64_t, Buffer> buffers_;
  std::set<uint64_t> open_heaps_;  // heaps with at least one page free
  uint64_t cached_count_ = 0;      // buffers freed and not yet released
  uint64_t next_id_ = 1;
  uint64_t free_clock_ = 0;
  uint64_t heaps_bytes_ = 0;
  uint64_t in_use_bytes_ = 0;
};

}  // namespace wmb::mpsmodel
