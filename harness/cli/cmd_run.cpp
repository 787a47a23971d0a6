// wmbench run [SCENARIO] [--out DIR] [--device D] [--only LABEL,...] [--repeat N] [--step SIZE]
//             [--cap SIZE] [--timeout DURATION] [--fill PATH] [--ram-limit SIZE] [--resume DIR] [--force]
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/files.h"
#include "common/units.h"
#include "probe/probe.h"
#include "runner/runner.h"
#include "sandbox/sandbox.h"

namespace wmb::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string out = "results";
  std::string device, step, cap, timeout, fill, ram_limit, resume, swap_budget, recommended_max, model_mac_ram;
  std::vector<std::string> only;
  int repeat = 0;
  bool force = false;
  bool no_plots = false;
};

int run_command(const RunArgs& a) {
  std::vector<std::string> warnings;
  RunnerOptions o;
  o.out_dir = a.out;
  o.fill_path = a.fill;
  o.only = a.only;
  o.force = a.force;
  o.draw_plots = !a.no_plots;
  try {
    if (!a.ram_limit.empty()) o.ram_limit = parse_size(a.ram_limit);
    if (!a.recommended_max.empty()) o.recommended_max = parse_size(a.recommended_max);
    if (!a.model_mac_ram.empty()) o.model_mac_ram = parse_size(a.model_mac_ram);
  } catch (const UnitError& e) {
    std::cerr << "wmbench run: " << e.what() << "\n";
    return kExitUsage;
  }

  bool main_job = false;
  try {
    if (!a.resume.empty()) {
      if (!a.scenario.empty()) {
        std::cerr << "wmbench run: give either a SCENARIO or --resume DIR, not both\n";
        return kExitUsage;
      }
      const std::string sj = a.resume + "/scenario.json";
      if (!path_exists(sj)) {
        std::cerr << fmt::format("wmbench run: --resume {}: no scenario.json there; is it a wmbench result folder?\n", a.resume);
        return kExitUsage;
      }
      o.scenario = parse_scenario(read_file(sj), sj, warnings);
      o.resume_dir = a.resume;
      // The sandbox and model of the first session are kept.
      auto machine = path_exists(a.resume + "/machine.json") ? read_json_file(a.resume + "/machine.json") : nlohmann::json{};
      if (!o.ram_limit && machine.contains("sandbox") && machine["sandbox"].is_object())
        o.ram_limit = machine["sandbox"].value("ram_limit_bytes", uint64_t{0});
      if (machine.contains("model") && machine["model"].is_object()) {
        o.model_mac_ram = machine["model"].value("mac_ram_bytes", uint64_t{48} << 30);
        o.recommended_max = machine["model"].value("recommended_max_bytes", uint64_t{0});
      }
    } else {
      std::string path = a.scenario;
      if (path.empty()) {
        main_job = true;
        path = find_repo_file("scenarios/mps-watermark.json");
        if (path.empty()) {
          std::cerr << "wmbench run: no SCENARIO given and scenarios/mps-watermark.json was not found next to wmbench\n";
          return kExitUsage;
        }
      } else if (!path_exists(path) && path.find('/') == std::string::npos) {
        std::string named = find_repo_file("scenarios/" + path + (path.size() > 5 && path.substr(path.size() - 5) == ".json" ? "" : ".json"));
        if (!named.empty()) path = named;
      }
      if (!path_exists(path)) {
        std::cerr << fmt::format("wmbench run: scenario file {} does not exist\n", path);
        return kExitUsage;
      }
      o.scenario = load_scenario(path, warnings);
    }
  } catch (const ScenarioError& e) {
    std::cerr << "wmbench run: " << e.what() << "\n";
    return kExitUsage;
  } catch (const FileError& e) {
    std::cerr << "wmbench run: " << e.what() << "\n";
    return kExitUsage;
  }
  Scenario& s = o.scenario;

  // Command-line flags override the scenario.
  try {
    if (!a.device.empty()) {
      if (std::find(kDevices.begin(), kDevices.end(), a.device) == kDevices.end()) {
        std::cerr << fmt::format("wmbench run: --device \"{}\" is not known; allowed: mps, cuda, cpu, mps-model\n", a.device);
        return kExitUsage;
      }
      s.device = a.device;
    }
    if (!a.step.empty()) {
      s.step = parse_size_expr(a.step);
      s.min_steps = 0;
    }
    if (!a.cap.empty()) s.cap = parse_size_expr(a.cap);
    if (!a.timeout.empty()) s.timeout = parse_duration(a.timeout);
    if (!a.swap_budget.empty()) s.guard.swap_budget = parse_size_expr(a.swap_budget);
    if (a.repeat > 0) s.repeats = a.repeat;
  } catch (const UnitError& e) {
    std::cerr << "wmbench run: " << e.what() << "\n";
    return kExitUsage;
  }

#ifndef __APPLE__
  // The main job off a Mac: the same matrix on the MPS model inside a sandbox when this machine
  // allows it; otherwise a cap-limited cpu run, said plainly.
  if (main_job && a.device.empty() && s.device == "mps") {
    SandboxSupport sup = sandbox_support(true);
    if (sup.ok) {
      s.device = "mps-model";
      if (!o.ram_limit) o.ram_limit = 2ull << 30;
      o.notes.push_back(fmt::format(
          "No Mac here: this runs the watermark matrix on mps-model, a MODEL of the MPS allocator's limits on real "
          "CPU memory, inside a {} memory sandbox (Linux {}) that stands for the memory a Mac has free. "
          "It is not a measurement of a Mac.",
          format_size(*o.ram_limit), sup.kind));
    } else {
      s.device = "cpu";
      auto probe = make_platform_probe();
      uint64_t free_now = 0;
      try {
        auto m = probe->system();
        free_now = m.available();
      } catch (const ProbeError& e) {
        std::cerr << "wmbench run: cannot read free memory: " << e.what() << "\n";
        return kExitFail;
      }
      const uint64_t cap = std::max<uint64_t>(free_now / 10, 64ull << 20);
      if (a.cap.empty()) s.cap = SizeExpr{std::to_string(cap)};
      o.notes.push_back(fmt::format(
          "No Mac and no sandbox here ({}). Running the matrix on cpu with a cap of {} (10 % of the {} free now), "
          "so every run stops by `cap`: this shows the harness working, not the watermark behaviour. "
          "For the Mac-like table run as root with swap (`sudo scripts/swapfile.sh on 4096`).",
          sup.why_not, format_size(a.cap.empty() ? cap : s.cap->resolve(free_now)), format_size(free_now)));
    }
  }
#endif
  (void)main_job;
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  return run_matrix(o, std::cout, std::cerr);
}

