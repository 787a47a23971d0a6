// What `wmbench run` and `wmbench tune` share while they read the user's input, before anything
// runs: the job after "--" (--command), the note for a command run in a sandbox, and how an error
// of that input ends the command.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace wmb {
struct Scenario;
struct GuardSettings;
struct RunnerOptions;
}  // namespace wmb

namespace wmb {

// The guard's signals besides swap, flags of run, tune, releases and guard ("" = the scenario's
// or the default): --pressure critical|warn|off, --pressure-stall PCT, --compressor-budget
// SIZE|off, --wired-budget SIZE|off.
struct GuardSignalFlags {
  std::string pressure, pressure_stall, compressor_budget, wired_budget;
};
inline constexpr const char* kGuardSignalFlagNames[] = {"--pressure", "--pressure-stall", "--compressor-budget",
                                                        "--wired-budget"};
void add_guard_signal_flags(CLI::App* c, GuardSignalFlags& f);
// Applies the given ones to `g`. Throws UnitError naming the flag, the value and what is allowed.
void apply_guard_signal_flags(const GuardSignalFlags& f, GuardSettings& g);

// The flags of `run` and `releases` that override the scenario (empty / 0: the scenario's own).
struct ScenarioFlags {
  std::string device, step, cap, timeout, swap_budget;
  GuardSignalFlags guard;
  int repeat = 0;
};

// Applies them to `s`, then checks the plan against the bounds every reader of the folder applies
// (common/limits.h), before anything runs. Throws RunInputError (an unknown device) or UnitError.
void apply_scenario_flags(const ScenarioFlags& f, Scenario& s);

// `--command` of run and tune: the job after "--" into `s` (program "command"); with --resume the
// folder's own command. Throws RunInputError naming what is wrong.
// What followed the first "--" of the command line (cli/command.h args_after_dashes()).
struct CommandArgs {
  bool present = false;
  std::vector<std::string> args;
};
void apply_command_flag(bool command, bool resume, const CommandArgs& dashes, Scenario& s);

// The scenario: --resume DIR's (job/run_input.h load_resume), or the SCENARIO file's (a path
// or a name in scenarios/). Returns whether it is the main job (neither given). Throws
// RunInputError (both given), ScenarioError, FileError.
bool load_scenario_or_resume(const std::string& scenario, const std::string& resume, RunnerOptions& o,
                             std::vector<std::string>& warnings);

// The Python that makes `wmbench releases`' environments when --base-python is not given (issue
// 42): on a Mac the set-up's venv python ($WMBENCH_VENV/bin/python, else the checkout's
// .venv/bin/python: scripts/setup-macos.sh made it with a Python pip has a torch wheel for; a fresh
// Mac's python3 is the Command Line Tools' 3.9, which has no wheel of torch 2.9+), else python3.
// *which says which, for the user.
std::string default_base_python(std::string* which);

// A command child inside a sandbox: the note that the fill settings do not reach it.
void note_command_in_sandbox(RunnerOptions& o);

// Runs `read_input` (flags, scenario, folder to resume). Its errors are printed once as
// "wmbench CMD: ..." and give the exit code: kExitUsage for bad input (UnitError, RunInputError,
// ScenarioError, FileError), kExitFail when free memory cannot be read (ProbeError). nullopt: the
// input is good and the command goes on.
std::optional<int> input_error_exit(const std::string& cmd, const std::function<void()>& read_input);

}  // namespace wmb
