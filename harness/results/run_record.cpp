#include "results/run_record.h"

#include <fmt/format.h>

#include "common/guard_signals.h"

#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/json_input.h"
#include "io/utf8.h"
#include "scenario/scenario.h"
#include "common/limits.h"

namespace wmb {

std::string RunRecord::file_stem() const { return fmt::format("{:02d}-{}", index, label); }

nlohmann::json to_json(const RunRecord& r) {
  return {
      {"index", r.index},
      {"label", r.label},
      {"repeat", r.repeat},
      {"env", r.env},
      {"device", r.device},
      {"data", r.data},
      {"program", r.program},
      {"stopped_by", r.stopped_by},
      {"detail", r.detail},
      {"error_text", json_or_null(r.error_text)},
      {"error", r.error},
      {"held_bytes", r.held_bytes},
      {"steps", r.steps},
      {"step_bytes", r.step_bytes},
      {"cap_bytes", json_or_null(r.cap_bytes)},
      {"max_allowed_bytes", json_or_null(r.max_allowed_bytes)},
      {"allocated_bytes", json_or_null(r.allocated_bytes)},
      {"driver_bytes", json_or_null(r.driver_bytes)},
      {"allocator_peak_bytes", json_or_null(r.allocator_peak_bytes)},
      {"recommended_max_bytes", json_or_null(r.recommended_max_bytes)},
      {"swap_before_bytes", r.swap_before_bytes},
      {"swap_after_bytes", r.swap_after_bytes},
      {"swap_peak_bytes", r.swap_peak_bytes},
      {"swap_end_bytes", json_or_null(r.swap_end_bytes)},
      {"peak_footprint_bytes", json_or_null(r.peak_footprint_bytes)},
      {"peak_footprint_source", r.peak_footprint_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.peak_footprint_source)},
      {"sampled_peak_footprint_bytes", json_or_null(r.sampled_peak_footprint_bytes)},
      {"guard_signal", r.guard_signal.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.guard_signal)},
      {"kernel_event", r.kernel_event.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.kernel_event)},
      {"peak_sandbox_bytes", json_or_null(r.peak_sandbox_bytes)},
      {"started_utc", r.started_utc},
      {"ended_utc", r.ended_utc},
      {"duration_s", r.duration_s},
      {"wait_s", r.wait_s},
      {"stop_latency_s", json_or_null(r.stop_latency_s)},
      {"exit_code", json_or_null(r.exit_code)},
      {"signal", json_or_null(r.signal)},
      {"trace", r.trace},
      {"torch_version", r.torch_version},
      {"child_env", r.child_env},
      {"stages", r.stages},
      {"warnings", r.warnings},
      {"memory_fraction", json_or_null(r.memory_fraction)},
  };
}

const std::vector<std::string> kStopClasses = {"guard", "pytorch", "config", "cap", "finished", "crash",
                                               "timeout", "interrupted", "not_started", "exited", "kernel"};
const std::vector<std::string> kRunKeys = {
    "index", "label", "repeat", "env", "device", "data", "program", "stopped_by", "detail", "error_text", "error",
    "held_bytes", "steps", "step_bytes", "cap_bytes", "max_allowed_bytes", "allocated_bytes", "driver_bytes",
    "allocator_peak_bytes", "recommended_max_bytes", "swap_before_bytes", "swap_after_bytes", "swap_peak_bytes", "swap_end_bytes",
    "peak_footprint_bytes", "peak_footprint_source", "sampled_peak_footprint_bytes", "guard_signal",
    "kernel_event", "peak_sandbox_bytes", "started_utc", "ended_utc", "duration_s", "wait_s",
    "stop_latency_s", "exit_code", "signal", "trace", "torch_version", "child_env", "stages", "warnings", "memory_fraction"};

