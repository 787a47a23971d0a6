// `wmbench history`: the driver (argument checks, loading every folder, output, exit code) and
// --plot, which runs plots/history.py with a python that has matplotlib, started without a shell.
#include <filesystem>

#include <fmt/format.h>

#include "history/history.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "tools/locate.h"  // find_repo_file
#include "tools/short_command.h"

namespace wmb::history {

namespace fs = std::filesystem;

namespace {

constexpr double kChartTimeout = 600;  // plots/history.py over every folder

}  // namespace

int draw_history_plot(const HistoryOptions& opts, std::ostream& err) {
  const std::string script = find_repo_file("plots/history.py");
  if (script.empty()) {
    err << "wmbench history --plot: plots/history.py not found next to wmbench or in its source tree\n";
    return 1;
  }
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    err << "wmbench history --plot: no python3 with matplotlib found (set WMBENCH_PYTHON); with one, run:\n  python3 "
        << script << " --out " << opts.plot_out << " DIR...\n";
    return 1;
  }
  // Isolated (tools/python_isolated.h): -I, no PYTHON* variables, run in "/" with absolute paths.
  std::vector<std::string> argv = {script, "--out", absolute_for_child(opts.plot_out), "--by", opts.by};
  if (!opts.scenario.empty()) {
    argv.push_back("--scenario");
    argv.push_back(opts.scenario);
  }
  argv.push_back("--");
  for (const auto& d : opts.dirs) argv.push_back(absolute_for_child(d));
  // The script's stdout (the chart paths) goes to `err`: stdout may be JSON. Its stderr is wmbench's.
  const CommandOutput r = run_short_command(isolated_python_argv(py, argv), kChartTimeout, "",
                                            isolated_python_env(current_environment()), kPythonCwd);
  err << r.out;
  if (r.ok()) return 0;
  err << fmt::format("wmbench history --plot: {} {} ... failed ({})\n", py, script, r.failure());
  return 1;
}

int run_history(const HistoryOptions& opts, std::ostream& out, std::ostream& err) {
  const auto tol = compare::parse_tolerance(opts.tolerance);
  if (!tol) {
    err << fmt::format("wmbench history: --tolerance \"{}\": expected a percentage >= 0, e.g. 5 or 2.5\n",
                       opts.tolerance);
    return 2;
  }
  const auto order = parse_order(opts.by);
  if (!order) {
    err << fmt::format("wmbench history: --by \"{}\": expected torch, machine or date\n", opts.by);
    return 2;
  }
  if (opts.dirs.empty()) {
    err << "wmbench history: give one or more result folders, e.g. wmbench history results/*/\n";
    return 2;
  }
  std::vector<Input> inputs;
  inputs.reserve(opts.dirs.size());
  History h;
  try {
    for (const auto& d : opts.dirs) {
      // `wmbench history results/*` also names results/README.md: a plain file is said and
      // skipped; a folder that is not a result folder stays an error.
      std::error_code ec;
      if (fs::is_regular_file(d, ec)) {
        err << "wmbench history: skipped " << d << ": a file, not a result folder\n";
        continue;
      }
      inputs.push_back(load_input(d));
    }
    if (inputs.empty()) throw HistoryError("no result folder among the arguments");
    h = build_history(inputs, *order, *tol, opts.scenario);
  } catch (const std::exception& e) {
    err << "wmbench history: " << e.what() << "\n";
    return 2;
  }
  switch (opts.format) {
    case OutputFormat::text: out << format_text(h); break;
    case OutputFormat::markdown: out << format_markdown(h); break;
    case OutputFormat::json:  // a non-UTF-8 path: U+FFFD, not an internal error
      out << to_json(h).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      break;
  }
  out.flush();
  if (opts.plot && draw_history_plot(opts, err) != 0) {
    // The tables are out; the chart that was asked for is not (the reason is on stderr). Not 1:
    // that says "regressed", and a missing matplotlib is no regression.
    return 3;
  }
  return h.regressed() ? 1 : 0;
}

}  // namespace wmb::history
