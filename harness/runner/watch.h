// What the runner does while supervise() watches one fill child: each protocol line folded into
// the child's report through its checks (ChildReport::absorb_line: a bad line is a warning, never an abort) and written to the trace as an event, each sample given the child's held
// bytes, the progress line kept fresh.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "guard/supervisor.h"
#include "protocol/child_report.h"
#include "runner/progress.h"

namespace wmb {

class RunWatch {
 public:
  RunWatch(MemoryProbe& probe, TraceWriter& trace, ProgressLine& progress, std::string head, pid_t pid,
           uint64_t swap_before);
  // Fills the callbacks of `sup` (its cgroup_dir must be set first); `this` must outlive supervise().
  void attach(SuperviseOptions& sup);
  const ChildReport& report() const { return report_; }

 private:
  void on_line(std::string_view line, bool cut, double t);
  void on_stage(double t);

  MemoryProbe& probe_;
  TraceWriter& trace_;
  ProgressLine& progress_;
  std::string head_;
  pid_t pid_;
  uint64_t swap_before_, last_swap_;
  std::string cgroup_dir_;
  ChildReport report_;
};

}  // namespace wmb
