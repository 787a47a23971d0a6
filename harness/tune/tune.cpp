#include "tune/tune.h"

#include <cmath>
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "io/files.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "io/utf8.h"
#include "job/resume_gate.h"
#include "job/run_input.h"
#include "mpsmodel/watermark.h"
#include "results/report.h"
#include "common/run_error.h"
#include "runner/stages.h"
#include "tune/tune_chart.h"
#include "host/platform.h"
#include "probe/probe.h"
#include "scenario/scenario.h"

namespace wmb {
namespace {


Cell probe_cell(size_t n, const TuneStep& step) {
  // The ratios the child will really see: never one that switches the limit off (the policy was
  // checked after rounding; this is the last word before a run).
  if (const std::string why = tune_setting_problem(step.high, step.low); !why.empty())
    throw RunRefused("tune would probe HIGH " + ratio_text(step.high) + " LOW " + ratio_text(step.low) + ": " + why, 2);
  Cell c;
  c.label = fmt::format("t{:02}-high-{}-low-{}", n, ratio_text(step.high), ratio_text(step.low));
  c.env = {{mpsmodel::kHighEnv, ratio_text(step.high)}, {mpsmodel::kLowEnv, ratio_text(step.low)}};
  return c;
}

Plan plan_of_last(const Scenario& sc) {
  Plan p;
  for (const auto& c : sc.matrix) p.cells.push_back(&c);
  p.runs.push_back({static_cast<int>(sc.matrix.size()), &sc.matrix.back(), 1});
  return p;
}

void write_scenario_json(const RunnerOptions& opts, const Prepared& prep) {
  Plan all;
  for (const auto& c : opts.scenario.matrix) all.cells.push_back(&c);
  prep.held->folder.write_json("scenario.json", scenario_as_run(opts.scenario, all, prep.sizes));
}

bool going_on(const SessionEnd& e) { return !e.interrupted_by && e.write_error.empty() && e.exit_code == 0; }

void say_plan(const TuneOptions& o, const TuneSummary& s, std::ostream& out) {
  const TunePolicy& p = o.policy;
  out << fmt::format("  tune: HIGH from {} to {} (LOW = {}), resolution {}, at most {} settings x {} run(s); clean = "
                     "ended by PyTorch's error or by finishing, with swap growth <= {} (--tolerance)\n",
                     ratio_text(p.bottom), ratio_text(p.top), p.low_factor == 1 ? std::string("HIGH") : ratio_text(p.low_factor) + " x HIGH",
                     ratio_text(p.resolution), max_tune_settings(p), p.repeat, format_size(p.tolerance));
  out << fmt::format("  free memory at the start: {}{}\n", format_size(s.free_bytes_at_start),
                     s.sandbox_bytes ? fmt::format(" (the runs see a {} sandbox, which stands for it)", format_size(*s.sandbox_bytes)) : "");
  out.flush();
}

// The flags that give policy `p` where it is not the default (" --repeat 2 --tolerance 0"), for
// the command that resumes its search.
std::string policy_flags(const TunePolicy& p) {
  const TunePolicy d;
  std::string f;
  if (p.bottom != d.bottom || p.top != d.top) f += fmt::format(" --bracket {},{}", p.bottom, p.top);
  if (p.resolution != d.resolution) f += fmt::format(" --resolution {}", p.resolution);
  if (p.tolerance != d.tolerance) f += fmt::format(" --tolerance {}", p.tolerance);
  if (p.repeat != d.repeat) f += fmt::format(" --repeat {}", p.repeat);
  if (p.low_factor != d.low_factor) f += fmt::format(" --low {}", p.low_factor);
  return f;
}

// The search policy decides the answer (what counts as clean): the command line's (its flags, else
// their defaults), never tune.json's alone; a folder's that differs is shown and refused until named
// again (job/resume_gate.h). Throws RunRefused.
void gate_tune_policy(const std::string& dir, const TunePolicy& folder, const TunePolicy& given) {
  const std::string low = folder.low_factor == 1.0 ? "same" : fmt::format("{}", folder.low_factor);
  try {
    gate_resumed_values(dir, {{"--bracket", {folder.bottom, folder.top}, {given.bottom, given.top},
                               fmt::format("--bracket {},{}", folder.bottom, folder.top)},
                              {"--resolution", folder.resolution, given.resolution, fmt::format("--resolution {}", folder.resolution)},
                              {"--tolerance", folder.tolerance, given.tolerance, fmt::format("--tolerance {}", folder.tolerance)},
                              {"--repeat", folder.repeat, given.repeat, fmt::format("--repeat {}", folder.repeat)},
                              {"--low", folder.low_factor, given.low_factor, "--low " + low}});
  } catch (const RunInputError& e) {
    throw RunRefused(e.what());
  }
}

// --resume: holds the tune folder, gates its policy against the command line's and takes the free memory it began
// with from tune.json.
std::unique_ptr<HeldFolder> hold_tune_folder(TuneOptions& o, TuneSummary& sum) {
  RunnerOptions& opts = o.run;
  std::unique_ptr<HeldFolder> held = hold_folder(opts.resume_dir, opts);
  try {
    if (held->folder.exists("tune.json")) {
      const nlohmann::json j = held->folder.read_json("tune.json");
      gate_tune_policy(opts.resume_dir, tune_policy_from_json(j, held->folder.display("tune.json")), o.policy);
      if (j.contains("free_bytes_at_start") && j["free_bytes_at_start"].is_number_unsigned())
        sum.free_bytes_at_start = j["free_bytes_at_start"].get<uint64_t>();
    } else {
      throw RunRefused(fmt::format("--resume {}: it has no tune.json, so it is not a tune folder (resume it with `wmbench run --resume`)",
                                   opts.resume_dir));
    }
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  return held;
}

// A new search: refuses a device the ratios do nothing on and a name too long, then sets the first probe.
void start_new_tune(TuneOptions& o) {
  RunnerOptions& opts = o.run;
  // Only the PYTORCH_MPS_* ratios are searched: on another device they change nothing and every
  // probe would end alike ("nothing to set"). A command chooses its device itself.
  if (opts.scenario.program != "command" && opts.scenario.device != "mps" && opts.scenario.device != "mps-model")
    throw RunRefused(fmt::format("tune searches PYTORCH_MPS_HIGH/LOW_WATERMARK_RATIO, which do nothing on device "
                                 "{}; tune the fill on mps (mps-model off a Mac), or your own job with --command",
                                 opts.scenario.device), 2);
  // The folder's scenario name must be one its readers accept (64 characters at most).
  if (const std::string why = label_problem("tune-" + opts.scenario.name); !why.empty())
    throw RunRefused(fmt::format("the scenario name \"{}\" is too long for a tune folder (\"tune-\" + the name {})",
                                 utf8_sanitize(opts.scenario.name, 64), why), 2);
  opts.scenario.name = "tune-" + opts.scenario.name;
  opts.scenario.repeats = 1;  // each run of a setting is a cell of its own (tune_policy.h)
  opts.scenario.matrix = {probe_cell(1, next_tune_step(o.policy, {}))};
}

// Runs the probes one setting after another until the policy is done, the session stops, or the bound.
SessionEnd run_search(TuneOptions& o, TuneSummary& sum, const Plan& plan, Prepared& prep, MemoryProbe& probe,
                      std::ostream& out, std::ostream& err) {
  RunnerOptions& opts = o.run;
  const Folder& folder = prep.held->folder;
  // A new folder: its first probe. A resumed one: what it had not finished, then on.
  SessionEnd end = run_all(opts, plan, prep, probe, err);
  const int bound = max_tune_settings(o.policy) * o.policy.repeat + 2;
  for (int n = 0; going_on(end) && n < bound; ++n) {
    const std::vector<TuneRun> runs = tune_runs_of(load_report(prep.dir), o.policy, sum.probes);
    const TuneStep step = next_tune_step(o.policy, runs);
    folder.write_json("tune.json", tune_json(sum));
    if (step.done) {
      sum.end = step;
      break;
    }
    opts.scenario.matrix.push_back(probe_cell(opts.scenario.matrix.size() + 1, step));
    out << fmt::format("tune: run {} (at most {} settings x {}): HIGH {} LOW {}\n", opts.scenario.matrix.size(),
                       max_tune_settings(o.policy), o.policy.repeat, ratio_text(step.high), ratio_text(step.low));
    out.flush();
    write_scenario_json(opts, prep);
    end = run_all(opts, plan_of_last(opts.scenario), prep, probe, err);
  }
  return end;
}

// The runner's finish, then tune.json, README.md's head, the chart and the answer; returns the exit code.
int end_tune(const TuneOptions& o, TuneSummary& sum, Prepared& prep, const SessionEnd& end, std::ostream& out,
             std::ostream& err) {
  const RunnerOptions& opts = o.run;
  const Folder& folder = prep.held->folder;
  const int code = finish(opts, prep, end, out, err);
  tune_runs_of(load_report(prep.dir), o.policy, sum.probes);
  if (sum.end && sum.end->outcome == TuneOutcome::NoSafeSetting) {  // no HIGH/LOW pair is clean: the second lever
    const MachineFacts f = machine_facts();
    sum.wired_lever = wired_lever_lines(sum.free_bytes_at_start, f.ram_bytes,
                                        f.mac ? f.mac->iogpu_wired_limit_mb : std::nullopt);
  }
  sum.said = tune_answer_text(sum);
  folder.write_json("tune.json", tune_json(sum));
  const std::string readme = folder.exists("README.md") ? folder.read("README.md") : "";
  folder.write_atomic("README.md", tune_readme_head(sum) + "\n" + readme);
  if (!interrupt_signal()) draw_tune_chart(prep.dir, opts.draw_plots, out, err);
  out << "\n" << sum.said << "\n";
  if (!sum.end)
    out << "Continue the search with: wmbench tune" << policy_flags(o.policy) << " --resume " << prep.dir
        << (opts.scenario.program == "command" ? " --command" : "") << "\n";
  // A signal during the chart (or after the last probe) ends tune as it ends run: 128+N.
  if (code == 0 && interrupt_signal()) return 128 + interrupt_signal();
  return code != 0 ? code : (sum.end ? 0 : 1);
}

}  // namespace

int run_tune(TuneOptions o, std::ostream& out, std::ostream& err) {
  install_interrupt_handlers();
  auto probe = make_platform_probe();
  RunnerOptions& opts = o.run;
  // What finish suggests after Ctrl-C (issue 30: it said `run --resume` too), with the policy's
  // flags: a resume is gated against the command line's policy (gate_tune_policy).
  opts.resume_verb = "tune" + policy_flags(o.policy);
  TuneSummary sum;
  try {
    std::unique_ptr<HeldFolder> held;
    const bool resume = !opts.resume_dir.empty();
    if (resume)
      held = hold_tune_folder(o, sum);
    else
      start_new_tune(o);
    sum.policy = o.policy;
    sum.sandbox_bytes = opts.ram_limit;
    if (!resume) {
      try {
        sum.free_bytes_at_start = probe->system().available();
      } catch (const ProbeError& e) {
        throw RunRefused(std::string("cannot read free memory: ") + e.what(), 1);
      }
    }
    const Plan plan = make_plan(opts, held.get(), &err);
    Prepared prep = prepare(opts, plan, *probe, std::move(held));
    say_start(opts, plan, prep, out);
    say_plan(o, sum, out);
    const SessionEnd end = run_search(o, sum, plan, prep, *probe, out, err);
    return end_tune(o, sum, prep, end, out, err);
  } catch (const RunRefused& e) {
    err << "wmbench tune: " << e.what() << "\n";
    return e.exit_code;
  } catch (const FileError& e) {
    err << "wmbench tune: " << e.what() << "\n";
    return 1;
  }
}

int run_tune_wired_lever(std::ostream& out, std::ostream& err) {
  const MachineFacts f = machine_facts();
  uint64_t free_now = 0;
  try {
    free_now = make_platform_probe()->system().available();
  } catch (const ProbeError& e) {
    err << "wmbench tune: cannot read free memory: " << e.what() << "\n";
    return 1;
  }
  out << wired_lever_lines(free_now, f.ram_bytes, f.mac ? f.mac->iogpu_wired_limit_mb : std::nullopt) << "\n";
  return 0;
}

}  // namespace wmb
