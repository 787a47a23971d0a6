#include "tools/chart_batch.h"

#include <sys/stat.h>

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/interrupt.h"
#include "io/files.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"

namespace wmb {
namespace {

// One python's command line stays under this many bytes (macOS's ARG_MAX is 1 MiB with the
// environment; Linux's 2 MiB): more jobs go to the next python. A job larger than it runs alone.
constexpr size_t kArgvBudget = size_t{256} << 10;

size_t job_bytes(const ChartJob& j) {
  size_t n = j.script.size() + 8;
  for (const auto& a : j.args) n += a.size() + 1;
  return n;
}

// plots/batch.py's lines {"job": N, "exit": CODE} (N within [first, first + count)) into `outcomes`.
void read_answers(const std::string& out, size_t first, size_t count, std::vector<ChartOutcome>& outcomes) {
  size_t pos = 0;
  while (pos < out.size()) {
    size_t eol = out.find('\n', pos);
    if (eol == std::string::npos) break;  // a cut last line says nothing
    const auto j = nlohmann::json::parse(out.begin() + pos, out.begin() + eol, nullptr, false);
    pos = eol + 1;
    if (!j.is_object() || !j.contains("job") || !j.contains("exit")) continue;
    const auto& n = j["job"];
    const auto& c = j["exit"];
    if (!n.is_number_unsigned() || !c.is_number_integer() || n.get<uint64_t>() >= count) continue;
    ChartOutcome& o = outcomes[first + n.get<size_t>()];
    if (o.ran) continue;
    o.ran = true;
    o.exit_code = c.get<int>();
    if (o.exit_code != 0) o.failure = fmt::format("exit {}", o.exit_code);
  }
}

}  // namespace

ChartTools find_chart_tools() {
  ChartTools t;
  const std::string batch = find_repo_file("plots/batch.py");
  if (batch.empty()) {
    t.why_not = "plots/ was not found next to wmbench or in its source tree";
    return t;
  }
  t.plots_dir = dirname_of(batch);
  t.python = python_with_matplotlib();
  if (t.python.empty()) t.why_not = "no python3 with matplotlib was found (set WMBENCH_PYTHON, or install python3-matplotlib)";
  return t;
}

namespace {

// One python for jobs[first, end): its answers into outcomes[first, end).
CommandOutput run_chunk(const ChartTools& tools, const std::vector<ChartJob>& jobs, size_t first, size_t end,
                        double per_chart_s, const std::map<std::string, std::string>& env,
                        std::vector<ChartOutcome>& outcomes) {
  // -B: no __pycache__ beside plots/*.py (nothing written outside the folders named).
  std::vector<std::string> argv = {"-B", tools.script("batch.py")};
  for (size_t i = first; i < end; ++i) {
    argv.push_back(std::to_string(jobs[i].args.size() + 1));
    argv.push_back(jobs[i].script);
    argv.insert(argv.end(), jobs[i].args.begin(), jobs[i].args.end());
  }
  CommandOutput r = run_short_command(isolated_python_argv(tools.python, argv),
                                      per_chart_s * static_cast<double>(end - first), "", env, kPythonCwd);
  read_answers(r.out, first, end - first, outcomes);
  // A python that exited 0 without an answer for a job (a stand-in python, a batch.py of
  // another version) is taken as the script's own exit 0 was: the chart is then claimed only when
  // its files are there, as every chart is.
  for (size_t i = first; i < end; ++i)
    if (!outcomes[i].ran) {
      outcomes[i].ran = r.ok();
      outcomes[i].exit_code = r.ok() ? 0 : -1;
      outcomes[i].failure = r.ok() ? "" : r.failure();
    }
  return r;
}

// [first, end) of each python: as many pythons as cores (at most 4; one for up to 8 charts, where
// a second matplotlib import costs more than it saves), each under kArgvBudget.
std::vector<std::pair<size_t, size_t>> split(const std::vector<ChartJob>& jobs) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min({cores, size_t{4}, std::max(size_t{1}, (jobs.size() + 7) / 8)});
  const size_t per = (jobs.size() + workers - 1) / workers;
  std::vector<std::pair<size_t, size_t>> chunks;
  size_t first = 0;
  while (first < jobs.size()) {
    size_t end = first, bytes = 0;
    while (end < jobs.size() && end - first < per && (end == first || bytes + job_bytes(jobs[end]) <= kArgvBudget))
      bytes += job_bytes(jobs[end++]);
    chunks.emplace_back(first, end);
    first = end;
  }
  return chunks;
}

}  // namespace

ChartBatch draw_chart_batch(const ChartTools& tools, const std::vector<ChartJob>& jobs, double per_chart_s,
                            const std::optional<std::map<std::string, std::string>>& env) {
  ChartBatch b;
  b.outcomes.resize(jobs.size());
  const auto py_env = isolated_python_env(env ? *env : current_environment());
  const auto chunks = split(jobs);
  // The pythons run side by side (one thread waits on each); chunks beyond the cores' count wait
  // for the one before them on the same thread.
  const size_t threads = std::min(chunks.size(), size_t{4});
  std::vector<std::thread> pool;
  std::vector<int> stopped(threads, 0);
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t c = t; c < chunks.size(); c += threads) {
        if (stopped[t] || interrupt_signal()) {
          for (size_t i = chunks[c].first; i < chunks[c].second; ++i)
            b.outcomes[i].failure = "not started: wmbench was interrupted";
          continue;
        }
        const CommandOutput r = run_chunk(tools, jobs, chunks[c].first, chunks[c].second, per_chart_s, py_env, b.outcomes);
        // Stopped by the user's signal (the python's group was stopped): no next python.
        if (r.interrupted || interrupt_signal()) stopped[t] = r.interrupted ? r.interrupted : interrupt_signal();
      }
    });
  for (auto& th : pool) th.join();
  for (int s : stopped)
    if (s) b.interrupted = s;
  return b;
}

bool draw_folder_chart(const std::string& dir, const std::string& name, const std::string& label,
                       const std::string& command, const std::string& note, std::ostream& out, std::ostream& err) {
  const std::string script = name + ".py";
  const ChartTools tools = find_chart_tools();
  if (tools.plots_dir.empty()) {
    out << fmt::format("{}: plots/{} not found next to wmbench; draw it with python3 plots/{} {}\n", label, script,
                       script, dir);
    return false;
  }
  if (tools.python.empty()) {
    out << fmt::format("{}: no python3 with matplotlib found; with it, run: python3 {} {}\n", label,
                       tools.script(script), dir);
    return false;
  }
  const ChartBatch b = draw_chart_batch(tools, {{script, {absolute_for_child(dir)}}}, 600);
  const ChartOutcome& o = b.outcomes.front();
  if (o.ok() && chart_present(dir, name)) {
    out << fmt::format("{}: {}/plots/{}.png (and .svg)\n", label, dir, name);
    return true;
  }
  err << fmt::format("{}: chart {} failed ({}); {}draw it with: {} {} {}\n", command, script,
                     o.ok() ? fmt::format("it exited 0 but plots/{}.png/.svg are not there", name) : o.failure, note,
                     tools.python, tools.script(script), dir);
  return false;
}

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

}  // namespace wmb
