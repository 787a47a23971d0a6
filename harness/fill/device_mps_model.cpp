// The "mps-model" device: CPU tensors in freshly mapped memory, each allocation first passed
// through the MPS allocator model (mpsmodel::MpsAllocatorModel, the same code `wmbench predict`
// runs). What PyTorch would raise on a Mac is raised here as the same c10::Error text, at the same
// moment:
//   - an invalid PYTORCH_MPS_*_WATERMARK_RATIO at the first allocation ("invalid low watermark ratio 1.4"),
//   - "Invalid buffer size: ..." for a tensor of maxBufferLength or more,
//   - "MPS backend out of memory (...)" when driver count (heaps + other) + aligned size > max allowed.
// Everything else (memory filling up, swap growing) is the real machine's. Only the tensors' bytes
// are real memory here: a 1 GiB heap's unused room counts toward the limit (as Metal's driver
// count does) but is not touched (whether Metal makes it resident on a Mac is not known).
#include "fill/device_mps_model.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "fill/fast_fill.h"
#include "fill/options.h"
#include "mpsmodel/heap_allocator.h"
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
    return mpsmodel::MpsAllocatorModel(mpsmodel::read_watermark_config_from_process(), recommended_max,
                                       model_params(o));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// Raises `text` as PyTorch does (TORCH_CHECK -> c10::Error); what_without_backtrace() is the text.
[[noreturn]] void raise_like_pytorch(const std::string& text) {
  TORCH_CHECK(false, text);
}

class MpsModelDevice final : public FillDevice {
 public:
  explicit MpsModelDevice(const MpsModelOptions& o)
      // PyTorch reads the variables when the allocator is first used; this child does not change
      // its environment, so reading them now is the same. They are validated at the first allocate().
      : recommended_max_(resolve_recommended_max(o)), model_(make_model(o, recommended_max_)) {}

  std::string name() const override { return "mps-model"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    uint64_t id = 0;
    try {
      id = model_.allocate(bytes);  // checks the configuration at the first call, as PyTorch
    } catch (const mpsmodel::ModelError& e) {
      raise_like_pytorch(e.what());
    }

    // Real memory: a fresh mapping, filled in one pass, owned by the tensor.
    const size_t n = static_cast<size_t>(bytes);
    void* p = map_fresh(n);
    if (p == nullptr) {
      // Metal could not back the buffer: PyTorch raises the same OOM text (without the limit
      // having been reached). The buffer was counted above; take it back first.
      model_.free(id);
      raise_like_pytorch(model_.oom_text(model_.allocation_size(bytes)));
    }
    peak_ = std::max(peak_, model_.in_use_bytes());
    switch (data) {
      case DataKind::Random: fill_random(p, n, 0x6d70732d6d6f64ull + (++seed_counter_)); break;
      case DataKind::Ones: fill_value(p, n, 1.0f); break;
      case DataKind::Zeros: fill_value(p, n, 0.0f); break;
    }
    const bool floats = n % sizeof(float) == 0;
    const int64_t elems = static_cast<int64_t>(floats ? n / sizeof(float) : n);
    auto options = at::TensorOptions().dtype(floats ? at::kFloat : at::kByte).device(at::kCPU);
    return at::from_blob(p, {elems}, [n](void* q) { unmap(q, n); }, options);
  }

  DeviceStats stats() override {
    DeviceStats s;
    s.allocated = model_.in_use_bytes();  // current_allocated_memory: the buffers in use
    s.driver = model_.driver();           // driver_allocated_memory: heaps + other
    s.peak = peak_;                       // m_current_allocated_memory.peak (MPSAllocator.h: a c10 Stat)
    return s;
  }

  std::optional<uint64_t> recommended_max() override { return recommended_max_; }

  at::Device torch_device() const override { return at::Device(at::kCPU); }

  void on_release(uint64_t bytes) override { model_.free_latest_of_size(bytes); }
  void set_memory_fraction(double fraction) override {
    // torch.mps.set_per_process_memory_fraction(F) (mpsmodel/memory_fraction.h): the ValueError for
    // F outside 0..2, then the allocator's start (the variables' checks), then HIGH = F only.
    try {
      model_.set_memory_fraction(fraction);
    } catch (const mpsmodel::ModelError& e) {
      raise_like_pytorch(e.what());
    }
  }
  void empty_cache() override { model_.empty_cache(); }
  Msg model_json() const override {
    const auto& p = model_.params();
    return Msg{{"version", mpsmodel::kModelVersion},
               {"revision", p.revision},
               {"other_bytes", p.other_bytes},
               {"max_buffer_bytes", opt_json(p.max_buffer)},
               {"tier_scale", p.tier_scale}};
  }
  std::optional<uint64_t> max_allowed() override {
    if (model_.config_error() || !model_.limited()) return std::nullopt;
    return model_.max_allowed();
  }

 private:
  uint64_t recommended_max_;
  mpsmodel::MpsAllocatorModel model_;
  uint64_t seed_counter_ = 0;
  uint64_t peak_ = 0;  // the most in use at once, as the allocator's Stat counts it at each malloc
};

}  // namespace

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions& options) {
  return std::make_unique<MpsModelDevice>(options);
}

}  // namespace wmb::fill
