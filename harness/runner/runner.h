// The matrix runner: for each cell (and repeat) a fresh fill child in its own process group,
// watched by the guard and the sampler, classified, and written to the result folder as it ends.
// run_matrix is four stages (runner/stages.h): plan.cpp, prepare.cpp, run_one.cpp, finish.cpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "guard/supervisor.h"
#include "scenario/scenario.h"

namespace wmb {

struct RunnerOptions {
  Scenario scenario;                      // after command-line overrides
  std::string out_dir = "results";
  // Not empty: the new result folder is exactly this path (made here, refused when it exists)
  // instead of out_dir/<date>-<scenario>[-N]; `wmbench releases` names one folder per release.
  std::string result_dir;
  std::string fill_path;                  // "" = find it
  std::string python;                     // "" = the native child; else run wmbench_fill.py under it
  std::vector<std::string> only;          // labels; empty = all
  std::optional<uint64_t> ram_limit;      // Linux sandbox
  bool force = false;                     // allow a cpu run whose cap exceeds free memory
  std::string resume_dir;                 // run only what is not finished there
  std::string resume_verb = "run";        // the subcommand whose --resume continues the folder (tune: "tune")
  std::optional<uint64_t> recommended_max;  // mps-model: the modelled Mac's recommended max
  std::optional<uint64_t> model_mac_ram;    // mps-model: the Mac that is modelled (default the write-up's 48 GiB)
  std::string model_revision = "current";   // mps-model: the PyTorch release modelled (mpsmodel/revision.h)
  std::optional<uint64_t> model_other;      // mps-model: "other allocations" (--other-allocations; default 448 KiB)
  bool draw_plots = true;
  std::set<std::string> allow_env;        // --allow-env: cell variables beyond PYTORCH_* (common/env_allowlist.h)
  std::vector<std::string> notes;         // said at the start and kept in machine.json
};

// Sizes of one run, resolved against the RAM it sees.
struct ResolvedSizes {
  uint64_t ram = 0;          // what %RAM refers to
  uint64_t step = 0;
  uint64_t unscaled_step = 0;  // the step as the scenario writes it, before the min_steps shrink
  std::optional<uint64_t> cap;
  uint64_t swap_budget = 0;
  std::optional<uint64_t> offload_size;
  bool step_shrunk = false;
};
ResolvedSizes resolve_sizes(const Scenario& s, uint64_t ram);

// Returns the process exit code: 0 done; 1 a run could not be recorded (disk); 2 bad input;
// 128+N when interrupted by signal N.
int run_matrix(const RunnerOptions& opts, std::ostream& out, std::ostream& err);

// Finds wmbench-fill: `explicit_path`, $WMBENCH_FILL, next to this executable, then PATH.
std::string find_fill(const std::string& explicit_path);
// Where the repository's scenarios/ and plots/ are (next to the executable's build folder or the source dir).
std::string find_repo_file(const std::string& relative);

}  // namespace wmb
