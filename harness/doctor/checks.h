// `wmbench doctor`'s verdicts, as pure functions over readings: each takes what a reader saw
// (doctor/readers_linux.cpp, readers_macos.cpp, live.cpp, fill_check.cpp) and what wmbench
// assumes, and says pass, fail or skip and why. No reading here, so each is unit-tested with
// planted answers (tests/unit/test_doctor.cpp).
//
//   pass: the assumption holds on this machine.
//   fail: it does not: wmbench's platform code would read or do something wrong here. Report it.
//   skip: the feature is absent and wmbench handles its absence (it says so where it matters),
//         or the check cannot run here (a VM's MPS); `why` says which.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wmb::doctor {

enum class Verdict { pass, fail, skip };
std::string verdict_name(Verdict v);  // "pass" | "fail" | "skip"

struct Check {
  std::string name;      // "sysctl vm.swapusage"
  std::string expected;  // what wmbench assumes, naming the upstream source that fixes it
  std::string seen;      // what this machine answered
  Verdict verdict = Verdict::fail;
  std::string why;       // fail / skip: why; "" on pass
};

// ---- sysctl (macOS) -----------------------------------------------------------------------------
// One sysctlbyname(name, NULL, &size, NULL, 0): the size it gave, or the errno when it failed.
struct SysctlSize {
  std::optional<size_t> size;
  int error = 0;  // errno when !size (ENOENT: no such sysctl)
};
// `sizes`: the sizes wmbench reads it as (e.g. {32} for struct xsw_usage); `type`: the C type in
// words with its source. absent_ok: a missing sysctl is a skip (iogpu.wired_limit_mb before macOS
// 14), else a fail.
Check judge_sysctl(const std::string& name, const SysctlSize& r, const std::vector<size_t>& sizes,
                   const std::string& type, bool absent_ok);

// ---- swap: the probe against a second source ----------------------------------------------------
struct SwapFigures {
  uint64_t total = 0;
  uint64_t used = 0;
};
// `sysctl vm.swapusage`'s text: "vm.swapusage: total = 2048.00M  used = 1052.25M  free = 995.75M
// (encrypted)" (the sizes in M = 2^20 bytes, 2 decimals; also K and G). nullopt when it is not that.
std::optional<SwapFigures> parse_swapusage_text(std::string_view text);
// The probe's swap against `reference` (named by reference_name): totals agree to within 1 MiB or
// 0.5 %, used to within 64 MiB + 2 % of the total (swap moves between the two readings).
// An error text (probe_error / reference_error) when a side could not be read.
Check judge_swap(const std::string& probe_name, const std::optional<SwapFigures>& probe, const std::string& probe_error,
                 const std::string& reference_name, const std::optional<SwapFigures>& reference,
                 const std::string& reference_error);

// ---- a process's footprint (proc_pid_rusage on macOS, /proc/PID/status on Linux) ----------------
// `who`: "itself" | "a child". Passes when the footprint is read and above 0 (a phys_footprint may
// be below the RSS: shared pages are not in it, so no more is asked).
Check judge_footprint(const std::string& call, const std::string& who, std::optional<uint64_t> footprint,
                      const std::string& error);

// ---- process groups -----------------------------------------------------------------------------
// The members that process_tree() (proctree/tree_probe.h) listed for a group wmbench made of
// `made` (the leader first): every member listed, nothing else.
Check judge_group_listing(const std::string& call, const std::vector<pid_t>& made, const std::vector<pid_t>& listed);
// After stop_process_group (spawn/process.h) of a group of `made`: which still ran.
Check judge_group_stop(size_t made, const std::vector<pid_t>& still_running, const std::string& leader_status);

// ---- the exit watch then the reap ---------------------------------------------------------------
struct ExitWatchReading {
  std::string kind;         // ExitWatch::kind(): "pidfd" | "kqueue" | "poll"
  bool woke = false;        // wait() said ended after the child was killed
  bool reaped = false;      // waitpid then took it (within 1 s)
  double reap_wait_ms = 0;  // how long after the wake the reap succeeded
};
// expected_kind: "pidfd" (Linux 5.3+) or "kqueue" (macOS); where the kind is "poll" and
// poll_why is not empty (a kernel before 5.3), a skip.
Check judge_exit_watch(const std::string& expected_kind, const ExitWatchReading& r, const std::string& poll_why);

// ---- Metal against the child's torch (macOS) ----------------------------------------------------
Check judge_recommended_max(std::optional<uint64_t> metal, const std::string& metal_error,
                            std::optional<uint64_t> torch, const std::string& torch_error, bool virtual_device);

// ---- the tiny fill --------------------------------------------------------------------------------
struct FillReading {
  std::string device;                     // "mps" | "mps-model" | "cpu"
  double high = 0;                        // PYTORCH_MPS_HIGH_WATERMARK_RATIO given
  std::optional<uint64_t> recommended;    // the child's hello: recommended_max_bytes
  std::optional<std::string> error_text;  // the child's error line, verbatim
  std::optional<uint64_t> max_allowed;    // what explain's parser read off it (errparse)
  std::string parsed_kind;                // errparse kind_name()
  double seconds = 0;
  std::string failure;                    // the child could not be started or said nothing
  bool virtual_device = false;            // a VM's paravirtual Metal device: a failure is expected
};
Check judge_fill(const FillReading& r);

// ---- Linux ---------------------------------------------------------------------------------------
// /sys/fs/cgroup/cgroup.controllers' text (nullopt: no cgroup v2 mount there).
Check judge_cgroup2(const std::optional<std::string>& controllers, const std::string& error);
// /proc/pressure/memory's text (nullopt: no PSI).
Check judge_psi(const std::optional<std::string>& text, const std::string& error);

}  // namespace wmb::doctor
