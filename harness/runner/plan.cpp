// The plan: the cells (after --only), cells x repeats in order, and what --resume already has.
#include <algorithm>

#include <fmt/format.h>

#include "common/files.h"
#include "results/report.h"
#include "runner/run_error.h"
#include "runner/stages.h"

namespace wmb {
namespace {

void check_only_labels(const Scenario& sc, const std::vector<std::string>& only) {
  for (const auto& o : only) {
    if (std::any_of(sc.matrix.begin(), sc.matrix.end(), [&](const Cell& c) { return c.label == o; })) continue;
    std::vector<std::string> labels;
    for (const auto& c : sc.matrix) labels.push_back(c.label);
    std::string hint = did_you_mean(o, labels), all;
    for (const auto& l : labels) all += (all.empty() ? "" : ", ") + l;
    throw RunRefused(fmt::format("--only: no cell is labelled \"{}\"{}; the cells of {} are: {}", o,
                                 hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint), sc.name, all));
  }
}

// (label, repeat) of the runs a resumed folder finished: interrupted and not started ones run again.
std::set<std::pair<std::string, int>> finished_in(const std::string& dir) {
  std::set<std::pair<std::string, int>> done;
  try {
    for (const auto& r : load_report(dir).runs)
      if (r.stopped_by != "interrupted" && r.stopped_by != "not_started") done.insert({r.label, r.repeat});
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  return done;
}

}  // namespace

Plan make_plan(const RunnerOptions& opts) {
  const Scenario& sc = opts.scenario;
  Plan p;
  for (const auto& c : sc.matrix)
    if (opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), c.label) != opts.only.end()) p.cells.push_back(&c);
  check_only_labels(sc, opts.only);
  for (int rep = 1; rep <= sc.repeats; ++rep)
    for (size_t i = 0; i < p.cells.size(); ++i)
      p.runs.push_back({static_cast<int>((rep - 1) * p.cells.size() + i + 1), p.cells[i], rep});
  if (!opts.resume_dir.empty()) p.done_before = finished_in(opts.resume_dir);
  return p;
}

}  // namespace wmb
