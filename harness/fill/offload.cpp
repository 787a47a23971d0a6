#include "fill/offload.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include "fill/devices.h"
#include "fillbase/fill_loop.h"

namespace wmb::fill {
void run_offload(FillDevice& device, const FillOptions& o, ProtocolOut& out) {
  TORCH_CHECK(o.offload_bytes.has_value(), "program offload needs --offload-size");
  const uint64_t total = *o.offload_bytes;
  const DataKind data = parse_data_kind(o.data);

  emit_stage(out, device, "start", 0);

  // 1. The "weights" on the device, in step-sized tensors (the last one may be smaller).
  std::vector<at::Tensor> on_device;
  std::vector<uint64_t> sizes;
  uint64_t held = 0;
  while (held < total) {
    const uint64_t n = std::min(o.step_bytes, total - held);  // both multiples of 4
    on_device.push_back(device.allocate(n, data));
    sizes.push_back(n);
    held += n;
  }
  device.synchronize();
  emit_stage(out, device, "on_device", held);

  // 2. `.to("cpu")`: a real copy even where the device's tensors are CPU tensors (cpu, mps-model),
  // then the device tensors are dropped and the device's cache emptied, and 2 s pass.
  std::vector<at::Tensor> on_cpu;
  on_cpu.reserve(on_device.size());
  for (const at::Tensor& t : on_device)
    on_cpu.push_back(t.to(at::TensorOptions().device(at::kCPU), /*non_blocking=*/false, /*copy=*/true));
  device.synchronize();
  for (size_t i = 0; i < on_device.size(); ++i) {
    on_device[i] = at::Tensor();
    device.on_release(sizes[i]);
  }
  on_device.clear();
  device.empty_cache();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  emit_stage(out, device, "moved_to_cpu", held);

  // 3. The CPU reads every page of its copy.
  double sink = 0.0;
  for (const at::Tensor& t : on_cpu) sink += t.sum().item<double>();
  (void)sink;
  emit_stage(out, device, "cpu_read", held);

  // 4. Release to the meta device (no storage), as the write-up's stage-by-stage loading does.
  for (at::Tensor& t : on_cpu) t = t.to(at::TensorOptions().device(at::kMeta));
  device.empty_cache();
  emit_stage(out, device, "released", 0);

  out.write({{"type", "done"}, {"reason", "program"}, {"held_bytes", 0}});
}

}  // namespace wmb::fill
