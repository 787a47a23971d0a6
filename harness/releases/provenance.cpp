// What each release really installed (releases.h: Provenance): every distribution its interpreter
// sees (importlib.metadata: the same list as `pip freeze` / `uv pip freeze`, for a pip env, a uv
// env or a --python of your own), the wheels of the install with their file names and sha256 (pip's
// `--report`), the index; written beside releases.json (provenance/<folder>.txt) and compared
// between neighbours (added, removed, bumped packages).
#include <algorithm>

#include <fmt/format.h>

#include "io/files.h"
#include "readback/package_freeze.h"
#include "releases/releases.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "spawn/process.h"
#include "io/utf8.h"

namespace wmb::releases {
namespace {

// {"name": "version", ...} of every distribution on sys.path, names as their metadata says.
constexpr const char* kFreeze =
    "import json, importlib.metadata as md\n"
    "out = {}\n"
    "for d in md.distributions():\n"
    "    n = d.metadata['Name']\n"
    "    if n and n not in out:\n"
    "        out[n] = d.version\n"
    "print(json.dumps(out))\n";

bool plain(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ||
           c == '+' || c == '!';
  });
}

}  // namespace

std::map<std::string, std::string> installed_packages(const std::string& python) {
  const CommandOutput r = run_short_command(isolated_python_argv(python, {"-c", kFreeze}), 60, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  if (r.interrupted) throw EnvError(fmt::format("{}: stopped while it listed its packages", python), 128 + r.interrupted);
  nlohmann::json j;
  try {
    const size_t end = r.out.find_last_not_of("\r\n");
    const size_t start = end == std::string::npos ? 0 : r.out.rfind('\n', end);
    j = nlohmann::json::parse(r.out.substr(start == std::string::npos ? 0 : start + 1));
  } catch (const nlohmann::json::exception&) {
    throw EnvError(fmt::format("{}: cannot list its installed packages ({})", python, r.failure()));
  }
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (const auto& [name, version] : j.items())
    if (version.is_string() && plain(name, 200) && plain(version.get<std::string>(), 100) && out.size() < 10000)
      out[name] = version.get<std::string>();
  return out;
}

nlohmann::json wheels_from_report(const nlohmann::json& report) {
  nlohmann::json out = nlohmann::json::array();
  if (!report.is_object() || !report.contains("install") || !report["install"].is_array()) return out;
  for (const auto& item : report["install"]) {
    if (!item.is_object() || out.size() >= 10000) continue;
    const nlohmann::json md = item.value("metadata", nlohmann::json::object());
    const nlohmann::json di = item.value("download_info", nlohmann::json::object());
    const std::string url = di.is_object() ? di.value("url", "") : "";
    nlohmann::json w = {{"name", md.is_object() ? md.value("name", "") : ""},
                        {"version", md.is_object() ? md.value("version", "") : ""},
                        {"file", url.substr(url.find_last_of('/') == std::string::npos ? 0 : url.find_last_of('/') + 1)},
                        {"url", std::string(utf8_prefix(url, 4096))},
                        {"sha256", nullptr}};
    const nlohmann::json ai = di.is_object() ? di.value("archive_info", nlohmann::json::object()) : nlohmann::json::object();
    if (ai.is_object() && ai.contains("hashes") && ai["hashes"].is_object() && ai["hashes"].contains("sha256") &&
        ai["hashes"]["sha256"].is_string())
      w["sha256"] = ai["hashes"]["sha256"];
    else if (ai.is_object() && ai.contains("hash") && ai["hash"].is_string() && ai["hash"].get<std::string>().rfind("sha256=", 0) == 0)
      w["sha256"] = ai["hash"].get<std::string>().substr(7);
    out.push_back(w);
  }
  return out;
}

std::vector<std::string> package_changes(const std::map<std::string, std::string>& base,
                                         const std::map<std::string, std::string>& now) {
  std::vector<std::string> bumped, added, removed;
  for (const auto& [n, v] : now) {
    const auto it = base.find(n);
    if (it == base.end())
      added.push_back(n + " " + v);
    else if (it->second != v)
      bumped.push_back(fmt::format("{} {} -> {}", n, it->second, v));
  }
  for (const auto& [n, v] : base)
    if (!now.count(n)) removed.push_back(n + " " + v);
  std::vector<std::string> out;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!bumped.empty()) out.push_back("bumped: " + join(bumped));
  if (!added.empty()) out.push_back("added: " + join(added));
  if (!removed.empty()) out.push_back("removed: " + join(removed));
  return out;
}

nlohmann::json provenance_json(const Release& r) {
  if (!r.packages_known) return nullptr;
  return {{"packages", r.packages},
          {"freeze_file", "provenance/" + r.folder + ".txt"},
          {"wheels", r.wheels},
          {"index", r.index},
          {"installer", r.installer.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.installer)}};
}

void write_provenance(const Folder& dir, const std::vector<Release>& rs) {
  try {
    if (!dir.exists("provenance")) dir.make_dir("provenance");
    for (const auto& r : rs)
      if (r.packages_known) dir.write_atomic("provenance/" + r.folder + ".txt", freeze_text(r.packages));
  } catch (const FileError& e) {
    throw EnvError(e.what(), 1);
  }
}

}  // namespace wmb::releases
