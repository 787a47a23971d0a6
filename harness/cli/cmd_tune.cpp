// wmbench tune [SCENARIO] [--command -- CMD ARGS...] [--resolution R] [--bracket LOW,HIGH]
//              [--tolerance SIZE] [--repeat N] [--low same|FACTOR] [--resume DIR] [--out DIR] ...
// The highest HIGH ratio at which the fill (or the job) ends cleanly (tune/tune.h).
#include <cstdlib>
#include <iostream>

#include <algorithm>

#include <fmt/format.h>

#include "cli/command.h"
#include "tune/tune_policy.h"
#include "job/run_setup.h"
#include "io/files.h"
#include "common/units.h"
#include "probe/probe.h"
#include "child/child_spec.h"
#include "job/main_job.h"
#include "job/run_input.h"
#include "tune/tune.h"

namespace wmb::cli {
namespace {

struct TuneArgs {
  std::string scenario, out = "results", resume, fill, python, ram_limit, timeout, swap_budget;
  GuardSignalFlags guard;
  std::string bracket, tolerance, low = "same";
  std::string lever = "watermark";  // --lever: watermark (the search) or wired (the sysctl's lines)
  double resolution = kDefaultTuneResolution;
  int repeat = 1;
  bool command = false, no_plots = false;
};

double parse_ratio(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end)
    throw RunInputError(fmt::format("{} \"{}\" is not a number", flag, text));
  return v;
}

TunePolicy policy_of(const TuneArgs& a) {
  TunePolicy p;
  p.resolution = a.resolution;
  p.repeat = a.repeat;
  if (!a.bracket.empty()) {
    const size_t comma = a.bracket.find(',');
    if (comma == std::string::npos)
      throw RunInputError(fmt::format("--bracket \"{}\": expected LOW,HIGH (e.g. 0.5,1.7)", a.bracket));
    p.bottom = parse_ratio(a.bracket.substr(0, comma), "--bracket");
    p.top = parse_ratio(a.bracket.substr(comma + 1), "--bracket");
  }
  if (!a.tolerance.empty()) p.tolerance = parse_size(a.tolerance, /*allow_zero=*/true);
  p.low_factor = a.low == "same" ? 1.0 : parse_ratio(a.low, "--low");
  if (const std::string why = tune_policy_problem(p); !why.empty()) throw RunInputError(why);
  return p;
}

int tune_command(const TuneArgs& a) {
  if (a.lever == "wired") return run_tune_wired_lever(std::cout, std::cerr);
  TuneOptions t;
  RunnerOptions& o = t.run;
  std::vector<std::string> warnings;
  o.out_dir = a.out;
  o.fill_path = a.fill;
  o.python = a.python;
  o.draw_plots = !a.no_plots;
  if (auto code = input_error_exit("tune", [&] {
      // One search runs under one policy and one guard, the command line's: on --resume, a tune.json
      // policy that differs is shown and refused until named again (tune.cpp, job/resume_gate.h),
      // and a guard flag that differs from scenario.json is refused (runner/resume_check.cpp).
      t.policy = policy_of(a);
      if (!a.ram_limit.empty()) o.ram_limit = parse_size(a.ram_limit);
      const bool main_job = load_scenario_or_resume(a.scenario, a.resume, o, warnings);
      if (!a.timeout.empty()) o.scenario.timeout = parse_duration(a.timeout);
      if (!a.swap_budget.empty()) o.scenario.guard.swap_budget = parse_size_expr(a.swap_budget);
      apply_guard_signal_flags(a.guard, o.scenario.guard);
      apply_command_flag(a.command, !a.resume.empty(), {args_after_dashes().present, args_after_dashes().args}, o.scenario);
      if (main_job) {
        const int probes = max_tune_settings(t.policy);
        choose_main_job(o, false, {static_cast<size_t>(probes) * static_cast<size_t>(std::max(1, o.scenario.repeats)),
                                   fmt::format("up to {} settings that tune probes", probes)});
      }
      note_command_in_sandbox(o);
      apply_model_revision("", o);
      apply_python_child_default(o);
      }))
    return *code;
  for (const auto& w : warnings)  // a new search replaces the scenario's matrix: its cells' warnings do not apply
    if (!a.resume.empty() || w.find(": matrix[") == std::string::npos) std::cerr << "warning: " << w << "\n";
  return run_tune(std::move(t), std::cout, std::cerr);
}

Registrar reg_tune{Command{11, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TuneArgs>();
  auto* c = app.add_subcommand("tune", "Find the highest HIGH (= LOW) watermark ratio at which the fill, or your own "
                                       "command, ends cleanly here: bracket, then bisection, each probe a fresh guarded run");
  c->add_option("scenario", a->scenario, "Scenario file or name (default: mps-watermark; off a Mac the MPS model in a sandbox)");
  c->add_flag("--command", a->command, "Tune your own command (after --) instead of the fill");
  c->add_option("--lever", a->lever,
                "watermark: search the HIGH/LOW ratio (default); wired: the sysctl iogpu.wired_limit_mb lines that cap "
                "every framework (set, put back; root; resets at reboot), for the memory free now, without a search")
      ->check(CLI::IsMember({"watermark", "wired"}))
      ->capture_default_str();
  c->add_option("--resolution", a->resolution, "Stop when the clean and unclean settings are this close")->capture_default_str();
  c->add_option("--bracket", a->bracket, "LOW,HIGH ratios to search between (default 0.5,1.7; above 0, at most 2.0)");
  c->add_option("--tolerance", a->tolerance, "Swap growth that still counts as clean (default 32MiB)");
  c->add_option("--repeat", a->repeat, "Runs per setting; a setting is clean only if all are")->capture_default_str();
  c->add_option("--low", a->low, "LOW's rule: same (LOW = HIGH) or a FACTOR in (0,1] (LOW = FACTOR x HIGH)")->capture_default_str();
  c->add_option("--resume", a->resume, "Continue an interrupted tune folder from the probes it has");
  c->add_option("--out", a->out, "Parent folder of the dated result folder")->capture_default_str();
  c->add_option("--timeout", a->timeout, "Per-run timeout (e.g. 10m)");
  c->add_option("--swap-budget", a->swap_budget, "Guard: stop a run when swap grew more than this");
  add_guard_signal_flags(c, a->guard);
  c->add_option("--fill", a->fill, "Path of wmbench-fill");
  c->add_option("--python", a->python, "Run the Python fill child under this interpreter");
  c->add_option("--ram-limit", a->ram_limit, "Linux: run each child in a memory cgroup of this size (needs root and swap)");
  c->add_flag("--no-plots", a->no_plots, "Do not draw charts at the end");
  c->callback([a, &exit_code] { exit_code = tune_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
