// The plan: the cells, cells x repeats in order, and what --resume already has.
//
// A new folder plans the scenario's cells after --only. A resumed folder's plan is its whole
// scenario.json, always: --only narrows what runs now (Plan::now_only), never the plan, so run
// indices are never renumbered and every unfinished cell can still be resumed later.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/utf8.h"
#include "recovery/panic_cells.h"
#include "results/report.h"
#include "verdict/diagnostic_reports.h"
#include "common/run_error.h"
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

// Nothing runs that the user did not name: a cell (a downloaded scenario, a --resume folder)
// may set only the PYTORCH_* variables, or one named by --allow-env (common/env_allowlist.h).
void refuse_unallowed_env(const Scenario& sc, const std::set<std::string>& allow, const std::string& resume_dir) {
  for (const auto& c : sc.matrix) {
    const auto bad = disallowed_env(c.env, allow);
    if (bad.empty()) continue;
    std::string names;
    for (const auto& b : bad) names += (names.empty() ? "" : ", ") + utf8_sanitize(b, 64);
    throw RunRefused(fmt::format("{}cell \"{}\" sets {}; {}. Nothing was run", resume_dir.empty() ? "" : "--resume " + resume_dir + ": ",
                                 c.label, names, allowed_env_text()));
  }
}

// A run that did not start is never finished: not started (no room, probe), interrupted, or a
// child that could not be started or ended before its hello (a --fill that cannot run: no
// torch_version, no step).
bool finished(const RunRecord& r) {
  if (r.stopped_by == "interrupted" || r.stopped_by == "not_started") return false;
  if (r.stopped_by == "crash" && r.torch_version.empty() && r.steps == 0) return false;
  return true;
}

// The resumed folder's records against the plan: each is a planned (label, repeat) at its
// planned index, and no run has two records. Returns the (label, repeat) finished there.
// A cell during which the Mac panicked (recovery/panic_cells.h) is recorded first (the folder is
// locked: `held`); it is not run again unless --force says so, and naming it in --only without
// --force is refused, naming it.
void panicked_cells(const HeldFolder* held, const std::string& dir, const RunnerOptions& opts, Report& rep, std::ostream* err) {
  if (!held) return;
  const std::string who = "wmbench " + opts.resume_verb + ": --resume " + dir + ": ";
  try {
    const auto cells = record_panicked_cells(held->folder, rep, diagnostic_report_dirs());
    if (cells.empty()) return;
    if (err)
      for (const auto& c : cells) *err << who << "recorded " << panicked_cell_text(c) << ": stopped by kernel\n";
    rep = load_report(dir);
  } catch (const FileError& e) {
    throw RunRefused(who + "a cell during which the Mac panicked could not be recorded: " + e.what());
  }
}

void refuse_panicked_again(const Report& rep, const RunnerOptions& opts, std::ostream* err) {
  if (opts.force) return;
  const std::string who = "wmbench " + opts.resume_verb + ": --resume " + opts.resume_dir + ": ";
  for (const auto& r : rep.runs) {
    if (!is_panic_record(r)) continue;
    const std::string what = fmt::format("the Mac panicked during cell \"{}\" repeat {} (runs/{}.json: {})", r.label, r.repeat,
                                         r.file_stem(), utf8_sanitize(r.detail, 300));
    if (std::find(opts.only.begin(), opts.only.end(), r.label) != opts.only.end())
      throw RunRefused(who + what + "; it is not run again without --force. Nothing was run");
    if (err) *err << who << what << "; it is not run again (--force runs it again)\n";
  }
}

std::set<std::pair<std::string, int>> finished_in(const HeldFolder* held, const std::string& dir, const Plan& p,
                                                  const RunnerOptions& opts, std::ostream* err) {
  Report rep;
  try {
    rep = load_report(dir);
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  panicked_cells(held, dir, opts, rep, err);
  std::map<std::pair<std::string, int>, int> index_of;
  for (const auto& r : p.runs) index_of[{r.cell->label, r.repeat}] = r.index;
  std::map<std::pair<std::string, int>, std::string> seen;
  // Several files of one cell: none is trusted, and resuming would write over one of them.
  std::vector<std::string> wrong = rep.duplicates;
  std::set<std::pair<std::string, int>> done;
  for (const auto& r : rep.runs) {
    const std::pair<std::string, int> key{r.label, r.repeat};
    const std::string file = "runs/" + r.file_stem() + ".json";
    auto it = index_of.find(key);
    if (it == index_of.end())
      wrong.push_back(fmt::format("{}: cell \"{}\" repeat {} is not in the folder's scenario.json", file, r.label, r.repeat));
    else if (it->second != r.index)
      wrong.push_back(fmt::format("{}: run {} of \"{}\" repeat {} is run {} in the folder's scenario.json", file, r.index,
                                  r.label, r.repeat, it->second));
    else if (seen.count(key))
      wrong.push_back(fmt::format("{} and {}: two records of \"{}\" repeat {}", seen[key], file, r.label, r.repeat));
    seen.emplace(key, file);
    if (finished(r) && !(opts.force && is_panic_record(r))) done.insert(key);
  }
  if (!wrong.empty()) {
    std::string all;
    for (const auto& w : wrong) all += "\n  " + w;
    throw RunRefused(fmt::format("--resume {}: its run files do not match its scenario.json, so resuming could "
                                 "record a cell twice; refusing (`wmbench check {}` says more):{}",
                                 dir, dir, all));
  }
  if (err)
    for (const auto& pr : rep.problems) *err << "wmbench run: --resume: " << pr << "\n";
  refuse_panicked_again(rep, opts, err);
  return done;
}

}  // namespace

Plan make_plan(const RunnerOptions& opts, const HeldFolder* held, std::ostream* err) {
  const Scenario& sc = opts.scenario;
  const bool resume = !opts.resume_dir.empty();
  refuse_unallowed_env(sc, opts.allow_env, opts.resume_dir);
  Plan p;
  check_only_labels(sc, opts.only);
  for (const auto& c : sc.matrix)
    if (resume || opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), c.label) != opts.only.end())
      p.cells.push_back(&c);
  for (int rep = 1; rep <= sc.repeats; ++rep)
    for (size_t i = 0; i < p.cells.size(); ++i)
      p.runs.push_back({static_cast<int>((rep - 1) * p.cells.size() + i + 1), p.cells[i], rep});
  if (resume) {
    p.now_only.insert(opts.only.begin(), opts.only.end());
    p.done_before = finished_in(held, held ? held->folder.path() : opts.resume_dir, p, opts, err);
  }
  return p;
}

}  // namespace wmb
