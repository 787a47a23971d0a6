// A History as one JSON object, for tools: the series, their folders, each setting's cells and
// the neighbour comparisons exactly as `wmbench compare --json` writes them.
#include "history/history.h"
#include "io/files.h"

namespace wmb::history {

namespace {

using nlohmann::json;

json folder_json(const FolderInfo& f) {
  return {{"folder", f.side.path},
          {"scenario", f.side.scenario},
          {"device", f.side.device},
          {"date", f.side.date},
          {"started_utc", f.started_utc.empty() ? json(nullptr) : json(f.started_utc)},
          {"torch_version", f.side.torch_version},
          {"child", f.child},
          {"machine", f.machine},
          {"chip", f.side.chip},
          {"ram_bytes", json_or_null(f.ram_bytes)},
          {"os", f.os},
          // On cuda this is the device's total memory (what machine.json records there).
          {f.side.device == "cuda" ? "device_memory_bytes" : "recommended_max_bytes", json_or_null(f.recommended_max)},
          {"setup", f.setup},
          {"runs", f.side.runs},
          {"not_run", f.side.not_run}};
}

const char* kind_name(compare::RowKind k) {
  switch (k) {
    case compare::RowKind::compared: return "compared";
    case compare::RowKind::only_in_base: return "only_in_previous";
    case compare::RowKind::only_in_new: return "only_in_this";
  }
  return "?";
}

json cell_json(const Cell& c) {
  json j = {{"present", c.present}};
  if (c.present) {
    j["repeats"] = c.stats.repeats;
    j["stopped_by"] = c.stats.stopped_by;
    j["stopped_by_text"] = compare::stopped_by_text(c.stats);
    j["held_bytes_median"] = json_or_null(c.stats.held_median);
    j["held_bytes_min"] = json_or_null(c.stats.held_min);
    j["held_bytes_max"] = json_or_null(c.stats.held_max);
    j["max_allowed_bytes"] = json_or_null(c.stats.max_allowed);
    j["swap_growth_bytes"] = json_or_null(c.stats.swap_growth);
  }
  if (c.compared) {
    j["vs_previous"] = {{"status", kind_name(c.kind)}, {"regression", c.regression}, {"verdict", c.verdict}};
  } else {
    j["vs_previous"] = nullptr;
  }
  return j;
}

json series_json(const Series& s) {
  json folders = json::array(), settings = json::array(), steps = json::array();
  for (const auto& f : s.folders) folders.push_back(folder_json(f));
  for (const auto& set : s.settings) {
    json cells = json::array();
    for (const auto& c : set.cells) cells.push_back(cell_json(c));
    settings.push_back({{"label", set.label}, {"cells", std::move(cells)}});
  }
  for (size_t i = 0; i < s.steps.size(); ++i) {
    json step = compare::to_json(s.steps[i]);
    step["from"] = i + 1;  // 1-based folder numbers, as in the text
    step["to"] = i + 2;
    step["notes"] = s.step_notes[i];
    steps.push_back(std::move(step));
  }
  return {{"scenario", s.scenario},          {"device", s.device},
          {"folders", std::move(folders)},   {"settings", std::move(settings)},
          {"steps", std::move(steps)},       {"newest_regressed", s.newest_regressed()},
          {"newest_not_comparable", s.newest_not_comparable()}};
}

}  // namespace

nlohmann::json to_json(const History& h) {
  json series = json::array(), skipped = json::array();
  for (const auto& s : h.series) series.push_back(series_json(s));
  for (const auto& k : h.skipped) skipped.push_back({{"folder", k.path}, {"scenario", k.scenario}, {"device", k.device}});
  return {{"order", order_name(h.order)},
          {"tolerance_pct", h.tolerance_pct},
          {"scenario", h.only_scenario.empty() ? json(nullptr) : json(h.only_scenario)},
          {"series", std::move(series)},
          {"skipped", std::move(skipped)},
          {"regressed", h.regressed()}};
}

}  // namespace wmb::history
