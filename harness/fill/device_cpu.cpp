// The "cpu" device: each tensor is fresh anonymous memory (huge pages where the kernel gives
// them), filled in one pass near memory speed (fast_fill), and wrapped by at::from_blob with a
// deleter that unmaps it. at::randn is about 2.5x slower here (0.5-0.6 GiB/s on the 2-core VM; BENCHMARKS.md).
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "fill/devices.h"
#include "fillbase/fast_fill.h"

namespace wmb::fill {
namespace {

uint64_t fresh_seed() {
  std::random_device rd;
  const uint64_t hi = rd(), lo = rd();
  const auto t = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return (hi << 32 | lo) ^ t;
}

// splitmix64's finalizer: consecutive inputs give unrelated seeds (plain seed + k would make
// fill_random's lanes of one tensor reappear, shifted, in the next).
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class CpuDevice final : public FillDevice {
 public:
  std::string name() const override { return "cpu"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    TORCH_CHECK(bytes >= 4 && bytes % 4 == 0, "cpu fill: size must be a positive multiple of 4 bytes, got ", bytes);
    void* p = map_fresh(bytes);
    if (!p) {
      // Our own mapping was refused (ENOMEM: address-space limit, overcommit policy, ...). Let
      // PyTorch's own CPU allocator try the same size: it either succeeds (then fill that tensor)
      // or raises its genuine error ("DefaultCPUAllocator: can't allocate memory: ...").
      at::Tensor t = at::empty({static_cast<int64_t>(bytes / 4)}, at::TensorOptions().dtype(at::kFloat));
      switch (data) {
        case DataKind::Random: fill_random(t.data_ptr(), bytes, mix(seed_ + counter_++)); break;
        case DataKind::Ones: fill_value(t.data_ptr(), bytes, 1.0f); break;
        case DataKind::Zeros: fill_value(t.data_ptr(), bytes, 0.0f); break;
      }
      live_->fetch_add(bytes);
      return t;
    }
    switch (data) {
      case DataKind::Random: fill_random(p, bytes, mix(seed_ + counter_++)); break;
      case DataKind::Ones: fill_value(p, bytes, 1.0f); break;
      case DataKind::Zeros: fill_value(p, bytes, 0.0f); break;
    }
    live_->fetch_add(bytes);
    auto live = live_;
    try {
      return at::from_blob(
          p, {static_cast<int64_t>(bytes / 4)},
          [live, bytes](void* q) {
            unmap(q, bytes);
            live->fetch_sub(bytes);
          },
          at::TensorOptions().dtype(at::kFloat));
    } catch (...) {
      unmap(p, bytes);
      live_->fetch_sub(bytes);
      throw;
    }
  }

  DeviceStats stats() override { return DeviceStats{live_->load(), std::nullopt, std::nullopt}; }
  std::optional<uint64_t> recommended_max() override { return std::nullopt; }
  at::Device torch_device() const override { return at::Device(at::kCPU); }
  void set_memory_fraction(double) override {
    // PyTorch's CPU allocator has no per-process fraction (torch.cpu has no such call).
    throw UsageError("--memory-fraction applies only to --device mps, cuda or mps-model");
  }

 private:
  // Bytes of tensors from allocate() still alive (the deleter may run after the device is gone).
  std::shared_ptr<std::atomic<uint64_t>> live_ = std::make_shared<std::atomic<uint64_t>>(0);
  uint64_t seed_ = fresh_seed();
  uint64_t counter_ = 0;
};

}  // namespace

std::unique_ptr<FillDevice> make_cpu_device() { return std::make_unique<CpuDevice>(); }

}  // namespace wmb::fill
