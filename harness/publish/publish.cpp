#include "publish/publish.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "io/files.h"
#include "publish/html.h"
#include "publish/pages.h"
#include "publish/site_charts.h"
#include "publish/site_model.h"
#include "publish/site_writer.h"
#include "tools/python_isolated.h"

namespace wmb::publish {

namespace fs = std::filesystem;

namespace {

// Copies a folder's raw files into folders/<slug>/raw/; returns the hash of what they hold (the
// inputs of the folder's charts).
std::string copy_raw_files(const PublishedFolder& f, SiteWriter& w) {
  Folder src(f.path);
  std::string all;
  for (const auto& rel : f.raw_files) {
    const std::string content = src.read(rel);
    w.put("folders/" + f.slug + "/raw/" + rel, content);
    all += rel + "\n" + content_hash(content) + "\n";
  }
  return content_hash(all);
}

struct FolderChartSpec {
  const char* script;
  const char* stem;
  const char* title;
};

std::vector<FolderChartSpec> folder_chart_specs(const PublishedFolder& f) {
  std::vector<FolderChartSpec> specs = {{"table.py", "table", "Who stopped each setting, and the memory it held"},
                                        {"traces.py", "traces", "Footprint and swap over each run"}};
  if (f.is_tune()) specs.push_back({"tune.py", "tune", "The tune search, probe by probe"});
  return specs;
}

std::vector<Chart> folder_charts(const PublishedFolder& f, const std::string& inputs, ChartMaker& charts) {
  std::vector<Chart> out;
  for (const auto& s : folder_chart_specs(f)) {
    const std::string rel = fmt::format("folders/{}/{}.svg", f.slug, s.stem);
    if (charts.draw(s.script, {absolute_for_child(f.path)}, s.stem, rel, inputs))
      out.push_back({std::string(s.stem) + ".svg", s.title});
  }
  return out;
}

// A scenario's history chart on one device: plots/history.py's arguments, its site file, its inputs.
struct HistoryChart {
  std::vector<std::string> args;
  std::string file, inputs_hash;
};

HistoryChart history_chart(const Site& site, const ScenarioView& s, const DeviceView& d,
                           std::map<std::string, std::string>& inputs) {
  HistoryChart h{{"--by", "torch", "--"}, fmt::format("{}-{}-history.svg", s.slug, slug(d.device)), ""};
  std::string all;
  for (size_t i : d.folders) {
    h.args.push_back(absolute_for_child(site.folders[i].path));
    all += inputs[site.folders[i].path] + "\n";
  }
  h.inputs_hash = content_hash(all);
  return h;
}

// Every chart of the site, drawn in one batch (one python, matplotlib imported once) before the
// pages take them one by one.
void draw_site_charts(const Site& site, const std::vector<ScenarioView>& scenarios,
                      std::map<std::string, std::string>& inputs, ChartMaker& charts) {
  for (const auto& f : site.folders)
    for (const auto& s : folder_chart_specs(f))
      charts.want(s.script, {absolute_for_child(f.path)}, s.stem, fmt::format("folders/{}/{}.svg", f.slug, s.stem),
                  inputs[f.path]);
  for (const auto& s : scenarios)
    for (const auto& d : s.devices) {
      HistoryChart h = history_chart(site, s, d, inputs);
      charts.want("history.py", std::move(h.args), "", "scenarios/" + h.file, h.inputs_hash);
    }
  charts.draw_wanted();
}

// Says so and returns true when --out lies inside one of the result folders the site publishes.
bool out_inside_a_folder(const PublishOptions& opts, const Site& site, std::ostream& err) {
  std::error_code ec;
  const fs::path out_canon = fs::weakly_canonical(fs::absolute(opts.out, ec), ec);
  for (const auto& f : site.folders) {
    std::error_code ec2;
    const fs::path dir = fs::weakly_canonical(fs::absolute(f.path, ec2), ec2);
    const auto rel = out_canon.lexically_relative(dir);
    if (!ec && !ec2 && !rel.empty() && *rel.begin() != "..") {
      err << fmt::format("wmbench publish: --out {} is inside the result folder {}; give the site a folder of its own\n",
                         opts.out, f.path);
      return true;
    }
  }
  return false;
}

// Writes each folder's page (folders/<slug>/index.html) with its charts, drawn when --charts.
void write_folder_pages(const PublishOptions& opts, const Site& site, const std::vector<ScenarioView>& scenarios,
                        std::map<std::string, std::string>& inputs, const std::string& missing, ChartMaker& charts,
                        SiteWriter& w, const PageContext& ctx) {
  for (const auto& f : site.folders) {
    std::string sslug;
    for (const auto& s : scenarios)
      if (s.name == f.info.side.scenario) sslug = s.slug;
    const auto fc = opts.charts ? folder_charts(f, inputs[f.path], charts) : std::vector<Chart>{};
    std::string miss = missing;
    if (miss.empty() && fc.size() < (f.is_tune() ? 3u : 2u)) miss = "Some charts could not be drawn (see wmbench publish's messages).";
    w.put("folders/" + f.slug + "/index.html", folder_page(f, sslug, fc, miss, ctx));
  }
}

// Writes each scenario's page (scenarios/<slug>.html), with a history chart per device when --charts.
void write_scenario_pages(const PublishOptions& opts, const Site& site, std::vector<ScenarioView>& scenarios,
                          std::map<std::string, std::string>& inputs, const std::string& missing, ChartMaker& charts,
                          SiteWriter& w, const PageContext& ctx) {
  for (auto& s : scenarios) {
    for (auto& d : s.devices) {
      if (!opts.charts) continue;
      HistoryChart h = history_chart(site, s, d, inputs);
      if (charts.draw("history.py", std::move(h.args), "", "scenarios/" + h.file, h.inputs_hash))
        d.charts.push_back({h.file, "History of " + s.name + " on " + d.device + " (by torch release)"});
    }
    w.put("scenarios/" + s.slug + ".html", scenario_page(site, s, opts.charts ? charts.unavailable() : missing, ctx));
  }
}

}  // namespace

std::optional<std::string> check_base_url(const std::string& url) {
  const bool scheme = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
  if (!scheme || url.size() > 2000) return std::nullopt;
  for (unsigned char c : url)
    if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == '?' || c == '#' ||
        c == '`')
      return std::nullopt;
  const size_t host = url.find("://") + 3;
  if (host >= url.size() || url[host] == '/') return std::nullopt;  // no host
  std::string u = url;
  while (u.size() > host && u.back() == '/') u.pop_back();
  return u;
}