Registrar reg{Command{10, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run", "Run a scenario's matrix: a fresh wmbench-fill per cell, guarded, into a dated result folder");
  c->add_option("scenario", a->scenario, "Scenario file or name in scenarios/ (default: mps-watermark; off a Mac the MPS model in a sandbox)");
  c->add_option("--out", a->out, "Parent folder of the dated result folder")->capture_default_str();
  c->add_option("--device", a->device, "Override the device: mps, cuda, cpu, mps-model");
  c->add_option("--only", a->only, "Run only these cell labels")->delimiter(',');
  c->add_option("--repeat", a->repeat, "Runs per cell")->check(CLI::PositiveNumber);
  c->add_option("--step", a->step, "Fill step size (e.g. 512MiB)");
  c->add_option("--cap", a->cap, "Stop filling at this size (e.g. 40GiB, 95%RAM)");
  c->add_option("--timeout", a->timeout, "Per-run timeout (e.g. 10m)");
  c->add_option("--swap-budget", a->swap_budget, "Guard: stop a run when swap grew more than this");
  c->add_option("--fill", a->fill, "Path of wmbench-fill (e.g. one built against another libtorch)");
  c->add_option("--ram-limit", a->ram_limit, "Linux: run each child in a memory cgroup of this size (needs root and swap)");
  c->add_option("--recommended-max", a->recommended_max, "mps-model: the modelled recommended max working set");
  c->add_option("--model-mac-ram", a->model_mac_ram, "mps-model: RAM of the Mac that is modelled (default 48GiB, the write-up's)");
  c->add_option("--resume", a->resume, "Finish an interrupted result folder: run only the cells not finished");
  c->add_flag("--force", a->force, "Allow a cpu fill whose cap exceeds the memory free now");
  c->add_flag("--no-plots", a->no_plots, "Do not draw charts at the end");
  c->callback([a, &exit_code] { exit_code = run_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
