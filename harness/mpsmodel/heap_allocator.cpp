#include "mpsmodel/heap_allocator.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace wmb::mpsmodel {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  const uint64_t rem = v % a;
  if (rem == 0) return v;
  const uint64_t pad = a - rem;
  if (v > kNoLimit - pad) return kNoLimit - (kNoLimit % a);  // cannot be satisfied anyway
  return v + pad;
}

uint64_t scaled(uint64_t v, double factor) {
  const double x = static_cast<double>(v) * factor;
  return x >= 1.8e19 ? kNoLimit : static_cast<uint64_t>(x);
}

}  // namespace

const char* tier_name(HeapTier t) {
  switch (t) {
    case HeapTier::Small: return "small";
    case HeapTier::Large: return "large";
    case HeapTier::XLarge: return "xlarge";
    case HeapTier::Oversize: return "oversize";
  }
  return "?";
}

HeapTier heap_tier(uint64_t aligned, bool pressure) {
  // MPSAllocator.h getHeapTier / createHeapBlock: "<=" for small, "<" for the others.
  if (aligned <= kMaxSmallAlloc) return HeapTier::Small;
  if (aligned < kMinLargeAlloc) return HeapTier::Large;
  if (aligned < kXLargeHeap / 2 && !pressure) return HeapTier::XLarge;
  return HeapTier::Oversize;
}

uint64_t heap_size(HeapTier t, uint64_t aligned) {
  switch (t) {
    case HeapTier::Small: return kSmallHeap;
    case HeapTier::Large: return kLargeHeap;
    case HeapTier::XLarge: return kXLargeHeap;
    case HeapTier::Oversize: break;
  }
  // d.size = kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge)
  return align_up(aligned, kRoundLarge);
}

uint64_t estimated_max_buffer(uint64_t ram) { return ram / 16 * 9; }

MpsAllocatorModel::MpsAllocatorModel(WatermarkConfig cfg, uint64_t recommended_max, ModelParams params)
    : cfg_(std::move(cfg)), recommended_max_(recommended_max), params_(std::move(params)),
      rev_(&find_revision(params_.revision)) {
  if (!std::isfinite(params_.tier_scale) || params_.tier_scale < 1.0)
    throw std::invalid_argument("tier scale must be a number >= 1 (1 = PyTorch's heap tiers as they are)");
  config_error_ = validate(cfg_);
  if (!config_error_) limits_ = compute_limits(cfg_, recommended_max_);
}

void MpsAllocatorModel::check_config() {
  if (config_error_) throw ModelError(*config_error_);
  checked_ = true;
}

void MpsAllocatorModel::set_memory_fraction(double fraction) {
  cfg_.memory_fraction = fraction;
  config_error_ = validate(cfg_);
  limits_ = config_error_ ? Limits{} : compute_limits(cfg_, recommended_max_);
  check_config();
}

int64_t MpsAllocatorModel::low_watermark_value() const {
  if (cfg_.low == 0.0) return std::numeric_limits<int64_t>::max();
  // (ssize_t)(m_low_watermark_limit - current_allocated_size()) / 1048576L, then max with 0.
  const int64_t diff = static_cast<int64_t>(limits_.low_limit - driver());
  const int64_t mib = diff / static_cast<int64_t>(MiB);
  return mib > 0 ? mib : 0;
}

HeapTier MpsAllocatorModel::tier_of(uint64_t aligned, bool pressure) const {
  return heap_tier(scaled(aligned, params_.tier_scale), pressure);
}

uint64_t MpsAllocatorModel::allocation_size(uint64_t bytes) const {
  const uint64_t aligned = align_up(bytes, kBufferAlign);
  if (!rev_->bucketed_sizes || aligned <= kMaxSmallAlloc) return aligned;
  // Newest MPSAllocator.mm get_allocation_size: 32 buckets per power of two (granule >= the
  // 16 KiB page), unless that crosses into another heap tier or reaches maxBufferLength.
  uint64_t top = uint64_t{1} << (63 - __builtin_clzll(aligned));
  uint64_t granule = top >> 5;
  if (granule < kBufferAlign) granule = kBufferAlign;
  const uint64_t bucketed = align_up(aligned, granule);
  if ((params_.max_buffer && bucketed >= *params_.max_buffer) || tier_of(bucketed, false) != tier_of(aligned, false))
    return aligned;
  return bucketed;
}

