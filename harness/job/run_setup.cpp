#include "job/run_setup.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/exit_codes.h"
#include "io/files.h"
#include "io/utf8.h"
#include "common/units.h"
#include "probe/probe.h"
#include "job/resume_gate.h"
#include "job/run_input.h"
#include "tools/locate.h"
#include "runner/runner.h"
#include "common/limits.h"
#include "scenario/scenario.h"

namespace wmb {

void add_guard_signal_flags(CLI::App* c, GuardSignalFlags& f) {
  c->add_option("--pressure", f.pressure,
                "Guard (macOS): stop a run at this kernel memory pressure level: critical (default), warn or off");
  c->add_option("--pressure-stall", f.pressure_stall,
                "Guard (Linux): stop a run when tasks stalled on memory (PSI) for more than this percent of the last "
                "second; 0 = off (default)");
  c->add_option("--compressor-budget", f.compressor_budget,
                "Guard (macOS): stop a run when compressed memory grew more than this (default 25%RAM; off)");
  c->add_option("--wired-budget", f.wired_budget,
                "Guard (macOS): stop a run when wired memory grew more than this (default 75%RAM; off)");
}

void apply_guard_signal_flags(const GuardSignalFlags& f, GuardSettings& g) {
  if (!f.pressure.empty()) {
    if (f.pressure != "critical" && f.pressure != "warn" && f.pressure != "off")
      throw UnitError(fmt::format("--pressure \"{}\" is not a level; allowed: critical, warn, off",
                                  utf8_sanitize(f.pressure, 64)));
    g.pressure = f.pressure;
  }
  if (!f.pressure_stall.empty()) {
    char* end = nullptr;
    const double v = std::strtod(f.pressure_stall.c_str(), &end);
    if (end == f.pressure_stall.c_str() || *end)
      throw UnitError(fmt::format("--pressure-stall \"{}\" is not a number of percent (0 to 100)",
                                  utf8_sanitize(f.pressure_stall, 64)));
    g.pressure_stall = check_percent(v, "--pressure-stall");
  }
  const auto budget = [](const std::string& v, std::optional<SizeExpr>& out) {
    if (v.empty()) return;
    out = v == "off" ? std::nullopt : std::optional<SizeExpr>(parse_size_expr(v));
  };
  budget(f.compressor_budget, g.compressor_budget);
  budget(f.wired_budget, g.wired_budget);
}

void apply_scenario_flags(const ScenarioFlags& f, Scenario& s) {
  if (!f.device.empty()) {
    if (std::find(kDevices.begin(), kDevices.end(), f.device) == kDevices.end())
      throw RunInputError(fmt::format("--device \"{}\" is not known; allowed: mps, cuda, cpu, mps-model", f.device));
    s.device = f.device;
  }
  if (!f.step.empty()) {
    s.step = parse_size_expr(f.step);
    s.min_steps = 0;
  }
  if (!f.cap.empty()) s.cap = parse_size_expr(f.cap);
  if (!f.timeout.empty()) s.timeout = parse_duration(f.timeout);
  if (!f.swap_budget.empty()) s.guard.swap_budget = parse_size_expr(f.swap_budget);
  apply_guard_signal_flags(f.guard, s.guard);
  if (f.repeat > 0) s.repeats = check_repeats(f.repeat, "--repeat");
  check_plan_size(s.matrix.size(), s.repeats, "the plan");
}

void apply_command_flag(bool command, bool resume, const CommandArgs& d, Scenario& s) {
  if (!command && d.present)
    throw RunInputError("arguments after -- are a command to run, but --command is not given; usage: --command -- CMD ARGS...");
  // A scenario file or a folder to resume (often someone else's) that names a command to run: it
  // runs, as root, only when the user says so with --command (nothing runs that they did not name).
  if (const std::string why = folder_command_problem(s, resume ? "the folder to resume" : "the scenario", command,
                                                     "it runs only with --command (read it first)");
      !why.empty())
    throw RunInputError(why);
  if (!command) return;
  if (resume) {
    if (d.present) throw RunInputError("--resume DIR runs the folder's own command again; give no -- CMD with it");
    if (s.program != "command") throw RunInputError("--command --resume: the folder was not made by a command");
    return;
  }
  if (d.args.empty()) {
    if (s.program == "command" && !s.command.empty()) return;  // the scenario's own, named by --command
    throw RunInputError("--command: no command given after --; usage: --command [options] -- CMD ARGS...");
  }
  s.program = "command";
  s.command = d.args;
}

bool load_scenario_or_resume(const std::string& scenario, const std::string& resume, RunnerOptions& o,
                             std::vector<std::string>& warnings) {
  if (!resume.empty()) {
    if (!scenario.empty()) throw RunInputError("give either a SCENARIO or --resume DIR, not both");
    load_resume(resume, o, warnings);
    return false;
  }
  o.scenario = load_scenario(find_scenario_file(scenario), warnings);
  return scenario.empty();
}

void note_command_in_sandbox(RunnerOptions& o) {
  if (o.scenario.program == "command" && o.ram_limit)
    o.notes.push_back("--command: your own command is the child, run inside that sandbox; it uses the device it "
                      "chooses itself (the model and the fill settings above apply to the fill only)");
}

std::optional<int> input_error_exit(const std::string& cmd, const std::function<void()>& read_input) {
  const std::string who = "wmbench " + cmd + ": ";
  try {
    read_input();
    return std::nullopt;
  } catch (const UnitError& e) {
    std::cerr << who << e.what() << "\n";
  } catch (const RunInputError& e) {
    std::cerr << who << e.what() << "\n";
  } catch (const ScenarioError& e) {
    std::cerr << who << e.what() << "\n";
  } catch (const FileError& e) {
    std::cerr << who << e.what() << "\n";
  } catch (const ProbeError& e) {
    std::cerr << who << "cannot read free memory: " << e.what() << "\n";
    return kExitFail;
  }
  return kExitUsage;
}

std::string default_base_python(std::string* which) {
#ifdef __APPLE__
  std::string venv_python;
  if (const char* v = std::getenv("WMBENCH_VENV"); v && *v == '/') venv_python = std::string(v) + "/bin/python";
  if (venv_python.empty() || !is_executable(venv_python)) venv_python = find_repo_file(".venv/bin/python");
  if (!venv_python.empty() && is_executable(venv_python)) {
    *which = "the set-up's venv python " + venv_python + " (scripts/setup-macos.sh; --base-python to choose another)";
    return venv_python;
  }
  *which = "python3 on PATH: no set-up venv found (bash scripts/setup-macos.sh makes one with a Python pip has a torch for)";
#else
  *which = "python3 on PATH";
#endif
  return "python3";
}

}  // namespace wmb
