#include "results/report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "common/files.h"

namespace wmb {

std::string describe_env(const std::map<std::string, std::string>& env) {
  auto hi = env.find("PYTORCH_MPS_HIGH_WATERMARK_RATIO");
  auto lo = env.find("PYTORCH_MPS_LOW_WATERMARK_RATIO");
  std::vector<std::string> parts;
  if (hi != env.end() && lo != env.end()) parts.push_back(fmt::format("HIGH {}, LOW {}", hi->second, lo->second));
  else if (hi != env.end()) parts.push_back(fmt::format("HIGH {}, LOW unset (1.4)", hi->second));
  else if (lo != env.end()) parts.push_back(fmt::format("LOW {} alone", lo->second));
  for (const auto& [k, v] : env) {
    if (k == "PYTORCH_MPS_HIGH_WATERMARK_RATIO" || k == "PYTORCH_MPS_LOW_WATERMARK_RATIO") continue;
    parts.push_back(fmt::format("{}={}", k, v));
  }
  if (parts.empty()) return "default";
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out;
}

std::string create_result_dir(const std::string& out, const std::string& date, const std::string& name) {
  make_dirs(out);
  const std::string base = fmt::format("{}/{}-{}", out, date, name);
  for (int n = 1; n < 1000; ++n) {
    std::string dir = n == 1 ? base : fmt::format("{}-{}", base, n);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      make_dirs(dir + "/runs");
      return dir;
    }
    if (errno != EEXIST) throw FileError(fmt::format("cannot create result folder {}: {}", dir, std::strerror(errno)));
  }
  throw FileError(fmt::format("cannot create result folder {}: 999 folders of that name exist", base));
}

Report load_report(const std::string& dir, const std::string& why_missing) {
  Report r;
  r.dir = dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw FileError(fmt::format("{}: not a folder", dir));
  if (!path_exists(dir + "/runs") && !path_exists(dir + "/scenario.json"))
    throw FileError(fmt::format("{}: not a wmbench result folder (no runs/ and no scenario.json)", dir));
  if (path_exists(dir + "/machine.json")) r.machine = read_json_file(dir + "/machine.json");
  if (path_exists(dir + "/scenario.json")) r.scenario = read_json_file(dir + "/scenario.json");
  std::vector<std::string> names;
  if (DIR* d = ::opendir((dir + "/runs").c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) r.runs.push_back(run_from_json(read_json_file(dir + "/runs/" + n)));
  std::sort(r.runs.begin(), r.runs.end(), [](const RunRecord& a, const RunRecord& b) { return a.index < b.index; });
  // Planned runs without a file.
  if (r.scenario.contains("matrix") && r.scenario["matrix"].is_array()) {
    std::set<std::pair<std::string, int>> have;
    for (const auto& run : r.runs) have.insert({run.label, run.repeat});
    const int repeats = r.scenario.value("repeats", 1);
    for (int rep = 1; rep <= repeats; ++rep)
      for (const auto& c : r.scenario["matrix"]) {
        std::string label = c.value("label", "");
        if (!have.count({label, rep})) r.not_run.push_back({label, rep, why_missing});
      }
  }
  return r;
}

void write_report(const Report& r) {
  for (const auto& e : all_exporters()) write_file_atomic(r.dir + "/" + e->file_name(), e->render(r));
}

std::vector<std::unique_ptr<Exporter>> all_exporters() {
  std::vector<std::unique_ptr<Exporter>> v;
  v.push_back(make_summary_exporter());
  v.push_back(make_table_exporter());
  v.push_back(make_csv_exporter());
  v.push_back(make_readme_exporter());
  return v;
}

}  // namespace wmb
