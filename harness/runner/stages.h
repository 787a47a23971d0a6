// The stages of run_matrix, in the order it calls them (internal to runner/):
//   make_plan   (plan.cpp)     which cells, how many repeats, what --resume already has
//   prepare     (prepare.cpp)  the child, the sizes, sandbox and model, the safety refusal, the
//                              result folder, scenario.json and machine.json (machine_json.cpp)
//   run_one     (run_one.cpp)  wait for room, spawn, supervise (watch.cpp), classify, record
//                              (build_record.cpp), once per planned run
//   finish      (finish.cpp)   machine.json's end, the report and exports, the charts (charts.cpp)
// The first two throw RunRefused before any run starts.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/files.h"
#include "host/platform.h"
#include "lever/wired_lever.h"
#include "guard/policy.h"
#include "mpsmodel/watermark.h"
#include "probe/probe.h"
#include "results/folder_lock.h"
#include "child/child_spec.h"
#include "runner/runner.h"

namespace wmb {

struct PlannedRun {
  int index;  // NN of runs/<NN>-<label>.json
  const Cell* cell;
  int repeat;
};

// The plan is every cell of the scenario (a new folder: after --only; --resume: the folder's
// whole scenario.json, never narrowed), so run indices never change. `now` is what runs in this
// session: --only narrows it, and --resume leaves out what the folder finished.
struct Plan {
  std::vector<const Cell*> cells;  // the planned cells
  std::vector<PlannedRun> runs;    // repeat by repeat, cell by cell
  std::set<std::pair<std::string, int>> done_before;  // --resume: (label, repeat) finished there
  std::set<std::string> now_only;  // --resume --only: these labels run now; empty = all
  bool runs_now(const PlannedRun& r) const {
    return !done_before.count({r.cell->label, r.repeat}) && (now_only.empty() || now_only.count(r.cell->label));
  }
};

// The result folder, opened once and locked for the whole session (results/folder_lock.h):
// every file of it is written through `folder` (inside it, never through a link).
struct HeldFolder {
  explicit HeldFolder(const std::string& dir, const std::string& command)
      : folder(dir), lock(folder, command) {}
  Folder folder;
  FolderLock lock;
};

struct Prepared {
  std::unique_ptr<FillChild> child;
  std::optional<mpsmodel::ModelledMac> model;
  ResolvedSizes sizes;
  GuardConfig guard;
  std::string dir;          // the result folder
  std::unique_ptr<HeldFolder> held;  // that folder, locked
  nlohmann::json machine;   // machine.json as written; finish() adds ended_utc
  std::unique_ptr<lever::WiredLever> lever;  // the cells' iogpu.wired_limit_mb, when this session writes it
};

// What the runs of one session leave for the finish.
struct SessionEnd {
  int exit_code = 0;
  int interrupted_by = 0;   // the signal that stopped the session
  std::string write_error;  // a run file that could not be written
};

// --resume: `held` is the folder, locked before anything of it is read; the folder's problems
// (run files left out) are said on `err`. Throws RunRefused.
Plan make_plan(const RunnerOptions& opts, const HeldFolder* held, std::ostream* err);
// `held`: the resumed folder (nullptr: a new one is made and locked here).
Prepared prepare(const RunnerOptions& opts, const Plan& plan, MemoryProbe& probe, std::unique_ptr<HeldFolder> held);
// resume_check.cpp: --resume with options that change the folder's scenario (--step, --cap,
// --device, --repeat, ... or sizes that resolve differently here) is refused, naming each
// difference. Throws RunRefused.
void check_resume_matches(const RunnerOptions& opts, const HeldFolder& held, const ResolvedSizes& sizes);

// scenario.json: the scenario as run (the plan's cells only) with its resolved sizes (prepare
// writes it; `wmbench tune` again after each probe it adds).
nlohmann::json scenario_as_run(const Scenario& sc, const Plan& plan, const ResolvedSizes& sizes);

// "wmbench run --resume DIR" / "wmbench run SCENARIO", for the lock's note.
std::string lock_note(const RunnerOptions& opts);
// Opens and locks DIR; FolderBusy and FileError become RunRefused (exit 2, naming the holder).
std::unique_ptr<HeldFolder> hold_folder(const std::string& dir, const RunnerOptions& opts);
void say_start(const RunnerOptions& opts, const Plan& plan, const Prepared& prep, std::ostream& out);
SessionEnd run_all(const RunnerOptions& opts, const Plan& plan, Prepared& prep, MemoryProbe& probe, std::ostream& err);
int finish(const RunnerOptions& opts, Prepared& prep, const SessionEnd& end, std::ostream& out, std::ostream& err);

// machine_json.cpp: machine.json in one function (a resumed folder's is updated, not replaced),
// and the facts only the child's first hello knows (torch, and with mps-model the hello's "model"
// object merged into machine.json "model").
nlohmann::json machine_json(const RunnerOptions& opts, const MachineFacts& facts, MemoryProbe& probe,
                            const FillChild& child, const std::optional<mpsmodel::ModelledMac>& model,
                            const ResolvedSizes& sizes, nlohmann::json previous);
void note_child_hello(nlohmann::json& machine, const nlohmann::json& hello, bool modelled,
                      std::optional<uint64_t> recommended_max);

// charts.cpp: plots/table.py and plots/traces.py on the folder, in one python started without a
// shell (tools/chart_batch.h, where chart_present is).
void draw_charts(const std::string& dir, std::ostream& out, std::ostream& err);

}  // namespace wmb
