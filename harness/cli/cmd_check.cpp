// wmbench check DIR...: validates result folders as a reviewer of a contributed folder would
// (check/check.h). Exit 0 when every folder is clean, 1 when any has a problem (each named),
// 2 when a folder cannot be read at all.
#include <iostream>

#include "cli/command.h"
#include "check/check.h"

namespace wmb::cli {
namespace {

int run_check(const std::vector<std::string>& dirs, bool quiet) {
  int code = kExitOk;
  for (const auto& dir : dirs) {
    const CheckResult r = check_result_folder(dir);
    if (!quiet)
      for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    for (const auto& p : r.problems) std::cout << "problem: " << p << "\n";
    if (r.unreadable) {
      std::cout << dir << ": unreadable\n";
      code = kExitUsage;
    } else if (!r.problems.empty()) {
      std::cout << dir << ": " << r.problems.size() << " problem(s) in " << r.runs << " runs\n";
      if (code == kExitOk) code = kExitFail;
    } else {
      std::cout << dir << ": ok (" << r.runs << " runs)\n";
    }
  }
  return code;
}

Registrar reg_check{Command{35, [](CLI::App& app, int& exit_code) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("check",
                               "Validate result folders as a reviewer would: schema of every file, runs/ vs summary.json, "
                               "table.md and machine.json, plausible numbers (exit 0 clean, 1 problems, 2 unreadable)");
  c->add_option("dir", *dirs, "Result folder(s)")->required();
  c->add_flag("-q,--quiet", *quiet, "Do not print notes (unknown keys and files)");
  c->callback([dirs, quiet, &exit_code] { exit_code = run_check(*dirs, *quiet); });
}}};

}  // namespace
}  // namespace wmb::cli
