// The "mps" device: real MPS memory on an Apple-silicon Mac, through libtorch's MPS hooks.
// Compiled and run only on macOS (CMake adds this file on Apple only).
//
// NOT RUN BY ITS AUTHOR: it was written on Linux with no Mac at hand, and only compiled here
// against stand-in headers (for the calls below, with the signatures of PyTorch's own header).
// What it follows (aten/src/ATen/detail/MPSHooksInterface.h, torch.mps docs):
//   - at::detail::getMPSHooks() returns `const at::MPSHooksInterface&`; the methods used are
//     `virtual void deviceSynchronize() const`, `virtual void emptyCache() const`,
//     `virtual size_t getCurrentAllocatedMemory() const`, `virtual size_t getDriverAllocatedMemory() const`
//     (all present since torch 2.0, the Python torch.mps.synchronize / empty_cache /
//     current_allocated_memory / driver_allocated_memory), and
//     `virtual size_t getRecommendedMaxMemory() const` (torch.mps.recommended_max_memory, added
//     in June 2024 by pytorch/pytorch#128289, first released in torch 2.5 - not 2.3).
//   - at::hasMPS() (ATen/Context.h) tells whether this libtorch has a usable MPS device.
//   - `virtual void setMemoryFraction(double ratio) const` (MPSHooks.mm: at::mps::getIMPSAllocator()->
//     setHighWatermarkRatio(ratio), torch 2.0+, the C++ side of torch.mps.set_per_process_memory_fraction):
//     HIGH only, no LOW check; out of 0..2 it raises "invalid high watermark ratio F" (the Python
//     wrapper's ValueError "Invalid fraction value: F. Allowed range: 0~2" is not on this path).
//   - MPS needs macOS 14 in current PyTorch: MPSDevice.mm makes MPS unavailable unless MPSGraph has
//     a macOS 14 method (HermiteanToRealFFTWithTensor:axes:descriptor:name:); torch 2.12+ wheels are
//     macosx_14_0_arm64 (/work/shared/docs/pytorch-allocator-facts.md, added 2026-12-01).
//   - Every MPSHooks memory call goes through the MPS allocator singleton, whose constructor reads
//     PYTORCH_MPS_HIGH/LOW_WATERMARK_RATIO and raises c10::Error ("invalid low watermark ratio
//     1.4") when they do not fit. A failed static initialisation is retried on the next use, so
//     the same error comes again from the first allocation.
#include <memory>
#include <optional>
#include <string>

#include <ATen/ATen.h>
#include <ATen/detail/MPSHooksInterface.h>
#include <torch/version.h>

#include "fill/devices.h"

#if TORCH_VERSION_MAJOR < 2
#error "wmbench's mps device needs libtorch 2.0 or newer (MPSHooks memory functions); install a newer PyTorch"
#endif

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#define WMB_MPS_HAS_RECOMMENDED_MAX 1
#endif

// The allocator's peak: c10::DeviceAllocator (c10/core/CachingDeviceAllocator.h, PyTorch #138222,
// in releases from 2.9) has `getDeviceStats(DeviceIndex)`, whose allocated_bytes[0].peak the MPS
// allocator fills from its m_current_allocated_memory Stat (MPSAllocator.h: "tracked as a Stat to
// expose current/peak/accumulated allocated bytes"). The MPS allocator became a DeviceAllocator
// only with PyTorch #186748 (June 2026); before that the dynamic_cast below finds none, which is
// what torch.accelerator.memory_stats does too (getDeviceAllocator: dynamic_cast<DeviceAllocator*>).
#if (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)) && \
    __has_include(<c10/core/CachingDeviceAllocator.h>)
#include <c10/core/CachingDeviceAllocator.h>
#define WMB_MPS_HAS_DEVICE_ALLOCATOR 1
#endif

namespace wmb::fill {
namespace {

// allocated_bytes.all.peak of the MPS allocator, or nothing where this release keeps none.
std::optional<uint64_t> allocator_peak() {
#ifdef WMB_MPS_HAS_DEVICE_ALLOCATOR
  try {
    auto* a = dynamic_cast<c10::DeviceAllocator*>(c10::GetAllocator(at::kMPS));
    if (a == nullptr) return std::nullopt;  // before #186748: the MPS allocator is a plain c10::Allocator
    return static_cast<uint64_t>(a->getDeviceStats(0).allocated_bytes[0].peak);
  } catch (const c10::Error&) {
    return std::nullopt;  // TORCH_CHECK_NOT_IMPLEMENTED in a release that declares but lacks it
  }
#else
  return std::nullopt;
#endif
}

class MpsDevice final : public FillDevice {
 public:
  std::string name() const override { return "mps"; }

  at::Tensor allocate(uint64_t bytes, DataKind data) override {
    TORCH_CHECK(bytes >= 4 && bytes % 4 == 0, "mps fill: size must be a positive multiple of 4 bytes, got ", bytes);
    at::Tensor t = at::empty({static_cast<int64_t>(bytes / 4)}, at::TensorOptions().dtype(at::kFloat).device(at::kMPS));
    switch (data) {
      case DataKind::Random: t.uniform_(); break;  // generated on the GPU
      case DataKind::Ones: t.fill_(1.0); break;
      case DataKind::Zeros: t.zero_(); break;
    }
    // Wait for the GPU so the step time is real and a failure of the fill surfaces here.
    at::detail::getMPSHooks().deviceSynchronize();
    return t;
  }

  DeviceStats stats() override {
    const auto& hooks = at::detail::getMPSHooks();
    DeviceStats s{static_cast<uint64_t>(hooks.getCurrentAllocatedMemory()),
                  static_cast<uint64_t>(hooks.getDriverAllocatedMemory()), std::nullopt};
    s.peak = allocator_peak();
    return s;
  }

  std::optional<uint64_t> recommended_max() override {
#ifdef WMB_MPS_HAS_RECOMMENDED_MAX
    try {
      return static_cast<uint64_t>(at::detail::getMPSHooks().getRecommendedMaxMemory());
    } catch (const c10::Error&) {
      // Asked before the first allocation, this is what starts the MPS allocator, so a bad
      // watermark setting raises here. Report "unknown": the same c10::Error comes again, verbatim,
      // from the first allocate(), where the fill reports it as PyTorch's error.
      return std::nullopt;
    }
#else
    return std::nullopt;  // this libtorch (< 2.5) has no getRecommendedMaxMemory()
#endif
  }

  void empty_cache() override { at::detail::getMPSHooks().emptyCache(); }

  void synchronize() override { at::detail::getMPSHooks().deviceSynchronize(); }

  void set_memory_fraction(double fraction) override { at::detail::getMPSHooks().setMemoryFraction(fraction); }

  at::Device torch_device() const override { return at::Device(at::kMPS, 0); }
};

}  // namespace

std::unique_ptr<FillDevice> make_mps_device() {
  if (!at::hasMPS())
    throw UsageError("MPS is not available: this libtorch (" + std::string(TORCH_VERSION) +
                     ") was built without MPS, or this Mac has no usable Metal GPU (Apple silicon and "
                     "macOS 14 or newer are needed by current PyTorch; releases before 2.12 ran on 12.3+)");
  return std::make_unique<MpsDevice>();
}

}  // namespace wmb::fill
