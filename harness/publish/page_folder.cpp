// folders/<slug>/index.html: one result folder: its machine facts, the tune answer, its charts
// (drawn again by plots/*.py), its table (one row per run) and its raw files, copied beside it.
#include <cstdlib>

#include <fmt/format.h>

#include "common/units.h"
#include "publish/html.h"
#include "publish/pages.h"
#include "io/utf8.h"

namespace wmb::publish {

namespace {

using nlohmann::json;

std::string size_or_dash(const std::optional<uint64_t>& v) { return v ? format_size(*v) : "-"; }

std::string text_key(const json& m, const char* key) {
  const auto it = m.is_object() ? m.find(key) : m.end();
  if (!m.is_object() || it == m.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  return "";
}

void fact(std::string& b, const char* name, const std::string& value, bool code = false) {
  if (value.empty()) return;
  b += fmt::format("<dt>{}</dt><dd>{}{}{}</dd>\n", name, code ? "<code>" : "", html_escape(value), code ? "</code>" : "");
}

std::string swap_growth(const RunRecord& r) {
  const int64_t d = static_cast<int64_t>(r.swap_after_bytes) - static_cast<int64_t>(r.swap_before_bytes);
  return format_signed_size(d);
}

std::string setting_of(const RunRecord& r) {
  std::string s = describe_env(r.env);
  if (r.memory_fraction) s += fmt::format(", memory fraction {}", *r.memory_fraction);
  return s;
}

std::string runs_table(const Report& rep) {
  std::string b =
      "<table>\n<tr><th>#</th><th>setting</th><th>who stopped</th><th>tensors held</th><th>swap growth</th>"
      "<th>max allowed</th><th>peak footprint</th><th>time</th></tr>\n";
  for (const auto& r : rep.runs) {
    std::string who = stop_badge(r.stopped_by);
    if (!r.detail.empty()) who += " " + html_escape(r.detail);
    if (r.error_text && !r.error_text->empty()) {
      std::string t = *r.error_text;
      if (t.size() > 4000) t = std::string(utf8_prefix(t, 4000)) + "...";
      who += fmt::format("<details><summary>error text</summary><pre>{}</pre></details>", html_escape(t));
    }
    b += fmt::format(
        "<tr><td class=\"num\">{}</td><td><code>{}</code>{}<br><span class=\"muted\">{}</span></td><td>{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        r.index, html_escape(r.label), r.repeat > 1 ? fmt::format(" (repeat {})", r.repeat) : "",
        html_escape(setting_of(r)), who, format_size(r.held_bytes), html_escape(swap_growth(r)),
        size_or_dash(r.max_allowed_bytes), size_or_dash(r.peak_footprint_bytes), format_duration(r.duration_s));
  }
  b += "</table>\n";
  if (!rep.not_run.empty()) {
    b += "<p>Not run:</p>\n<ul>\n";
    for (const auto& n : rep.not_run)
      b += fmt::format("<li><code>{}</code> (repeat {}): {}</li>\n", html_escape(n.label), n.repeat, html_escape(n.why));
    b += "</ul>\n";
  }
  return b;
}

}  // namespace

std::string folder_page(const PublishedFolder& f, const std::string& scenario_slug, const std::vector<Chart>& charts,
                        const std::string& charts_missing, const PageContext& ctx) {
  const auto& info = f.info;
  const json& m = f.report.machine;
  std::string b = fmt::format("<h1>{}</h1>\n", html_escape(f.name));
  b += fmt::format("<p>Scenario <a href=\"../../scenarios/{}.html\">{}</a> on <code>{}</code>, {}.</p>\n",
                   html_escape(scenario_slug), html_escape(info.side.scenario), html_escape(info.side.device),
                   html_escape(info.side.date));
  if (f.is_tune()) {
    b += fmt::format("<p>Tune answer: <span class=\"answer\">{}</span></p>\n", html_escape(tune_answer(f)));
    if (const std::string e = tune_export(f); !e.empty()) b += fmt::format("<pre>{}</pre>\n", html_escape(e));
  }
  b += "<h2>Machine</h2>\n<dl class=\"facts\">\n";
  fact(b, "machine", info.machine);
  if (info.ram_bytes) fact(b, "RAM", format_size(*info.ram_bytes));
  fact(b, "OS", info.os);
  fact(b, "torch", info.side.torch_version);
  fact(b, "torch library", info.side.torch_library, true);
  fact(b, "device", info.side.device);
  if (info.recommended_max)
    fact(b, info.side.device == "cuda" ? "device memory" : "recommended max", format_size(*info.recommended_max));
  fact(b, "child", info.child);
  fact(b, "set-up", info.setup);
  fact(b, "started", text_key(m, "started_utc"));
  fact(b, "ended", text_key(m, "ended_utc"));
  fact(b, "wmbench", (text_key(m, "wmbench_version") + " " + text_key(m, "git_rev")));
  b += "</dl>\n";
  b += "<h2>Charts</h2>\n";
  for (const auto& c : charts)
    b += fmt::format("<figure><img src=\"{}\" alt=\"{}\"><figcaption>{}</figcaption></figure>\n", html_escape(c.file),
                     html_escape(c.title), html_escape(c.title));
  if (!charts_missing.empty()) b += fmt::format("<p class=\"muted\">{}</p>\n", html_escape(charts_missing));
  b += "<h2>Table</h2>\n" + runs_table(f.report);
  if (!f.notes_text.empty())
    b += fmt::format("<h2>Notes of wmbench check</h2>\n<pre>{}</pre>\n", html_escape(f.notes_text));
  b += "<h2>Raw files</h2>\n<p class=\"muted\">Copied from the folder as they are.</p>\n<ul class=\"files\">\n";
  for (const auto& r : f.raw_files)
    b += fmt::format("<li><a href=\"raw/{}\">{}</a></li>\n", html_escape(r), html_escape(r));
  b += "</ul>\n";
  return page_layout(f.name, b, "folders/" + f.slug + "/index.html", ctx);
}

}  // namespace wmb::publish