void check_parsed_error_json(const nlohmann::json& e, const std::string& source, const std::string& path) {
  if (e.is_null()) return;
  JsonObject o(e, source, path);
  o.str("kind", true, 64);
  for (const char* k : {"allocated_bytes", "other_bytes", "max_allowed_bytes", "requested_bytes", "total_bytes", "free_bytes"})
    o.bytes(k);
  o.str("pool", false, 64);
  o.str("watermark", false, 64);
  o.number("ratio", -1e300, 1e300);
  o.integer("gpu", 0, 1 << 20);
  o.str("summary");
}

void check_stage_json(const nlohmann::json& st, const std::string& source, const std::string& path) {
  JsonObject o(st, source, path);
  o.str("name", true, kMaxStageStringBytes);
  if (st.size() > kMaxStageKeys)
    throw InputError(fmt::format("{}: {}: has {} keys; a stage may have at most {}", source, path, st.size(), kMaxStageKeys));
  for (auto it = st.begin(); it != st.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() > 64)
      throw InputError(fmt::format("{}: {}: a key of {} bytes; a stage's keys are at most 64 bytes", source, path, k.size()));
    if (it->is_structured()) o.wrong(k, *it, "a number, a string, true, false or null (a stage holds no lists or objects)");
    if (it->is_string()) o.str(k.c_str(), false, kMaxStageStringBytes);
    if (k.size() > 6 && k.compare(k.size() - 6, 6, "_bytes") == 0) o.bytes(k.c_str());
  }
  o.number("t", 0, 1e9);
  o.number("seconds", 0, 1e9);
}

