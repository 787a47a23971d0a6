#include "results/report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "io/files.h"
#include "io/json_input.h"
#include "results/folder_schema.h"

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

std::string create_named_result_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0)
    throw FileError(fmt::format("cannot create result folder {}: {}", dir, std::strerror(errno)));
  make_dirs(dir + "/runs");
  return dir;
}

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// One cell (label, repeat) has one record. When several run files hold the same one, none is
// trusted (which is the measurement?): every copy is named and all are left out, so report,
// check, compare, history and --resume see the cell as not run until a person keeps one.
void drop_duplicates(const Folder& f, Report& r, const std::vector<std::string>& files) {
  std::map<std::pair<std::string, int>, std::vector<size_t>> where;
  for (size_t i = 0; i < r.runs.size(); ++i) where[{r.runs[i].label, r.runs[i].repeat}].push_back(i);
  std::set<size_t> drop;
  for (const auto& [key, idx] : where) {
    if (idx.size() < 2) continue;
    std::string names;
    for (size_t i : idx) {
      names += (names.empty() ? "" : ", ") + f.display(files[i]);
      drop.insert(i);
    }
    r.duplicates.push_back(fmt::format("{} run files hold the same cell \"{}\" repeat {}: {}; all are left out (keep "
                                       "the one that is the measurement, remove the others)",
                                       idx.size(), key.first, key.second, names));
    r.problems.push_back(r.duplicates.back());
  }
  if (drop.empty()) return;
  std::vector<RunRecord> kept;
  for (size_t i = 0; i < r.runs.size(); ++i)
    if (!drop.count(i)) kept.push_back(std::move(r.runs[i]));
  r.runs = std::move(kept);
}

void load_runs(const Folder& f, Report& r) {
  if (!f.exists("runs")) return;
  std::vector<std::string> files;  // the file of each record in r.runs
  // summary.json holds every record: run files of more than its readers' bound together could
  // never be summed up, and holding them all is what made report's memory unbounded. Reading
  // stops there (report and check say so; the files are left as they are).
  size_t total = 0;
  for (const auto& e : f.list("runs")) {
    if (!ends_with(e.name, ".json")) continue;
    const std::string rel = "runs/" + e.name;
    if (!S_ISREG(e.mode)) {
      r.problems.push_back(fmt::format("{}: it is {}, not a regular file; left out", f.display(rel), file_kind(e.mode)));
      continue;
    }
    try {
      std::vector<std::string> unknown;
      const std::string text = f.read(rel, kMaxRunRecordBytes);
      if (total + text.size() > kMaxFolderJsonBytes) {
        r.problems.push_back(fmt::format("{}: runs/ holds more than {} bytes of run files, the most that summary.json "
                                         "(which holds every record) may have; reading stops here: this file and those "
                                         "after it are left out",
                                         f.display(rel), kMaxFolderJsonBytes));
        r.runs_past_bound = true;
        break;
      }
      total += text.size();
      r.runs.push_back(run_from_json(parse_json_text(text, f.display(rel), kMaxRunRecordBytes), f.display(rel), "", &unknown));
      files.push_back(rel);
      for (const auto& k : unknown) r.notes.push_back(fmt::format("{}: unknown key \"{}\" ignored", f.display(rel), k));
    } catch (const FileError& ex) {
      r.problems.push_back(std::string(ex.what()) + "; left out");
    }
  }
  drop_duplicates(f, r, files);
  std::stable_sort(r.runs.begin(), r.runs.end(), [](const RunRecord& a, const RunRecord& b) { return a.index < b.index; });
}

}  // namespace

Report load_report(const std::string& dir, const std::string& why_missing) {
  Report r;
  r.dir = dir;
  Folder f(dir);
  if (!f.exists("runs") && !f.exists("scenario.json"))
    throw FileError(fmt::format("{}: not a wmbench result folder (no runs/ and no scenario.json)", dir));
  if (f.exists("machine.json")) {
    nlohmann::json m = f.read_json("machine.json", kMaxFolderJsonBytes);
    std::vector<std::string> unknown;
    check_machine_json(m, f.display("machine.json"), "", &unknown);
    for (const auto& k : unknown) r.notes.push_back(fmt::format("{}: unknown key \"{}\" kept", f.display("machine.json"), k));
    r.machine = std::move(m);
  }
  std::optional<Scenario> sc;
  if (f.exists("scenario.json"))
    sc = check_folder_scenario_json(f.read("scenario.json", kMaxScenarioBytes), f.display("scenario.json"), r.scenario);
  load_runs(f, r);
  // Planned runs without a usable file.
  if (sc) {
    std::set<std::pair<std::string, int>> have;
    for (const auto& run : r.runs) have.insert({run.label, run.repeat});
    for (int rep = 1; rep <= sc->repeats; ++rep)
      for (const auto& c : sc->matrix)
        if (!have.count({c.label, rep})) r.not_run.push_back({c.label, rep, why_missing});
  }
  return r;
}

void write_report(const Report& r) {
  Folder f(r.dir);
  std::string refused;  // a file over its readers' bound (summary.json): the others are still written
  for (const auto& e : all_exporters()) {
    std::string text;
    try {
      text = e->render(r);
    } catch (const FileError& ex) {
      refused += (refused.empty() ? "" : "; ") + std::string(ex.what());
      continue;
    } catch (const std::exception& ex) {
      // The loader checked every field the exporters read; this is a bug, said as one.
      throw FileError(fmt::format("cannot render {}: {} (a wmbench bug: please report it)", f.display(e->file_name()), ex.what()));
    }
    f.write_atomic(e->file_name(), text);
  }
  if (!refused.empty()) throw FileError(refused);
}

std::string device_in(const nlohmann::json& j) {
  return j.is_object() && j.contains("device") && j["device"].is_string() ? j["device"].get<std::string>() : "";
}

std::optional<std::string> device_disagreement(const Report& r) {
  const std::string mdev = device_in(r.machine), sdev = device_in(r.scenario);
  const std::string believed = mdev.empty() ? sdev : mdev;
  if (believed.empty()) return std::nullopt;
  std::vector<std::string> others;
  if (!sdev.empty() && sdev != believed) others.push_back(fmt::format("scenario.json says \"{}\"", sdev));
  std::map<std::string, std::vector<std::string>> runs_by_device;  // device -> run files
  for (const auto& run : r.runs)
    if (!run.device.empty() && run.device != believed) runs_by_device[run.device].push_back(run.file_stem() + ".json");
  for (const auto& [dev, files] : runs_by_device) {
    std::string names;
    for (size_t i = 0; i < files.size() && i < 3; ++i) names += std::string(i ? ", " : "") + "runs/" + files[i];
    if (files.size() > 3) names += fmt::format(" and {} more", files.size() - 3);
    others.push_back(fmt::format("{} run file{} say{} \"{}\" ({})", files.size(), files.size() == 1 ? "" : "s",
                                 files.size() == 1 ? "s" : "", dev, names));
  }
  if (others.empty()) return std::nullopt;
  std::string list;
  for (size_t i = 0; i < others.size(); ++i) list += (i ? (i + 1 == others.size() ? " and " : ", ") : "") + others[i];
  return fmt::format("{}: its files disagree on the device: summary.json and table.md give {}'s \"{}\", but {}; "
                     "compare and history refuse the folder until its files agree (`wmbench check` names each file)",
                     r.dir, mdev.empty() ? "scenario.json" : "machine.json", believed, list);
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
