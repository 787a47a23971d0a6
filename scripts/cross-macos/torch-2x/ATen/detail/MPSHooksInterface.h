// Stand-in for PyTorch 2.x's <ATen/detail/MPSHooksInterface.h>, used ONLY by
// scripts/cross-macos.sh to syntax-check harness/fill/device_mps.cpp off a Mac (Debian's libtorch
// 1.13 has no such header). Never compiled into a binary.
//
// Source of the declarations: pytorch/pytorch, aten/src/ATen/detail/MPSHooksInterface.h (read at
// commit 046e382aa86d0cb45b70b27af1443509769d02c3, main in 2026, and at the 2.x release tags named in
// docs/MACOS.md). There, `struct TORCH_API MPSHooksInterface : AcceleratorHooksInterface` has the
// `virtual ... const` members below (each fails with "Cannot execute <f>() without MPS backend." in
// the base class), and `namespace at::detail { TORCH_API const MPSHooksInterface& getMPSHooks(); }`.
// Only the members device_mps.cpp calls are declared, with PyTorch's exact signatures, so a call
// with a wrong name, argument list or constness fails this check as it would on a Mac.
// getRecommendedMaxMemory() is in the header from torch 2.5 on (pytorch/pytorch#128289).
// setMemoryFraction(double) const: aten/src/ATen/mps/MPSHooks.h overrides it as
// `void setMemoryFraction(double ratio) const override;` (2.0 on; MPSHooks.mm calls
// getIMPSAllocator()->setHighWatermarkRatio(ratio)), read with the search tool for issue 23.
#pragma once

#include <cstddef>

namespace at {

struct MPSHooksInterface {
  virtual ~MPSHooksInterface() = default;
  virtual bool hasMPS() const;
  virtual void deviceSynchronize() const;
  virtual void emptyCache() const;
  virtual size_t getCurrentAllocatedMemory() const;
  virtual size_t getDriverAllocatedMemory() const;
  virtual size_t getRecommendedMaxMemory() const;
  virtual void setMemoryFraction(double ratio) const;
};

namespace detail {
const MPSHooksInterface& getMPSHooks();
}  // namespace detail

}  // namespace at
