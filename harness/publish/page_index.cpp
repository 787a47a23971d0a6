// index.html: one row per folder, grouped by machine (chip, RAM, OS) and torch release, who
// stopped each setting at a glance, the tune answer where a tune folder exists; then the
// scenarios and the folders that were not published, with why.
#include <fmt/format.h>

#include "publish/html.h"
#include "publish/pages.h"

namespace wmb::publish {

namespace {

std::string scenario_slug_of(const std::vector<ScenarioView>& scenarios, const std::string& name) {
  for (const auto& s : scenarios)
    if (s.name == name) return s.slug;
  return "";
}

std::string glance(const PublishedFolder& f) {
  std::string out;
  for (const auto& [label, stops] : stops_at_a_glance(f)) {
    out += fmt::format("<span class=\"setting\"><code>{}</code> ", html_escape(label));
    for (const auto& [by, n] : stops) out += stop_badge(by, n);
    out += "</span> ";
  }
  return out.empty() ? "<span class=\"muted\">no runs</span>" : out;
}

std::string folder_row(const PublishedFolder& f, const std::vector<ScenarioView>& scenarios) {
  const std::string sslug = scenario_slug_of(scenarios, f.info.side.scenario);
  const std::string scen = sslug.empty() ? html_escape(f.info.side.scenario)
                                         : fmt::format("<a href=\"scenarios/{}.html\">{}</a>", html_escape(sslug),
                                                       html_escape(f.info.side.scenario));
  std::string tune = "<span class=\"muted\">-</span>";
  if (f.is_tune()) tune = fmt::format("<span class=\"answer\">{}</span>", html_escape(tune_answer(f)));
  return fmt::format(
      "<tr><td><a href=\"folders/{}/index.html\">{}</a></td><td class=\"nowrap\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
      "<td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
      html_escape(f.slug), html_escape(f.name), html_escape(f.info.side.date), scen, html_escape(f.info.side.device),
      html_escape(f.info.child), f.info.side.runs, glance(f), tune);
}

}  // namespace

std::string index_page(const Site& site, const std::vector<MachineGroup>& groups,
                       const std::vector<ScenarioView>& scenarios, const PageContext& ctx) {
  std::string b;
  b += "<h1>wmbench results</h1>\n";
  b += fmt::format(
      "<p>{} result folder{} from {} machine{}, {} scenario{}. Each row is one <code>wmbench run</code> or "
      "<code>wmbench tune</code>; the badges say who stopped each setting (guard: swap grew past the budget; "
      "pytorch: PyTorch refused the allocation; cap: the fill reached its cap without a limit).</p>\n",
      site.folders.size(), site.folders.size() == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s",
      scenarios.size(), scenarios.size() == 1 ? "" : "s");
  if (!site.skipped.empty())
    b += fmt::format("<p class=\"bad\">{} folder{} not published: see <a href=\"#skipped\">below</a>.</p>\n",
                     site.skipped.size(), site.skipped.size() == 1 ? " was" : "s were");
  for (const auto& g : groups) {
    b += fmt::format("<h2>{}</h2>\n", html_escape(g.title()));
    for (const auto& t : g.torches) {
      b += fmt::format("<h3>torch {}</h3>\n", html_escape(t.torch));
      std::vector<std::string> answers;
      for (size_t i : t.folders)
        if (site.folders[i].is_tune())
          answers.push_back(fmt::format("<code>{}</code>: <span class=\"answer\">{}</span>",
                                        html_escape(site.folders[i].info.side.scenario),
                                        html_escape(tune_answer(site.folders[i]))));
      for (const auto& a : answers) b += "<p>Tune answer on this machine and release: " + a + "</p>\n";
      b += "<table>\n<tr><th>folder</th><th>date</th><th>scenario</th><th>device</th><th>child</th><th>runs</th>"
           "<th>who stopped each setting</th><th>tune answer</th></tr>\n";
      for (size_t i : t.folders) b += folder_row(site.folders[i], scenarios);
      b += "</table>\n";
    }
  }
  b += "<h2>Scenarios</h2>\n<ul>\n";
  for (const auto& s : scenarios) {
    size_t n = 0;
    for (const auto& d : s.devices) n += d.folders.size();
    b += fmt::format("<li><a href=\"scenarios/{}.html\">{}</a> <span class=\"muted\">({} folder{})</span></li>\n",
                     html_escape(s.slug), html_escape(s.name), n, n == 1 ? "" : "s");
  }
  b += "</ul>\n";
  if (!site.skipped.empty()) {
    b += "<h2 id=\"skipped\">Not published</h2>\n<table>\n<tr><th>folder</th><th>why</th></tr>\n";
    for (const auto& s : site.skipped)
      b += fmt::format("<tr><td><code>{}</code></td><td>{}</td></tr>\n", html_escape(s.path), html_escape(s.why));
    b += "</table>\n";
  }
  return page_layout("wmbench results", b, "index.html", ctx);
}

}  // namespace wmb::publish
