// `wmbench doctor`'s readings on macOS: each sysctl wmbench reads, by its size; the probe's swap
// against `sysctl vm.swapusage`'s text; Metal's recommendedMaxWorkingSetSize against the fill
// child's torch. Compiled by scripts/cross-macos.sh for aarch64-macos; it has NOT run on a Mac.
//
// Each size expected below is the one the upstream line fixes (read in apple-oss-distributions/xnu
// and in the macOS SDK's <sys/sysctl.h>):
//   vm.swapusage: <sys/sysctl.h> "struct xsw_usage { u_int64_t xsu_total; u_int64_t xsu_avail;
//     u_int64_t xsu_used; u_int32_t xsu_pagesize; boolean_t xsu_encrypted; };" -> 32 bytes; the
//     u_int64_t fields are bytes (system_cmds sysctl.c S_xswusage prints "total = %.2fM" of
//     "((double)xsu->xsu_total) / (1024.0 * 1024.0)").
//   kern.memorystatus_level: bsd/kern/kern_memorystatus.c "SYSCTL_INT(_kern, OID_AUTO,
//     memorystatus_level, CTLFLAG_RD | CTLFLAG_LOCKED, &memorystatus_level, 0, "");" -> 4 bytes, percent.
//   kern.memorystatus_vm_pressure_level: bsd/kern/kern_memorystatus_notify.c "return
//     SYSCTL_OUT(req, &dispatch_level, sizeof(dispatch_level));" under "SYSCTL_PROC(_kern,
//     OID_AUTO, memorystatus_vm_pressure_level, CTLTYPE_INT | ..." -> 4 bytes (1, 2, 4).
//   hw.memsize: bsd/kern/kern_mib.c "SYSCTL_QUAD(_hw, HW_MEMSIZE, memsize, CTLFLAG_RD |
//     CTLFLAG_KERN | CTLFLAG_LOCKED, &max_mem_actual, "");" -> 8 bytes, bytes of RAM.
//   iogpu.wired_limit_mb: Apple's IOGPU kernel extension, not xnu (no upstream source): 4 or 8
//     bytes as host/platform_macos.cpp reads it; absent before macOS 14.
#include <sys/sysctl.h>

#include <cerrno>

#include "doctor/readers.h"
#include "host/metal_device.h"
#include "tools/short_command.h"
#include "io/utf8.h"

namespace wmb::doctor {
namespace {

// sysctlbyname(name, NULL, &size, NULL, 0): "the size of the value is returned in oldlenp"
// (sysctlbyname(3)); a size in bytes.
SysctlSize sysctl_size(const char* name) {
  SysctlSize r;
  size_t size = 0;
  if (::sysctlbyname(name, nullptr, &size, nullptr, 0) != 0) {
    r.error = errno;
    return r;
  }
  r.size = size;
  return r;
}

std::optional<SwapFigures> sysctl_text_swap(std::string* error) {
  const CommandOutput out = run_short_command({"/usr/sbin/sysctl", "vm.swapusage"}, 10);
  if (!out.ok()) {
    *error = "/usr/sbin/sysctl vm.swapusage: " + (out.started ? out.failure() : out.start_error);
    return std::nullopt;
  }
  auto f = parse_swapusage_text(out.out);
  if (!f) *error = "/usr/sbin/sysctl vm.swapusage printed another shape: " + std::string(utf8_prefix(out.out, 200));
  return f;
}

bool metal_is_virtual() { return metal_device_is_virtual(metal_default_device_name(nullptr)); }

}  // namespace

std::string platform_name() { return "macos"; }

LiveNames live_names() {
  LiveNames n;
  n.footprint_call = "proc_pid_rusage(RUSAGE_INFO_V2)";
  n.listing_call = "proc_listpgrppids";
  n.exit_kind = "kqueue";
  return n;
}

std::vector<Check> platform_checks(MemoryProbe& probe) {
  std::vector<Check> out;
  out.push_back(judge_sysctl("vm.swapusage", sysctl_size("vm.swapusage"), {sizeof(struct xsw_usage)},
                             "struct xsw_usage (<sys/sysctl.h>), u_int64_t bytes", false));
  out.push_back(judge_sysctl("kern.memorystatus_level", sysctl_size("kern.memorystatus_level"), {sizeof(int)},
                             "int percent (xnu bsd/kern/kern_memorystatus.c SYSCTL_INT)", false));
  out.push_back(judge_sysctl("kern.memorystatus_vm_pressure_level", sysctl_size("kern.memorystatus_vm_pressure_level"),
                             {sizeof(int)}, "int 1/2/4 (xnu bsd/kern/kern_memorystatus_notify.c CTLTYPE_INT)", false));
  out.push_back(judge_sysctl("hw.memsize", sysctl_size("hw.memsize"), {sizeof(uint64_t)},
                             "64-bit bytes (xnu bsd/kern/kern_mib.c SYSCTL_QUAD)", false));
  out.push_back(judge_sysctl("iogpu.wired_limit_mb", sysctl_size("iogpu.wired_limit_mb"), {4, 8},
                             "an integer of MB (Apple's IOGPU extension; no upstream source)", true));
  std::optional<SwapFigures> mine;
  std::string probe_error, ref_error;
  try {
    const SystemMemory m = probe.check_reading();
    mine = SwapFigures{m.swap_total, m.swap_used};
  } catch (const std::exception& e) {
    probe_error = e.what();
  }
  const auto ref = sysctl_text_swap(&ref_error);
  out.push_back(judge_swap(probe.name() + " (sysctlbyname vm.swapusage)", mine, probe_error,
                           "`sysctl vm.swapusage` text (system_cmds sysctl.c S_xswusage)", ref, ref_error));
  return out;
}

FillPlan fill_plan(const std::string& fill_path) {
  FillPlan p;
  p.fill_path = fill_path;
  p.device = "mps";
  p.virtual_device = metal_is_virtual();
  return p;
}

std::optional<Check> recommended_check(const FillReading& fill) {
  std::string why;
  const auto metal = metal_recommended_max_working_set(&why);
  return judge_recommended_max(metal, why, fill.recommended, fill.failure.empty() ? "no hello" : fill.failure,
                               fill.virtual_device);
}

}  // namespace wmb::doctor
