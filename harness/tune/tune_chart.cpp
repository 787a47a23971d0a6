#include "tune/tune_chart.h"

#include <ostream>

#include <fmt/format.h>

#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "runner/runner.h"
#include "tools/short_command.h"
#include "runner/stages.h"
#include "spawn/process.h"

namespace wmb {

void draw_tune_chart(const std::string& dir, bool draw, std::ostream& out, std::ostream& err) {
  if (!draw) return;
  const std::string script = find_repo_file("plots/tune.py");
  if (script.empty()) {
    out << "Tune chart: plots/tune.py not found next to wmbench; draw it with python3 plots/tune.py " << dir << "\n";
    return;
  }
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    out << "Tune chart: no python3 with matplotlib found; with it, run: python3 " << script << " " << dir << "\n";
    return;
  }
  // Isolated as the run's charts are (python_isolated.h: -I, no PYTHON* variables, run in "/"), and
  // claimed only when its files are there.
  CommandOutput r = run_short_command(isolated_python_argv(py, {script, absolute_for_child(dir)}), 600, "",
                                      isolated_python_env(current_environment()), kPythonCwd);
  if (r.ok() && chart_present(dir, "tune"))
    out << "Tune chart: " << dir << "/plots/tune.png (and .svg)\n";
  else
    err << fmt::format("wmbench tune: chart tune.py failed ({}); draw it with: {} {} {}\n",
                       r.ok() ? "it exited 0 but plots/tune.png/.svg are not there" : r.failure(), py, script, dir);
}

}  // namespace wmb
