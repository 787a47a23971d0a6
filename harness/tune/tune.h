// `wmbench tune`: the highest HIGH ratio (LOW by the policy's rule) at which the fill, or the
// user's own job (--command), ends cleanly, measured in fresh guarded children. A planner over
// the runner's own stages (stages.h): one result folder prepared once, each probe one more cell
// run by run_all (the run-one stage), the search itself pure code (tune_policy.h), the finish the
// runner's, then tune.json, the answer at the top of README.md, and plots/tune.png
// (tune_report.cpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/runner.h"
#include "tune/tune_policy.h"

namespace wmb {

struct TuneOptions {
  RunnerOptions run;   // the scenario (its matrix is the tune's own), child, sandbox, out_dir, resume_dir
  TunePolicy policy;
};

// Returns the exit code: 0 an answer (an edge answer included); 1 a run could not be recorded or
// the search ended without an answer; 2 bad input; 128+N when interrupted (resume with --resume DIR).
int run_tune(TuneOptions o, std::ostream& out, std::ostream& err);

struct Report;
// A tune folder's records as the policy's input (the records that are probes of this search:
// a HIGH ratio that is a setting tune may run, inside the bracket; interrupted and not-started
// runs are not counted), and tune.json's "probes" (every such record, in order) into `probes`.
// tune.cpp's loop and `wmbench check` (check/check_tune.cpp) read a folder the same way.
std::vector<TuneRun> tune_runs_of(const Report& rep, const TunePolicy& p, std::vector<nlohmann::json>& probes);

// tune_report.cpp: what a tune folder says.
struct TuneSummary {
  TunePolicy policy;
  std::optional<TuneStep> end;      // the policy's last word (nullopt: stopped before an answer)
  uint64_t free_bytes_at_start = 0; // the system's available memory when the search began
  std::optional<uint64_t> sandbox_bytes;  // the sandbox that stands for a Mac's free memory
  std::vector<nlohmann::json> probes;     // one per run, in order
  std::string said;                 // the answer in words
  // The second lever's lines (wired_lever_lines), said after the answer when no HIGH/LOW pair is
  // clean; "" otherwise.
  std::string wired_lever;
};
// The sysctl iogpu.wired_limit_mb as a lever: the exact `sudo sysctl` line that keeps PyTorch's
// default limit (HIGH 1.7 x it) under 90 % of `free_bytes`, the line that puts back `found_mib`
// (the value now; nullopt: not a Mac, 0 assumed), that it needs root, resets at reboot and caps
// every framework at once; not measured.
std::string wired_lever_lines(uint64_t free_bytes, uint64_t ram, std::optional<int64_t> found_mib);
// `wmbench tune --lever wired`: those lines for this machine now (no search runs, no folder).
int run_tune_wired_lever(std::ostream& out, std::ostream& err);
// The plain sentence for an end (or for none), with the export line where there is one.
std::string tune_answer_text(const TuneSummary& s);
// "export PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.9 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.9" ("" without an answer).
std::string tune_export_line(const TuneSummary& s);
nlohmann::json tune_json(const TuneSummary& s);
// The policy of a folder's tune.json (for --resume). Throws FileError naming the key.
TunePolicy tune_policy_from_json(const nlohmann::json& j, const std::string& source);
// README.md's first section: the answer and the caveat.
std::string tune_readme_head(const TuneSummary& s);

}  // namespace wmb
