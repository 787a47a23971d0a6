// One run's record (runs/<NN>-<label>.json and an entry of summary.json's "runs").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb {

struct RunRecord {
  int index = 0;
  std::string label;
  int repeat = 1;
  std::map<std::string, std::string> env;
  std::string device;
  std::string data = "random";   // random | ones | zeros
  std::string program = "fill";  // fill | offload
  std::string stopped_by;
  std::string detail;
  std::optional<std::string> error_text;
  nlohmann::json error;  // parsed error or null
  uint64_t held_bytes = 0;
  int steps = 0;
  uint64_t step_bytes = 0;
  std::optional<uint64_t> cap_bytes;
  std::optional<uint64_t> max_allowed_bytes;
  std::optional<uint64_t> allocated_bytes;
  std::optional<uint64_t> driver_bytes;
  // The allocator's own peak of allocated bytes over the run (allocated_bytes.all.peak), where the
  // child's release keeps one (harness/fill/device.h, DeviceStats::peak); null elsewhere.
  std::optional<uint64_t> allocator_peak_bytes;
  std::optional<uint64_t> recommended_max_bytes;
  uint64_t swap_before_bytes = 0, swap_after_bytes = 0, swap_peak_bytes = 0;
  std::optional<uint64_t> swap_end_bytes;  // after the child was gone
  std::optional<uint64_t> peak_footprint_bytes;
  // "kernel": peak_footprint_bytes is the kernel's own peak of the child (macOS
  // ri_lifetime_max_phys_footprint; Linux the sandbox cgroup's peak of memory + swap, or VmHWM);
  // "sampled": the highest of wmbench's samples. Empty in folders written before the key.
  std::string peak_footprint_source;
  std::optional<uint64_t> sampled_peak_footprint_bytes;  // the samples' highest, beside a kernel peak
  std::optional<uint64_t> peak_sandbox_bytes;
  // When stopped_by is "guard": which signal stopped it (common/guard_signals.h); "" when not
  // known (folders written before the key: their guard watched swap and the free floor only).
  std::string guard_signal;
  // When stopped_by is "kernel": what the kernel left to say so (issue 41): "oom-kill" (Linux: the
  // sandbox cgroup's oom_kill grew), "jetsam" (macOS: a JetsamEvent report names the child) or
  // "panic" (the machine panicked during the run: a .panic report newer than its trace's last
  // sample, found by `--resume` or `report`; such a cell runs again only with --force).
  std::string kernel_event;
  std::string started_utc, ended_utc;
  double duration_s = 0;
  double wait_s = 0;             // waiting for free memory before the start
  std::optional<double> stop_latency_s;  // stop decided -> child gone
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string trace;             // relative path
  std::string torch_version;
  nlohmann::json child_env = nullptr;  // the PYTORCH_* variables the child saw (its hello)
  nlohmann::json stages = nullptr;  // program "offload": the stage lines
  std::vector<std::string> warnings;
  std::optional<double> memory_fraction;  // the cell's "memory_fraction", passed to the child (null: none)

  std::string file_stem() const;  // "01-default"
};

nlohmann::json to_json(const RunRecord& r);

// One bound per input (issue 22): what a run record may hold is the same for the writer
// (`wmbench run`, fit_run_record before every write) and every reader (run_from_json, report,
// check, --resume). A 25 MB run file of two million one-key stages made `report` hold 1.7 GB and
// write a 100 MB summary.json that its own readers refused.
//   - a run file is at most kMaxRunRecordBytes (a scenario's env is at most 4 MiB, the rest of a
//     real record a few KiB; 1000 offload stages about 200 KiB);
//   - at most kMaxRecordStages stages (the child's bound, protocol/child_report.h), each an object
//     of at most kMaxStageKeys keys whose values are scalars (strings at most kMaxStageStringBytes);
//   - at most kMaxRecordWarnings warnings of at most kMaxRecordWarningBytes each (the child's 100,
//     the note that more were dropped, and the parent's own);
//   - error_text and detail at most kMaxRecordTextBytes each.
constexpr size_t kMaxRunRecordBytes = size_t{8} << 20;
constexpr size_t kMaxRecordStages = 1000;
constexpr size_t kMaxStageKeys = 16;
constexpr size_t kMaxStageStringBytes = 256;
constexpr size_t kMaxRecordWarnings = 200;
constexpr size_t kMaxRecordWarningBytes = 4096;
constexpr size_t kMaxRecordTextBytes = 128 * 1024;

// The writer's side of those bounds: cuts what a record holds beyond them (stages, warnings, the
// texts), saying so in a warning, until its file (the JSON as Folder::write_json writes it) is at
// most kMaxRunRecordBytes. Returns whether anything was cut. The measurement (sizes, class, times)
// is never cut.
bool fit_run_record(RunRecord& r);

// Reads a run record through the schema (io/json_input.h): index, label and stopped_by are
// required; every other field may be missing (older folders) or null, and defaults as in
// RunRecord; a field of the wrong type or out of range throws InputError naming `source`, the key
// path under `path` ("runs[3]"), the value and what is allowed. Unknown keys are kept out and
// listed in `unknown` when given. The label must be usable as a file name (label_problem), the
// trace a path inside the folder, each stage an object with a string name and sizes.
RunRecord run_from_json(const nlohmann::json& j, const std::string& source = "run record",
                        const std::string& path = "", std::vector<std::string>* unknown = nullptr);

// The stop classes a record may carry.
extern const std::vector<std::string> kStopClasses;
// Every key to_json writes.
extern const std::vector<std::string> kRunKeys;

// A parsed-error object (RunRecord::error, or null) through the schema; throws InputError.
void check_parsed_error_json(const nlohmann::json& e, const std::string& source, const std::string& path);
// One stage line of program "offload" (RunRecord::stages[i]); throws InputError.
void check_stage_json(const nlohmann::json& st, const std::string& source, const std::string& path);

}  // namespace wmb
