// --resume finishes the folder's own plan with the folder's own settings: a run of it with other
// sizes or another device would put records of two different experiments side by side.
#include <fmt/format.h>

#include "io/json_input.h"
#include "results/folder_schema.h"
#include "common/run_error.h"
#include "runner/stages.h"

namespace wmb {
namespace {

// Each key of `want` (the folder's) whose value in `got` (this session's) differs, as
// "key: folder has X, this run has Y"; nested objects by dotted key.
void differences(const nlohmann::json& want, const nlohmann::json& got, const std::string& prefix,
                 std::vector<std::string>& out) {
  for (auto it = want.begin(); it != want.end(); ++it) {
    const std::string key = prefix + it.key();
    const nlohmann::json other = got.contains(it.key()) ? got[it.key()] : nlohmann::json(nullptr);
    if (it->is_object() && other.is_object()) {
      differences(*it, other, key + ".", out);
    } else if (*it != other) {
      out.push_back(fmt::format("{}: the folder has {}, this run has {}", key, json_shown(*it, 120), json_shown(other, 120)));
    }
  }
}

nlohmann::json resolved_now(const ResolvedSizes& z) {
  return {{"ram_bytes", z.ram},
          {"step_bytes", z.step},
          {"cap_bytes", z.cap ? nlohmann::json(*z.cap) : nlohmann::json(nullptr)},
          {"swap_budget_bytes", z.swap_budget}};
}

}  // namespace

void check_resume_matches(const RunnerOptions& opts, const HeldFolder& held, const ResolvedSizes& sizes) {
  const Folder& f = held.folder;
  nlohmann::json parsed;
  Scenario folder_sc;
  try {
    folder_sc = check_folder_scenario_json(f.read("scenario.json", kMaxScenarioBytes), f.display("scenario.json"), parsed);
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  nlohmann::json want = to_json(folder_sc), got = to_json(opts.scenario);
  // --step also drops min_steps (a given step is not shrunk): the resolved step below says
  // whether the step really differs.
  want.erase("min_steps");
  got.erase("min_steps");
  std::vector<std::string> diff;
  differences(want, got, "", diff);
  if (parsed.contains("resolved") && parsed["resolved"].is_object()) {
    nlohmann::json was = nlohmann::json::object();
    for (const char* k : {"ram_bytes", "step_bytes", "cap_bytes", "swap_budget_bytes"})
      if (parsed["resolved"].contains(k)) was[k] = parsed["resolved"][k];
    differences(was, resolved_now(sizes), "resolved.", diff);
  }
  // The sandbox: load_resume keeps the folder's unless --ram-limit is given.
  try {
    if (f.exists("machine.json")) {
      const nlohmann::json m = f.read_json("machine.json");
      check_machine_json(m, f.display("machine.json"));
      const nlohmann::json sb = m.contains("sandbox") && m["sandbox"].is_object() && m["sandbox"].contains("ram_limit_bytes")
                                    ? m["sandbox"]["ram_limit_bytes"]
                                    : nlohmann::json(nullptr);
      const nlohmann::json now = opts.ram_limit ? nlohmann::json(*opts.ram_limit) : nlohmann::json(nullptr);
      if (sb != now) diff.push_back(fmt::format("--ram-limit: the folder has {}, this run has {}", json_shown(sb, 120), json_shown(now, 120)));
    }
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  if (diff.empty()) return;
  std::string all;
  for (const auto& d : diff) all += "\n  " + d;
  throw RunRefused(fmt::format(
      "--resume {}: this run would differ from the folder's scenario.json, so its records would not belong to the "
      "same experiment; refusing. Resume without those options, or start a new folder:{}",
      f.path(), all));
}

}  // namespace wmb