namespace {

// The run's names and outcome: index, label, repeat, env, device, data, program, stopped_by,
// detail and error_text, each checked against the bounds its writer had.
void read_run_identity(const JsonObject& o, RunRecord& r) {
  r.index = static_cast<int>(*o.integer("index", 1, 1000000, true));
  r.label = *o.str("label", true, 64);
  if (auto p = label_problem(r.label); !p.empty())
    o.fail("label", fmt::format("value \"{}\" {}; labels become file names", utf8_sanitize(r.label, 64), p));
  r.repeat = static_cast<int>(o.integer("repeat", 1, 1000).value_or(1));
  r.env = o.string_map("env").value_or(std::map<std::string, std::string>{});
  for (const auto& [k, v] : r.env)  // the scenario's bound on a cell's value (common/env_allowlist.h)
    if (v.size() > kMaxCellEnvValueBytes)
      o.fail("env", fmt::format("value of \"{}\" is {} bytes; an environment value may hold at most {} bytes",
                                utf8_sanitize(k, 64), v.size(), kMaxCellEnvValueBytes));
  r.device = o.str("device", false, 64).value_or("");
  r.data = o.choice("data", {"random", "ones", "zeros"}).value_or("random");
  r.program = o.choice("program", {"fill", "offload", "command"}).value_or("fill");
  r.stopped_by = *o.choice("stopped_by", kStopClasses, true);
  r.detail = o.str("detail", false, kMaxRecordTextBytes).value_or("");
  r.error_text = o.str("error_text", false, kMaxRecordTextBytes);
}

// The run's measurements: held/step bytes, the allocator's and the swap's readings, the times and
// the exit status.
void read_run_measures(const JsonObject& o, RunRecord& r) {
  r.held_bytes = o.bytes("held_bytes").value_or(0);
  r.steps = static_cast<int>(o.integer("steps", 0, 1 << 30).value_or(0));
  r.step_bytes = o.bytes("step_bytes").value_or(0);
  r.cap_bytes = o.bytes("cap_bytes");
  r.max_allowed_bytes = o.bytes("max_allowed_bytes");
  r.allocated_bytes = o.bytes("allocated_bytes");
  r.driver_bytes = o.bytes("driver_bytes");
  r.allocator_peak_bytes = o.bytes("allocator_peak_bytes");
  r.recommended_max_bytes = o.bytes("recommended_max_bytes");
  r.swap_before_bytes = o.bytes("swap_before_bytes").value_or(0);
  r.swap_after_bytes = o.bytes("swap_after_bytes").value_or(0);
  r.swap_peak_bytes = o.bytes("swap_peak_bytes").value_or(0);
  r.swap_end_bytes = o.bytes("swap_end_bytes");
  r.peak_footprint_bytes = o.bytes("peak_footprint_bytes");
  r.peak_footprint_source = o.choice("peak_footprint_source", {"kernel", "sampled"}).value_or("");
  r.sampled_peak_footprint_bytes = o.bytes("sampled_peak_footprint_bytes");
  r.guard_signal = o.choice("guard_signal", guard_signals()).value_or("");
  r.kernel_event = o.choice("kernel_event", kernel_events()).value_or("");
  r.peak_sandbox_bytes = o.bytes("peak_sandbox_bytes");
  r.started_utc = o.str("started_utc", false, 64).value_or("");
  r.ended_utc = o.str("ended_utc", false, 64).value_or("");
  r.duration_s = o.number("duration_s", 0, 1e9).value_or(0);
  r.wait_s = o.number("wait_s", 0, 1e9).value_or(0);
  r.stop_latency_s = o.number("stop_latency_s", 0, 1e9);
  if (auto c = o.integer("exit_code", -255, 255)) r.exit_code = static_cast<int>(*c);
  if (auto g = o.integer("signal", 1, 128)) r.signal = static_cast<int>(*g);
}

// The trace's path, refused unless it stays inside the result folder (no absolute path, no "..").
void read_run_trace(const JsonObject& o, RunRecord& r) {
  r.trace = o.str("trace", false, 4096).value_or("");
  if (!r.trace.empty()) {
    const bool escapes = r.trace.front() == '/' || r.trace == ".." || r.trace.rfind("../", 0) == 0 ||
                         r.trace.find("/../") != std::string::npos ||
                         (r.trace.size() >= 3 && r.trace.compare(r.trace.size() - 3, 3, "/..") == 0);
    if (escapes) o.fail("trace", fmt::format("value \"{}\" is not a path inside the result folder", utf8_sanitize(r.trace, 80)));
  }
}

// The stages, at most kMaxRecordStages, each checked (check_stage_json).
void read_run_stages(const JsonObject& o, const std::string& source, RunRecord& r) {
  if (const nlohmann::json* st = o.array("stages")) {
    if (st->size() > kMaxRecordStages)
      o.fail("stages", fmt::format("holds {} stages; a record holds at most {} (the child's bound)", st->size(), kMaxRecordStages));
    for (size_t i = 0; i < st->size(); ++i) check_stage_json((*st)[i], source, fmt::format("{}[{}]", o.path_of("stages"), i));
    r.stages = *st;
  }
}

// The warnings, at most kMaxRecordWarnings of at most kMaxRecordWarningBytes each.
void read_run_warnings(const JsonObject& o, RunRecord& r) {
  if (const nlohmann::json* w = o.array("warnings"); w && w->size() > kMaxRecordWarnings)
    o.fail("warnings", fmt::format("holds {} warnings; a record holds at most {}", w->size(), kMaxRecordWarnings));
  r.warnings = o.string_list("warnings").value_or(std::vector<std::string>{});
  for (size_t i = 0; i < r.warnings.size(); ++i)
    if (r.warnings[i].size() > kMaxRecordWarningBytes)
      o.fail(fmt::format("warnings[{}]", i), fmt::format("is {} bytes; a warning is at most {} bytes", r.warnings[i].size(),
                                                         kMaxRecordWarningBytes));
}

// The memory fraction, within the bound its writer had (check_memory_fraction).
void read_run_memory_fraction(const JsonObject& o, RunRecord& r) {
  r.memory_fraction = o.number("memory_fraction", -kMaxMemoryFraction, kMaxMemoryFraction);
  if (r.memory_fraction) {
    try {
      (void)check_memory_fraction(*r.memory_fraction, "value");  // common/limits.h: the bound the writer had
    } catch (const UnitError& e) {
      o.fail("memory_fraction", e.what());
    }
  }
}

}  // namespace

