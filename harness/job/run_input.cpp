#include "tools/locate.h"
#include "job/run_input.h"

#include <fmt/format.h>

#include "io/files.h"
#include "io/json_input.h"
#include "mpsmodel/revision.h"
#include "results/folder_schema.h"
#include "common/limits.h"

namespace wmb {

std::string find_scenario_file(const std::string& arg) {
  std::string path = arg;
  if (path.empty()) {
    path = find_repo_file("scenarios/mps-watermark.json");
    if (path.empty())
      throw RunInputError("no SCENARIO given and scenarios/mps-watermark.json was not found next to wmbench");
  } else if (!path_exists(path) && path.find('/') == std::string::npos) {
    const bool has_ext = path.size() > 5 && path.substr(path.size() - 5) == ".json";
    std::string named = find_repo_file("scenarios/" + path + (has_ext ? "" : ".json"));
    if (!named.empty()) path = named;
  }
  if (!path_exists(path)) throw RunInputError(fmt::format("scenario file {} does not exist", path));
  return path;
}

void load_resume(const std::string& dir, RunnerOptions& o, std::vector<std::string>& warnings) {
  // Inside the folder, never through a planted link; machine.json checked by its schema.
  Folder f(dir);
  if (!f.exists("scenario.json"))
    throw RunInputError(fmt::format("--resume {}: no scenario.json there; is it a wmbench result folder?", dir));
  nlohmann::json parsed;
  o.scenario = check_folder_scenario_json(f.read("scenario.json", kMaxScenarioBytes), f.display("scenario.json"), parsed);
  (void)warnings;  // the scenario was checked when the folder was made
  o.resume_dir = dir;
  // The sandbox and model of the first session are kept.
  nlohmann::json machine = nlohmann::json::object();
  if (f.exists("machine.json")) {
    machine = f.read_json("machine.json");
    check_machine_json(machine, f.display("machine.json"));
  }
  // The schema checked these are sizes >= 0 or null/absent; a null reads as the default.
  auto size_or = [](const nlohmann::json& obj, const char* key, uint64_t dflt) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number_integer()) return dflt;
    return it->is_number_unsigned() ? it->get<uint64_t>() : static_cast<uint64_t>(it->get<int64_t>());
  };
  if (!o.ram_limit && machine.contains("sandbox") && machine["sandbox"].is_object())
    o.ram_limit = size_or(machine["sandbox"], "ram_limit_bytes", 0);
  if (machine.contains("model") && machine["model"].is_object()) {
    // The bounds of --model-mac-ram and --recommended-max (common/limits.h): a folder whose
    // model says 0 would record every cell as `config`.
    try {
      o.model_mac_ram = check_model_bytes(size_or(machine["model"], "mac_ram_bytes", uint64_t{48} << 30),
                                          "machine.json model.mac_ram_bytes");
      const auto rec = machine["model"].find("recommended_max_bytes");
      if (rec != machine["model"].end() && rec->is_number_integer())
        o.recommended_max = check_model_bytes(size_or(machine["model"], "recommended_max_bytes", 0),
                                              "machine.json model.recommended_max_bytes");
    } catch (const UnitError& e) {
      throw RunInputError(fmt::format("--resume {}: {}", dir, e.what()));
    }
    // The child's "other allocations" as it said them (its hello, machine.json model.other_bytes):
    // the resumed cells run with the same, whatever the default is now.
    const auto other = machine["model"].find("other_bytes");
    if (other != machine["model"].end() && other->is_number_integer()) {
      try {
        o.model_other = check_other_bytes(size_or(machine["model"], "other_bytes", 0), "machine.json model.other_bytes");
      } catch (const UnitError& e) {
        throw RunInputError(fmt::format("--resume {}: {}", dir, e.what()));
      }
    }
    const auto rev = machine["model"].find("revision");
    if (rev != machine["model"].end() && !rev->is_null()) {
      if (!rev->is_string())
        throw RunInputError(fmt::format("--resume {}: machine.json \"model.revision\" is {}, not a name; allowed: {}", dir,
                                        rev->dump(), mpsmodel::revision_names()));
      try {
        o.model_revision = mpsmodel::find_revision(rev->get<std::string>()).name;
      } catch (const std::invalid_argument& e) {
        throw RunInputError(fmt::format("--resume {}: machine.json \"model.revision\": {}", dir, e.what()));
      }
    }
  }
}

void apply_model_revision(const std::string& name, RunnerOptions& o) {
  if (name.empty()) return;
  // `--model-revision list` is answered by the command (cmd_run.cpp) before anything is loaded.
  std::string valid;
  try {
    valid = mpsmodel::find_revision(name).name;
  } catch (const std::invalid_argument& e) {
    throw RunInputError(std::string("--model-revision: ") + e.what());
  }
  if (o.scenario.device != "mps-model")
    throw RunInputError(fmt::format("--model-revision applies only to device mps-model (the model of the MPS allocator); "
                                    "this run's device is {}",
                                    o.scenario.device));
  if (!o.resume_dir.empty() && valid != o.model_revision)
    throw RunInputError(fmt::format("--model-revision {}: {} was run with revision {}; a folder holds one revision "
                                    "(resume without --model-revision, or start a new folder)",
                                    valid, o.resume_dir, o.model_revision));
  o.model_revision = valid;
}

}  // namespace wmb
