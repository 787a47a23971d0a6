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
#include "cli/pasted_input.h"
#include "errparse/error_parser.h"
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
  std::string other;       // --other-allocations
  std::string from_error;  // --from-error FILE|-
  double high = wmb::kDefaultHighWatermark;  // --high: HIGH in force when the pasted error was raised
  bool high_given = false;
  double fraction = 0;  // --fraction: set_per_process_memory_fraction(F) in force when the error was raised
  bool fraction_given = false;
  bool json = false;
  bool simulate = false;
};

// What `--from-error` reads off a pasted MPS out-of-memory message (the explain parser,
// errparse/error_parser.h): recommended max = max allowed / HIGH, "other allocations", and the
// step ("Tried to allocate": the aligned size, printed with 2 decimals, so a step that is not a
// round number comes back rounded).
struct FromError {
  uint64_t recommended_max = 0;
  uint64_t other = 0;
  std::optional<uint64_t> step;
  std::optional<uint64_t> likely_ram;
  double high = 0;  // the ratio the limit came from: --fraction, else --high, else the default HIGH
  bool high_given = false;
  bool from_fraction = false;
};

// Reads and parses the pasted text; prints why and returns nullopt when it is not an MPS
// out-of-memory message with a max allowed (the only message that implies a recommended max).
std::optional<FromError> read_from_error(const PredictArgs& a) {
  std::string text;
  if (!wmb::cli::read_pasted_input("wmbench predict --from-error", a.from_error, text)) return std::nullopt;
  const wmb::ParsedError e = wmb::parse_error(text);
  wmb::ExplainOptions opt{a.high, a.high_given, std::nullopt};
  if (a.fraction_given) opt.fraction = a.fraction;
  const auto rec = wmb::implied_recommended_max(e, opt.ratio());
  if (e.kind != wmb::ErrorKind::MpsOom || !rec || *rec == 0) {
    std::cerr << "wmbench predict --from-error: the text is not an MPS out-of-memory message with \"max allowed\" "
              << "(it reads as " << wmb::kind_name(e.kind) << ": " << e.summary
              << "); only that message implies the Mac's recommended max\n";
    return std::nullopt;
  }
  FromError f;
  f.recommended_max = *rec;
  try {
    f.other = wmb::check_other_bytes(e.other_bytes.value_or(wmb::mpsmodel::kDefaultOtherBytes),
                                     "the pasted error's \"other allocations\"");
  } catch (const wmb::UnitError& err) {
    std::cerr << "wmbench predict --from-error: " << err.what() << '\n';
    return std::nullopt;
  }
  f.step = e.requested_bytes;
  f.high = opt.ratio();
  f.high_given = a.high_given;
  f.from_fraction = a.fraction_given;
  const nlohmann::json j = wmb::explain_json(e, opt);
  if (j.contains("likely_ram_bytes") && j["likely_ram_bytes"].is_number_unsigned())
    f.likely_ram = j["likely_ram_bytes"].get<uint64_t>();
  return f;
}

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

