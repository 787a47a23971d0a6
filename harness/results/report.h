// A result folder's report: summary.json, table.md and results.csv, built from the per-run
// files on disk (so `wmbench report DIR` rebuilds them after anything, a SIGKILL included).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/run_record.h"

namespace wmb {

struct NotRun {
  std::string label;
  int repeat = 1;
  std::string why;
};

struct Report {
  std::string dir;
  nlohmann::json machine = nlohmann::json::object();   // machine.json (or {}), checked by the schema
  nlohmann::json scenario = nlohmann::json::object();  // scenario.json (or {}), checked by the schema
  std::vector<RunRecord> runs;
  std::vector<NotRun> not_run;
  // Run files that could not be used (named with file, key and value), and keys no schema knows.
  // A run file listed here is left out of runs; its cell counts as not run.
  std::vector<std::string> problems;
  std::vector<std::string> notes;
  // Cells that several run files hold (each message names every copy; also in problems): all
  // copies are left out of runs, and --resume refuses the folder.
  std::vector<std::string> duplicates;
  // runs/ holds more run files than summary.json may (kMaxFolderJsonBytes together): reading
  // stopped there, and no `report` can rebuild a summary of them all.
  bool runs_past_bound = false;
};

// One output format of a report (summary.json, table.md, results.csv, ...).
class Exporter {
 public:
  virtual ~Exporter() = default;
  virtual std::string file_name() const = 0;
  virtual std::string render(const Report& r) const = 0;
};

std::vector<std::unique_ptr<Exporter>> all_exporters();
std::unique_ptr<Exporter> make_summary_exporter();
std::unique_ptr<Exporter> make_table_exporter();
std::unique_ptr<Exporter> make_csv_exporter();
std::unique_ptr<Exporter> make_readme_exporter();

// Reads machine.json, scenario.json and runs/*.json through the schema (every file opened inside
// DIR without following links). Throws FileError (an InputError for a malformed machine.json or
// scenario.json, naming file, key and value) when DIR is not a result folder or those files are
// unusable; a bad run file (malformed, wrong types, a link, a FIFO, a folder) does not throw: it
// is listed in `problems` and left out. Runs that scenario.json plans but that have no usable
// file are listed in not_run with `why_missing`. Never throws anything but FileError.
Report load_report(const std::string& dir, const std::string& why_missing = "not run (no run file)");

// Writes every exporter's file atomically into r.dir (never through a link).
void write_report(const Report& r);

// The "device" a folder file's JSON names (machine.json, scenario.json), "" when it names none.
std::string device_in(const nlohmann::json& j);

// When scenario.json or run files name another device than the one summary.json and table.md give
// (machine.json's, else scenario.json's): a sentence for `wmbench report` that says which it gave
// and who disagrees (`check` names each file as a problem; compare and history refuse the folder).
std::optional<std::string> device_disagreement(const Report& r);

// "HIGH 0.8, LOW 0.8" / "default" / "HIGH 0.8, LOW unset (1.4)" / "PYTORCH_CUDA_ALLOC_CONF=..." for a cell's env.
std::string describe_env(const std::map<std::string, std::string>& env);

// Makes OUT/<date>-<name>, or -2, -3, ... when it exists; never touches an existing folder.
std::string create_result_dir(const std::string& out, const std::string& date, const std::string& name);
// Exactly DIR (its parent must exist) with DIR/runs; FileError when DIR exists or cannot be made.
std::string create_named_result_dir(const std::string& dir);

}  // namespace wmb
