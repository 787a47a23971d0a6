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
  std::optional<uint64_t> peak_sandbox_bytes;
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

// Reads a run record through the schema (common/json_input.h): index, label and stopped_by are
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
