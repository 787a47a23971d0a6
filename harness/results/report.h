// A result folder's report: summary.json, table.md and results.csv, built from the per-run
// files on disk (so `wmbench report DIR` rebuilds them after anything, a SIGKILL included).
#pragma once

#include <memory>
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
  nlohmann::json machine;   // machine.json (or {})
  nlohmann::json scenario;  // scenario.json (or {})
  std::vector<RunRecord> runs;
  std::vector<NotRun> not_run;
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

// Reads machine.json, scenario.json and runs/*.json. Throws FileError when DIR is not a result
// folder. Runs that scenario.json plans but that have no file are listed in not_run with `why_missing`.
Report load_report(const std::string& dir, const std::string& why_missing = "not run (no run file)");

// Writes every exporter's file atomically into r.dir.
void write_report(const Report& r);

// "HIGH 0.8, LOW 0.8" / "default" / "HIGH 0.8, LOW unset (1.4)" / "PYTORCH_CUDA_ALLOC_CONF=..." for a cell's env.
std::string describe_env(const std::map<std::string, std::string>& env);

// Makes OUT/<date>-<name>, or -2, -3, ... when it exists; never touches an existing folder.
std::string create_result_dir(const std::string& out, const std::string& date, const std::string& name);

}  // namespace wmb
