// A run's record (results/run_record.h), built here and nowhere else: what is known before the
// child starts, how a run ends that never got a watched child, and everything a watched run
// leaves (the supervisor's result, the child's report, the classification).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "guard/supervisor.h"
#include "results/run_record.h"
#include "protocol/child_report.h"
#include "verdict/classify.h"
#include "runner/stages.h"

namespace wmb {

// Before the start: the cell, the sizes, the trace's name, the cell's environment warnings.
RunRecord begin_record(const PlannedRun& pr, const Scenario& sc, const ResolvedSizes& sizes);

// A run that did not start: no room, or the probe failed before the start.
void record_not_started(RunRecord& rec, const std::string& why);
// The child could not be started (`detail` from FillChild::cannot_start): not_started, so a
// later --resume runs it again.
void record_spawn_failure(RunRecord& rec, const std::string& detail, uint64_t swap_before);

// Everything a watched run leaves, folded in once the child is gone.
struct WatchedRun {
  const SuperviseResult& sup;
  const ChildReport& report;
  const Classification& cls;
  std::optional<uint64_t> peak_sandbox;
  double grace;                        // for the "ignored SIGTERM" warning
  std::vector<std::string> late_warnings;  // trace and sandbox errors, after the child's own
};
void record_watched_run(RunRecord& rec, const WatchedRun& w);

}  // namespace wmb
