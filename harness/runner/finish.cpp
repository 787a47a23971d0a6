// The finish: machine.json's end, the report (summary.json and every exporter's file, from the
// run files on disk), the table on the terminal, the charts, and the exit code.
#include <ostream>

#include <fmt/format.h>

#include "io/files.h"
#include "results/report.h"
#include "common/interrupt.h"
#include "runner/stages.h"
#include "spawn/process.h"

namespace wmb {
namespace {

// Why a planned run has no file: the signal, the disk, or simply not run.
std::string why_not_run(const SessionEnd& end) {
  if (end.interrupted_by) return fmt::format("not run: wmbench got {}", signal_name(end.interrupted_by));
  return end.write_error.empty() ? "not run" : "not run: " + end.write_error;
}

}  // namespace

int finish(const RunnerOptions& opts, Prepared& prep, const SessionEnd& end, std::ostream& out, std::ostream& err) {
  const std::string& dir = prep.dir;
  // A folder of the user's own command resumes only with --command (job/run_setup.cpp).
  // A tune folder continues with `tune --resume` only: `run --resume` would not go on with the search.
  const std::string resume = "wmbench " + opts.resume_verb + " --resume " + dir + (opts.scenario.program == "command" ? " --command" : "");
  int exit_code = end.exit_code;
  prep.machine["ended_utc"] = utc_now_iso();
  if (!end.write_error.empty()) {
    err << "wmbench run: " << end.write_error << "\n"
        << "  The runs written before are intact in " << dir << "; `" << resume
        << "` finishes the rest once there is room.\n";
    exit_code = 1;
  }
  const Folder& folder = prep.held->folder;
  std::string table;
  try {
    folder.write_json("machine.json", prep.machine);
    const Report report = load_report(dir, why_not_run(end));
    for (const auto& p : report.problems) err << "wmbench run: " << p << "\n";
    write_report(report);
    table = folder.read("table.md");
  } catch (const FileError& e) {
    err << "wmbench run: " << e.what() << "\n";
    return 1;
  }
  // The lock is held until run_matrix returns (the charts write into the folder too).
  out << "\n" << table << "\n";
  out << "Results: " << dir << " (summary.json, table.md, results.csv, runs/)\n";
  if (opts.draw_plots && !end.interrupted_by) draw_charts(dir, out, err);
  if (end.interrupted_by) {
    err << fmt::format("wmbench run: stopped by {}; finished runs are in {}; `{}` runs the rest\n",
                       signal_name(end.interrupted_by), dir, resume);
    return 128 + end.interrupted_by;
  }
  // A signal while the charts were drawn: every run is recorded, but wmbench was stopped (128+N).
  if (const int sig = interrupt_signal()) {
    err << fmt::format("wmbench run: stopped by {} while drawing the charts; every run is recorded in {}\n",
                       signal_name(sig), dir);
    return 128 + sig;
  }
  return exit_code;
}

}  // namespace wmb