void MpsAllocatorModel::note_room(uint64_t heap_id) {
  const Heap& h = heaps_[heap_id];
  if (h.size - h.used >= kBufferAlign)
    open_heaps_.insert(heap_id);
  else
    open_heaps_.erase(heap_id);
}

bool MpsAllocatorModel::over_limit(uint64_t aligned) const {
  // current_allocated_size() + params.size() > m_max_total_allowed_size, without overflow.
  if (!limits_.limited()) return false;
  const uint64_t drv = driver();
  return drv > limits_.max_allowed || aligned > limits_.max_allowed - drv;
}

std::string MpsAllocatorModel::oom_text(uint64_t aligned) const {
  const auto max = limits_.limited() ? std::optional<uint64_t>(limits_.max_allowed) : std::nullopt;
  return oom_message_for(*rev_, heaps_bytes_, driver() - heaps_bytes_, max, aligned);
}

uint64_t MpsAllocatorModel::cached_bytes(bool small) const {
  uint64_t n = 0;
  for (const auto& [id, b] : buffers_)
    if (!b.in_use && b.small == small) n += b.size;
  return n;
}

void MpsAllocatorModel::release_buffer(uint64_t id) {
  auto it = buffers_.find(id);
  if (it == buffers_.end()) return;
  if (!it->second.in_use) --cached_count_;
  auto h = heaps_.find(it->second.heap);
  if (h != heaps_.end()) {
    h->second.used -= it->second.size;
    if (--h->second.buffers == 0) {  // release_buffer(remove_empty_heap = true)
      heaps_bytes_ -= h->second.size;
      open_heaps_.erase(h->first);
      heaps_.erase(h);
    } else {
      note_room(h->first);
    }
  }
  buffers_.erase(it);
}

void MpsAllocatorModel::release_cached(bool small_pool_only, bool small) {
  std::vector<uint64_t> ids;
  for (const auto& [id, b] : buffers_)
    if (!b.in_use && (!small_pool_only || b.small == small)) ids.push_back(id);
  for (uint64_t id : ids) release_buffer(id);
}

void MpsAllocatorModel::garbage_collect(bool small) {
  // garbage_collect_cached_buffers: nothing to do below the low limit; else reclaim down to it.
  if (driver() < limits_.low_limit) return;
  const uint64_t target = driver() - limits_.low_limit;
  std::multimap<uint64_t, uint64_t> by_age;  // freed_at -> id, oldest first
  for (const auto& [id, b] : buffers_)
    if (!b.in_use && b.small == small) by_age.emplace(b.freed_at, id);
  uint64_t reclaimed = 0;
  for (const auto& [age, id] : by_age) {
    if (reclaimed >= target) break;
    reclaimed += buffers_[id].size;
    release_buffer(id);
  }
}

std::optional<uint64_t> MpsAllocatorModel::reuse_cached(uint64_t aligned, bool small) {
  // get_free_buffer: the limit first, then the smallest cached buffer that fits and is not
  // oversized (size <= request + kLargeHeap); an oversized one gives its room back to its heap.
  if (over_limit(aligned) || cached_count_ == 0) return std::nullopt;
  uint64_t best = 0;
  for (const auto& [id, b] : buffers_)
    if (!b.in_use && b.small == small && b.size >= aligned && (best == 0 || b.size < buffers_[best].size)) best = id;
  if (best == 0) return std::nullopt;
  Buffer& b = buffers_[best];
  --cached_count_;
  if (b.size <= aligned + kLargeHeap) {
    b.in_use = true;
    in_use_bytes_ += b.size;
    return best;
  }
  Heap& h = heaps_[b.heap];
  h.used -= b.size;
  --h.buffers;  // the heap stays (release_buffer(buffer_block, false)); its room is cut again below
  note_room(b.heap);
  buffers_.erase(best);
  return std::nullopt;
}

