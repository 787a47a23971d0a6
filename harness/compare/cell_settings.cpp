#include "compare/cell_settings.h"

#include <set>

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/terminal_text.h"
#include "common/units.h"
#include "io/utf8.h"

namespace wmb::compare {

using nlohmann::json;

namespace {

constexpr size_t kValueChars = 48;  // an env value may be 64 KiB: a verdict shows its start

// One value on one line: a string as it is (cut, control characters escaped), "" for an empty one;
// anything else as JSON.
std::string value_text(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return s.empty() ? "\"\"" : escape_controls_line(utf8_sanitize(s, kValueChars));
  }
  return escape_controls_line(json_preview(v, kValueChars));
}

std::map<std::string, std::string> env_of(const json& obj, bool pytorch_only) {
  std::map<std::string, std::string> out;
  if (!obj.is_object()) return out;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!pytorch_only || it.key().rfind("PYTORCH_", 0) == 0) out[it.key()] = value_text(it.value());
  return out;
}

std::string text_or(const json& run, const char* key, const std::string& fallback) {
  auto it = run.find(key);
  if (it == run.end() || it->is_null()) return fallback;
  return value_text(*it);
}

std::string command_of(const json& scenario) {
  if (!scenario.is_object()) return "";
  auto it = scenario.find("command");
  if (it == scenario.end() || !it->is_array() || it->empty()) return "";
  std::string out;
  for (const auto& a : *it) out += (out.empty() ? "" : " ") + value_text(a);
  return utf8_sanitize(out, 2 * kValueChars);
}

std::string name(const std::string& key) { return escape_controls_line(utf8_sanitize(key, kValueChars)); }

void env_differences(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b,
                     const std::string& prefix, const std::set<std::string>& skip, std::vector<std::string>& out) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    if (skip.count(k)) continue;
    auto x = a.find(k), y = b.find(k);
    const std::string va = x == a.end() ? "unset" : x->second, vb = y == b.end() ? "unset" : y->second;
    if (x == a.end() || y == b.end() || x->second != y->second) out.push_back(fmt::format("{}{} {} -> {}", prefix, name(k), va, vb));
  }
}

}  // namespace

CellSettings cell_settings(const json& run, const json& scenario) {
  CellSettings s;
  if (!run.is_object()) return s;
  if (auto it = run.find("env"); it != run.end() && !it->is_null()) {
    if (it->is_object()) s.env = env_of(*it, false);
    else s.env["(env)"] = value_text(*it);  // not an object: shown, and differs from any real env
  }
  if (auto it = run.find("child_env"); it != run.end() && it->is_object()) s.child_env = env_of(*it, true);
  s.memory_fraction = text_or(run, "memory_fraction", "none");
  s.program = text_or(run, "program", "fill");
  if (s.program == "command") s.command = command_of(scenario);
  s.data = text_or(run, "data", "random");
  if (auto it = run.find("step_bytes"); it != run.end() && it->is_number_unsigned() && it->get<uint64_t>() > 0)
    s.step_bytes = it->get<uint64_t>();
  return s;
}

std::vector<std::string> settings_differences(const CellSettings& a, const CellSettings& b) {
  std::vector<std::string> out;
  env_differences(a.env, b.env, "", {}, out);
  if (a.memory_fraction != b.memory_fraction)
    out.push_back(fmt::format("memory_fraction {} -> {}", a.memory_fraction, b.memory_fraction));
  if (a.program != b.program) out.push_back(fmt::format("program {} -> {}", a.program, b.program));
  else if (!a.command.empty() && !b.command.empty() && a.command != b.command)
    out.push_back(fmt::format("command {} -> {}", a.command, b.command));
  if (a.data != b.data) out.push_back(fmt::format("data {} -> {}", a.data, b.data));
  if (a.step_bytes && b.step_bytes && *a.step_bytes != *b.step_bytes)
    out.push_back(fmt::format("step {} -> {}", format_size(*a.step_bytes), format_size(*b.step_bytes)));
  if (a.child_env && b.child_env) {
    // What the child saw beyond what the cell set: a variable of the environment wmbench ran in
    // (child_environment() keeps PYTORCH_* other than PYTORCH_MPS_* and PYTORCH_CUDA_ALLOC_CONF).
    std::set<std::string> said;
    for (const auto& [k, v] : a.env) said.insert(k);
    for (const auto& [k, v] : b.env) said.insert(k);
    env_differences(*a.child_env, *b.child_env, "the child saw ", said, out);
  }
  return out;
}

std::vector<std::string> label_settings_differ(const std::vector<const json*>& base_runs,
                                               const std::vector<const json*>& new_runs, const json& base_scenario,
                                               const json& new_scenario) {
  std::vector<std::string> out;
  if (base_runs.empty() || new_runs.empty()) return out;
  const CellSettings b = cell_settings(*base_runs.front(), base_scenario);
  const CellSettings n = cell_settings(*new_runs.front(), new_scenario);
  out = settings_differences(b, n);
  auto within = [&](const std::vector<const json*>& runs, const CellSettings& first, const json& scenario,
                    const char* side) {
    std::set<std::string> seen;
    for (size_t i = 1; i < runs.size(); ++i)
      for (const auto& d : settings_differences(first, cell_settings(*runs[i], scenario)))
        if (seen.insert(d).second) out.push_back(fmt::format("the repeats in {} differ: {}", side, d));
  };
  within(base_runs, b, base_scenario, "base");
  within(new_runs, n, new_scenario, "new");
  return out;
}

}  // namespace wmb::compare
