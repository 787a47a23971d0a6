#include "results/folder_schema.h"

#include "common/child_kinds.h"

#include <fmt/format.h>

#include "io/json_input.h"

namespace wmb {
namespace {

const std::vector<std::string> kMachineKeys = {
    "os", "os_version", "chip", "cpus", "hostname", "ram_bytes", "swap_total_bytes", "device", "probe",
    "wmbench_version", "git_rev", "fill", "notes", "started_utc", "ended_utc", "sandbox", "model",
    "recommended_max_bytes", "torch_version", "torch_library", "torch_git_version", "child", "mac", "page_size_bytes"};

}  // namespace

void check_machine_json(const nlohmann::json& m, const std::string& source, const std::string& path,
                        std::vector<std::string>* unknown) {
  JsonObject o(m, source, path);
  // Read with .value(key, default) by the exporters: a null there is not "absent".
  for (const char* k : {"os", "os_version", "chip", "hostname", "probe", "wmbench_version", "git_rev", "fill",
                        "started_utc", "ended_utc", "torch_version", "device", "cpus", "notes"})
    o.no_null(k);
  for (const char* k : {"os", "os_version", "chip", "hostname", "probe", "wmbench_version", "git_rev", "fill",
                        "started_utc", "ended_utc", "torch_version", "torch_library", "torch_git_version"})
    o.str(k, false, 4096);
  o.choice("device", kDevices);
  o.integer("cpus", 0, 1 << 20);
  for (const char* k : {"ram_bytes", "swap_total_bytes", "recommended_max_bytes", "page_size_bytes"}) o.bytes(k);
  o.string_list("notes");
  if (auto s = o.object("sandbox")) {
    s->no_null("ram_limit_bytes");
    s->no_null("kind");
    s->bytes("ram_limit_bytes");
    s->str("kind", false, 256);
  }
  if (auto md = o.object("model")) {
    for (const char* k : {"mac_ram_bytes", "model_ram_bytes", "recommended_max_bytes", "free_bytes"}) md->bytes(k);
    md->no_null("note");
    md->number("free_fraction", 0, 1);
    md->str("note");
    md->str("revision", false, 256);
  }
  if (auto c = o.object("child")) {
    c->choice("kind", child_kinds());
    c->str("program", false, 4096);
    if (auto py = c->object("python")) {
      py->str("path", false, 4096);
      py->str("version", false, 256);
    }
  }
  if (auto mac = o.object("mac")) {
    for (const char* k : {"product_version", "build_version", "hw_model", "metal_device"}) mac->str(k, false, 256);
    mac->boolean("metal_device_virtual");
    mac->integer("iogpu_wired_limit_mb", 0, int64_t{1} << 40);
  }
  if (unknown)
    for (auto& k : o.unknown_keys(kMachineKeys)) unknown->push_back(k);
}

Scenario check_folder_scenario_json(const std::string& text, const std::string& source, nlohmann::json& parsed) {
  std::vector<std::string> warnings;
  Scenario s;
  try {
    s = parse_scenario(text, source, warnings);
  } catch (const ScenarioError& e) {
    throw InputError(e.what());
  }
  parsed = parse_json_text(text, source, kMaxScenarioBytes);
  JsonObject o(parsed, source);
  o.str("source", false, 4096);
  if (auto r = o.object("resolved")) {
    r->no_null("step_bytes");
    r->no_null("swap_budget_bytes");
    for (const char* k : {"ram_bytes", "step_bytes", "cap_bytes", "swap_budget_bytes", "offload_bytes"}) r->bytes(k);
    r->boolean("step_shrunk");
  }
  return s;
}

SummaryFile check_summary_json(const nlohmann::json& s, const std::string& source, std::vector<std::string>* unknown) {
  JsonObject o(s, source);
  SummaryFile f;
  o.integer("schema_version", 1, 1, true);
  f.scenario = o.str("scenario", false, 256).value_or("");
  f.device = o.str("device", false, 64).value_or("");
  if (o.has("machine")) {
    check_machine_json(s["machine"], source, "machine", unknown);
    f.machine = s["machine"];
  }
  if (const nlohmann::json* runs = o.array("runs", true))
    for (size_t i = 0; i < runs->size(); ++i)
      f.runs.push_back(run_from_json((*runs)[i], source, fmt::format("runs[{}]", i), unknown));
  if (const nlohmann::json* nr = o.array("not_run")) {
    for (size_t i = 0; i < nr->size(); ++i) {
      JsonObject n((*nr)[i], source, fmt::format("not_run[{}]", i));
      f.not_run.push_back({*n.str("label", true, 64), static_cast<int>(n.integer("repeat", 1, 1000).value_or(1))});
      n.str("why");
    }
  }
  if (unknown)
    for (auto& k : o.unknown_keys({"schema_version", "scenario", "device", "machine", "runs", "not_run"}))
      unknown->push_back(k);
  return f;
}

}  // namespace wmb
