#include "runner/run_input.h"

#include <fmt/format.h>

#include "common/files.h"

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
  const std::string sj = dir + "/scenario.json";
  if (!path_exists(sj))
    throw RunInputError(fmt::format("--resume {}: no scenario.json there; is it a wmbench result folder?", dir));
  o.scenario = parse_scenario(read_file(sj), sj, warnings);
  o.resume_dir = dir;
  // The sandbox and model of the first session are kept.
  auto machine = path_exists(dir + "/machine.json") ? read_json_file(dir + "/machine.json") : nlohmann::json{};
  if (!o.ram_limit && machine.contains("sandbox") && machine["sandbox"].is_object())
    o.ram_limit = machine["sandbox"].value("ram_limit_bytes", uint64_t{0});
  if (machine.contains("model") && machine["model"].is_object()) {
    o.model_mac_ram = machine["model"].value("mac_ram_bytes", uint64_t{48} << 30);
    o.recommended_max = machine["model"].value("recommended_max_bytes", uint64_t{0});
  }
}

}  // namespace wmb
