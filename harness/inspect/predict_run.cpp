#include "inspect/predict_run.h"

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/exit_codes.h"
#include "common/run_error.h"
#include "common/limits.h"
#include "common/units.h"
#include "inspect/from_error.h"
#include "mpsmodel/revision.h"

namespace wmb::inspect {

namespace {

// What is predicted: the scenario's cells (and the scenario, for its step and cap), or the
// write-up's settings. Prints why and returns false for an unknown revision or a bad scenario.
struct Settings {
  std::vector<mpsmodel::Setting> cells = mpsmodel::default_cells();
  std::string name = mpsmodel::kDefaultCellsName;
  std::optional<Scenario> sc;
};
bool load_settings(const PredictArgs& a, Settings& s, std::vector<std::string>& warnings) {
  try {
    mpsmodel::find_revision(a.revision);
    if (!a.scenario.empty()) {
      s.sc = load_scenario(a.scenario, warnings);
      s.cells = settings_of(*s.sc);
      s.name = s.sc->name + " (" + a.scenario + ")";
      if (s.sc->device != "mps" && s.sc->device != "mps-model")
        warnings.push_back("scenario device is \"" + s.sc->device + "\": predict shows the MPS watermark policy only");
    }
  } catch (const std::exception& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return false;
  }
  return true;
}

// The Mac: gather() and its errors as exit codes (0: go on).
int gather_machine(const PredictArgs& a, MachineView& m, std::vector<std::string>& warnings) {
  try {
    m = gather(a, warnings);
  } catch (const UnitError& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return kExitUsage;
  } catch (const RunRefused& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return e.exit_code;
  }
  if (m.ram == 0) {
    std::cerr << "wmbench predict: cannot tell this machine's RAM; use --ram SIZE\n";
    return kExitUsage;
  }
  return kExitOk;
}

// The pasted error's other allocations and step, then an explicit --other-allocations, which wins.
bool apply_other(const PredictArgs& a, const std::optional<FromError>& from, mpsmodel::FillPlan& plan) {
  if (from) {
    plan.params.other_bytes = from->other;
    if (from->step && *from->step > 0) plan.step = *from->step;
  }
  if (a.other.empty()) return true;
  try {
    plan.params.other_bytes = check_other_bytes(parse_size(a.other, true), "--other-allocations");
  } catch (const UnitError& e) {
    std::cerr << "wmbench predict: --other-allocations: " << e.what() << '\n';
    return false;
  }
  return true;
}

void print_report(const PredictArgs& a, const mpsmodel::PredictReport& report, const std::optional<FromError>& from,
                  bool has_scenario) {
  if (a.json) {
    nlohmann::json j = mpsmodel::render_json(report);
    if (from) j["from_error"] = from_error_json(*from);
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return;
  }
  // The step-by-step section only when asked for or with a scenario: without them the output is
  // the write-up's table, unchanged.
  if (from) std::cout << from_error_line(*from);
  std::cout << mpsmodel::render_text(report, a.simulate || has_scenario || from.has_value());
  // A prediction is arithmetic; `wmbench tune` measures the setting here (tune/tune.h).
  std::cout << "\nThis is a prediction. To measure the highest setting that ends cleanly on this machine, with the "
               "apps open now:\n  wmbench tune                                   (the fill)\n"
               "  wmbench tune --command -- python3 train.py     (your own job)\n";
  for (const auto& w : report.warnings) std::cerr << "warning: " << w << '\n';
}

}  // namespace

int run_predict(const PredictArgs& args) {
  if (args.revision == "list") {
    std::cout << mpsmodel::revision_table();
    return kExitOk;
  }
  PredictArgs a = args;
  std::optional<FromError> from;
  if (!a.from_error.empty()) {
    from = read_from_error(a);
    if (!from) return kExitUsage;
    // The pasted Mac: its recommended max, and its RAM class unless --ram says it.
    if (a.recommended_max.empty()) a.recommended_max = std::to_string(from->recommended_max);
    if (a.ram.empty() && from->likely_ram) a.ram = std::to_string(*from->likely_ram);
  }
  std::vector<std::string> warnings;
  Settings s;
  if (!load_settings(a, s, warnings)) return kExitUsage;
  MachineView m;
  if (const int code = gather_machine(a, m, warnings)) return code;
  auto plan = fill_plan(s.sc, m, a.revision);
  if (!apply_other(a, from, plan)) return kExitUsage;
  if (s.sc) {
    try {
      apply_cell_wired_limits(*s.sc, m.ram, s.cells);  // a cell's "sysctl": its own recommended max
    } catch (const UnitError& e) {
      std::cerr << "wmbench predict: " << e.what() << '\n';
      return kExitUsage;
    }
  }
  if (from) {
    m.recommended_source = from_error_source(*from);
    if (!args.ram.empty()) m.ram_source = "--ram";
    else if (from->likely_ram) m.ram_source = "--from-error: the likely RAM class for that recommended max";
  }
  print_report(a, mpsmodel::make_report(m, s.name, s.cells, plan, warnings), from, s.sc.has_value());
  std::cout.flush();
  return kExitOk;
}

}  // namespace wmb::inspect
