// Rendering a History: the aligned text tables (the default) and Markdown for a post or a pull
// request. Both show the same cells: one table of folders per series, then one row per setting
// and folder, with compare's verdict against the folder before it ("!" marks a regression).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/text_table.h"
#include "common/units.h"
#include "history/history.h"

namespace wmb::history {

namespace {

using Table = TextRows;

const char* rec_max_name(const Series& s) {
  if (s.device == "cuda") return "device memory";  // the GPU's total, not an MPS "recommended max"
  if (s.device == "cpu") return "recommended max (n/a on cpu)";
  return "recommended max";
}

Table folder_table(const Series& s) {
  Table t{{"#", "date", "torch", "child", "machine", "RAM", "OS", rec_max_name(s), "setup", "folder"}};
  for (size_t i = 0; i < s.folders.size(); ++i) {
    const FolderInfo& f = s.folders[i];
    t.push_back({std::to_string(i + 1), f.side.date, f.side.torch_version, f.child, f.machine,
                 f.ram_bytes ? (*f.ram_bytes % GiB == 0 ? fmt::format("{} GiB", *f.ram_bytes / GiB)
                                                        : format_size_short(*f.ram_bytes))
                             : "?", f.os, format_size_or_dash(f.recommended_max),
                 f.setup.empty() ? "-" : f.setup, f.side.path});
  }
  return t;
}

std::string held_text(const compare::SideStats& st) {
  std::string s = format_size_or_dash(st.held_median);
  if (st.repeats > 1 && st.held_min && st.held_max) {
    s += fmt::format(" (median of {}, {} - {})", st.repeats, format_size_short(*st.held_min),
                     format_size_short(*st.held_max));
  }
  return s;
}

// Against the folder before it, in compare's words with "previous" for base.
std::string change_text(const Cell& c, size_t i) {
  if (!c.compared) return i == 0 ? "(first)" : "-";
  if (c.kind == compare::RowKind::only_in_base) return fmt::format("! REGRESSION: ran in #{}, not here", i);
  if (c.kind == compare::RowKind::only_in_new) return fmt::format("new (not in #{})", i);
  return (c.regression ? "! " : "") + c.verdict;
}

Table setting_table(const Series& s) {
  Table t{{"setting", "#", "stopped by", "held", "max allowed", "swap growth", "vs previous"}};
  for (const auto& set : s.settings) {
    for (size_t i = 0; i < set.cells.size(); ++i) {
      const Cell& c = set.cells[i];
      if (!c.present && !c.compared) continue;  // never ran up to here
      if (!c.present) {
        t.push_back({set.label, std::to_string(i + 1), "not run", "-", "-", "-", change_text(c, i)});
        continue;
      }
      t.push_back({set.label, std::to_string(i + 1), compare::stopped_by_text(c.stats), held_text(c.stats),
                   format_size_or_dash(c.stats.max_allowed), format_signed_size(c.stats.swap_growth), change_text(c, i)});
    }
  }
  return t;
}

std::string series_verdict(const Series& s) {
  if (s.steps.empty()) return "one folder: nothing to compare yet.";
  const size_t n = s.folders.size();
  const auto& last = s.steps.back();
  std::string out;
  if (!last.ok())
    out = fmt::format("REGRESSION: newest (#{}) vs #{}: {} of {} settings regressed.", n, n - 1, last.regressions,
                      last.rows.size());
  else if (!last.not_comparable.empty())
    out = fmt::format("newest (#{}) vs #{}: not comparable (see the notes), no regression counted.", n, n - 1);
  else if (last.settings_differ > 0)
    out = fmt::format("newest (#{}) vs #{}: not comparable: {} of {} settings ran other settings under the same "
                      "label, no regression counted.",
                      n, n - 1, last.settings_differ, last.rows.size());
  else if (!last.claims_no_regression())
    out = fmt::format("newest (#{}) vs #{}: no setting ran in both, no regression counted.", n, n - 1);
  else
    out = fmt::format("newest (#{}) vs #{}: no regression.", n, n - 1);
  std::vector<std::string> earlier;
  for (size_t i = 0; i + 1 < s.steps.size(); ++i) {
    if (!s.steps[i].ok()) earlier.push_back(fmt::format("#{} vs #{} ({})", i + 2, i + 1, s.steps[i].regressions));
  }
  if (!earlier.empty()) {
    out += " Changes earlier in the series:";
    for (size_t k = 0; k < earlier.size(); ++k) out += (k ? ", " : " ") + earlier[k];
    out += ".";
  }
  return out;
}

std::string overall_verdict(const History& h) {
  std::vector<std::string> bad;
  for (const auto& s : h.series)
    if (s.newest_regressed()) bad.push_back(s.scenario + " on " + s.device);
  std::vector<std::string> unclaimed;
  for (const auto& s : h.series)
    if (s.newest_not_comparable()) unclaimed.push_back(s.scenario + " on " + s.device);
  std::string also;
  for (size_t i = 0; i < unclaimed.size(); ++i) also += (i ? ", " : "") + unclaimed[i];
  if (bad.empty() && !unclaimed.empty())
    return "OK: no newest folder regressed against the one before it; not comparable with the one before it, so "
           "no regression claimed, in: " + also + ".";
  if (bad.empty()) return "OK: the newest folder of each series did not regress against the one before it.";
  std::string out = "REGRESSION: the newest folder regressed against the one before it in: ";
  for (size_t i = 0; i < bad.size(); ++i) out += (i ? ", " : "") + bad[i];
  return out + ".";
}

std::string header_line(const History& h) {
  size_t folders = 0;
  std::vector<std::string> scenarios;
  for (const auto& s : h.series) {
    folders += s.folders.size();
    if (std::find(scenarios.begin(), scenarios.end(), s.scenario) == scenarios.end()) scenarios.push_back(s.scenario);
  }
  std::string out = fmt::format(
      "{} folder{} in {} series (one per scenario and device: devices are never mixed), ordered by {}, tolerance "
      "{:g} %.",
      folders, folders == 1 ? "" : "s", h.series.size(), order_name(h.order), h.tolerance_pct);
  if (scenarios.size() > 1) out += fmt::format(" {} scenarios; --scenario NAME shows one.", scenarios.size());
  return out;
}

// Column `code` (or none) is set in backticks; a cell starting with "! " is set in bold.
std::string md_table(const Table& rows, int code_col) {
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    out += "|";
    for (size_t i = 0; i < rows[k].size(); ++i) {
      std::string cell = md_escape(rows[k][i]);
      if (k > 0 && static_cast<int>(i) == code_col && !cell.empty()) cell = "`" + cell + "`";
      if (k > 0 && cell.rfind("! ", 0) == 0) cell = "**" + cell.substr(2) + "**";
      out += " " + cell + " |";
    }
    out += "\n";
    if (k == 0) {
      out += "|";
      for (size_t i = 0; i < rows[k].size(); ++i) out += "---|";
      out += "\n";
    }
  }
  return out;
}

std::vector<std::string> note_lines(const Series& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.step_notes.size(); ++i)
    for (const auto& n : s.step_notes[i]) out.push_back(fmt::format("#{} vs #{}: {}", i + 2, i + 1, n));
  return out;
}

}  // namespace

