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

// The offload program (fill/offload.cpp) on the model: the same stages, each .to() a real copy.
void run_model_offload(MpsModel& device, const FillOptions& o, ProtocolOut& out) {
  if (!o.offload_bytes) throw PyTorchRefusal("program offload needs --offload-size");
  const uint64_t total = *o.offload_bytes;
  const DataKind data = parse_data_kind(o.data);
  emit_stage(out, device, "start", 0);

  // 1. The "weights" on the device, in step-sized tensors (the last one may be smaller).
  std::vector<ModelBuffer> on_device;
  std::vector<uint64_t> sizes;
  uint64_t held = 0;
  while (held < total) {
    const uint64_t n = std::min(o.step_bytes, total - held);  // both multiples of 4
    on_device.push_back(device.allocate(n, data));
    sizes.push_back(n);
    held += n;
  }
  emit_stage(out, device, "on_device", held);

  // 2. `.to("cpu")`: a real copy into fresh memory, then the device tensors are dropped and the
  // device's cache emptied, and 2 s pass.
  std::vector<ModelBuffer> on_cpu;
  on_cpu.reserve(on_device.size());
  for (const ModelBuffer& b : on_device) {
    void* p = map_fresh(b.size());
    if (p == nullptr) throw std::bad_alloc();
    ModelBuffer copy(p, b.size());
    std::memcpy(copy.data(), b.data(), b.size());
    on_cpu.push_back(std::move(copy));
  }
  for (size_t i = 0; i < on_device.size(); ++i) {
    on_device[i] = ModelBuffer();
    device.on_release(sizes[i]);
  }
  on_device.clear();
  device.empty_cache();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  emit_stage(out, device, "moved_to_cpu", held);

  // 3. The CPU reads every page of its copy (as .sum() does).
  double sink = 0.0;
  for (const ModelBuffer& b : on_cpu) {
    const float* f = static_cast<const float*>(b.data());
    for (size_t k = 0; k < b.size() / sizeof(float); ++k) sink += f[k];
  }
  volatile double keep = sink;
  (void)keep;
  emit_stage(out, device, "cpu_read", held);

  // 4. Released (to the meta device: no storage).
  on_cpu.clear();
  device.empty_cache();
  emit_stage(out, device, "released", 0);
  out.write({{"type", "done"}, {"reason", "program"}, {"held_bytes", 0}});
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
