// The "mps-model" device: real CPU tensors (real memory, real swap) behind the MPS allocator's
// limit policy as PyTorch implements it (harness/mpsmodel/watermark.h), so that the watermark
// matrix can be reproduced on Linux. Results always say "mps-model", never "mps".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "fill/device.h"

namespace wmb::fill {

struct MpsModelOptions {
  std::optional<uint64_t> recommended_max;  // the modelled recommendedMaxWorkingSetSize, bytes
  std::optional<uint64_t> model_ram;        // else: recommended_max_for_ram(model_ram); else this machine's RAM
};

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions&);

}  // namespace wmb::fill
