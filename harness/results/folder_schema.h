// The schema of a result folder's own files, beyond one run record (run_record.h): machine.json,
// scenario.json (a scenario plus "resolved" and "source", written by wmbench) and summary.json.
// Each check throws InputError naming the file, the key path, the value and what is allowed;
// unknown keys are allowed (newer wmbench versions add keys) and appended to `unknown`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/run_record.h"
#include "scenario/scenario.h"

namespace wmb {

void check_machine_json(const nlohmann::json& m, const std::string& source, const std::string& path = "",
                        std::vector<std::string>* unknown = nullptr);

// scenario.json of a folder: validated as a scenario file (parse_scenario) plus "resolved".
Scenario check_folder_scenario_json(const std::string& text, const std::string& source, nlohmann::json& parsed);

// summary.json: {"schema_version": 1, "scenario", "device", "machine", "runs": [...], "not_run": [...]}.
struct SummaryFile {
  std::string scenario, device;
  nlohmann::json machine = nlohmann::json::object();  // {} when the summary has none (never null)
  std::vector<RunRecord> runs;
  std::vector<std::pair<std::string, int>> not_run;  // label, repeat
};
SummaryFile check_summary_json(const nlohmann::json& s, const std::string& source, std::vector<std::string>* unknown = nullptr);

}  // namespace wmb
