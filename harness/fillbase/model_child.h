// wmbench-fill's model child: the "mps-model" device run without libtorch (fillbase/model_buffers.h),
// speaking the same protocol with the same exit codes as wmbench-fill-torch (fill/main.cpp) does for
// every other device: 0 done, 3 PyTorch's refusal (an error line whose exception is "c10::Error",
// the type PyTorch's TORCH_CHECK raises and the libtorch model reports), 2 usage, 1 anything else.
#pragma once

#include "fillbase/options.h"
#include "fillbase/protocol_out.h"

namespace wmb::fill {

// Runs `opts` (device mps-model) to its end and leaves the process with _Exit, holding every
// buffer (as wmbench-fill-torch does). `torch_library`: the hello's torch_library.
[[noreturn]] void run_model_child(const FillOptions& opts, const Msg& torch_library);

}  // namespace wmb::fill
