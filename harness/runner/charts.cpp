// The charts at the finish: plots/table.py and plots/traces.py on the result folder, in one
// Python (tools/chart_batch.h: the first python with matplotlib, isolated, started through the
// no-shell spawner with an argv: a folder name holding ', $(...) or ; is only ever an argument).
#include <ostream>

#include <fmt/format.h>

#include "common/interrupt.h"
#include "tools/chart_batch.h"
#include "tools/python_isolated.h"
#include "runner/stages.h"

namespace wmb {
namespace {

constexpr double kChartTimeout = 600;  // one chart script

}  // namespace

void draw_charts(const std::string& dir, std::ostream& out, std::ostream& err) {
  const ChartTools tools = find_chart_tools();
  if (tools.plots_dir.empty()) {
    out << "Charts: plots/ not found next to wmbench; draw them with python3 plots/table.py " << dir << "\n";
    return;
  }
  // SIGINT/SIGTERM/SIGHUP: the probe's python was stopped; finish says so and exits 128+N.
  if (interrupt_signal()) return;
  if (tools.python.empty()) {
    out << "Charts: no python3 with matplotlib found; with it, run:\n"
        << "  python3 " << tools.script("table.py") << " " << dir << "\n  python3 " << tools.script("traces.py") << " "
        << dir << "\n";
    return;
  }
  const std::vector<ChartJob> jobs = {{"table.py", {absolute_for_child(dir)}}, {"traces.py", {absolute_for_child(dir)}}};
  const ChartBatch b = draw_chart_batch(tools, jobs, kChartTimeout);
  // Stopped by the user's signal (the scripts' group was stopped): no blame on the scripts; finish
  // says where the records are and exits 128+N.
  if (b.interrupted || interrupt_signal()) return;
  bool all_drawn = true;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string& script = jobs[i].script;
    const std::string name = script.substr(0, script.find('.'));
    if (b.outcomes[i].ok() && chart_present(dir, name)) continue;
    all_drawn = false;
    err << fmt::format("wmbench run: chart {} failed ({}); the results are complete, only this chart is missing. "
                       "Draw it with: {} {} <the result folder>\n",
                       script,
                       b.outcomes[i].ok() ? "it exited 0 but plots/" + name + ".png/.svg are not there"
                                          : b.outcomes[i].failure,
                       tools.python, tools.script(script));
  }
  if (all_drawn) out << "Charts: " << dir << "/plots/table.png, " << dir << "/plots/traces.png (and .svg)\n";
}

}  // namespace wmb
