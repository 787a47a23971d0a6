// The factory of fill devices. Only code that links libtorch includes this header.
#pragma once

#include <memory>
#include <string>

#include "fill/device.h"
#include "fill/device_mps_model.h"
#include "fillbase/options.h"

namespace wmb::fill {

// Defined in device_cpu.cpp: fresh mmap'd memory filled near memory speed, wrapped by at::from_blob.
std::unique_ptr<FillDevice> make_cpu_device();
// Defined in device_cuda.cpp. Throws UsageError when this libtorch has no usable CUDA device.
std::unique_ptr<FillDevice> make_cuda_device();

// Throws UsageError for an unknown device or one this build/machine cannot run.
inline std::unique_ptr<FillDevice> make_device(const std::string& name, const FillOptions& o) {
  if (name == "cpu") return make_cpu_device();
  if (name == "cuda") return make_cuda_device();
  if (name == "mps-model") return make_mps_model_device(model_options(o));
  if (name == "mps") {
#ifdef __APPLE__
    return make_mps_device();
#else
    throw UsageError("device mps is available only on macOS (Apple silicon); use mps-model to model it here");
#endif
  }
  std::string allowed;
  for (const auto& d : allowed_devices()) allowed += (allowed.empty() ? "" : ", ") + d;
  throw UsageError("unknown device \"" + name + "\"; allowed: " + allowed);
}

}  // namespace wmb::fill
