// The charts, many in one Python (plots/batch.py: matplotlib imported once): the one way `publish`,
// a run's finish, `tune` and `releases` draw. Finds plots/ and a python with matplotlib, runs the
// jobs through the no-shell spawner, isolated (python_isolated.h), and says each job's exit status;
// a chart is then claimed only when its files are there (chart_present), never because of a 0.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace wmb {

struct ChartJob {
  std::string script;             // a chart script of plots/: "table.py", "traces.py", ...
  std::vector<std::string> args;  // its command line after the script (paths absolute_for_child)
};

struct ChartOutcome {
  bool ran = false;     // its exit status is known (the script's own, or 0 of a python that said nothing)
  int exit_code = -1;   // when ran
  std::string failure;  // when !ok(): "exit 2", "no answer within 600 s", ...
  bool ok() const { return ran && exit_code == 0; }
};

struct ChartTools {
  std::string python, plots_dir;
  std::string why_not;  // "" when charts can be drawn, else "plots/ ... not found" or "no python3 with matplotlib"
  std::string script(const std::string& name) const { return plots_dir + "/" + name; }
};

// plots/ next to wmbench or in its source tree (find_repo_file), then the first python with
// matplotlib (python_with_matplotlib); the python is not looked for when plots/ is not there.
ChartTools find_chart_tools();

struct ChartBatch {
  std::vector<ChartOutcome> outcomes;  // one per job, in order
  int interrupted = 0;                 // the user's signal stopped the batch: the rest did not run
};

// Runs `jobs` in few pythons, matplotlib imported once in each: one for up to 8 charts, else one
// per core (at most 4) side by side, each command line under a bound (more pythons past it), each
// chart under `per_chart_s` on average. The scripts' stderr is wmbench's; their stdout is not kept. env:
// the pythons' environment (nullopt: this process's), always without PYTHON* variables.
ChartBatch draw_chart_batch(const ChartTools& tools, const std::vector<ChartJob>& jobs, double per_chart_s,
                            const std::optional<std::map<std::string, std::string>>& env = std::nullopt);

// One chart, `name`.py on the folder `dir` (tune, releases), drawn and claimed, said as "<label>:
// DIR/plots/NAME.png (and .svg)" on out, or what failed on err ("<command>: chart NAME.py failed
// (why); <note>draw it with: ..."). True when it is there.
bool draw_folder_chart(const std::string& dir, const std::string& name, const std::string& label,
                       const std::string& command, const std::string& note, std::ostream& out, std::ostream& err);

// The chart `name` (table, traces, tune, releases) is claimed only when both its files are there
// as regular files inside the folder (Folder: no link followed), not because python said 0.
bool chart_present(const std::string& dir, const std::string& name);

}  // namespace wmb
