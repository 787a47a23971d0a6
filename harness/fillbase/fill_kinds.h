// What every fill device shares and needs no libtorch for: the data a tensor is filled with and
// the allocator's counts after a step (fill/device.h's devices and fillbase/model_buffers.h's model).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fillbase/options.h"

namespace wmb::fill {

enum class DataKind { Random, Ones, Zeros };

struct DeviceStats {
  std::optional<uint64_t> allocated;  // bytes the allocator holds for tensors (MPS current_allocated_memory, CUDA allocated_bytes)
  std::optional<uint64_t> driver;     // bytes the driver counts (MPS driver_allocated_memory, CUDA reserved_bytes)
  // The allocator's own peak of `allocated` since the child started (allocated_bytes.all.peak of
  // c10's DeviceStats), where the release keeps one: CUDA always; MPS once its allocator is a
  // c10::DeviceAllocator (PyTorch #186748, June 2026); the model keeps it as that Stat does; the
  // CPU allocator keeps none (null).
  std::optional<uint64_t> peak;
};

inline DataKind parse_data_kind(const std::string& s) {
  if (s == "random") return DataKind::Random;
  if (s == "ones") return DataKind::Ones;
  if (s == "zeros") return DataKind::Zeros;
  throw UsageError("unknown data \"" + s + "\"; allowed: random, ones, zeros");
}

inline const char* data_kind_name(DataKind d) {
  switch (d) {
    case DataKind::Random: return "random";
    case DataKind::Ones: return "ones";
    case DataKind::Zeros: return "zeros";
  }
  return "?";
}

}  // namespace wmb::fill
