#include "runner/build_record.h"

#include <fmt/format.h>

namespace wmb {

RunRecord begin_record(const PlannedRun& pr, const Scenario& sc, const ResolvedSizes& sizes) {
  RunRecord rec;
  rec.index = pr.index;
  rec.label = pr.cell->label;
  rec.repeat = pr.repeat;
  rec.env = pr.cell->env;
  rec.device = sc.device;
  rec.data = pr.cell->data.empty() ? sc.data : pr.cell->data;
  rec.program = sc.program;
  rec.step_bytes = sizes.step;
  rec.cap_bytes = sizes.cap;
  rec.memory_fraction = pr.cell->memory_fraction;
  rec.trace = "runs/" + rec.file_stem() + ".trace.jsonl";
  check_cell_env(*pr.cell, rec.label, rec.warnings, sc.device);
  return rec;
}

void record_not_started(RunRecord& rec, const std::string& why) {
  rec.stopped_by = "not_started";
  rec.detail = why;
}

void record_spawn_failure(RunRecord& rec, const std::string& detail, uint64_t swap_before) {
  rec.stopped_by = "not_started";
  rec.detail = detail;
  rec.swap_before_bytes = rec.swap_after_bytes = rec.swap_peak_bytes = swap_before;
}

namespace {

void from_child(RunRecord& rec, const ChildReport& report) {
  rec.error_text = report.error_text;
  rec.held_bytes = report.held_bytes;
  rec.steps = report.steps;
  rec.allocated_bytes = report.allocated_bytes;
  rec.driver_bytes = report.driver_bytes;
  rec.allocator_peak_bytes = report.allocator_peak_bytes;
  if (report.hello) {
    const auto& h = *report.hello;
    if (h.contains("recommended_max_bytes") && h["recommended_max_bytes"].is_number())
      rec.recommended_max_bytes = h["recommended_max_bytes"].get<uint64_t>();
    rec.torch_version = h.value("torch_version", "");
    rec.child_env = h.value("env", nlohmann::json::object());
  }
  if (!report.stages.empty()) rec.stages = report.stages;
}

void from_supervisor(RunRecord& rec, const SuperviseResult& res) {
  rec.swap_before_bytes = res.swap_before;
  rec.swap_after_bytes = res.swap_after;
  rec.swap_peak_bytes = res.swap_peak;
  rec.swap_end_bytes = res.swap_end;
  rec.peak_footprint_bytes = res.peak_footprint;
  rec.peak_footprint_source = "sampled";
  // The kernel's own peak where it keeps one that covers every sample (a VmHWM, resident only,
  // can fall under a sample that counted swap: then the samples' figure stands).
  if (res.kernel_peak && *res.kernel_peak >= res.peak_footprint) {
    rec.sampled_peak_footprint_bytes = res.peak_footprint;
    rec.peak_footprint_bytes = res.kernel_peak;
    rec.peak_footprint_source = "kernel";
  }
  if (res.stopper == Stopper::Guard) rec.guard_signal = res.guard_signal;
  rec.duration_s = res.duration;
  if (res.stopper != Stopper::None) rec.stop_latency_s = res.stop_latency;
  rec.exit_code = res.status.code;
  rec.signal = res.status.signal;
}

}  // namespace

void record_watched_run(RunRecord& rec, const WatchedRun& w) {
  rec.stopped_by = w.cls.stopped_by;
  rec.detail = w.cls.detail;
  if (rec.stopped_by == "kernel") rec.kernel_event = w.cls.kernel_event;
  if (w.cls.error) {
    rec.error = to_json(*w.cls.error);
    rec.max_allowed_bytes = w.cls.error->max_allowed_bytes;
  }
  // Where the device knows its limit to the byte (the model), that beats the 2-decimal text.
  if (w.report.exact_max_allowed && rec.stopped_by == "pytorch") rec.max_allowed_bytes = w.report.exact_max_allowed;
  from_child(rec, w.report);
  from_supervisor(rec, w.sup);
  if (w.peak_sandbox) rec.peak_sandbox_bytes = w.peak_sandbox;
  for (auto& m : w.report.warnings) rec.warnings.push_back("child: " + m);
  if (w.report.dropped_warnings)
    rec.warnings.push_back(fmt::format("child: {} more warnings about the child's output were dropped (at most {} are kept)",
                                       w.report.dropped_warnings, kMaxChildWarnings));
  if (!w.sup.probe_error.empty()) rec.warnings.push_back("probe: " + w.sup.probe_error);
  if (w.sup.killed) rec.warnings.push_back(fmt::format("the child ignored SIGTERM for {} s and was killed", w.grace));
  for (auto& m : w.late_warnings) rec.warnings.push_back(m);
}

}  // namespace wmb