RunRecord run_from_json(const nlohmann::json& j, const std::string& source, const std::string& path,
                        std::vector<std::string>* unknown) {
  JsonObject o(j, source, path);
  RunRecord r;
  read_run_identity(o, r);
  if (const nlohmann::json* e = j.contains("error") ? &j["error"] : nullptr) {
    check_parsed_error_json(*e, source, o.path_of("error"));
    r.error = *e;
  }
  read_run_measures(o, r);
  read_run_trace(o, r);
  r.torch_version = o.str("torch_version", false, 256).value_or("");
  if (j.contains("child_env") && !j["child_env"].is_null()) {
    o.string_map("child_env");
    r.child_env = j["child_env"];
  }
  read_run_stages(o, source, r);
  read_run_warnings(o, r);
  read_run_memory_fraction(o, r);
  if (unknown)
    for (auto& k : o.unknown_keys(kRunKeys)) unknown->push_back(k);
  return r;
}

namespace {

// The record's file as Folder::write_json writes it (io/files.cpp dump_safe), in bytes.
size_t record_file_bytes(const RunRecord& r) {
  return to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).size() + 1;
}

// At most `max` bytes, cut on a character boundary and ended with "...".
std::string cut_text(const std::string& s, size_t max) {
  return s.size() <= max ? s : std::string(utf8_prefix(s, max - 3)) + "...";
}

}  // namespace

bool fit_run_record(RunRecord& r) {
  std::vector<std::string> cuts;
  if (r.stages.is_array() && r.stages.size() > kMaxRecordStages) {
    cuts.push_back(fmt::format("{} stages after the first {}", r.stages.size() - kMaxRecordStages, kMaxRecordStages));
    r.stages.erase(r.stages.begin() + static_cast<std::ptrdiff_t>(kMaxRecordStages), r.stages.end());
  }
  for (auto& w : r.warnings) w = cut_text(w, kMaxRecordWarningBytes);
  if (r.warnings.size() > kMaxRecordWarnings - 1) {
    cuts.push_back(fmt::format("{} warnings", r.warnings.size() - (kMaxRecordWarnings - 1)));
    r.warnings.resize(kMaxRecordWarnings - 1);
  }
  if (r.detail.size() > kMaxRecordTextBytes) {
    cuts.push_back("the detail's end");
    r.detail = cut_text(r.detail, kMaxRecordTextBytes);
  }
  if (r.error_text && r.error_text->size() > kMaxRecordTextBytes) {
    cuts.push_back("the error text's end");
    r.error_text = cut_text(*r.error_text, kMaxRecordTextBytes);
  }
  // Still too large (a hostile child's stages or warnings at their bounds): the stages go, then
  // the warnings, then the texts; never the measurement.
  if (record_file_bytes(r) > kMaxRunRecordBytes && r.stages.is_array() && !r.stages.empty()) {
    cuts.push_back(fmt::format("all {} stages", r.stages.size()));
    r.stages = nullptr;
  }
  if (record_file_bytes(r) > kMaxRunRecordBytes && !r.warnings.empty()) {
    cuts.push_back(fmt::format("{} warnings", r.warnings.size()));
    r.warnings.clear();
  }
  if (record_file_bytes(r) > kMaxRunRecordBytes) {
    cuts.push_back("the detail and error texts past 4 KiB");
    r.detail = cut_text(r.detail, 4096);
    if (r.error_text) r.error_text = cut_text(*r.error_text, 4096);
  }
  if (cuts.empty()) return false;
  std::string what;
  for (size_t i = 0; i < cuts.size(); ++i) what += (i ? ", " : "") + cuts[i];
  r.warnings.push_back(fmt::format("this record was cut to the bounds every reader applies ({} bytes a file): {} left out",
                                   kMaxRunRecordBytes, what));
  return true;
}

}  // namespace wmb
