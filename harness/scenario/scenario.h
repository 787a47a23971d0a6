// Scenario files: what a matrix run does. Everything is validated before anything runs; each
// error names the file, the key, the value and what is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "scenario/wired_limit.h"

namespace wmb {

struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Cell {
  std::string label;
  std::map<std::string, std::string> env;  // exact variables to set, passed verbatim
  std::string data;                        // "" = the scenario's; else random | ones | zeros
  // "memory_fraction": F - the children call torch.mps/torch.cuda.set_per_process_memory_fraction(F)
  // before the first allocation (a JSON number; its range is PyTorch's to refuse, and is warned about).
  std::optional<double> memory_fraction;
  // "sysctl": {"iogpu.wired_limit_mb": N} (scenario/wired_limit.h): on mps the lever set before the
  // cell's child and put back after it (harness/lever/); on mps-model the modelled recommended max.
  std::optional<WiredLimit> wired_limit;
};

struct GuardSettings {
  SizeExpr swap_budget{"2GiB"};
  double wait_free = 0;            // percent; 0 = do not wait
  double kill_free = 0;            // percent; 0 = off
  double interval = 0.5;           // seconds between trace samples
  double check_interval = 0.01;    // seconds: the longest time between guard checks (guard/pacer.h)
  double wait_free_timeout = 300;  // seconds
  double grace = 5;                // seconds between SIGTERM and SIGKILL
  // The guard's signals besides swap (guard/policy.h), with defaults safe on an 8 GB Mac
  // (docs/MACOS.md, "Guard signals"): the kernel's pressure level to stop at (macOS:
  // "critical", "warn" or "off"); the PSI stall share to stop past (Linux, percent of the last
  // second; 0 = off); compressor and wired growth budgets (macOS; nullopt = "off").
  std::string pressure = "critical";
  double pressure_stall = 0;
  std::optional<SizeExpr> compressor_budget = SizeExpr{"25%RAM"};
  std::optional<SizeExpr> wired_budget = SizeExpr{"75%RAM"};
};

struct Scenario {
  std::string name;
  std::string description;
  std::string device;       // mps | cuda | cpu | mps-model
  SizeExpr step{"512MiB"};
  int min_steps = 0;        // 0 = step is used as written
  std::string data = "random";  // random | ones | zeros
  std::optional<SizeExpr> cap;
  double timeout = 1800;    // seconds per run
  double step_delay = 0;    // seconds the child sleeps between steps (slow fills for tests and demos)
  int repeats = 1;
  GuardSettings guard;
  std::string program = "fill";  // fill | offload
  std::optional<SizeExpr> offload_size;  // for program "offload"
  std::vector<std::string> command;       // for program "command": the job's argv (child/child_command.h)
  std::vector<Cell> matrix;
  std::string source;       // file it came from ("" for built-in)
};

extern const std::vector<std::string> kDevices;

// Loads and validates. Warnings (LOW above HIGH, non-numeric ratios) are appended to `warnings`.
Scenario load_scenario(const std::string& path, std::vector<std::string>& warnings);
Scenario parse_scenario(const std::string& text, const std::string& source, std::vector<std::string>& warnings);

// Checks a label for use as a file name; returns "" when fine, else why not.
std::string label_problem(const std::string& label);

// Checks one cell's environment: warnings for values PyTorch would read as 0.0 and LOW > HIGH.
// `device`: the scenario's (cuda checks a memory fraction by CUDA's 0..1; "" or mps: MPS's 0..2).
void check_cell_env(const Cell& cell, const std::string& where, std::vector<std::string>& warnings,
                    const std::string& device = "");
// The part of check_cell_env that follows PyTorch's checks in their order (HIGH, then LOW): at most
// one warning, carrying the text the model child raises (mpsmodel::validate).
void check_cell_config(const Cell& cell, const std::string& where, std::vector<std::string>& warnings,
                       const std::string& device = "");

nlohmann::json to_json(const Scenario& s);
// One matrix cell as the scenario format has it (label, env, and data / memory_fraction when set):
// the one writer of cells, for to_json and for a folder's scenario.json (runner/prepare.cpp), so
// that no key of a cell is lost from the folder (a --resume would run the cell without it).
nlohmann::json to_json(const Cell& c);

// The closest of `candidates` to `word` (edit distance <= 3), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace wmb
