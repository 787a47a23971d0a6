// The sampler of supervise(): one reading of the system and of the child, folded into the
// result's swap and footprint figures and written to the trace as a "sample" line.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "probe/probe.h"
#include "trace/trace_writer.h"

namespace wmb {

struct SuperviseResult;

class Sampler {
 public:
  Sampler(MemoryProbe& probe, pid_t pid, std::string cgroup_dir, TraceWriter* trace,
          std::function<void(nlohmann::json&)> decorate, SuperviseResult& result, double t0);
  // One trace sample at `now` (a clock reading).
  void sample(double now);
  // The child's footprint right after one of its steps: the samples alone miss the peak of a fill
  // that ends between two of them.
  void footprint_now();

 private:
  void keep_kernel_peak(const ProcessMemory& p);
  MemoryProbe& probe_;
  pid_t pid_;
  std::string cgroup_dir_;
  TraceWriter* trace_;
  std::function<void(nlohmann::json&)> decorate_;
  SuperviseResult& r_;
  double t0_;
};

}  // namespace wmb
