#include "fillbase/model_buffers.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "fillbase/fast_fill.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/watermark.h"

namespace wmb::fill {
namespace {

uint64_t physical_ram() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

uint64_t resolve_recommended_max(const MpsModelOptions& o) {
  if (o.recommended_max) return *o.recommended_max;
  if (o.model_ram) return mpsmodel::recommended_max_for_ram(*o.model_ram);
  return mpsmodel::recommended_max_for_ram(physical_ram());
}

mpsmodel::ModelParams model_params(const MpsModelOptions& o) {
  mpsmodel::ModelParams p;
  p.revision = o.revision;
  if (o.other_bytes) p.other_bytes = *o.other_bytes;
  p.max_buffer = o.max_buffer ? *o.max_buffer : mpsmodel::estimated_max_buffer(o.model_ram.value_or(physical_ram()));
  if (o.unscaled_step && o.step_bytes > 0)
    p.tier_scale = std::max(1.0, static_cast<double>(*o.unscaled_step) / static_cast<double>(o.step_bytes));
  return p;
}

mpsmodel::MpsAllocatorModel make_model(const MpsModelOptions& o, uint64_t recommended_max) {
  try {
    // PyTorch reads the variables when the allocator is first used; this child does not change
    // its environment, so reading them now is the same. They are validated at the first allocate().
    return mpsmodel::MpsAllocatorModel(mpsmodel::read_watermark_config_from_process(), recommended_max,
                                       model_params(o));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

MpsModelOptions model_options(const FillOptions& o) {
  return MpsModelOptions{o.recommended_max, o.model_ram,        o.model_revision, o.model_other,
                         o.model_max_buffer, o.model_unscaled_step, o.step_bytes};
}

ModelBuffer& ModelBuffer::operator=(ModelBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) unmap(p_, bytes_);
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = o.bytes_;
  }
  return *this;
}

ModelBuffer::~ModelBuffer() {
  if (p_) unmap(p_, bytes_);
}

MpsModel::MpsModel(const MpsModelOptions& o) : recommended_max_(resolve_recommended_max(o)), model_(make_model(o, recommended_max_)) {}

ModelBuffer MpsModel::allocate(uint64_t bytes, DataKind data) {
  uint64_t id = 0;
  try {
    id = model_.allocate(bytes);  // checks the configuration at the first call, as PyTorch
  } catch (const mpsmodel::ModelError& e) {
    throw PyTorchRefusal(e.what());
  }
  // Real memory: a fresh mapping, filled in one pass.
  const size_t n = static_cast<size_t>(bytes);
  void* p = map_fresh(n);
  if (p == nullptr) {
    // Metal could not back the buffer: PyTorch raises the same OOM text (without the limit
    // having been reached). The buffer was counted above; take it back first.
    model_.free(id);
    throw PyTorchRefusal(model_.oom_text(model_.allocation_size(bytes)));
  }
  ModelBuffer buffer(p, n);
  peak_ = std::max(peak_, model_.in_use_bytes());
  switch (data) {
    case DataKind::Random: fill_random(p, n, 0x6d70732d6d6f64ull + (++seed_counter_)); break;
    case DataKind::Ones: fill_value(p, n, 1.0f); break;
    case DataKind::Zeros: fill_value(p, n, 0.0f); break;
  }
  return buffer;
}

DeviceStats MpsModel::stats() const {
  DeviceStats s;
  s.allocated = model_.in_use_bytes();  // current_allocated_memory: the buffers in use
  s.driver = model_.driver();           // driver_allocated_memory: heaps + other
  s.peak = peak_;                       // m_current_allocated_memory.peak (MPSAllocator.h: a c10 Stat)
  return s;
}

void MpsModel::set_memory_fraction(double fraction) {
  // The ValueError for F outside 0..2, then the allocator's start (the variables' checks), then HIGH = F only.
  try {
    model_.set_memory_fraction(fraction);
  } catch (const mpsmodel::ModelError& e) {
    throw PyTorchRefusal(e.what());
  }
}

Msg MpsModel::model_json() const {
  const auto& p = model_.params();
  return Msg{{"version", mpsmodel::kModelVersion},
             {"revision", p.revision},
             {"other_bytes", p.other_bytes},
             {"max_buffer_bytes", opt_json(p.max_buffer)},
             {"tier_scale", p.tier_scale}};
}

std::optional<uint64_t> MpsModel::max_allowed() const {
  if (model_.config_error() || !model_.limited()) return std::nullopt;
  return model_.max_allowed();
}

}  // namespace wmb::fill