int run_predict(const PredictArgs& args) {
  if (args.revision == "list") {
    std::cout << wmb::mpsmodel::revision_table();
    return wmb::cli::kExitOk;
  }
  PredictArgs a = args;
  std::optional<FromError> from;
  if (!a.from_error.empty()) {
    from = read_from_error(a);
    if (!from) return wmb::cli::kExitUsage;
    // The pasted Mac: its recommended max, and its RAM class unless --ram says it.
    if (a.recommended_max.empty()) a.recommended_max = std::to_string(from->recommended_max);
    if (a.ram.empty() && from->likely_ram) a.ram = std::to_string(*from->likely_ram);
  }
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
  auto plan = fill_plan(sc, m, a.revision);
  if (from) {
    plan.params.other_bytes = from->other;
    if (from->step && *from->step > 0) plan.step = *from->step;
  }
  if (!a.other.empty()) {
    try {
      // an explicit --other-allocations wins
      plan.params.other_bytes = wmb::check_other_bytes(wmb::parse_size(a.other, true), "--other-allocations");
    } catch (const wmb::UnitError& e) {
      std::cerr << "wmbench predict: --other-allocations: " << e.what() << '\n';
      return wmb::cli::kExitUsage;
    }
  }
  if (from) {
    // The message is the same for the HIGH variable and set_per_process_memory_fraction(F), which
    // replaces HIGH: say which ratio was used and that it may be either (issue 30).
    m.recommended_source =
        from->from_fraction
            ? fmt::format("--from-error: max allowed / memory fraction {} (--fraction: set_per_process_memory_fraction "
                          "replaces HIGH)",
                          wmb::mpsmodel::format_ratio(from->high))
            : fmt::format("--from-error: max allowed / HIGH {}{}", wmb::mpsmodel::format_ratio(from->high),
                          from->high_given ? " (--high; give --fraction F if the code called set_per_process_memory_fraction(F))"
                                           : " (the default; the limit may come from PYTORCH_MPS_HIGH_WATERMARK_RATIO or "
                                             "from set_per_process_memory_fraction(F): give --high or --fraction if "
                                             "either was set)");
    if (!args.ram.empty()) m.ram_source = "--ram";
    else if (from->likely_ram) m.ram_source = "--from-error: the likely RAM class for that recommended max";
  }
  const auto report = wmb::mpsmodel::make_report(m, scenario_name, cells, plan, warnings);
  if (a.json) {
    nlohmann::json j = wmb::mpsmodel::render_json(report);
    if (from)
      j["from_error"] = {{"recommended_max_bytes", from->recommended_max}, {"other_bytes", from->other},
                         {"step_bytes", from->step ? nlohmann::json(*from->step) : nlohmann::json(nullptr)},
                         {"high", from->high}, {"high_given", from->high_given},
                         {"limit_ratio_from", from->from_fraction ? "fraction" : from->high_given ? "high" : "default"},
                         {"likely_ram_bytes", from->likely_ram ? nlohmann::json(*from->likely_ram) : nlohmann::json(nullptr)}};
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    // The step-by-step section only when asked for or with a scenario: without them the output is
    // the write-up's table, unchanged.
    if (from)
      std::cout << fmt::format("From the pasted error: recommended max {} (max allowed / {} {}), other allocations {}, "
                               "step {}\n",
                               wmb::format_size(from->recommended_max), from->from_fraction ? "memory fraction" : "HIGH",
                               wmb::mpsmodel::format_ratio(from->high),
                               wmb::format_size(from->other), from->step ? wmb::format_size(*from->step) : "?");
    std::cout << wmb::mpsmodel::render_text(report, a.simulate || sc.has_value() || from.has_value());
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
  sub->add_option("--other-allocations", args->other,
                  "Metal's and MPSGraph's own memory, counted against the same limit (default 448KiB, the write-up's; "
                  "users report gigabytes at baseline)");
  sub->add_option("--from-error", args->from_error,
                  "A pasted MPS out-of-memory message (FILE, or - for standard input): its recommended max, other "
                  "allocations and step, and what each setting would do on that Mac");
  CLI::Option* high = sub->add_option("--high", args->high,
                                      "With --from-error: the HIGH ratio in force when it was raised (default 1.7)");
  high->check(CLI::Range(0.0, 2.0).description("RATIO in (0, 2]"));
  CLI::Option* fraction = sub->add_option(
      "--fraction", args->fraction,
      "With --from-error: torch.mps.set_per_process_memory_fraction(F) called by the code (it replaces HIGH; the "
      "message is the same)");
  fraction->check(CLI::Range(0.0, 2.0).description("F in (0, 2]"));
  sub->add_flag("--simulate", args->simulate,
                "Also show each setting's fill simulated step by step (always with --scenario, always in --json)");
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->callback([args, high, fraction, &exit_code]() {
    args->high_given = high->count() > 0;
    args->fraction_given = fraction->count() > 0;
    if (args->fraction_given && !(args->fraction > 0)) {
      std::cerr << "wmbench predict: --fraction must be a memory fraction in (0, 2]\n";
      exit_code = wmb::cli::kExitUsage;
      return;
    }
    if (args->high_given && !(args->high > 0)) {
      std::cerr << "wmbench predict: --high must be a ratio in (0, 2]\n";
      exit_code = wmb::cli::kExitUsage;
      return;
    }
    exit_code = run_predict(*args);
  });
}}};

}  // namespace
