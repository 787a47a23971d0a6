// Watches one running child: reads its JSON lines (when it speaks the fill protocol), checks the
// guard policy when the pacer says (guard/pacer.h: every check_interval far from the limits, down
// to near_interval close to them, and at once after each chunk of the child's lines), writes a trace sample every interval, enforces the timeout
// and reacts to SIGINT/SIGTERM/SIGHUP of the parent. Stops the child's whole process group.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "guard/policy.h"
#include "probe/probe.h"
#include "spawn/process.h"
#include "trace/trace_writer.h"

namespace wmb {

enum class Stopper { None, Guard, Timeout, Interrupted };

struct SuperviseOptions {
  GuardConfig guard;
  bool guard_enabled = true;
  double sample_interval = 0.5;
  double timeout = 0;        // seconds; 0 = none
  double grace = 5;
  // true: the child's end wakes the loop and the stop (spawn/exit_watch.h). false: the old waits,
  // a 5 ms poll for a child without a stdout pipe and a sleep-poll of old_stop_poll in the stop;
  // only the side-by-side benchmarks (harness/bench) ask for them.
  bool event_waits = true;
  double old_stop_poll = 0.005;
  std::string cgroup_dir;    // sandbox cgroup, for the probe
  // Given each signal of a stop besides the child's process group (the guard: every process in
  // the command's cgroup, so one that left the group with setsid is stopped too).
  std::function<void(int sig)> signal_others;
  TraceWriter* trace = nullptr;
  // Each line of the child (stdout_fd of the child), raw: at most kMaxChildLineBytes, `cut` when
  // it was longer (its start). Parsing it is the caller's (ChildReport::absorb_line).
  std::function<void(std::string_view line, bool cut, double t)> on_line;
  // Called about every 0.5 s for a progress line.
  std::function<void(double t)> on_tick;
  // Extra fields for each trace sample (held bytes etc., from the child's messages).
  std::function<void(nlohmann::json& sample)> decorate_sample;
};

struct SuperviseResult {
  Stopper stopper = Stopper::None;
  std::string reason;          // why we stopped it
  int interrupt_signal = 0;    // when Interrupted
  ExitStatus status;
  bool killed = false;         // SIGKILL was needed after the grace
  double duration = 0;         // seconds from start to gone
  double stop_latency = 0;     // seconds from the stop decision to the child gone
  // swap_after: the last reading while the child was alive (at the stop decision, or the last
  // check before it ended): "swap during the run" ends there. swap_end: after it was gone.
  uint64_t swap_before = 0, swap_after = 0, swap_peak = 0, swap_end = 0;
  uint64_t peak_footprint = 0;
  // The kernel's own peak of the child (ProcessMemory::kernel_peak), the highest reading of the
  // run: each sample, each step, and once more before the child is reaped.
  std::optional<uint64_t> kernel_peak;
  std::optional<uint64_t> peak_cgroup_usage;
  std::string guard_signal;    // when the guard stopped it: one of guard_signals() (common/guard_signals.h)
  // How many processes of the sandbox cgroup the kernel's OOM killer killed during the run
  // (memory.events / memory.oom_control oom_kill, after minus before); nullopt: not known.
  std::optional<uint64_t> oom_kills;
  // macOS: the JetsamEvent report that names the child as killed (verdict/diagnostic_reports.h),
  // looked up by the runner after a SIGKILL it did not send: its reason and path ("" = none).
  std::string jetsam_reason, jetsam_report;
  std::string probe_error;     // the first probe failure, if any
};

SuperviseResult supervise(const Child& child, const SuperviseOptions& opts, MemoryProbe& probe, Clock& clock,
                          uint64_t swap_before);

}  // namespace wmb
