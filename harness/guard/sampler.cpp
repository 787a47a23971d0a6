#include "guard/sampler.h"

#include <algorithm>

#include "guard/supervisor.h"
#include "io/files.h"

namespace wmb {

Sampler::Sampler(MemoryProbe& probe, pid_t pid, std::string cgroup_dir, TraceWriter* trace,
                 std::function<void(nlohmann::json&)> decorate, SuperviseResult& result, double t0)
    : probe_(probe), pid_(pid), cgroup_dir_(std::move(cgroup_dir)), trace_(trace), decorate_(std::move(decorate)),
      r_(result), t0_(t0) {}

void Sampler::sample(double now) {
  nlohmann::json s = {{"type", "sample"}, {"t", now - t0_}};
  try {
    SystemMemory m = probe_.system();
    ProcessMemory p = probe_.process(pid_, cgroup_dir_);
    r_.swap_after = m.swap_used;
    r_.swap_peak = std::max(r_.swap_peak, m.swap_used);
    r_.peak_footprint = std::max(r_.peak_footprint, p.footprint);
    keep_kernel_peak(p);
    if (p.cgroup_usage) r_.peak_cgroup_usage = std::max(r_.peak_cgroup_usage.value_or(0), *p.cgroup_usage);
    s["footprint"] = p.footprint;
    s["swap_used"] = m.swap_used;
    s["level"] = m.level;
    s["rss"] = json_or_null(p.rss);
    s["process_swap"] = json_or_null(p.swap);
    s["swapins"] = json_or_null(m.swapins);
    s["swapouts"] = json_or_null(m.swapouts);
    s["cgroup_usage"] = json_or_null(p.cgroup_usage);
    s["cgroup_swap"] = json_or_null(p.cgroup_swap);
    // The guard's other readings (null where the platform has none): macOS pressure level,
    // compressor and wired bytes; Linux PSI stall total (us); the kernel's peak of the child.
    s["pressure"] = m.pressure ? nlohmann::json(*m.pressure) : nlohmann::json(nullptr);
    s["stall_us"] = json_or_null(m.stall_us);
    s["compressor_bytes"] = json_or_null(m.compressor_bytes);
    s["wired_bytes"] = json_or_null(m.wired_bytes);
    s["kernel_peak"] = json_or_null(p.kernel_peak);
  } catch (const ProbeError& e) {
    if (r_.probe_error.empty()) r_.probe_error = e.what();
    s["probe_error"] = e.what();
  }
  if (decorate_) decorate_(s);
  if (trace_) trace_->line(s);
}

void Sampler::keep_kernel_peak(const ProcessMemory& p) {
  if (p.kernel_peak) r_.kernel_peak = std::max(r_.kernel_peak.value_or(0), *p.kernel_peak);
}

void Sampler::footprint_now() {
  try {
    const ProcessMemory p = probe_.process(pid_, cgroup_dir_);
    r_.peak_footprint = std::max(r_.peak_footprint, p.footprint);
    keep_kernel_peak(p);
  } catch (const ProbeError&) {
  }
}

}  // namespace wmb
