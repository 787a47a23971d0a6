// `wmbench predict` without the command line: what each watermark setting does on a Mac of a given
// size, from the limits alone (max allowed against RAM and free memory) and from the allocator model
// run step by step without touching memory (mpsmodel/heap_allocator.h, the same code the fill
// child's mps-model device runs). inspect/predict_inputs.h gathers the inputs, inspect/predict_run.h prints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/watermark.h"

namespace wmb::mpsmodel {

// What predict takes from a scenario's cell (scenario/scenario.h Cell): its label, its variables
// and its memory_fraction (the cell's data changes no limit). The command fills these in.
struct Setting {
  std::string label;
  std::map<std::string, std::string> env;
  std::optional<double> memory_fraction;
  // The cell's "sysctl" iogpu.wired_limit_mb (MiB), resolved: its recommended max (Metal's follows
  // the sysctl); nullopt: the Mac's own (PredictInputs::recommended_max).
  std::optional<uint64_t> wired_limit_mib;
};

// The Mac predicted for, and where each figure came from.
struct PredictInputs {
  uint64_t ram = 0;
  std::string ram_source;
  uint64_t recommended_max = 0;
  std::string recommended_source;
  std::optional<std::string> recommended_basis;  // set when the recommended max is an estimate from RAM
  // predict --wired-limit: the modelled iogpu.wired_limit_mb (MiB) the recommended max follows.
  std::optional<uint64_t> wired_limit_mib;
  // The range the known Macs of this RAM give (macos_memory.h known_range_text); "" when none.
  std::string known_range;
  std::optional<uint64_t> free;
  std::string free_source;
};

// The fill each setting is simulated with.
struct FillPlan {
  uint64_t step = 512 * MiB;
  std::optional<uint64_t> cap;  // nullopt: up to the RAM
  ModelParams params;
  std::string max_buffer_source;  // where params.max_buffer came from
};

// One fill run step by step through the model, until PyTorch refuses or the cap (or RAM) is reached.
struct FillSimulation {
  uint64_t steps = 0;
  uint64_t held_bytes = 0;
  std::string stopped_by;              // "pytorch" | "config" | "cap"
  std::optional<std::string> message;  // PyTorch's text when it stops the fill
  uint64_t heaps_bytes = 0;            // "MPS allocated" at the end
  uint64_t driver_bytes = 0;
  std::string heap_tier;               // the tier of the first step ("oversize": one heap a step)
};

FillSimulation simulate_fill(const WatermarkConfig& cfg, uint64_t recommended_max, const FillPlan& plan,
                             uint64_t ram);

struct Prediction {
  std::string label;
  std::map<std::string, std::string> env;
  WatermarkConfig cfg;
  std::optional<std::string> config_error;
  std::optional<uint64_t> max_allowed;  // nullopt: no limit (or config error)
  bool above_ram = false;
  std::optional<bool> above_free;
  std::string expect;  // config_error | swap | clean_error | unknown
  std::string why;
  bool no_room = false;  // the other allocations leave no room for one step under the limit
  FillSimulation sim;
};

Prediction predict_cell(const Setting& c, const PredictInputs& m, const FillPlan& plan);

// The settings of scenarios/mps-watermark.json (write-up 004), for predict without --scenario.
std::vector<Setting> default_cells();
constexpr const char* kDefaultCellsName = "built-in (default, 0.0, 1.0/1.0, 0.8/0.8, 0.5/0.5, 0.8 alone)";

// Fraction of the free memory that a clean-error limit may use.
constexpr double kCleanMargin = 0.9;

struct PredictReport {
  PredictInputs inputs;
  std::string scenario_name;
  FillPlan plan;
  std::vector<Prediction> settings;
  std::optional<double> clean;  // the HIGH = LOW suggestion
  std::vector<std::string> warnings;
  bool no_room = false;  // no suggestion because the other allocations fill every limit that fits
};

PredictReport make_report(const PredictInputs& m, const std::string& scenario_name, const std::vector<Setting>& cells,
                          const FillPlan& plan, std::vector<std::string> warnings);

// The table (and, with `simulation`, the step-by-step section after it). Warnings are not included.
std::string render_text(const PredictReport& r, bool simulation);
nlohmann::json render_json(const PredictReport& r);

}  // namespace wmb::mpsmodel
