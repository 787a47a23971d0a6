// plots/releases.py on a releases folder, drawn as the run's charts are (runner/charts.cpp: the
// first python with matplotlib, isolated, through the no-shell spawner), claimed only when its
// files are there.
#include <ostream>

#include <fmt/format.h>

#include "releases/releases.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "runner/runner.h"
#include "tools/short_command.h"
#include "runner/stages.h"
#include "spawn/process.h"

namespace wmb::releases {

void draw_releases_chart(const std::string& dir, std::ostream& out, std::ostream& err) {
  const std::string script = find_repo_file("plots/releases.py");
  if (script.empty()) {
    out << "Releases chart: plots/releases.py not found next to wmbench; draw it with python3 plots/releases.py " << dir << "\n";
    return;
  }
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    out << "Releases chart: no python3 with matplotlib found; with it, run: python3 " << script << " " << dir << "\n";
    return;
  }
  const CommandOutput r = run_short_command(isolated_python_argv(py, {script, absolute_for_child(dir)}), 600, "",
                                            isolated_python_env(current_environment()), kPythonCwd);
  if (r.ok() && chart_present(dir, "releases"))
    out << "Releases chart: " << dir << "/plots/releases.png (and .svg)\n";
  else
    err << fmt::format("wmbench releases: chart releases.py failed ({}); the results are complete; draw it with: {} {} {}\n",
                       r.ok() ? "it exited 0 but plots/releases.png/.svg are not there" : r.failure(), py, script, dir);
}

}  // namespace wmb::releases
