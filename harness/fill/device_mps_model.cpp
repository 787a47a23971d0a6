// The "mps-model" device: CPU tensors in freshly mapped memory, each allocation first passed
// through the MPS allocator's limit policy (mpsmodel::AllocatorModel). What PyTorch would raise
// on a Mac is raised here as the same c10::Error text, at the same moment:
//   - an invalid PYTORCH_MPS_*_WATERMARK_RATIO at the first allocation ("invalid low watermark ratio 1.4"),
//   - "MPS backend out of memory (...)" when driver count + aligned size > max allowed.
// Everything else (memory filling up, swap growing) is the real machine's.
#include "fill/device_mps_model.h"

#include <unistd.h>

#include <string>
#include <utility>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "fill/fast_fill.h"
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

// Raises `text` as PyTorch does (TORCH_CHECK -> c10::Error); what_without_backtrace() is the text.
[[noreturn]] void raise_like_pytorch(const std::string& text) {
  TORCH_CHECK(false, text);
}

class MpsModelDevice final : public FillDevice {
 public:
  explicit MpsModelDevice(const MpsModelOptions& o)
      // PyTorch reads the variables when the allocator is first used; this child does not change
      // its environment, so reading them now is the same. They are validated at the first allocate().
      : recommended_max_(resolve_recommended_max(o)),
        model_(mpsmodel::read_watermark_config_from_process(), recommended_max_) {}

  std::string name() const override { return "mps-model"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    try {
      if (first_) {
        model_.check_config();  // throws the config error at the first allocation, as PyTorch
        first_ = false;
      }
      model_.allocate(bytes);
    } catch (const mpsmodel::ModelError& e) {
      raise_like_pytorch(e.what());
    }

    // Real memory: a fresh mapping, filled in one pass, owned by the tensor.
    const size_t n = static_cast<size_t>(bytes);
    void* p = map_fresh(n);
    if (p == nullptr) {
      // Metal could not back the buffer: PyTorch raises the same OOM text (without the limit
      // having been reached). The allocation was counted above; take it back first.
      model_.release(bytes);
      const auto limit = model_.limited() ? std::optional<uint64_t>(model_.max_allowed()) : std::nullopt;
      raise_like_pytorch(mpsmodel::oom_message(model_.allocated(), model_.other(), limit,
                                               mpsmodel::AllocatorModel::align(bytes)));
    }
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
    s.allocated = model_.allocated();
    s.driver = model_.driver();
    return s;
  }

  std::optional<uint64_t> recommended_max() override { return recommended_max_; }

  at::Device torch_device() const override { return at::Device(at::kCPU); }

  void on_release(uint64_t bytes) override { model_.release(bytes); }
  std::optional<uint64_t> max_allowed() override {
    if (model_.config_error() || !model_.limited()) return std::nullopt;
    return model_.max_allowed();
  }

 private:
  uint64_t recommended_max_;
  mpsmodel::AllocatorModel model_;
  bool first_ = true;
  uint64_t seed_counter_ = 0;
};

}  // namespace

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions& options) {
  return std::make_unique<MpsModelDevice>(options);
}

}  // namespace wmb::fill
