// The "mps-model" device for libtorch: MpsModel's buffers (fillbase/model_buffers.h) as CPU tensors,
// its refusals raised as the same c10::Error text PyTorch raises (TORCH_CHECK).
#include "fill/device_mps_model.h"

#include <string>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "fillbase/fast_fill.h"

namespace wmb::fill {
namespace {

// Raises `text` as PyTorch does (TORCH_CHECK -> c10::Error); what_without_backtrace() is the text.
[[noreturn]] void raise_like_pytorch(const std::string& text) {
  TORCH_CHECK(false, text);
}

class MpsModelDevice final : public FillDevice {
 public:
  explicit MpsModelDevice(const MpsModelOptions& o) : model_(o) {}

  std::string name() const override { return "mps-model"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    ModelBuffer buffer;
    try {
      buffer = model_.allocate(bytes, data);
    } catch (const PyTorchRefusal& e) {
      raise_like_pytorch(e.what());
    }
    const size_t n = buffer.size();
    const bool floats = n % sizeof(float) == 0;
    const int64_t elems = static_cast<int64_t>(floats ? n / sizeof(float) : n);
    auto options = at::TensorOptions().dtype(floats ? at::kFloat : at::kByte).device(at::kCPU);
    at::Tensor t = at::from_blob(buffer.data(), {elems}, [n](void* q) { unmap(q, n); }, options);
    (void)buffer.release();  // the tensor's deleter owns the mapping now
    return t;
  }

  DeviceStats stats() override { return model_.stats(); }
  std::optional<uint64_t> recommended_max() override { return model_.recommended_max(); }
  at::Device torch_device() const override { return at::Device(at::kCPU); }
  void on_release(uint64_t bytes) override { model_.on_release(bytes); }
  void set_memory_fraction(double fraction) override {
    try {
      model_.set_memory_fraction(fraction);
    } catch (const PyTorchRefusal& e) {
      raise_like_pytorch(e.what());
    }
  }
  void empty_cache() override { model_.empty_cache(); }
  Msg model_json() const override { return model_.model_json(); }
  std::optional<uint64_t> max_allowed() override { return model_.max_allowed(); }

 private:
  MpsModel model_;
};

}  // namespace

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions& options) {
  return std::make_unique<MpsModelDevice>(options);
}

}  // namespace wmb::fill
