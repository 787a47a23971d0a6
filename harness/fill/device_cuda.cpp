// The "cuda" device: at::empty on cuda:0, filled on the device (uniform_ / fill_ / zero_), with
// a synchronize in synchronize() so the step time is real.
//
// This file compiles against every libtorch (Debian's CPU-only 1.13 too): the availability check
// and synchronize go through torch::cuda, which exists in CPU builds and answers "no devices".
// Allocator statistics, empty_cache and the device's total memory need c10_cuda / torch_cuda and
// the CUDA headers, so they are compiled only when CMake defines WMBENCH_WITH_CUDA (a CUDA build
// of libtorch); without it they report null / do nothing.
#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "fill/devices.h"

#if defined(WMBENCH_WITH_CUDA) && __has_include(<c10/cuda/CUDACachingAllocator.h>)
#define WMB_CUDA_STATS 1
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace wmb::fill {
namespace {

class CudaDevice final : public FillDevice {
 public:
  std::string name() const override { return "cuda"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    TORCH_CHECK(bytes >= 4 && bytes % 4 == 0, "cuda fill: size must be a positive multiple of 4 bytes, got ", bytes);
    at::Tensor t = at::empty({static_cast<int64_t>(bytes / 4)}, at::TensorOptions().dtype(at::kFloat).device(device_));
    allocated_once_ = true;
    switch (data) {
      case DataKind::Random: t.uniform_(); break;
      case DataKind::Ones: t.fill_(1.0); break;
      case DataKind::Zeros: t.zero_(); break;
    }
    return t;
  }

  DeviceStats stats() override {
#ifdef WMB_CUDA_STATS
    // Before the first allocation the caching allocator has no state for the device and torch
    // 2.11 throws "Invalid device argument" (seen on the H200): nothing is allocated yet then.
    if (!allocated_once_) return DeviceStats{0, 0, 0};
    const auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(device_.index());
    // Index 0 is the aggregate over all pools (StatType::AGGREGATE) in 1.13 and 2.x alike; `peak`
    // is torch.cuda.max_memory_allocated (c10/cuda/CUDACachingAllocator.h: Stat{current, peak, ...}).
    return DeviceStats{static_cast<uint64_t>(s.allocated_bytes[0].current),
                       static_cast<uint64_t>(s.reserved_bytes[0].current),
                       static_cast<uint64_t>(s.allocated_bytes[0].peak)};
#else
    return DeviceStats{};
#endif
  }

  std::optional<uint64_t> recommended_max() override {
#ifdef WMB_CUDA_STATS
    return static_cast<uint64_t>(at::cuda::getDeviceProperties(device_.index())->totalGlobalMem);
#else
    return std::nullopt;
#endif
  }

  void empty_cache() override {
#ifdef WMB_CUDA_STATS
    c10::cuda::CUDACachingAllocator::emptyCache();
#endif
  }

  void synchronize() override { torch::cuda::synchronize(device_.index()); }

  void set_memory_fraction(double fraction) override {
#ifdef WMB_CUDA_STATS
    // c10/cuda/CUDACachingAllocator: setMemoryFraction(double fraction, device) (1.13 and 2.x;
    // the device an int in 1.13, a c10::DeviceIndex later) first asserts the allocator was
    // initialised for the device ("Allocator not initialized for device 0: did you call init?",
    // seen on torch 2.11), then 0 <= fraction <= 1 ("invalid fraction:F. Please set within (0, 1).").
    // torch.cuda.set_per_process_memory_fraction calls _lazy_init() first; here a 0-element
    // at::empty does the same: aten/src/ATen/cuda/EmptyTensor.cpp empty_cuda starts with
    // at::globalContext().lazyInitCUDA() (1.13) / lazyInitDevice(c10::DeviceType::CUDA) (2.x),
    // whose CUDAHooks::initCUDA calls CUDACachingAllocator::init(device count). No bytes are
    // allocated: a 0-byte request returns a null block.
    (void)at::empty({0}, at::TensorOptions().dtype(at::kFloat).device(device_));
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, device_.index());
#else
    (void)fraction;
    throw UsageError("--memory-fraction on cuda: this wmbench-fill was built without WMBENCH_WITH_CUDA (a "
                     "CPU-only libtorch), so it has no CUDA caching allocator to set");
#endif
  }

  at::Device torch_device() const override { return device_; }

 private:
  at::Device device_{at::kCUDA, 0};
  bool allocated_once_ = false;
};

}  // namespace

std::unique_ptr<FillDevice> make_cuda_device() {
  if (!torch::cuda::is_available())
    throw UsageError("device cuda is not available: this libtorch (" + std::string(TORCH_VERSION) +
                     ") has no CUDA support or sees no CUDA device");
  return std::make_unique<CudaDevice>();
}

}  // namespace wmb::fill
