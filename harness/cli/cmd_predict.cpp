// `wmbench predict [--ram SIZE] [--recommended-max SIZE] [--free SIZE] [--json] [--scenario FILE]
//                  [--simulate] [--model-revision NAME] [--python PYTHON]`:
// what each watermark setting would do on this machine (or a Mac of --ram), before running
// anything. This file only turns flags into inputs (the probe, MPS's own recommended max on a
// Mac) and prints; the arithmetic and the step-by-step simulation are mpsmodel/predict.h.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "common/platform.h"
#include "common/units.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/predict.h"
#include "mpsmodel/revision.h"
#include "probe/probe.h"
#include "scenario/limits.h"
#include "runner/child_info.h"
#include "runner/run_error.h"
#include "runner/runner.h"
#include "scenario/scenario.h"

namespace {

using MachineView = wmb::mpsmodel::PredictInputs;

struct PredictArgs {
  std::string ram;
  std::string recommended_max;
  std::string free;
  std::string scenario;
  std::string revision = "current";
  std::string python;  // ask MPS through the Python child under it (default $WMBENCH_PYTHON_CHILD)
  bool json = false;
  bool simulate = false;
};

// This machine's free fraction (0..1) and RAM as the probe sees them.
struct FreeNow {
  double fraction;
  uint64_t ram;
  std::string source;
};
std::optional<FreeNow> free_now(std::vector<std::string>& warnings) {
  try {
    auto probe = wmb::make_platform_probe();
    const auto sys = probe->system();
    if (sys.ram_total > 0 && sys.level >= 0 && sys.level <= 100)
      return FreeNow{sys.level / 100.0, sys.ram_total, "probe " + probe->name()};
  } catch (const std::exception& e) {
    warnings.push_back(std::string("memory probe failed: ") + e.what());
  }
  return std::nullopt;
}

// Throws wmb::UnitError for a bad size.
MachineView gather(const PredictArgs& a, std::vector<std::string>& warnings) {
  MachineView v;
  const auto now = free_now(warnings);
  if (!a.ram.empty()) {
    v.ram = wmb::check_model_bytes(wmb::parse_size(a.ram), "--ram");
    v.ram_source = "--ram";
  } else if (now && now->ram > 0) {
    v.ram = now->ram;
    v.ram_source = "this machine";
  } else {
    v.ram = wmb::machine_facts().ram_bytes;
    v.ram_source = "this machine";
  }

  if (!a.recommended_max.empty()) {
    v.recommended_max = wmb::check_model_bytes(wmb::parse_size(a.recommended_max), "--recommended-max");
    v.recommended_source = "--recommended-max";
  }
#ifdef __APPLE__
  constexpr bool on_a_mac = true;
#else
  constexpr bool on_a_mac = false;
#endif
  if (v.recommended_source.empty() && a.ram.empty() && (on_a_mac || !a.python.empty())) {
    // MPS says it: recommendedMaxWorkingSetSize, from the fill child's hello (the same child
    // `wmbench run` would start: --python, $WMBENCH_PYTHON_CHILD, or wmbench-fill).
    std::string why;
    try {
      const wmb::ChildHello ch = wmb::ask_child_hello(wmb::ChildChoice{"", a.python, "mps", {}});
      const nlohmann::json rec = ch.hello ? ch.hello->value("recommended_max_bytes", nlohmann::json()) : nlohmann::json();
      if (rec.is_number_unsigned() && rec.get<uint64_t>() > 0) {
        v.recommended_max = rec.get<uint64_t>();
        v.recommended_source = fmt::format("MPS ({} child, {})", ch.child.value("kind", "?"), ch.program);
      } else {
        why = ch.hello ? "its hello has no recommended max (torch.mps.recommended_max_memory needs torch 2.5)" : ch.error;
      }
    } catch (const wmb::RunRefused& e) {
      if (!a.python.empty()) throw;  // an interpreter given explicitly that cannot be used: exit 2
      why = e.what();
    }
    if (v.recommended_source.empty())
      warnings.push_back("could not ask MPS for the recommended max (the fill child with --device mps --hello-only: " +
                         why + "); using the estimate for this RAM");
  } else if (!a.python.empty()) {
    warnings.push_back("--python is not asked: --ram or --recommended-max says the recommended max");
  }
  if (v.recommended_source.empty()) {
    v.recommended_max = wmb::mpsmodel::recommended_max_for_ram(v.ram);
    v.recommended_source = fmt::format("estimate for {} RAM (mpsmodel/macos_memory.h)", wmb::format_size(v.ram));
    v.recommended_basis = wmb::mpsmodel::recommended_basis(v.ram);
  }

  if (!a.free.empty()) {
    v.free = wmb::parse_size(a.free);
    v.free_source = "--free";
  } else if (now) {
    if (a.ram.empty()) {
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("free now, {:.1f} % ({})", 100.0 * now->fraction, now->source);
    } else {
      // Another Mac: assume it has the same share free as this machine now.
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("{:.1f} % of --ram, the share free on this machine now ({}); use --free to set",
                                  100.0 * now->fraction, now->source);
    }
  } else {
    v.free_source = "unknown";
    warnings.push_back("free memory unknown (the memory probe failed); use --free SIZE");
  }
  if (v.free && *v.free > v.ram) warnings.push_back("--free is larger than the RAM");
  return v;
}

// The fill each setting is simulated with: the scenario's step and cap for a Mac of this RAM
// (resolved as `wmbench run` resolves them), or the write-up's 512 MiB steps up to 95 % of RAM.
wmb::mpsmodel::FillPlan fill_plan(const std::optional<wmb::Scenario>& sc, const MachineView& m,
                                  const std::string& revision) {
  wmb::mpsmodel::FillPlan plan;
  plan.params.revision = revision;
  plan.params.max_buffer = wmb::mpsmodel::estimated_max_buffer(m.ram);
  plan.max_buffer_source = "estimate: 9/16 of RAM (mpsmodel/heap_allocator.h)";
  if (sc) {
    const wmb::ResolvedSizes z = wmb::resolve_sizes(*sc, m.ram);
    plan.step = z.step;
    plan.cap = z.cap;
  } else {
    plan.step = 512 * wmb::MiB;
    plan.cap = static_cast<uint64_t>(0.95 * static_cast<double>(m.ram));
  }
  return plan;
}

int run_predict(const PredictArgs& a) {
  std::vector<std::string> warnings;
  std::vector<wmb::Cell> cells = wmb::mpsmodel::default_cells();
  std::string scenario_name = wmb::mpsmodel::kDefaultCellsName;
  std::optional<wmb::Scenario> sc;
  try {
    wmb::mpsmodel::find_revision(a.revision);
    if (!a.scenario.empty()) {
      sc = wmb::load_scenario(a.scenario, warnings);
      cells = sc->matrix;
      scenario_name = sc->name + " (" + a.scenario + ")";
      if (sc->device != "mps" && sc->device != "mps-model")
        warnings.push_back("scenario device is \"" + sc->device + "\": predict shows the MPS watermark policy only");
    }
  } catch (const std::exception& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return wmb::cli::kExitUsage;
  }
  MachineView m;
  try {
    m = gather(a, warnings);
  } catch (const wmb::UnitError& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return wmb::cli::kExitUsage;
  } catch (const wmb::RunRefused& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return e.exit_code;
  }
  if (m.ram == 0) {
    std::cerr << "wmbench predict: cannot tell this machine's RAM; use --ram SIZE\n";
    return wmb::cli::kExitUsage;
  }
  const auto report = wmb::mpsmodel::make_report(m, scenario_name, cells, fill_plan(sc, m, a.revision), warnings);
  if (a.json) {
    std::cout << wmb::mpsmodel::render_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    // The step-by-step section only when asked for or with a scenario: without them the output is
    // the write-up's table, unchanged.
    std::cout << wmb::mpsmodel::render_text(report, a.simulate || sc.has_value());
    // A prediction is arithmetic; `wmbench tune` measures the setting here (runner/tune.h).
    std::cout << "\nThis is a prediction. To measure the highest setting that ends cleanly on this machine, with the "
                 "apps open now:\n  wmbench tune                                   (the fill)\n"
                 "  wmbench tune --command -- python3 train.py     (your own job)\n";
    for (const auto& w : report.warnings) std::cerr << "warning: " << w << '\n';
  }
  std::cout.flush();
  return wmb::cli::kExitOk;
}

const wmb::cli::Registrar reg{wmb::cli::Command{50, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict what each watermark setting does on this machine (or a Mac of --ram): max allowed, whether it lies "
      "above RAM or the memory free now (=> swap, no clean error), and the HIGH/LOW pair for a clean error");
  sub->add_option("--ram", args->ram, "RAM of the Mac to predict for (default: this machine's), e.g. 48GiB");
  sub->add_option("--recommended-max", args->recommended_max,
                  "Metal's recommended max working set (default: from MPS on a Mac, else estimated from the RAM)");
  sub->add_option("--free", args->free,
                  "Memory free with the everyday apps open (default: measured now; with --ram, this machine's "
                  "free share of it)");
  sub->add_option("--scenario", args->scenario, "Scenario file whose matrix cells to predict (default: built-in set)");
  sub->add_option("--model-revision", args->revision,
                  "PyTorch release the messages are modelled on: " + wmb::mpsmodel::revision_names() + " (default current)");
  sub->add_option("--python", args->python,
                  "Ask MPS for the recommended max through the Python child under this interpreter (a Mac; default "
                  "$WMBENCH_PYTHON_CHILD, else wmbench-fill on a Mac)");
  sub->add_flag("--simulate", args->simulate,
                "Also show each setting's fill simulated step by step (always with --scenario, always in --json)");
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->callback([args, &exit_code]() { exit_code = run_predict(*args); });
}}};

}  // namespace