std::optional<uint64_t> MpsAllocatorModel::cut_from_heap(uint64_t aligned, uint64_t requested, bool small,
                                                         bool pressure) {
  // alloc_buffer: the limit, then the heap of the pool with the least room that still fits
  // (pool.heaps.lower_bound), else a new heap of the tier's size.
  if (over_limit(aligned)) return std::nullopt;
  uint64_t heap_id = 0;
  for (uint64_t hid : open_heaps_) {
    const Heap& h = heaps_[hid];
    const uint64_t id = hid;
    if (h.small == small && h.size - h.used >= aligned &&
        (heap_id == 0 || h.size - h.used < heaps_[heap_id].size - heaps_[heap_id].used))
      heap_id = id;
  }
  if (heap_id == 0) {
    const HeapTier t = tier_of(aligned, pressure);
    uint64_t size = heap_size(t, aligned);
    if (t != HeapTier::Oversize && params_.tier_scale > 1.0) {
      // The Mac's shared heap, scaled down like the request (never smaller than the request).
      size = align_up(static_cast<uint64_t>(std::ceil(static_cast<double>(size) / params_.tier_scale)), kBufferAlign);
      if (size < aligned) size = align_up(aligned, kRoundLarge);
    }
    heap_id = next_id_++;
    heaps_[heap_id] = Heap{size, 0, small, 0};
    heaps_bytes_ += size;
  }
  Heap& h = heaps_[heap_id];
  h.used += aligned;
  ++h.buffers;
  note_room(heap_id);
  const uint64_t id = next_id_++;
  buffers_[id] = Buffer{aligned, requested, heap_id, small, true, 0};
  in_use_bytes_ += aligned;
  return id;
}

uint64_t MpsAllocatorModel::allocate(uint64_t bytes) {
  if (!checked_) check_config();
  // TORCH_CHECK(size < m_max_buffer_size, "Invalid buffer size: ", format_size(size)) - the size asked for.
  if (params_.max_buffer && bytes >= *params_.max_buffer)
    throw ModelError("Invalid buffer size: " + format_size_for(*rev_, bytes));
  const uint64_t aligned = allocation_size(bytes);
  const bool small = tier_of(aligned, false) == HeapTier::Small;  // get_pool: aligned <= kMaxSmallAlloc
  const bool pressure = !small && memory_pressure();

  std::optional<uint64_t> id = reuse_cached(aligned, small);
  if (!id) {
    if (pressure && aligned < cached_bytes(small)) garbage_collect(small);
    id = cut_from_heap(aligned, bytes, small, pressure);
    if (!id && cached_bytes(small) > 0) {  // release_available_cached_buffers && alloc_buffer
      release_cached(true, small);
      id = cut_from_heap(aligned, bytes, small, pressure);
    }
    if (!id) {  // release_cached_buffers && alloc_buffer
      release_cached(false, small);
      id = cut_from_heap(aligned, bytes, small, pressure);
    }
  }
  if (!id) throw ModelError(oom_text(aligned));
  return *id;
}

void MpsAllocatorModel::free(uint64_t id) {
  auto it = buffers_.find(id);
  if (it == buffers_.end() || !it->second.in_use) return;
  it->second.in_use = false;
  ++cached_count_;
  it->second.freed_at = ++free_clock_;
  in_use_bytes_ -= it->second.size;
}

void MpsAllocatorModel::free_latest_of_size(uint64_t bytes) {
  for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it)
    if (it->second.in_use && it->second.requested == bytes) {
      free(it->first);
      return;
    }
}

void MpsAllocatorModel::empty_cache() { release_cached(false, false); }

}  // namespace wmb::mpsmodel
