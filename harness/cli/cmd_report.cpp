// wmbench report DIR: rebuilds summary.json, table.md and results.csv from the per-run files.
#include <iostream>

#include "cli/command.h"
#include "common/files.h"
#include "results/report.h"

namespace wmb::cli {
namespace {

Registrar reg{Command{30, [](CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("report", "Rebuild summary.json, table.md and results.csv of a result folder from runs/*.json");
  c->add_option("dir", *dir, "Result folder")->required();
  c->add_flag("-q,--quiet", *quiet, "Do not print the table");
  c->callback([dir, quiet, &exit_code] {
    try {
      Report r = load_report(*dir);
      write_report(r);
      if (!*quiet) std::cout << read_file(*dir + "/table.md");
      std::cout << "Rebuilt " << *dir << "/summary.json, table.md, results.csv from " << r.runs.size() << " run files"
                << (r.not_run.empty() ? "" : "; " + std::to_string(r.not_run.size()) + " planned runs have no file") << "\n";
      exit_code = kExitOk;
    } catch (const FileError& e) {
      std::cerr << "wmbench report: " << e.what() << "\n";
      exit_code = kExitUsage;
    }
  });
}}};

}  // namespace
}  // namespace wmb::cli
