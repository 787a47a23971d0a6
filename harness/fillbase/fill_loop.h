// The fill program and the offload program's stage line, for any device: the libtorch devices
// (fill/device.h, whose allocate() gives an at::Tensor) and the model without libtorch
// (fillbase/model_buffers.h, whose allocate() gives a ModelBuffer). A Device has
// allocate(bytes, DataKind) -> Held, synchronize() and stats().
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "fillbase/fill_kinds.h"
#include "fillbase/options.h"
#include "fillbase/protocol_out.h"

namespace wmb::fill {

inline void sleep_seconds(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// Step by step until the cap (or an exception from allocate(), which the caller reports). `held`
// outlives any exception: the error line is written while every tensor is still held, as it is in
// PyTorch when the allocation fails.
template <class Device, class Held>
void run_fill(Device& device, const FillOptions& o, ProtocolOut& out, std::vector<Held>& held) {
  const DataKind data = parse_data_kind(o.data);
  const uint64_t step = o.step_bytes;
  uint64_t held_bytes = 0;
  uint64_t index = 0;
  const auto fits = [&] { return !o.cap_bytes || held_bytes + step <= *o.cap_bytes; };
  while (fits()) {
    const auto t0 = std::chrono::steady_clock::now();
    Held t = device.allocate(step, data);
    device.synchronize();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    held.push_back(std::move(t));
    held_bytes += step;
    ++index;
    const DeviceStats st = device.stats();
    out.write({{"type", "step"},
               {"index", index},
               {"held_bytes", held_bytes},
               {"allocated_bytes", opt_json(st.allocated)},
               {"driver_bytes", opt_json(st.driver)},
               {"allocator_peak_bytes", opt_json(st.peak)},
               {"step_seconds", secs}});
    if (fits()) sleep_seconds(o.step_delay);
  }
  out.write({{"type", "done"}, {"reason", "cap"}, {"held_bytes", held_bytes}});
}

// One stage line of the offload program, then a moment's hold so the parent's own footprint
// sample (taken when it reads this line) sees this stage and not the next one.
template <class Device>
void emit_stage(ProtocolOut& out, Device& device, const char* name, uint64_t held) {
  const DeviceStats st = device.stats();
  out.write({{"type", "stage"},
             {"name", name},
             {"held_bytes", held},
             {"allocated_bytes", opt_json(st.allocated)},
             {"driver_bytes", opt_json(st.driver)},
             {"allocator_peak_bytes", opt_json(st.peak)},
             {"footprint_bytes", opt_json(self_footprint_bytes())}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

// The offload program over any device (the write-up's stage-by-stage loading): the "weights" on the
// device in step-sized tensors, `.to("cpu")` (`copy`: a real copy of one tensor, even where the
// device's tensors are CPU memory), the device tensors dropped and its cache emptied, 2 s, the CPU
// reads every page of its copies (`read`), the copies released (`release`: to the meta device).
// The caller checks o.offload_bytes.
template <class Device, class Held, class Copy, class Read, class Release>
void run_offload_stages(Device& device, const FillOptions& o, ProtocolOut& out, Copy copy, Read read, Release release) {
  const uint64_t total = *o.offload_bytes;
  const DataKind data = parse_data_kind(o.data);
  emit_stage(out, device, "start", 0);

  std::vector<Held> on_device;
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

  std::vector<Held> on_cpu;
  on_cpu.reserve(on_device.size());
  for (const Held& t : on_device) on_cpu.push_back(copy(t));
  device.synchronize();
  for (size_t i = 0; i < on_device.size(); ++i) {
    on_device[i] = Held();
    device.on_release(sizes[i]);
  }
  on_device.clear();
  device.empty_cache();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  emit_stage(out, device, "moved_to_cpu", held);

  read(on_cpu);
  emit_stage(out, device, "cpu_read", held);

  release(on_cpu);
  device.empty_cache();
  emit_stage(out, device, "released", 0);
  out.write({{"type", "done"}, {"reason", "program"}, {"held_bytes", 0}});
}

}  // namespace wmb::fill