std::string format_text(const History& h) {
  std::string out = "wmbench history: " + header_line(h) + "\n";
  for (const auto& k : h.skipped) {
    out += fmt::format("skipped: {} (scenario \"{}\", not \"{}\")\n", k.path, k.scenario, h.only_scenario);
  }
  for (const auto& s : h.series) {
    out += fmt::format("\n== {} on {}: {} folder{} ==\n\n", s.scenario, s.device, s.folders.size(),
                       s.folders.size() == 1 ? "" : "s");
    out += aligned_columns(folder_table(s), true);
    for (const auto& n : note_lines(s)) out += "note: " + n + "\n";
    out += "\n" + aligned_columns(setting_table(s), true);
    out += "\n" + series_verdict(s) + "\n";
  }
  if (h.series.empty()) out += "\nNo folder of scenario \"" + h.only_scenario + "\".\n";
  out += "\n" + overall_verdict(h) + "\n";
  return out;
}

std::string format_markdown(const History& h) {
  std::string out = "## wmbench history\n\n" + md_escape(header_line(h)) + "\n\n";
  for (const auto& k : h.skipped) {
    out += fmt::format("- skipped `{}` (scenario `{}`, not `{}`)\n", md_escape(k.path), md_escape(k.scenario),
                       md_escape(h.only_scenario));
  }
  if (!h.skipped.empty()) out += "\n";
  for (const auto& s : h.series) {
    out += fmt::format("### {} on `{}`: {} folder{}\n\n", md_escape(s.scenario), md_escape(s.device), s.folders.size(),
                       s.folders.size() == 1 ? "" : "s");
    out += md_table(folder_table(s), 9);
    const auto notes = note_lines(s);
    if (!notes.empty()) out += "\n";
    for (const auto& n : notes) out += "> note: " + md_escape(n) + "\n";
    out += "\n" + md_table(setting_table(s), 0);
    out += "\n" + std::string(s.newest_regressed() ? "**" : "") + md_escape(series_verdict(s)) +
           (s.newest_regressed() ? "**" : "") + "\n\n";
  }
  if (h.series.empty()) out += "No folder of scenario `" + md_escape(h.only_scenario) + "`.\n\n";
  out += "**" + md_escape(overall_verdict(h)) + "**\n";
  return out;
}

}  // namespace wmb::history
