// `wmbench compare --json`: one JSON object for a Comparison.
#include "compare/compare.h"

#include "compare/comparable.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/files.h"
#include "compare/cell_settings.h"
#include "readback/folder_device.h"
#include "readback/verify_runs.h"
#include "common/units.h"
#include "results/run_record.h"
#include "results/summary_stream.h"

namespace wmb::compare {

namespace fs = std::filesystem;
using nlohmann::json;


namespace {

json side_json(const SideInfo& s) {
  return {{"folder", s.path},           {"scenario", s.scenario}, {"device", s.device},
          {"torch_version", s.torch_version}, {"torch_library", s.torch_library}, {"child", s.child},
          {"os_version", s.os_version}, {"chip", s.chip},
          {"date", s.date},             {"runs", s.runs},         {"not_run", s.not_run}};
}

json stats_json(const SideStats& s) {
  if (s.repeats == 0) return nullptr;
  return {{"repeats", s.repeats},
          {"stopped_by", s.stopped_by},
          {"stopped_by_text", stopped_by_text(s)},
          {"held_bytes_median", json_or_null(s.held_median)},
          {"held_bytes_min", json_or_null(s.held_min)},
          {"held_bytes_max", json_or_null(s.held_max)},
          {"max_allowed_bytes", json_or_null(s.max_allowed)},
          {"swap_growth_bytes", json_or_null(s.swap_growth)}};
}

json change_json(const SizeChange& c) {
  return {{"base_bytes", json_or_null(c.base)},   {"new_bytes", json_or_null(c.now)},           {"change_pct", json_or_null(c.change_pct)},
          {"direction", c.direction()}, {"over_tolerance", c.over_tolerance}, {"changed", c.changed}};
}

const char* kind_name(RowKind k) {
  switch (k) {
    case RowKind::compared: return "compared";
    case RowKind::only_in_base: return "only_in_base";
    case RowKind::only_in_new: return "only_in_new";
  }
  return "?";
}

}  // namespace

json to_json(const Comparison& c) {
  json rows = json::array();
  for (const auto& r : c.rows) {
    json row = {{"label", r.label},
                {"status", kind_name(r.kind)},
                {"base", stats_json(r.base)},
                {"new", stats_json(r.now)},
                {"regression", r.regression},
                {"reasons", r.reasons},
                {"notes", r.notes},
                {"verdict", r.verdict},
                {"settings_differ", r.settings_differ}};
    if (r.kind == RowKind::compared) {
      row["stop_reason_changed"] = r.stop_reason_changed;
      row["held"] = change_json(r.held);
      row["held"]["spread"] = r.held_spread == Spread::beyond   ? json("beyond")
                              : r.held_spread == Spread::within ? json("within")
                                                                : json(nullptr);
      row["max_allowed"] = change_json(r.max_allowed);
    }
    rows.push_back(std::move(row));
  }
  return {{"base", side_json(c.base)}, {"new", side_json(c.now)}, {"scenario", c.base.scenario},
          {"tolerance_pct", c.tolerance_pct}, {"notes", c.notes}, {"not_comparable", c.not_comparable},
          {"rows", std::move(rows)},
          {"regressions", c.regressions}, {"settings_differ", c.settings_differ}, {"compared", c.compared},
          // "ok": no regression may be claimed; "exit_code": what `wmbench compare` exits with.
          {"ok", c.claims_no_regression()}, {"exit_code", c.exit_code()}};
}

}  // namespace wmb::compare
