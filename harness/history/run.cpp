// `wmbench history`: the driver (argument checks, loading every folder, output, exit code) and
// --plot, which runs plots/history.py with a python that has matplotlib, started without a shell.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "common/platform.h"
#include "history/history.h"
#include "spawn/process.h"

#ifndef WMBENCH_SOURCE_DIR_DEFAULT
#define WMBENCH_SOURCE_DIR_DEFAULT ""
#endif

namespace wmb::history {

namespace fs = std::filesystem;

namespace {

// plots/history.py next to the binary (build/ or bin/), one or two folders up, in share/wmbench,
// in the current folder, or in the source tree the binary was built from.
std::string find_history_script() {
  std::vector<fs::path> roots;
  const std::string self = self_exe_path();
  if (!self.empty()) {
    const fs::path d = fs::path(self).parent_path();
    roots = {d, d.parent_path(), d.parent_path().parent_path(), d.parent_path() / "share" / "wmbench"};
  }
  roots.emplace_back(".");
  if (*WMBENCH_SOURCE_DIR_DEFAULT) roots.emplace_back(WMBENCH_SOURCE_DIR_DEFAULT);
  for (const auto& r : roots) {
    std::error_code ec;
    const fs::path p = r / "plots" / "history.py";
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

// Runs argv (no shell) and returns its exit status; its stdout goes to `sink` when given.
int run_argv(const std::vector<std::string>& argv, bool quiet, std::ostream* sink) {
  SpawnOptions o;
  o.argv = argv;
  o.env = current_environment();
  o.own_process_group = false;  // Ctrl-C reaches it with wmbench
  o.capture_stdout = quiet || sink != nullptr;
  if (quiet) o.stderr_path = "/dev/null";
  Child c;
  try {
    c = spawn_child(o);
  } catch (const SpawnError&) {
    return 127;
  }
  if (c.stdout_fd >= 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(c.stdout_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (sink) sink->write(buf, n);
    }
    ::close(c.stdout_fd);
  }
  return reap(c.pid).shell_status();
}

// The first Python 3 with matplotlib, as `run` looks: $WMBENCH_PYTHON, python3 on PATH,
// /usr/bin/python3, /opt/homebrew/bin/python3. Each is tried as an argv, never through a shell.
std::string python_with_matplotlib() {
  std::vector<std::string> cands;
  if (const char* e = std::getenv("WMBENCH_PYTHON"); e && *e) cands.emplace_back(e);
  for (const char* c : {"python3", "/usr/bin/python3", "/opt/homebrew/bin/python3"}) cands.emplace_back(c);
  for (const auto& c : cands) {
    if (run_argv({c, "-c", "import matplotlib"}, true, nullptr) == 0) return c;
  }
  return "";
}

}  // namespace

int draw_history_plot(const HistoryOptions& opts, std::ostream& err) {
  const std::string script = find_history_script();
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
  std::vector<std::string> argv = {py, script, "--out", opts.plot_out, "--by", opts.by};
  if (!opts.scenario.empty()) {
    argv.push_back("--scenario");
    argv.push_back(opts.scenario);
  }
  argv.push_back("--");
  for (const auto& d : opts.dirs) argv.push_back(d);
  const int rc = run_argv(argv, false, &err);  // the chart paths go to stderr: stdout may be JSON
  if (rc != 0) err << fmt::format("wmbench history --plot: {} {} ... exited with {}\n", py, script, rc);
  return rc;
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
    case OutputFormat::json: out << to_json(h).dump(2) << "\n"; break;
  }
  out.flush();
  if (opts.plot && draw_history_plot(opts, err) != 0) {
    return 1;  // the tables are out; the chart that was asked for is not (the reason is on stderr)
  }
  return h.regressed() ? 1 : 0;
}

}  // namespace wmb::history
