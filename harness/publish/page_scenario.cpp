// scenarios/<slug>.html: one scenario across folders, per device (history never mixes devices):
// the history chart (plots/history.py) and compare's verdicts between neighbours, by torch release
// on one machine and by machine on one torch release (history::build_history over those folders,
// so each verdict is the one `wmbench compare` gives).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/units.h"
#include "publish/html.h"
#include "publish/pages.h"

namespace wmb::publish {

namespace {

std::string machine_key(const history::FolderInfo& i) {
  return fmt::format("{}\x1f{}\x1f{}", i.machine, i.ram_bytes.value_or(0), i.os);
}

MachineGroup machine_of(const history::FolderInfo& i) { return MachineGroup{i.machine, i.ram_bytes, i.os, {}}; }

// history::build_history over these folders, in `order`; one series (one scenario, one device).
std::optional<history::Series> neighbours(const Site& site, const std::vector<size_t>& members, history::Order order) {
  if (members.size() < 2) return std::nullopt;
  std::vector<history::Input> inputs;
  for (size_t i : members) inputs.push_back(site.folders[i].input);
  history::History h = history::build_history(inputs, order, 5.0);
  if (h.series.size() != 1) return std::nullopt;
  return std::move(h.series.front());
}

std::string folder_link(const Site& site, const std::string& path) {
  for (const auto& f : site.folders)
    if (f.input.folder.path == path)
      return fmt::format("<a href=\"../folders/{}/index.html\">{}</a>", html_escape(f.slug), html_escape(f.name));
  return html_escape(path);
}

std::string held_text(const compare::SideStats& s) {
  return s.held_median ? format_size(*s.held_median) : std::string("-");
}

std::string side_cell(const compare::SideStats& s) {
  if (s.repeats == 0) return "<span class=\"muted\">not run</span>";
  std::string out;
  for (const auto& [by, n] : s.stopped_by) out += stop_badge(by, n);
  return out + " " + html_escape(held_text(s));
}

std::string neighbour_html(const Site& site, const NeighbourSet& n) {
  std::string b = fmt::format("<h4>{}</h4>\n", html_escape(n.title));
  const auto& s = n.series;
  for (size_t k = 0; k < s.steps.size(); ++k) {
    const auto& c = s.steps[k];
    const std::string verdict = c.regressions > 0          ? "<span class=\"bad\">regressed</span>"
                                : c.claims_no_regression() ? "<span class=\"ok\">no regression</span>"
                                                           : "<span class=\"muted\">not comparable (no claim)</span>";
    b += fmt::format("<p>{} (torch {}) &rarr; {} (torch {}): {}</p>\n", folder_link(site, s.folders[k].side.path),
                     html_escape(s.folders[k].side.torch_version), folder_link(site, s.folders[k + 1].side.path),
                     html_escape(s.folders[k + 1].side.torch_version), verdict);
    b += "<table>\n<tr><th>setting</th><th>before</th><th>after</th><th>verdict</th></tr>\n";
    for (const auto& r : c.rows)
      b += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
                       html_escape(r.label), side_cell(r.base), side_cell(r.now), r.regression ? "bad" : "",
                       html_escape(r.verdict));
    b += "</table>\n";
    if (k < s.step_notes.size() && !s.step_notes[k].empty()) {
      b += "<ul class=\"muted\">\n";
      for (const auto& note : s.step_notes[k]) b += "<li>" + html_escape(note) + "</li>\n";
      b += "</ul>\n";
    }
  }
  return b;
}

}  // namespace

std::vector<ScenarioView> scenario_views(const Site& site) {
  std::vector<ScenarioView> out;
  std::set<std::string> slugs;
  for (size_t i = 0; i < site.folders.size(); ++i) {
    const auto& side = site.folders[i].info.side;
    auto s = std::find_if(out.begin(), out.end(), [&](const ScenarioView& v) { return v.name == side.scenario; });
    if (s == out.end()) {
      ScenarioView v;
      v.name = side.scenario;
      v.slug = slug(side.scenario);
      for (int k = 2; slugs.count(v.slug); ++k) v.slug = fmt::format("{}-{}", slug(side.scenario), k);
      slugs.insert(v.slug);
      out.push_back(std::move(v));
      s = out.end() - 1;
    }
    auto d = std::find_if(s->devices.begin(), s->devices.end(), [&](const DeviceView& v) { return v.device == side.device; });
    if (d == s->devices.end()) {
      s->devices.push_back(DeviceView{side.device, {}, {}, {}, {}});
      d = s->devices.end() - 1;
    }
    d->folders.push_back(i);
  }
  std::sort(out.begin(), out.end(), [](const ScenarioView& a, const ScenarioView& b) { return a.name < b.name; });
  for (auto& s : out) {
    for (auto& d : s.devices) {
      std::map<std::string, std::vector<size_t>> by_machine, by_torch;
      std::vector<std::string> machine_order, torch_order;
      for (size_t i : d.folders) {
        const auto& info = site.folders[i].info;
        const std::string mk = machine_key(info);
        if (!by_machine.count(mk)) machine_order.push_back(mk);
        by_machine[mk].push_back(i);
        if (!by_torch.count(info.side.torch_version)) torch_order.push_back(info.side.torch_version);
        by_torch[info.side.torch_version].push_back(i);
      }
      for (const auto& mk : machine_order)
        if (auto ser = neighbours(site, by_machine[mk], history::Order::torch))
          d.by_release.push_back(
              {machine_of(site.folders[by_machine[mk].front()].info).title() + ": by torch release", std::move(*ser)});
      std::sort(torch_order.begin(), torch_order.end(), torch_less);
      for (const auto& t : torch_order)
        if (auto ser = neighbours(site, by_torch[t], history::Order::machine))
          d.by_machine.push_back({"torch " + (t.empty() ? std::string("?") : t) + ": by machine", std::move(*ser)});
    }
  }
  return out;
}

std::string scenario_page(const Site& site, const ScenarioView& s, const std::string& charts_missing,
                          const PageContext& ctx) {
  std::string b = fmt::format("<h1>Scenario {}</h1>\n", html_escape(s.name));
  for (const auto& d : s.devices) {
    b += fmt::format("<h2>Device <code>{}</code></h2>\n<p>Folders:</p>\n<ul>\n", html_escape(d.device));
    for (size_t i : d.folders) {
      const auto& f = site.folders[i];
      b += fmt::format("<li>{} <span class=\"muted\">({}, torch {}, {})</span></li>\n", folder_link(site, f.input.folder.path),
                       html_escape(machine_of(f.info).title()), html_escape(f.info.side.torch_version),
                       html_escape(f.info.side.date));
    }
    b += "</ul>\n";
    for (const auto& c : d.charts)
      b += fmt::format("<figure><img src=\"{}\" alt=\"{}\"><figcaption>{}</figcaption></figure>\n", html_escape(c.file),
                       html_escape(c.title), html_escape(c.title));
    if (d.charts.empty() && !charts_missing.empty()) b += fmt::format("<p class=\"muted\">{}</p>\n", html_escape(charts_missing));
    b += "<h3>Between neighbours</h3>\n";
    if (d.by_release.empty() && d.by_machine.empty())
      b += "<p class=\"muted\">No two folders share a machine or a torch release here: nothing to compare.</p>\n";
    for (const auto& n : d.by_release) b += neighbour_html(site, n);
    for (const auto& n : d.by_machine) b += neighbour_html(site, n);
  }
  return page_layout("Scenario " + s.name, b, "scenarios/" + s.slug + ".html", ctx);
}

}  // namespace wmb::publish
