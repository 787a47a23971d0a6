// wmbench report DIR: rebuilds summary.json, table.md and results.csv from the per-run files.
// Holds the folder's lock while it writes; a run file that cannot be used is named and left out.
#include <iostream>

#include "cli/command.h"
#include "io/files.h"
#include "recovery/panic_cells.h"
#include "results/folder_lock.h"
#include "results/report.h"
#include "verdict/diagnostic_reports.h"

namespace wmb::cli {
namespace {

int run_report(const std::string& dir, bool quiet) {
  try {
    Folder folder(dir);
    FolderLock lock(folder, "wmbench report " + dir);
    Report r = load_report(dir);
    // A cell during which the Mac panicked is recorded (stopped by kernel) before the rebuild.
    const auto panicked = record_panicked_cells(folder, r, diagnostic_report_dirs());
    for (const auto& c : panicked) std::cerr << "wmbench report: recorded " << panicked_cell_text(c) << ": stopped by kernel\n";
    if (!panicked.empty()) r = load_report(dir);
    write_report(r);
    for (const auto& n : r.notes) std::cerr << "wmbench report: note: " << n << "\n";
    if (const auto d = device_disagreement(r)) std::cerr << "wmbench report: note: " << *d << "\n";
    for (const auto& p : r.problems) std::cerr << "wmbench report: " << p << "\n";
    if (!quiet) std::cout << folder.read("table.md");
    const auto count = [](size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
    std::cout << "Rebuilt " << dir << "/summary.json, table.md, results.csv from " << count(r.runs.size(), "run file", "run files")
              << (r.not_run.empty() ? "" : "; " + count(r.not_run.size(), "planned run has", "planned runs have") + " no file")
              << "\n";
    if (!r.problems.empty()) {
      std::cerr << "wmbench report: " << r.problems.size() << " run file(s) left out (above); `wmbench check " << dir
                << "` lists every problem\n";
      return kExitFail;
    }
    return kExitOk;
  } catch (const FileError& e) {
    std::cerr << "wmbench report: " << e.what() << "\n";
    return kExitUsage;
  }
}

Registrar reg_report{Command{30, [](CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("report", "Rebuild summary.json, table.md and results.csv of a result folder from runs/*.json");
  c->add_option("dir", *dir, "Result folder")->required();
  c->add_flag("-q,--quiet", *quiet, "Do not print the table");
  c->callback([dir, quiet, &exit_code] { exit_code = run_report(*dir, *quiet); });
}}};

}  // namespace
}  // namespace wmb::cli
