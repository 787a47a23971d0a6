#include "fillbase/model_child.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "fillbase/child_lines.h"
#include "fillbase/fast_fill.h"
#include "fillbase/fill_loop.h"
#include "fillbase/model_buffers.h"

namespace wmb::fill {
namespace {

// The offload program (fillbase/fill_loop.h) on the model: each `.to()` a real copy into fresh memory.
void run_model_offload(MpsModel& device, const FillOptions& o, ProtocolOut& out) {
  if (!o.offload_bytes) throw PyTorchRefusal("program offload needs --offload-size");
  run_offload_stages<MpsModel, ModelBuffer>(
      device, o, out,
      [](const ModelBuffer& b) {
        void* p = map_fresh(b.size());
        if (p == nullptr) throw std::bad_alloc();
        ModelBuffer copy(p, b.size());
        std::memcpy(copy.data(), b.data(), b.size());
        return copy;
      },
      [](const std::vector<ModelBuffer>& on_cpu) {  // as .sum() does: every page read
        double sink = 0.0;
        for (const ModelBuffer& b : on_cpu) {
          const float* f = static_cast<const float*>(b.data());
          for (size_t k = 0; k < b.size() / sizeof(float); ++k) sink += f[k];
        }
        volatile double keep = sink;
        (void)keep;
      },
      [](std::vector<ModelBuffer>& on_cpu) { on_cpu.clear(); });
}

}  // namespace

void run_model_child(const FillOptions& opts, const Msg& torch_library) {
  ProtocolOut out = ProtocolOut::take_stdout();
  int code = 0;
  // Never destroyed: the process ends with _Exit, holding every buffer, and an error is reported
  // while everything is still held.
  auto* held = new std::vector<ModelBuffer>();
  std::unique_ptr<MpsModel> device;
  try {
    device = std::make_unique<MpsModel>(model_options(opts));
    out.write(hello_message(opts, "mps-model", device->recommended_max(), built_torch_version(), torch_library,
                            device->model_json()));
    // As user code calls it: after the device is chosen, before the first allocation.
    if (!opts.hello_only && opts.memory_fraction) device->set_memory_fraction(*opts.memory_fraction);
    if (opts.hello_only) {
      // nothing else: `wmbench info` and `predict` only want the hello
    } else if (opts.program == "offload") {
      run_model_offload(*device, opts, out);
    } else {
      run_fill(*device, opts, out, *held);
    }
  } catch (...) {
    code = report_exception(out, /*std_exceptions_are_torchs=*/false);  // no libtorch here
    // The exact limit, to the byte (the message rounds to 2 decimals).
    if (device && code == 3)
      if (auto m = device->max_allowed()) out.write({{"type", "limit"}, {"max_allowed_bytes", *m}});
  }
  (void)device.release();
  std::cerr << std::flush;
  std::_Exit(code);
}

}  // namespace wmb::fill
