// What the guard and the sampler read about memory, behind one interface so that the policy can
// be driven by fakes in unit tests.
//
// Platform files: probe_linux.cpp (/proc/meminfo, /proc/PID/status, memory cgroups v1/v2) and
// probe_macos.cpp (sysctl vm.swapusage, kern.memorystatus_level, hw.memsize, proc_pid_rusage,
// host_statistics64) - the latter is compiled and run only on macOS.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace wmb {

struct SystemMemory {
  uint64_t ram_total = 0;        // bytes of physical RAM
  uint64_t swap_total = 0;       // bytes
  uint64_t swap_used = 0;        // bytes
  double level = 0;              // percent of memory available (MemAvailable/MemTotal; macOS kern.memorystatus_level)
  std::optional<int> pressure;   // macOS kern.memorystatus_vm_pressure_level: 1 normal, 2 warn, 4 critical
  std::optional<uint64_t> swapins;   // pages swapped in since boot, where known
  std::optional<uint64_t> swapouts;  // pages swapped out since boot, where known
  // Linux PSI: microseconds some task stalled on memory since boot (the "some" line's `total` of
  // /proc/pressure/memory). A cumulative counter, fresh at each read (the kernel adds the stall
  // in progress), so its growth between two checks is the stall of that interval: the guard reads
  // its growth over the last second, never avg10 (a 10 s average).
  std::optional<uint64_t> stall_us;
  // macOS host_statistics64: bytes the compressor occupies (compressor_page_count x page size)
  // and bytes wired (wire_count x page size). Not read on Linux (no such counters: see
  // docs/MACOS.md, "Guard signals").
  std::optional<uint64_t> compressor_bytes;
  std::optional<uint64_t> wired_bytes;

  // Bytes available now: the free level applied to RAM.
  uint64_t available() const { return static_cast<uint64_t>(level / 100.0 * static_cast<double>(ram_total)); }
};

struct ProcessMemory {
  uint64_t footprint = 0;                 // bytes: macOS phys_footprint; Linux RSS + swapped out (VmRSS + VmSwap)
  std::optional<uint64_t> rss;            // resident bytes, where known
  std::optional<uint64_t> swap;           // bytes of the process in swap, where known
  std::optional<uint64_t> cgroup_usage;   // the sandbox cgroup's memory usage, when the child runs in one
  std::optional<uint64_t> cgroup_swap;    // the sandbox cgroup's swap usage, when known
  // The kernel's own peak of the child's memory, where it keeps one: macOS
  // ri_lifetime_max_phys_footprint (rusage_info_v4); Linux the sandbox cgroup's peak of memory
  // and swap together (v1 memory.memsw.max_usage_in_bytes; v2 memory.peak + memory.swap.peak),
  // else the child's VmHWM (resident only: a peak below a sampled footprint is not used).
  std::optional<uint64_t> kernel_peak;
};

// Thrown when a probe cannot read what it must (the guard treats it as "stop the child").
struct ProbeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MemoryProbe {
 public:
  virtual ~MemoryProbe() = default;
  virtual SystemMemory system() = 0;                 // throws ProbeError
  // What one guard check needs (ram_total, swap_total, swap_used, level), as cheaply as the
  // platform allows: the counters only a trace sample wants (swapins, swapouts) may be left out.
  // The same source as system()'s figures, so a check compares like with like. Throws ProbeError.
  virtual SystemMemory check_reading() { return system(); }
  // Whether check_reading() must also read what the pressure signal needs where it costs extra
  // (Linux: /proc/pressure/memory; system() reads it always, for the trace). The supervisor says
  // so at its start, from the guard's config, so a guard without the signal pays nothing for it.
  virtual void want_pressure_in_checks(bool /*on*/) {}
  // `pid` is the child; `cgroup_dir` the sandbox cgroup's folder ("" when none).
  virtual ProcessMemory process(pid_t pid, const std::string& cgroup_dir) = 0;  // throws ProbeError
  virtual std::string name() const = 0;              // "linux-procfs", "macos-sysctl"
  // How many times the kernel's OOM killer killed a process of the cgroup `cgroup_dir` (v2
  // memory.events `oom_kill`, v1 memory.oom_control `oom_kill`); nullopt where unknown (no
  // cgroup, macOS). Never throws.
  virtual std::optional<uint64_t> oom_kills(const std::string& /*cgroup_dir*/) { return std::nullopt; }
};

// The real probe of this platform.
std::unique_ptr<MemoryProbe> make_platform_probe();

}  // namespace wmb
