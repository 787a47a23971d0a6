// The "mps-model" device: real CPU tensors (real memory, real swap) behind the MPS allocator as
// PyTorch implements it (harness/mpsmodel/heap_allocator.h: heaps, the driver count, the
// watermarks, the messages of the chosen release), so that the watermark matrix can be reproduced
// on Linux. Results always say "mps-model", never "mps".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fill/device.h"

namespace wmb::fill {

struct MpsModelOptions {
  std::optional<uint64_t> recommended_max;  // the modelled recommendedMaxWorkingSetSize, bytes
  std::optional<uint64_t> model_ram;        // else: recommended_max_for_ram(model_ram); else this machine's RAM
  std::string revision = "current";         // mpsmodel/revision.h
  std::optional<uint64_t> other_bytes;      // "other allocations"; default 448 KiB
  std::optional<uint64_t> max_buffer;       // maxBufferLength; default 9/16 of the modelled RAM
  // The sandbox: the step on the Mac modelled (e.g. 512 MiB); heaps follow that step's tier
  // (MpsModelOptions::step_bytes / unscaled_step is the scale). Default: PyTorch's tiers as they are.
  std::optional<uint64_t> unscaled_step;
  uint64_t step_bytes = 0;
};

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions&);

}  // namespace wmb::fill
