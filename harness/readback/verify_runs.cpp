#include "readback/verify_runs.h"

#include <sys/stat.h>

#include <map>
#include <set>

#include <fmt/format.h>

#include "io/files.h"
#include "io/json_input.h"
#include "readback/result_folder.h"
#include "results/report.h"

namespace wmb::compare {

void verify_summary_against_runs(const std::string& dir, const nlohmann::json& summary) {
  Report rep;
  try {
    Folder f(dir);
    const auto runs = f.stat("runs");
    if (!runs || !S_ISDIR(runs->mode)) return;
    // Only traces (an exported digest): nothing to verify against.
    bool records = false;
    for (const auto& e : f.list("runs"))
      records = records || (e.name.size() > 5 && e.name.compare(e.name.size() - 5, 5, ".json") == 0);
    if (!records) return;
    rep = load_report(dir);
  } catch (const FileError& e) {
    throw CompareError(e.what());
  }
  // `report` reads runs/ under the same bound (results/report.cpp): a folder past it is not one it
  // can rebuild, so it is not sent there (issue 30).
  const bool past_bound = rep.runs_past_bound;
  const std::string fix =
      past_bound ? fmt::format("`wmbench check {}` lists every problem; its run files are more than the {} bytes every "
                               "reader (report included) takes, so no summary of them can be rebuilt: split its runs "
                               "into folders of their own",
                               dir, kMaxFolderJsonBytes)
                 : fmt::format("`wmbench check {}` lists every problem; `wmbench report {}` rebuilds summary.json", dir, dir);
  if (!rep.problems.empty())
    throw CompareError(fmt::format("{}{}; {}", rep.problems.front(),
                                   rep.problems.size() > 1 ? fmt::format(" (and {} more problems)", rep.problems.size() - 1) : "",
                                   fix));
  std::map<std::pair<std::string, int>, const RunRecord*> disk;
  for (const auto& r : rep.runs) disk[{r.label, r.repeat}] = &r;
  std::set<std::pair<std::string, int>> seen;
  const auto it = summary.find("runs");
  if (it == summary.end() || !it->is_array()) return;  // check_summary said what is missing
  const std::string where = dir + "/summary.json";
  for (const auto& s : *it) {
    if (!s.is_object() || !s.contains("label") || !s["label"].is_string()) continue;
    const std::string label = s["label"].get<std::string>();
    const int repeat = s.contains("repeat") && s["repeat"].is_number_integer() ? s["repeat"].get<int>() : 1;
    if (!seen.insert({label, repeat}).second)
      throw CompareError(fmt::format("{}: holds cell \"{}\" repeat {} twice; {}", where, label, repeat, fix));
    const auto d = disk.find({label, repeat});
    if (d == disk.end())
      throw CompareError(fmt::format("{}: holds cell \"{}\" repeat {}, which has no run file in runs/; {}", where, label,
                                     repeat, fix));
    const nlohmann::json rec = to_json(*d->second);
    // Key by key as `wmbench check` does: a key the summary lacks reads as null (older digests).
    for (auto k = rec.begin(); k != rec.end(); ++k) {
      const nlohmann::json mine = s.contains(k.key()) ? s[k.key()] : nlohmann::json(nullptr);
      if (mine != k.value())
        throw CompareError(fmt::format("{}: cell \"{}\" repeat {}: \"{}\" is {} there but {} in runs/{}.json; {}", where,
                                       label, repeat, k.key(), json_preview(mine, 60), json_preview(k.value(), 60),
                                       d->second->file_stem(), fix));
    }
  }
  for (const auto& [key, r] : disk)
    if (!seen.count(key))
      throw CompareError(fmt::format("{}: lacks runs/{}.json (cell \"{}\" repeat {}); {}", where, r->file_stem(), key.first,
                                     key.second, fix));
}

}  // namespace wmb::compare
