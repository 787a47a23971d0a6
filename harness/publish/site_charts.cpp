#include "publish/site_charts.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "io/files.h"
#include "publish/html.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "tools/locate.h"  // find_repo_file
#include "tools/short_command.h"

namespace wmb::publish {

namespace {
constexpr double kChartTimeout = 300;  // one chart script over one folder (or one scenario's folders)
}

ChartMaker::ChartMaker(SiteWriter& w, std::ostream& err) : w_(w), err_(err) {
  const std::string table = find_repo_file("plots/table.py");
  if (table.empty()) {
    unavailable_ = "Charts not drawn: plots/ was not found next to wmbench or in its source tree.";
    return;
  }
  plots_dir_ = dirname_of(table);
  python_ = python_with_matplotlib();
  if (python_.empty())
    unavailable_ = "Charts not drawn: no python3 with matplotlib was found (set WMBENCH_PYTHON, or install "
                   "python3-matplotlib) when this site was published.";
}

bool ChartMaker::draw(const std::string& script, std::vector<std::string> args, const std::string& stem,
                      const std::string& site_rel, const std::string& inputs_hash) {
  if (!unavailable_.empty()) return false;
  const std::string path = plots_dir_ + "/" + script;
  std::string script_text;
  try {
    script_text = read_file(path, size_t{4} << 20);
    script_text += read_file(plots_dir_ + "/common.py", size_t{4} << 20);
  } catch (const FileError& e) {
    err_ << "wmbench publish: chart " << script << ": " << e.what() << "\n";
    ++failed_;
    return false;
  }
  const std::string key = content_hash(inputs_hash + "\n" + script + "\n" + script_text);
  if (w_.chart_key(site_rel) == key && w_.keep(site_rel)) {
    w_.set_chart_key(site_rel, key);
    return true;
  }
  if (scratch_.empty()) scratch_ = w_.make_scratch();
  const std::string rel_dir = fmt::format("{}/{}", scratch_, ++next_);
  const std::string abs_dir = absolute_for_child(w_.out() + "/" + rel_dir);
  // -B: no __pycache__ beside plots/*.py (publish writes nothing outside --out); --svg-only: the
  // pages show the SVG only.
  std::vector<std::string> argv = {"-B", path, "--out", abs_dir, "--svg-only"};
  for (auto& a : args) argv.push_back(std::move(a));
  // matplotlib's config and font cache (MPLCONFIGDIR, else $XDG_CACHE_HOME/matplotlib or
  // ~/.matplotlib) go into the scratch work area inside --out, which publish made and removes:
  // never a folder outside --out, nor another user's link there.
  auto env = isolated_python_env(current_environment());
  const std::string work = absolute_for_child(w_.out() + "/" + scratch_);
  env["MPLCONFIGDIR"] = work + "/mplconfig";
  env["XDG_CACHE_HOME"] = work + "/cache";
  env["XDG_CONFIG_HOME"] = work + "/config";
  const CommandOutput r = run_short_command(isolated_python_argv(python_, argv), kChartTimeout, "", env, kPythonCwd);
  std::string svg_rel, svg;
  bool got = false;
  if (r.ok()) {
    try {
      if (!stem.empty()) {
        svg_rel = rel_dir + "/" + stem + ".svg";
      } else {
        for (const auto& e : w_.folder().list(rel_dir))
          if (S_ISREG(e.mode) && e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".svg") == 0)
            svg_rel = rel_dir + "/" + e.name;
      }
      const auto e = svg_rel.empty() ? std::nullopt : w_.folder().stat(svg_rel);
      if (e && S_ISREG(e->mode)) {
        svg = w_.folder().read(svg_rel, size_t{64} << 20);
        got = true;
      }
    } catch (const FileError& e) {
      err_ << "wmbench publish: chart " << script << ": " << e.what() << "\n";
    }
  }
  if (got) {
    w_.put(site_rel, svg);  // a link in the way is the writer's refusal (FileError), not a chart's failure
    w_.set_chart_key(site_rel, key);
    ++drawn_;
    return true;
  }
  err_ << fmt::format("wmbench publish: chart {} for {} failed ({}); the page says it is missing\n", script, site_rel,
                      r.ok() ? "it exited 0 but wrote no SVG" : r.failure());
  ++failed_;
  return false;
}

}  // namespace wmb::publish
