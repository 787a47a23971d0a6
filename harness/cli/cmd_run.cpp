// wmbench run [SCENARIO] [--out DIR] [--device D] [--only LABEL,...] [--repeat N] [--step SIZE]
//             [--cap SIZE] [--timeout DURATION] [--fill PATH | --python PYTHON] [--ram-limit SIZE]
//             [--model-revision NAME] [--resume DIR] [--force]
// WMBENCH_PYTHON_CHILD=PYTHON is the default for --python (child/child_spec.h).
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "job/run_setup.h"
#include "io/files.h"
#include "common/units.h"
#include "mpsmodel/revision.h"
#include "probe/probe.h"
#include "child/child_spec.h"
#include "job/main_job.h"
#include "job/run_input.h"
#include "runner/runner.h"
#include "common/limits.h"

namespace wmb::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string out = "results";
  ScenarioFlags flags;  // --device, --step, --cap, --timeout, --swap-budget, --repeat
  std::string fill, python, ram_limit, resume, recommended_max, model_mac_ram, model_revision, other_allocations,
      wired_limit;
  std::vector<std::string> only, allow_env;
  bool force = false;
  bool no_plots = false;
  bool command = false;  // --command: the job after -- is the child (child/child_command.h)
};

int run_command(const RunArgs& a) {
  if (a.model_revision == "list") {
    std::cout << mpsmodel::revision_table();
    return kExitOk;
  }
  std::vector<std::string> warnings;
  RunnerOptions o;
  o.out_dir = a.out;
  o.fill_path = a.fill;
  o.python = a.python;
  o.only = a.only;
  o.force = a.force;
  o.draw_plots = !a.no_plots;
  o.allow_env.insert(a.allow_env.begin(), a.allow_env.end());
  if (auto code = input_error_exit("run", [&] {
      if (!a.ram_limit.empty()) o.ram_limit = parse_size(a.ram_limit);
      if (!a.recommended_max.empty()) o.recommended_max = check_model_bytes(parse_size(a.recommended_max), "--recommended-max");
      if (!a.wired_limit.empty()) o.wired_limit = parse_wired_limit(a.wired_limit);
      if (!a.model_mac_ram.empty()) o.model_mac_ram = check_model_bytes(parse_size(a.model_mac_ram), "--model-mac-ram");
      const bool main_job = load_scenario_or_resume(a.scenario, a.resume, o, warnings);
      apply_scenario_flags(a.flags, o.scenario);
      apply_command_flag(a.command, !a.resume.empty(), {args_after_dashes().present, args_after_dashes().args}, o.scenario);
      if (main_job && a.flags.device.empty()) choose_main_job(o, !a.flags.cap.empty());
      note_command_in_sandbox(o);
      apply_model_revision(a.model_revision, o);
      if (o.wired_limit && o.scenario.device != "mps-model")
        throw RunInputError("--wired-limit applies only to device mps-model (the modelled iogpu.wired_limit_mb); on a "
                            "Mac a cell sets the real one: \"sysctl\": {\"iogpu.wired_limit_mb\": N}");
      if (!a.other_allocations.empty()) {
        if (o.scenario.device != "mps-model")
          throw RunInputError("--other-allocations applies only to device mps-model (the model's \"other allocations\")");
        const uint64_t other = check_other_bytes(parse_size(a.other_allocations, true), "--other-allocations");  // 0: none
        // A folder is one model: its own other allocations are kept on --resume (load_resume).
        if (!a.resume.empty() && o.model_other && *o.model_other != other)
          throw RunInputError(fmt::format("--other-allocations {}: the folder {} was run with {} (machine.json "
                                          "model.other_bytes); a folder is one model, so resume it without the flag "
                                          "or start a new folder",
                                          format_size(other), a.resume, format_size(*o.model_other)));
        o.model_other = other;
      }
      apply_python_child_default(o);
      }))
    return *code;
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  return run_matrix(o, std::cout, std::cerr);
}

Registrar reg_run{Command{10, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run", "Run a scenario's matrix: a fresh wmbench-fill per cell, guarded, into a dated result folder");
  c->add_option("scenario", a->scenario, "Scenario file or name in scenarios/ (default: mps-watermark; off a Mac the MPS model in a sandbox)");
  c->add_option("--out", a->out, "Parent folder of the dated result folder")->capture_default_str();
  c->add_option("--device", a->flags.device, "Override the device: mps, cuda, cpu, mps-model");
  c->add_option("--only", a->only, "Run only these cell labels")->delimiter(',');
  c->add_option("--repeat", a->flags.repeat, "Runs per cell")->check(CLI::PositiveNumber);
  c->add_option("--step", a->flags.step, "Fill step size (e.g. 512MiB)");
  c->add_option("--cap", a->flags.cap, "Stop filling at this size (e.g. 40GiB, 95%RAM)");
  c->add_option("--timeout", a->flags.timeout, "Per-run timeout (e.g. 10m)");
  c->add_option("--swap-budget", a->flags.swap_budget, "Guard: stop a run when swap grew more than this");
  add_guard_signal_flags(c, a->flags.guard);
  c->add_option("--fill", a->fill, "Path of wmbench-fill (e.g. one built against another libtorch)");
  c->add_option("--python", a->python,
                "Run the Python child (wmbench_fill.py) under this interpreter, which must have torch, instead of wmbench-fill "
                "(default: $WMBENCH_PYTHON_CHILD, except for mps-model)");
  c->add_option("--ram-limit", a->ram_limit, "Linux: run each child in a memory cgroup of this size (needs root and swap)");
  c->add_option("--recommended-max", a->recommended_max, "mps-model: the modelled recommended max working set");
  c->add_option("--wired-limit", a->wired_limit,
                "mps-model: the modelled sysctl iogpu.wired_limit_mb (MiB, e.g. 12000, or 80%RAM): the recommended max "
                "follows it, so max allowed = HIGH x it");
  c->add_option("--model-mac-ram", a->model_mac_ram, "mps-model: RAM of the Mac that is modelled (default 48GiB, the write-up's)");
  c->add_option("--model-revision", a->model_revision,
                "mps-model: the PyTorch release modelled: " + mpsmodel::revision_names() + " (default current, the newest; --resume keeps the folder's; \"list\" lists them with their PRs)");
  c->add_option("--other-allocations", a->other_allocations,
                "mps-model: Metal's and MPSGraph's own memory counted against the limit (default 448KiB, the write-up's; "
                "users report gigabytes)");
  c->add_option("--resume", a->resume, "Finish an interrupted result folder: run only the cells not finished");
  c->add_option("--allow-env", a->allow_env,
                "Let the cells set this variable (beyond PYTORCH_*); only on purpose: it reaches the root child")
      ->delimiter(',');
  c->add_flag("--force", a->force, "Allow a cpu fill whose cap exceeds the memory free now; with --resume, run again a cell the Mac panicked during");
  c->add_flag("--no-plots", a->no_plots, "Do not draw charts at the end");
  c->add_flag("--command", a->command,
              "Run your own command (after --) as the child of each cell, with the cell's environment, under the guard");
  c->callback([a, &exit_code] { exit_code = run_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
