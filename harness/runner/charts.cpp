// The charts at the finish: plots/table.py and plots/traces.py on the result folder, under the
// first Python 3 that has matplotlib. Python is started through the no-shell spawner with an
// argv: a folder name holding ', $(...) or ; is only ever an argument.
#include <sys/stat.h>

#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "io/files.h"
#include "common/interrupt.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "runner/stages.h"

namespace wmb {
namespace {

constexpr double kChartTimeout = 600;  // one chart script

}  // namespace

bool chart_present(const std::string& dir, const std::string& name) {
  try {
    Folder f(dir);
    for (const char* ext : {".png", ".svg"}) {
      const auto e = f.stat("plots/" + name + ext);
      if (!e || !S_ISREG(e->mode)) return false;
    }
    return true;
  } catch (const FileError&) {
    return false;
  }
}

void draw_charts(const std::string& dir, std::ostream& out, std::ostream& err) {
  const std::string plots = find_repo_file("plots/table.py");
  if (plots.empty()) {
    out << "Charts: plots/ not found next to wmbench; draw them with python3 plots/table.py " << dir << "\n";
    return;
  }
  const std::string pdir = dirname_of(plots);
  const std::string py = python_with_matplotlib();
  // SIGINT/SIGTERM/SIGHUP: the probe's python was stopped; finish says so and exits 128+N.
  if (interrupt_signal()) return;
  if (py.empty()) {
    out << "Charts: no python3 with matplotlib found; with it, run:\n"
        << "  python3 " << pdir << "/table.py " << dir << "\n  python3 " << pdir << "/traces.py " << dir << "\n";
    return;
  }
  bool all_drawn = true;
  for (const char* script : {"table.py", "traces.py"}) {
    const std::string path = pdir + "/" + script;
    // stdout is dropped (as before); the script's own errors go to wmbench's stderr.
    // Isolated (python_isolated.h): -I, no PYTHON* variables, run in "/" with absolute paths.
    CommandOutput r = run_short_command(isolated_python_argv(py, {path, absolute_for_child(dir)}), kChartTimeout, "",
                                        isolated_python_env(current_environment()), kPythonCwd);
    // Stopped by the user's signal (the script's group was stopped): no next chart, no blame on
    // the script; finish says where the records are and exits 128+N.
    if (r.interrupted || interrupt_signal()) return;
    const std::string name = std::string(script).substr(0, std::string(script).find('.'));
    const bool present = r.ok() && chart_present(dir, name);
    if (present) continue;
    all_drawn = false;
    err << fmt::format("wmbench run: chart {} failed ({}); the results are complete, only this chart is missing. "
                       "Draw it with: {} {} <the result folder>\n",
                       script, r.ok() ? "it exited 0 but plots/" + name + ".png/.svg are not there" : r.failure(),
                       py, path);
  }
  if (all_drawn) out << "Charts: " << dir << "/plots/table.png, " << dir << "/plots/traces.png (and .svg)\n";
}

}  // namespace wmb
