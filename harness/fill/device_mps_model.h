// The "mps-model" device as a FillDevice: fillbase/model_buffers.h's MpsModel (the MPS allocator
// model over real CPU memory) with each buffer handed to libtorch as a CPU tensor. wmbench-fill
// runs the model without libtorch (fillbase/model_child.h); this is for the code that links it
// (wmbench-fill-torch when started directly, the benchmarks). Results always say "mps-model", never "mps".
#pragma once

#include <memory>

#include "fill/device.h"
#include "fillbase/model_buffers.h"

namespace wmb::fill {

std::unique_ptr<FillDevice> make_mps_model_device(const MpsModelOptions&);

}  // namespace wmb::fill