int run_publish(const PublishOptions& opts, std::ostream& out, std::ostream& err) {
  PageContext ctx;
  if (!opts.base_url.empty()) {
    const auto u = check_base_url(opts.base_url);
    if (!u) {
      err << fmt::format("wmbench publish: --base-url \"{}\": expected an http:// or https:// URL without spaces, "
                         "quotes, '<', '>', '?' or '#', e.g. https://example.github.io/wmbench\n",
                         opts.base_url);
      return 2;
    }
    ctx.base_url = *u;
  }
  if (opts.dirs.empty()) {
    err << "wmbench publish: give result folders or folders of them, e.g. wmbench publish results/ --out site\n";
    return 2;
  }
  const Site site = collect_site(opts.dirs);
  for (const auto& s : site.skipped) err << "wmbench publish: skipped " << s.path << ": " << s.why << "\n";
  if (site.folders.empty()) {
    err << "wmbench publish: no result folder that wmbench check accepts among the arguments; nothing written\n";
    return 2;
  }
  // The site is never written into a result folder it publishes (that folder would then hold
  // files `check` does not know, and the next publish would copy pages of pages).
  if (out_inside_a_folder(opts, site, err)) return 2;
  try {
    SiteWriter w(opts.out);
    try {
      w.refuse_foreign("index.html");  // a first publish into the user's own folder: nothing written
    } catch (const FileError& e) {
      err << "wmbench publish: " << e.what() << "; nothing written\n";
      return 2;
    }
    ChartMaker charts(w, err);
    std::vector<ScenarioView> scenarios = scenario_views(site);
    const auto groups = group_index(site);
    std::map<std::string, std::string> inputs;  // folder path -> its raw files' hash
    for (const auto& f : site.folders) inputs[f.path] = copy_raw_files(f, w);
    const std::string missing = opts.charts ? charts.unavailable() : "Charts not drawn (--no-charts).";
    if (opts.charts) draw_site_charts(site, scenarios, inputs, charts);
    write_folder_pages(opts, site, scenarios, inputs, missing, charts, w, ctx);
    write_scenario_pages(opts, site, scenarios, inputs, missing, charts, w, ctx);
    w.put("index.html", index_page(site, groups, scenarios, ctx));
    const int removed = w.finish();
    out << fmt::format("wmbench publish: {} folder{} ({} skipped), {} scenario{} -> {}/index.html\n", site.folders.size(),
                       site.folders.size() == 1 ? "" : "s", site.skipped.size(), scenarios.size(),
                       scenarios.size() == 1 ? "" : "s", w.out());
    out << fmt::format("  {} file{} written, {} unchanged, {} removed; {} chart{} drawn\n", w.written(),
                       w.written() == 1 ? "" : "s", w.unchanged(), removed, charts.drawn(), charts.drawn() == 1 ? "" : "s");
    if (opts.charts && !charts.unavailable().empty()) {
      err << "wmbench publish: " << charts.unavailable() << "\n";
      return 3;
    }
    if (charts.failed() > 0) return 3;
    return 0;
  } catch (const FileError& e) {
    err << "wmbench publish: " << e.what() << "\n  (nothing is written through a link or outside --out; the site may "
           "be incomplete)\n";
    return 1;
  }
}

}  // namespace wmb::publish
