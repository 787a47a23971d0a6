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
  run_offload_stages<FillDevice, at::Tensor>(
      device, o, out,
      [](const at::Tensor& t) { return t.to(at::TensorOptions().device(at::kCPU), /*non_blocking=*/false, /*copy=*/true); },
      [](const std::vector<at::Tensor>& on_cpu) {
        double sink = 0.0;
        for (const at::Tensor& t : on_cpu) sink += t.sum().item<double>();
        (void)sink;
      },
      [](std::vector<at::Tensor>& on_cpu) {
        for (at::Tensor& t : on_cpu) t = t.to(at::TensorOptions().device(at::kMeta));
      });
}

}  // namespace wmb::fill
