// `wmbench doctor`'s readings on Linux: the probe's swap against sysinfo(2), cgroup v2's memory
// controller, PSI, and whether the kernel has pidfd_open (5.3+).
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "doctor/readers.h"
#include "io/kernel_file.h"
#include "mpsmodel/macos_memory.h"

namespace wmb::doctor {
namespace {

// The same kernel counters as /proc/meminfo's SwapTotal/SwapFree through another door
// (man 2 sysinfo: totalswap, freeswap in units of mem_unit bytes).
std::optional<SwapFigures> sysinfo_swap(std::string* error) {
  struct sysinfo si {};
  if (::sysinfo(&si) != 0) {
    *error = std::string("sysinfo: ") + std::strerror(errno);
    return std::nullopt;
  }
  const uint64_t unit = si.mem_unit ? si.mem_unit : 1;
  const uint64_t total = static_cast<uint64_t>(si.totalswap) * unit;
  const uint64_t free = static_cast<uint64_t>(si.freeswap) * unit;
  return SwapFigures{total, total >= free ? total - free : 0};
}

std::optional<std::string> kernel_text(const std::string& path, std::string* error) {
  auto t = read_kernel_file(path, 64 * 1024);
  if (!t) *error = path + ": " + std::strerror(errno);
  return t;
}

}  // namespace

std::string platform_name() { return "linux"; }

LiveNames live_names() {
  LiveNames n;
  n.footprint_call = "/proc/PID/status (VmRSS + VmSwap)";
  n.listing_call = "process_tree (/proc/PID/stat pgrp, ppid)";
  n.exit_kind = "pidfd";
  struct utsname u {};
  int major = 0, minor = 0;
  if (::uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
      (major < 5 || (major == 5 && minor < 3)))
    n.poll_why = std::string("kernel ") + u.release + " has no pidfd_open (5.3+)";
  return n;
}

std::vector<Check> platform_checks(MemoryProbe& probe) {
  std::vector<Check> out;
  std::optional<SwapFigures> mine;
  std::string probe_error, ref_error, cg_error, psi_error;
  try {
    const SystemMemory m = probe.check_reading();
    mine = SwapFigures{m.swap_total, m.swap_used};
  } catch (const std::exception& e) {
    probe_error = e.what();
  }
  const auto ref = sysinfo_swap(&ref_error);
  out.push_back(judge_swap(probe.name() + " (/proc/meminfo SwapTotal, SwapFree)", mine, probe_error,
                           "sysinfo(2) totalswap, freeswap", ref, ref_error));
  const auto controllers = kernel_text("/sys/fs/cgroup/cgroup.controllers", &cg_error);
  out.push_back(judge_cgroup2(controllers, cg_error));
  const auto psi = kernel_text("/proc/pressure/memory", &psi_error);
  out.push_back(judge_psi(psi, psi_error));
  return out;
}

FillPlan fill_plan(const std::string& fill_path) {
  // A modelled 16 GiB Mac: its recommended max from mpsmodel/macos_memory.h, so max allowed at
  // HIGH 0.01 is about 109 MiB of this machine's memory.
  const uint64_t ram = uint64_t{16} << 30;
  FillPlan p;
  p.fill_path = fill_path;
  p.device = "mps-model";
  p.args = {"--model-ram", std::to_string(ram) + "B", "--recommended-max",
            std::to_string(mpsmodel::recommended_max_for_ram(ram)) + "B"};
  return p;
}

std::optional<Check> recommended_check(const FillReading&) { return std::nullopt; }

}  // namespace wmb::doctor
