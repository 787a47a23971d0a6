// The matrix runner: for each cell (and repeat) a fresh fill child in its own process group,
// watched by the guard and the sampler, classified, and written to the result folder as it ends.
// run_matrix is four stages (runner/stages.h): plan.cpp, prepare.cpp, run_one.cpp, finish.cpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child/child_spec.h"
#include "guard/supervisor.h"
#include "scenario/scenario.h"
#include "scenario/sizes.h"

namespace wmb {

struct RunnerOptions {
  Scenario scenario;                      // after command-line overrides
  std::string out_dir = "results";
  // Not empty: the new result folder is exactly this path (made here, refused when it exists)
  // instead of out_dir/<date>-<scenario>[-N]; `wmbench releases` names one folder per release.
  std::string result_dir;
  std::string fill_path;                  // "" = find it
  std::string python;                     // "" = the native child; else run wmbench_fill.py under it
  std::shared_ptr<const PythonFacts> python_facts;  // `python` as asked already (ChildChoice's)
  std::vector<std::string> only;          // labels; empty = all
  std::optional<uint64_t> ram_limit;      // Linux sandbox
  bool force = false;                     // allow a cpu run whose cap exceeds free memory
  std::string resume_dir;                 // run only what is not finished there
  std::string resume_verb = "run";        // the subcommand whose --resume continues the folder (tune: "tune")
  std::optional<uint64_t> recommended_max;  // mps-model: the modelled Mac's recommended max
  std::optional<uint64_t> model_mac_ram;    // mps-model: the Mac that is modelled (default the write-up's 48 GiB)
  std::string model_revision = "current";   // mps-model: the PyTorch release modelled (mpsmodel/revision.h)
  std::optional<uint64_t> model_other;      // mps-model: "other allocations" (--other-allocations; default 448 KiB)
  std::optional<WiredLimit> wired_limit;    // mps-model: the modelled iogpu.wired_limit_mb (--wired-limit)
  bool draw_plots = true;
  std::set<std::string> allow_env;        // --allow-env: cell variables beyond PYTORCH_* (common/env_allowlist.h)
  std::vector<std::string> notes;         // said at the start and kept in machine.json
};


// Which child a run gets (child/child_spec.h ChildChoice, from the options; child_choice.cpp).
std::unique_ptr<FillChild> choose_fill_child(const RunnerOptions& opts);
std::string chosen_child_kind(const RunnerOptions& opts);
// WMBENCH_PYTHON_CHILD on the runner's options (o.python, and the note in o.notes).
void apply_python_child_default(RunnerOptions& o);

// Returns the process exit code: 0 done; 1 a run could not be recorded (disk); 2 bad input;
// 128+N when interrupted by signal N.
int run_matrix(const RunnerOptions& opts, std::ostream& out, std::ostream& err);


}  // namespace wmb
