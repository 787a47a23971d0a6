// What one label ran with, and whether two folders ran the same thing under it. compare matches
// runs by label, but a label is a name: two folders may give it different settings (a scenario
// edited between runs, HIGH 0.8 in one and 0.7 in the other). Such a row is not compared as if it
// were one setting: compare_folders says "not comparable: the settings differ under one label
// (PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7)", keeps what changed as notes, and never counts
// it as "no regression" (compare.h Comparison::claims_no_regression).
//
// A label's settings, read from its run records (summary.json "runs", which load_result_folder
// has verified against runs/: results/run_record.h), defaults as run_from_json reads a missing
// key (older folders):
//   - "env": the variables the cell set ({} when missing);
//   - "child_env": the PYTORCH_* variables the child said it saw (its hello); unknown when null
//     (a child that died before its hello) and then not compared;
//   - "memory_fraction": the cell's torch.*.set_per_process_memory_fraction(F) ("none" when null);
//   - "program": fill | offload | command ("fill" when missing), and for "command" the job's
//     argv from scenario.json "command" (unknown without scenario.json);
//   - "data": random | ones | zeros ("random" when missing);
//   - "step_bytes": the step the fill used (unknown when missing or 0).
// The fill child (native or python, machine.json "child") is not a setting: both speak one
// protocol and measure one torch (README "Testing the torch your job uses"); compare notes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb::compare {

struct CellSettings {
  std::map<std::string, std::string> env;                        // values as shown (see value_text)
  std::optional<std::map<std::string, std::string>> child_env;  // PYTORCH_* the child saw; nullopt: unknown
  std::string memory_fraction = "none";
  std::string program = "fill";
  std::string command;  // program "command": the job's argv as one line; "" when unknown
  std::string data = "random";
  std::optional<uint64_t> step_bytes;
};

// The settings of one run record (a summary.json "runs" entry); `scenario` is the folder's
// scenario.json (or null). Never throws: a value of the wrong type is shown as it is.
CellSettings cell_settings(const nlohmann::json& run, const nlohmann::json& scenario);

// What differs from `a` to `b`, one item each: "PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7",
// "PYTORCH_MPS_LOW_WATERMARK_RATIO unset -> 0.7", "memory_fraction none -> 0.5", "program fill ->
// offload", "data random -> zeros", "step 32.00 MiB -> 64.00 MiB", "the child saw
// PYTORCH_ENABLE_MPS_FALLBACK unset -> 1". Empty when they agree (unknowns are not compared).
std::vector<std::string> settings_differences(const CellSettings& a, const CellSettings& b);

// Why the runs of one label in BASE and NEW are not one setting: BASE's first run against NEW's
// first run, and the repeats of each side against their first ("the repeats in base differ:
// ..."). Empty when every run of the label ran the same settings.
std::vector<std::string> label_settings_differ(const std::vector<const nlohmann::json*>& base_runs,
                                               const std::vector<const nlohmann::json*>& new_runs,
                                               const nlohmann::json& base_scenario, const nlohmann::json& new_scenario);

}  // namespace wmb::compare
