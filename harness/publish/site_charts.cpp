#include "publish/site_charts.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "io/files.h"
#include "publish/html.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"  // current_environment

namespace wmb::publish {

namespace {
constexpr double kChartTimeout = 300;  // one chart script over one folder (or one scenario's folders)
}

ChartMaker::ChartMaker(SiteWriter& w, std::ostream& err) : w_(w), err_(err), tools_(find_chart_tools()) {
  if (tools_.plots_dir.empty())
    unavailable_ = "Charts not drawn: " + tools_.why_not + ".";
  else if (tools_.python.empty())
    unavailable_ = "Charts not drawn: " + tools_.why_not + " when this site was published.";
}

void ChartMaker::want(const std::string& script, std::vector<std::string> args, const std::string& stem,
                      const std::string& site_rel, const std::string& inputs_hash) {
  if (!unavailable_.empty() || wanted_.count(site_rel)) return;
  std::string script_text;
  try {
    script_text = read_file(tools_.script(script), size_t{4} << 20);
    script_text += read_file(tools_.script("common.py"), size_t{4} << 20);
  } catch (const FileError& e) {
    err_ << "wmbench publish: chart " << script << ": " << e.what() << "\n";
    return;  // draw() says it again and counts it failed
  }
  Wanted c{script, stem, content_hash(inputs_hash + "\n" + script + "\n" + script_text), "", {}, false, {}};
  if (!(w_.chart_key(site_rel) == c.key && w_.keep(site_rel))) {
    if (scratch_.empty()) scratch_ = w_.make_scratch();
    c.rel_dir = fmt::format("{}/{}", scratch_, ++next_);
    // --svg-only: the pages show the SVG only.
    c.args = {"--out", absolute_for_child(w_.out() + "/" + c.rel_dir), "--svg-only"};
    for (auto& a : args) c.args.push_back(std::move(a));
  }
  wanted_[site_rel] = std::move(c);
}

void ChartMaker::draw_wanted() {
  std::vector<ChartJob> jobs;
  std::vector<Wanted*> order;
  for (auto& [rel, c] : wanted_)
    if (!c.done && !c.rel_dir.empty()) {
      jobs.push_back({c.script, c.args});
      order.push_back(&c);
    }
  if (jobs.empty()) return;
  // matplotlib's config and font cache (MPLCONFIGDIR, else $XDG_CACHE_HOME/matplotlib or
  // ~/.matplotlib) go into the scratch work area inside --out, which publish made and removes:
  // never a folder outside --out, nor another user's link there (issue 40, class D).
  auto env = current_environment();
  const std::string work = absolute_for_child(w_.out() + "/" + scratch_);
  env["MPLCONFIGDIR"] = work + "/mplconfig";
  env["XDG_CACHE_HOME"] = work + "/cache";
  env["XDG_CONFIG_HOME"] = work + "/config";
  const ChartBatch b = draw_chart_batch(tools_, jobs, kChartTimeout, env);
  for (size_t i = 0; i < order.size(); ++i) {
    order[i]->outcome = b.outcomes[i];
    order[i]->done = true;
  }
}

bool ChartMaker::draw(const std::string& script, std::vector<std::string> args, const std::string& stem,
                      const std::string& site_rel, const std::string& inputs_hash) {
  if (!unavailable_.empty()) return false;
  want(script, std::move(args), stem, site_rel, inputs_hash);
  auto it = wanted_.find(site_rel);
  if (it == wanted_.end()) {  // its script could not be read (said by want)
    ++failed_;
    return false;
  }
  if (!it->second.done) draw_wanted();
  return finish(site_rel, it->second);
}

// Puts a drawn chart's SVG at site_rel (or keeps the unchanged one); says a failure.
bool ChartMaker::finish(const std::string& site_rel, const Wanted& c) {
  if (c.rel_dir.empty()) {  // unchanged since the last publish
    w_.set_chart_key(site_rel, c.key);
    return true;
  }
  std::string svg_rel, svg;
  bool got = false;
  if (c.outcome.ok()) {
    try {
      if (!c.stem.empty()) {
        svg_rel = c.rel_dir + "/" + c.stem + ".svg";
      } else {
        for (const auto& e : w_.folder().list(c.rel_dir))
          if (S_ISREG(e.mode) && e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".svg") == 0)
            svg_rel = c.rel_dir + "/" + e.name;
      }
      const auto e = svg_rel.empty() ? std::nullopt : w_.folder().stat(svg_rel);
      if (e && S_ISREG(e->mode)) {
        svg = w_.folder().read(svg_rel, size_t{64} << 20);
        got = true;
      }
    } catch (const FileError& e) {
      err_ << "wmbench publish: chart " << c.script << ": " << e.what() << "\n";
    }
  }
  if (got) {
    w_.put(site_rel, svg);  // a link in the way is the writer's refusal (FileError), not a chart's failure
    w_.set_chart_key(site_rel, c.key);
    ++drawn_;
    return true;
  }
  err_ << fmt::format("wmbench publish: chart {} for {} failed ({}); the page says it is missing\n", c.script, site_rel,
                      c.outcome.ok() ? "it exited 0 but wrote no SVG" : c.outcome.failure);
  ++failed_;
  return false;
}

}  // namespace wmb::publish
