// The charts at the finish: plots/table.py and plots/traces.py on the result folder, under the
// first Python 3 that has matplotlib. Python is started through the no-shell spawner with an
// argv: a folder name holding ', $(...) or ; is only ever an argument.
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "runner/locate.h"
#include "runner/short_command.h"
#include "runner/stages.h"

namespace wmb {
namespace {

constexpr double kChartTimeout = 600;  // one chart script

}  // namespace

void draw_charts(const std::string& dir, std::ostream& out, std::ostream& err) {
  const std::string plots = find_repo_file("plots/table.py");
  if (plots.empty()) {
    out << "Charts: plots/ not found next to wmbench; draw them with python3 plots/table.py " << dir << "\n";
    return;
  }
  const std::string pdir = dirname_of(plots);
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    out << "Charts: no python3 with matplotlib found; with it, run:\n"
        << "  python3 " << pdir << "/table.py " << dir << "\n  python3 " << pdir << "/traces.py " << dir << "\n";
    return;
  }
  bool all_drawn = true;
  for (const char* script : {"table.py", "traces.py"}) {
    const std::string path = pdir + "/" + script;
    // stdout is dropped (as before); the script's own errors go to wmbench's stderr.
    CommandOutput r = run_short_command({py, path, dir}, kChartTimeout, "");
    if (r.ok()) continue;
    all_drawn = false;
    err << fmt::format("wmbench run: chart {} failed ({}); the results are complete, only this chart is missing. "
                       "Draw it with: {} {} <the result folder>\n",
                       script, r.failure(), py, path);
  }
  if (all_drawn) out << "Charts: " << dir << "/plots/table.png, " << dir << "/plots/traces.png (and .svg)\n";
}

}  // namespace wmb
