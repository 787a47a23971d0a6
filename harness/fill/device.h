// One device the fill child can fill: cpu, cuda, mps (Apple only) or mps-model.
// Only wmbench-fill (which links libtorch) includes this header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <ATen/ATen.h>

#include "fillbase/fill_kinds.h"
#include "fillbase/protocol_out.h"

namespace wmb::fill {

class FillDevice {
 public:
  virtual ~FillDevice() = default;
  virtual std::string name() const = 0;  // as recorded in results: "cpu", "cuda", "mps", "mps-model"
  // Allocates one tensor of exactly `bytes` bytes filled with `data`, generated on the device.
  // Throws c10::Error (as PyTorch does) when the allocation is refused.
  virtual at::Tensor allocate(uint64_t bytes, DataKind data) = 0;
  virtual DeviceStats stats() = 0;
  // MTLDevice.recommendedMaxWorkingSetSize on MPS (and the model); total memory on CUDA; none on cpu.
  virtual std::optional<uint64_t> recommended_max() = 0;
  virtual void empty_cache() {}
  virtual void synchronize() {}
  // The at::Device tensors live on (CPU for cpu and mps-model).
  virtual at::Device torch_device() const = 0;
  // Called when a tensor obtained from allocate() is released (the model tracks its driver count).
  virtual void on_release(uint64_t /*bytes*/) {}
  // The exact limit, where the device knows it (the model does; PyTorch's MPS hooks do not say it).
  virtual std::optional<uint64_t> max_allowed() { return std::nullopt; }
  // The per-process memory fraction, before the first allocation, through the release's API
  // (mps: MPSHooks::setMemoryFraction; cuda: c10::cuda::CUDACachingAllocator::setMemoryFraction;
  // mps-model: the model of torch.mps.set_per_process_memory_fraction). Throws c10::Error with
  // PyTorch's text when PyTorch refuses it, UsageError where the device or release has no such call.
  virtual void set_memory_fraction(double fraction) = 0;
  // The hello line's "model" object (mps-model: revision, other allocations, ...); null elsewhere.
  virtual Msg model_json() const { return nullptr; }
};

// Defined in device_mps.cpp, which is compiled only on Apple platforms.
std::unique_ptr<FillDevice> make_mps_device();

}  // namespace wmb::fill
