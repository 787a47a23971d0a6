// `wmbench predict`'s inputs: its flags as read, the Mac it predicts for (--ram, MPS's own
// recommended max through the fill child's hello, the probe's free memory) and the fill each
// setting is simulated with. The model, its report and texts are mpsmodel/predict.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "explain/explain.h"  // kDefaultHighWatermark
#include "mpsmodel/predict.h"
#include "mpsmodel/watermark.h"
#include "scenario/scenario.h"

namespace wmb::inspect {

// The flags of `wmbench predict`, as read (cli/cmd_predict.cpp).
struct PredictArgs {
  std::string ram;
  std::string recommended_max;
  std::string free;
  std::string scenario;
  std::string revision = "current";
  std::string python;  // ask MPS through the Python child under it (default $WMBENCH_PYTHON_CHILD)
  std::string other;       // --other-allocations
  std::string wired_limit;  // --wired-limit: the modelled iogpu.wired_limit_mb (MiB or "80%RAM")
  std::string from_error;  // --from-error FILE|-
  double high = kDefaultHighWatermark;  // --high: HIGH in force when the pasted error was raised
  bool high_given = false;
  double fraction = 0;  // --fraction: set_per_process_memory_fraction(F) in force when the error was raised
  bool fraction_given = false;
  bool json = false;
  bool simulate = false;
};

using MachineView = mpsmodel::PredictInputs;

// The Mac predicted for. Throws UnitError for a bad size, RunRefused for a --python that cannot be used.
MachineView gather(const PredictArgs& a, std::vector<std::string>& warnings);

// The fill each setting is simulated with: the scenario's step and cap for a Mac of this RAM
// (resolved as `wmbench run` resolves them), or the write-up's 512 MiB steps up to 95 % of RAM.
mpsmodel::FillPlan fill_plan(const std::optional<Scenario>& sc, const MachineView& m, const std::string& revision);

// The scenario's cells as the model takes them (label, variables, memory_fraction).
std::vector<mpsmodel::Setting> settings_of(const Scenario& sc);
// Each cell's "sysctl" iogpu.wired_limit_mb, resolved against `ram`, into its setting (the
// recommended max that cell is predicted with). Throws UnitError naming the cell.
void apply_cell_wired_limits(const Scenario& sc, uint64_t ram, std::vector<mpsmodel::Setting>& cells);

}  // namespace wmb::inspect
