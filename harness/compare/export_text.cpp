// Rendering a Comparison: the aligned text table (the default) and Markdown for a pull request.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/text_table.h"
#include "common/units.h"
#include "compare/compare.h"

namespace wmb::compare {

namespace {

std::string change_text(const SizeChange& c) {
  if (!c.differs) return "same";
  std::string s = c.change_pct ? fmt::format("{:+.1f} %, {}", *c.change_pct, c.direction()) : c.direction();
  return s;
}

std::string stop_cell(const Row& r) {
  const std::string b = r.kind == RowKind::only_in_new ? "-" : stopped_by_text(r.base);
  const std::string n = r.kind == RowKind::only_in_base ? "-" : stopped_by_text(r.now);
  return b + " -> " + n;
}

std::string held_cell(const Row& r) {
  if (r.kind == RowKind::only_in_base) return format_size_or_dash(r.base.held_median) + " -> -";
  if (r.kind == RowKind::only_in_new) return "- -> " + format_size_or_dash(r.now.held_median);
  std::string s = format_size_or_dash(r.held.base) + " -> " + format_size_or_dash(r.held.now) + " (" + change_text(r.held);
  if (r.held.differs && r.held_spread == Spread::beyond) s += ", beyond spread";
  if (r.held.differs && r.held_spread == Spread::within) s += ", within spread";
  return s + ")";
}

std::string max_allowed_cell(const Row& r) {
  if (r.kind == RowKind::only_in_base) return format_size_or_dash(r.base.max_allowed) + " -> -";
  if (r.kind == RowKind::only_in_new) return "- -> " + format_size_or_dash(r.now.max_allowed);
  std::string s = format_size_or_dash(r.max_allowed.base) + " -> " + format_size_or_dash(r.max_allowed.now);
  if (r.max_allowed.differs) s += " (" + change_text(r.max_allowed) + ")";
  return s;
}

std::string swap_cell(const Row& r) {
  const std::string b = r.kind == RowKind::only_in_new ? "-" : format_signed_size(r.base.swap_growth);
  const std::string n = r.kind == RowKind::only_in_base ? "-" : format_signed_size(r.now.swap_growth);
  return b + " -> " + n;
}

std::string settings(size_t n) { return fmt::format("{} setting{}", n, n == 1 ? "" : "s"); }

std::string tol_text(double t) { return fmt::format("{:g} %", t); }

std::string verdict_line(const Comparison& c) {
  int stop = 0, held = 0, maxa = 0, only_base = 0, only_new = 0, within = 0;
  for (const auto& r : c.rows) {
    if (r.kind == RowKind::only_in_base) ++only_base;
    if (r.kind == RowKind::only_in_new) ++only_new;
    if (r.kind != RowKind::compared || !r.settings_differ.empty()) continue;  // those: notes
    stop += r.stop_reason_changed;
    held += r.held.changed;
    maxa += r.max_allowed.changed;
    within += r.held.over_tolerance && !r.held.changed;
  }
  std::vector<std::string> parts;
  if (c.settings_differ)
    parts.push_back(fmt::format("not comparable, the settings differ under one label: {}", c.settings_differ));
  if (stop) parts.push_back(fmt::format("stop reason changed: {}", stop));
  if (held) parts.push_back(fmt::format("held changed: {}", held));
  if (maxa) parts.push_back(fmt::format("max allowed changed: {}", maxa));
  if (only_base) parts.push_back(fmt::format("only in base: {}", only_base));
  if (only_new) parts.push_back(fmt::format("only in new: {}", only_new));
  if (within) parts.push_back(fmt::format("held over tolerance but within spread: {}", within));
  std::string p;
  for (const auto& s : parts) p += (p.empty() ? "" : ", ") + s;
  if (!p.empty()) p = "; " + p;
  if (c.regressions > 0)
    return fmt::format("REGRESSION: {} of {} regressed (tolerance {}{}).", c.regressions, settings(c.rows.size()),
                       tol_text(c.tolerance_pct), p);
  if (!c.not_comparable.empty())
    return fmt::format("NOT COMPARABLE: no regression counted ({} compared; differences are notes{}).",
                       settings(c.compared), p);
  if (c.settings_differ)
    return fmt::format("NOT COMPARABLE: no regression counted ({} of {} not compared: the settings differ under one "
                       "label; {} compared, tolerance {}{}).",
                       c.settings_differ, settings(c.rows.size()), settings(c.compared), tol_text(c.tolerance_pct), p);
  if (c.compared == 0)
    return fmt::format("NOT COMPARABLE: no regression counted (no setting ran on both sides{}).", p);
  return fmt::format("OK: no regression ({} compared, tolerance {}{}).", settings(c.compared),
                     tol_text(c.tolerance_pct), p);
}

}  // namespace

std::string format_text(const Comparison& c) {
  std::string out = fmt::format("wmbench compare: scenario \"{}\", tolerance {}\n\n", c.base.scenario,
                                tol_text(c.tolerance_pct));
  out += aligned_columns({{"", "torch", "child", "OS", "chip", "device", "date", "runs", "folder"},
                          {"base", c.base.torch_version, c.base.child, c.base.os_version, c.base.chip,
                           c.base.device, c.base.date, std::to_string(c.base.runs), c.base.path},
                          {"new", c.now.torch_version, c.now.child, c.now.os_version, c.now.chip, c.now.device,
                           c.now.date, std::to_string(c.now.runs), c.now.path}},
                         false);
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> t;
  t.push_back({"setting", "stopped by (base -> new)", "held (base -> new, change)", "max allowed (base -> new)",
               "swap growth (base -> new)", "verdict"});
  for (const auto& r : c.rows) {
    t.push_back({r.label, stop_cell(r), held_cell(r), max_allowed_cell(r), swap_cell(r), r.verdict});
  }
  out += aligned_columns(t, true);
  out += "\n" + verdict_line(c) + "\n";
  return out;
}

std::string format_markdown(const Comparison& c) {
  std::string out;
  out += fmt::format("### wmbench compare: {} (torch {} -> {}): {}\n\n", md_escape(c.base.scenario),
                     md_escape(c.base.torch_version), md_escape(c.now.torch_version),
                     c.regressions > 0           ? fmt::format("{} regression(s)", c.regressions)
                     : c.claims_no_regression() ? std::string("no regression")
                                                : std::string("not comparable"));
  out += "| | base | new |\n|---|---|---|\n";
  auto line = [&](const char* what, const std::string& b, const std::string& n) {
    out += fmt::format("| {} | {} | {} |\n", what, md_escape(b), md_escape(n));
  };
  line("torch", c.base.torch_version, c.now.torch_version);
  line("child", c.base.child, c.now.child);
  line("OS", c.base.os_version, c.now.os_version);
  line("chip", c.base.chip, c.now.chip);
  line("device", c.base.device, c.now.device);
  line("date", c.base.date, c.now.date);
  line("runs", std::to_string(c.base.runs), std::to_string(c.now.runs));
  out += fmt::format("| folder | {} | {} |\n\n", md_code(c.base.path), md_code(c.now.path));
  for (const auto& n : c.notes) out += "> note: " + md_escape(n) + "\n";
  if (!c.notes.empty()) out += "\n";
  out += fmt::format("Tolerance {}; with 3 or more repeats per side a held change counts only beyond the "
                     "run-to-run spread.\n\n",
                     tol_text(c.tolerance_pct));
  out += "| setting | stopped by (base -> new) | held (base -> new, change) | max allowed | swap growth | verdict |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const auto& r : c.rows) {
    std::string verdict = r.regression ? "**" + md_escape(r.verdict) + "**" : md_escape(r.verdict);
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md_code(r.label), md_escape(stop_cell(r)),
                       md_escape(held_cell(r)), md_escape(max_allowed_cell(r)), md_escape(swap_cell(r)), verdict);
  }
  out += "\n**" + verdict_line(c) + "**\n";
  return out;
}

}  // namespace wmb::compare
