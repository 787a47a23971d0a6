// The comparison of two result folders: runs matched by label, the repeats of each label grouped,
// and the verdict of each row. Loading is readback/, the exports export_json.cpp and export_text.cpp.
#include "compare/compare.h"

#include "io/text_table.h"
#include "compare/comparable.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "io/json_input.h"
#include "compare/cell_settings.h"
#include "readback/fields.h"
#include "readback/folder_device.h"
#include "readback/verify_runs.h"
#include "common/units.h"
#include "results/run_record.h"
#include "results/summary_stream.h"
#include "io/utf8.h"

namespace wmb::compare {

namespace fs = std::filesystem;
using nlohmann::json;


namespace {

// "pressure" for one run of one signal, "swap x2, pressure x1" otherwise.
std::string signals_text(const SideStats& s) {
  std::string out;
  for (const auto& [sig, n] : s.guard_signals) {
    if (!out.empty()) out += ", ";
    out += s.repeats == 1 ? sig : fmt::format("{} x{}", sig, n);
  }
  return out;
}

}  // namespace

std::string stopped_by_text(const SideStats& s) {
  if (s.stopped_by.empty()) return "-";
  const std::string sig = s.guard_signals.empty() ? "" : " (" + signals_text(s) + ")";
  if (s.stopped_by.size() == 1 && s.repeats == 1) return s.stopped_by.begin()->first + sig;
  std::vector<std::pair<std::string, int>> v(s.stopped_by.begin(), s.stopped_by.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [reason, n] : v) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} x{}{}", reason, n, reason == "guard" ? sig : "");
  }
  return out;
}

std::string SizeChange::direction() const {
  if (!base && !now) return "same";
  if (!base) return "appeared";
  if (!now) return "gone";
  if (*now > *base) return "more";
  if (*now < *base) return "less";
  return "same";
}

namespace {

template <typename T>
T median_of(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n % 2 == 1) return v[n / 2];
  const T a = v[n / 2 - 1], b = v[n / 2];
  return a + (b - a) / 2;
}

}  // namespace

SideInfo side_info(const ResultFolder& f) {
  SideInfo s;
  s.path = f.path;
  const json& sum = f.summary;
  json machine = json::object();
  if (auto it = sum.find("machine"); it != sum.end() && it->is_object()) machine = *it;
  if (f.machine.is_object()) machine.update(f.machine);  // machine.json wins
  s.scenario = string_field(sum, "scenario");
  s.device = string_field(sum, "device", string_field(machine, "device", "?"));
  s.torch_version = string_field(machine, "torch_version", "?");
  s.torch_library = string_field(machine, "torch_library");
  // CONTRACTS.md: "child": {"kind": "native"|"python", ...}; folders made before ran the native child.
  s.child = "native";
  if (auto it = machine.find("child"); it != machine.end() && it->is_object()) s.child = string_field(*it, "kind", "?");
  const std::string os = string_field(machine, "os"), osv = string_field(machine, "os_version");
  s.os_version = os.empty() ? (osv.empty() ? "?" : osv) : (osv.empty() ? os : os + " " + osv);
  s.chip = string_field(machine, "chip", "?");
  std::string started = string_field(machine, "started_utc");
  if (started.empty() && !sum["runs"].empty()) started = string_field(sum["runs"][0], "started_utc");
  if (started.size() >= 10) {
    s.date = std::string(utf8_prefix(started, 10));
  } else {
    // results/YYYY-MM-DD-<scenario>: the folder name carries the date.
    fs::path p = fs::path(f.path).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "results/x/"
    const std::string name = p.filename().string();
    const bool dated = name.size() >= 10 && std::isdigit(static_cast<unsigned char>(name[0])) && name[4] == '-' &&
                       name[7] == '-';
    s.date = dated ? std::string(utf8_prefix(name, 10)) : "?";
  }
  s.runs = static_cast<int>(sum["runs"].size());
  if (auto it = sum.find("not_run"); it != sum.end() && it->is_array()) s.not_run = static_cast<int>(it->size());
  return s;
}

namespace {

struct Group {
  std::vector<const json*> runs;
};

// Labels in first-seen order with their runs.
std::vector<std::pair<std::string, Group>> group_by_label(const json& summary) {
  std::vector<std::pair<std::string, Group>> out;
  std::map<std::string, size_t> index;
  for (const auto& r : summary["runs"]) {
    const std::string label = r["label"].get<std::string>();
    auto [it, inserted] = index.emplace(label, out.size());
    if (inserted) out.push_back({label, {}});
    out[it->second].second.runs.push_back(&r);
  }
  return out;
}

SideStats stats_of(const Group& g) {
  SideStats s;
  s.repeats = static_cast<int>(g.runs.size());
  std::vector<uint64_t> held, maxa;
  std::vector<int64_t> swap;
  for (const json* r : g.runs) {
    const std::string by = string_field(*r, "stopped_by", "?");
    s.stopped_by[by] += 1;
    if (by == "guard" && r->contains("guard_signal") && (*r)["guard_signal"].is_string())
      s.guard_signals[(*r)["guard_signal"].get<std::string>()] += 1;
    if (auto h = size_field(*r, "held_bytes")) held.push_back(*h);
    if (auto m = size_field(*r, "max_allowed_bytes")) maxa.push_back(*m);
    auto before = size_field(*r, "swap_before_bytes"), after = size_field(*r, "swap_after_bytes");
    if (before && after) swap.push_back(static_cast<int64_t>(*after) - static_cast<int64_t>(*before));
  }
  s.held_count = static_cast<int>(held.size());
  if (!held.empty()) {
    s.held_median = median_of(held);
    s.held_min = *std::min_element(held.begin(), held.end());
    s.held_max = *std::max_element(held.begin(), held.end());
  }
  if (!maxa.empty()) s.max_allowed = median_of(maxa);
  if (!swap.empty()) s.swap_growth = median_of(swap);
  return s;
}

}  // namespace

std::vector<std::pair<std::string, SideStats>> label_stats(const json& summary) {
  std::vector<std::pair<std::string, SideStats>> out;
  for (const auto& [label, g] : group_by_label(summary)) out.emplace_back(label, stats_of(g));
  return out;
}

namespace {

SizeChange size_change(std::optional<uint64_t> b, std::optional<uint64_t> n, double tol) {
  SizeChange c;
  c.base = b;
  c.now = n;
  if (!b && !n) return c;
  if (!b || !n) {
    c.differs = c.over_tolerance = true;
    return c;
  }
  c.differs = *b != *n;
  if (*b == 0) {
    if (*n == 0) c.change_pct = 0.0;
    c.over_tolerance = *n != 0;
    return c;
  }
  const long double diff = *n > *b ? static_cast<long double>(*n - *b) : static_cast<long double>(*b - *n);
  c.change_pct = (static_cast<double>(*n) - static_cast<double>(*b)) / static_cast<double>(*b) * 100.0;
  // Compared in integers-as-long-double so that exactly 5 % with a 5 % tolerance is not "beyond".
  c.over_tolerance = diff * 100.0L > static_cast<long double>(tol) * static_cast<long double>(*b);
  return c;
}

std::string pct_text(const SizeChange& c) {
  if (c.change_pct) return fmt::format("{:+.1f} %", *c.change_pct);
  return c.direction();
}

std::set<std::string> reasons_of(const SideStats& s) {
  std::set<std::string> out;
  for (const auto& [r, n] : s.stopped_by) out.insert(r);
  return out;
}

std::set<std::string> signals_of(const SideStats& s) {
  std::set<std::string> out;
  for (const auto& [sig, n] : s.guard_signals) out.insert(sig);
  return out;
}

void judge(Row& row, double tol) {
  if (row.kind == RowKind::only_in_base) {
    row.regression = true;
    row.reasons.push_back("only in base");
    row.verdict = "REGRESSION: only in base";
    return;
  }
  if (row.kind == RowKind::only_in_new) {
    row.notes.push_back("only in new");
    row.verdict = "only in new";
    return;
  }
  row.stop_reason_changed = reasons_of(row.base) != reasons_of(row.now);
  if (row.stop_reason_changed) {
    row.reasons.push_back("stop reason changed");
  } else if (signals_of(row.base) != signals_of(row.now) && !row.base.guard_signals.empty() &&
             !row.now.guard_signals.empty()) {
    // The guard stopped both, on other signals (swap on one side, pressure on the other): a
    // changed stop reason too. A side from before guard_signal (none known) is not compared so.
    row.stop_reason_changed = true;
    row.reasons.push_back(fmt::format("stop reason changed (guard on {} -> {})", signals_text(row.base), signals_text(row.now)));
  }

  row.held = size_change(row.base.held_median, row.now.held_median, tol);
  if (row.base.held_count >= 3 && row.now.held_count >= 3 && row.base.held_median && row.now.held_median) {
    const uint64_t bm = *row.base.held_median, nm = *row.now.held_median;
    const bool new_outside = nm < *row.base.held_min || nm > *row.base.held_max;
    const bool base_outside = bm < *row.now.held_min || bm > *row.now.held_max;
    row.held_spread = (new_outside && base_outside) ? Spread::beyond : Spread::within;
  }
  row.held.changed = row.held.over_tolerance && row.held_spread != Spread::within;
  if (row.held.changed) {
    row.reasons.push_back(row.held.change_pct ? fmt::format("held {} ({})", row.held.direction(), pct_text(row.held))
                                              : fmt::format("held {}", row.held.direction()));
  } else if (row.held.over_tolerance) {
    row.notes.push_back(fmt::format("held {} within spread", pct_text(row.held)));
  }

  row.max_allowed = size_change(row.base.max_allowed, row.now.max_allowed, tol);
  row.max_allowed.changed = row.max_allowed.over_tolerance;
  if (row.max_allowed.changed) {
    row.reasons.push_back(fmt::format("max allowed {}{}", row.max_allowed.direction(),
                                      row.max_allowed.change_pct ? " (" + pct_text(row.max_allowed) + ")" : ""));
  }

  row.regression = !row.reasons.empty();
  if (row.regression) {
    row.verdict = "REGRESSION: " + join(row.reasons, ", ");
  } else {
    row.verdict = row.notes.empty() ? "ok" : "ok (" + join(row.notes, ", ") + ")";
  }
}

// A label that ran other settings on each side (cell_settings.h): what it measured is not a
// change of torch, so it is no regression, and it is not "ok" either.
void not_the_same_setting(Row& row) {
  std::vector<std::string> notes = row.reasons;
  notes.insert(notes.end(), row.notes.begin(), row.notes.end());
  row.notes = std::move(notes);
  row.reasons.clear();
  row.regression = false;
  row.verdict = "not comparable: the settings differ under one label (" + join(row.settings_differ, "; ") + ")";
}

}  // namespace

namespace {

// "1.13.0" of "1.13.0", "1.13.0a0", "2.6.0.dev20250101+cpu": the release, without a pre-release,
// dev or local suffix.
std::string release_of(const std::string& v) {
  size_t i = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.')) ++i;
  std::string r = v.substr(0, i);
  while (!r.empty() && r.back() == '.') r.pop_back();
  return r;
}

// What the two torch version strings mean, said honestly. Debian's torch is one build seen two
// ways: wmbench-fill prints the C++ headers' TORCH_VERSION ("1.13.0"), the Python child
// torch.__version__ ("1.13.0a0"), both from /usr/lib/.../libtorch_cpu.so.1.13.0. The verdict stays
// the numbers' either way.
std::vector<std::string> torch_notes(const SideInfo& b, const SideInfo& n) {
  std::vector<std::string> out;
  if (b.child != n.child)
    out.push_back(fmt::format("the fill children differ: base {} child, new {} child (same protocol; what differs is "
                              "in README.md, \"Testing the torch your job uses\")",
                              b.child, n.child));
  if (b.torch_version == n.torch_version || b.torch_version == "?" || n.torch_version == "?") return out;
  const bool same_library = !b.torch_library.empty() && b.torch_library == n.torch_library;
  const std::string rb = release_of(b.torch_version), rn = release_of(n.torch_version);
  if (same_library)
    out.push_back(fmt::format("the torch builds report different version strings ({} vs {}) but both loaded {}: "
                              "the same torch, not a different release{}",
                              b.torch_version, n.torch_version, b.torch_library,
                              b.child != n.child ? " (the native child says its C++ headers' version, the Python "
                                                   "child torch.__version__)"
                                                 : ""));
  else if (!rb.empty() && rb == rn)
    out.push_back(fmt::format("torch {} vs {}: the same release number, different builds ({} vs {})", b.torch_version,
                              n.torch_version, b.torch_library.empty() ? "library unknown" : b.torch_library,
                              n.torch_library.empty() ? "library unknown" : n.torch_library));
  else
    out.push_back(fmt::format("torch differs: {} vs {} (a comparison across torch releases)", b.torch_version,
                              n.torch_version));
  return out;
}

}  // namespace

Comparison compare_folders(const ResultFolder& base, const ResultFolder& now, double tolerance_pct) {
  if (!(tolerance_pct >= 0) || !std::isfinite(tolerance_pct)) {
    throw CompareError(fmt::format("tolerance {} %: must be a finite number >= 0", tolerance_pct));
  }
  check_summary(base.summary, base.path + "/summary.json");
  check_summary(now.summary, now.path + "/summary.json");
  Comparison c;
  c.tolerance_pct = tolerance_pct;
  c.base = side_info(base);
  c.now = side_info(now);
  if (c.base.scenario != c.now.scenario) {
    throw CompareError(fmt::format(
        "cannot compare different scenarios: BASE \"{}\" ran scenario \"{}\", NEW \"{}\" ran scenario \"{}\"",
        base.path, c.base.scenario, now.path, c.now.scenario));
  }
  // Each folder's files agree on its device (else CompareError, naming them); a crafted folder
  // of a test is held to that as a loaded one is. Different devices: comparable.h.
  c.base.device = folder_device(base);
  c.now.device = folder_device(now);
  if (c.base.chip != c.now.chip) c.notes.push_back(fmt::format("chips differ: {} vs {}", c.base.chip, c.now.chip));
  for (auto& n : torch_notes(c.base, c.now)) c.notes.push_back(std::move(n));
  {
    auto ram = [](const ResultFolder& f) -> std::optional<uint64_t> {
      json m = json::object();
      if (auto it = f.summary.find("machine"); it != f.summary.end() && it->is_object()) m = *it;
      if (f.machine.is_object()) m.update(f.machine);
      if (!is_size_or_null(m.value("ram_bytes", json()))) return std::nullopt;
      return size_field(m, "ram_bytes");
    };
    auto rb = ram(base), rn = ram(now);
    if (rb && rn && *rb != *rn) {
      // Two sizes that print alike are told apart by their bytes (issue 30: "RAM differs: 125.85 GiB vs 125.85 GiB").
      const std::string a = format_size(*rb), b = format_size(*rn);
      if (a != b)
        c.notes.push_back(fmt::format("RAM differs: {} vs {}", a, b));
      else
        c.notes.push_back(fmt::format("RAM differs by {}: {} vs {} bytes (both {})", format_size(*rb > *rn ? *rb - *rn : *rn - *rb),
                                      *rb, *rn, a));
    }
  }

  auto bg = group_by_label(base.summary);
  auto ng = group_by_label(now.summary);
  std::map<std::string, const Group*> new_by_label;
  for (const auto& [label, g] : ng) new_by_label[label] = &g;
  std::set<std::string> seen;
  for (const auto& [label, g] : bg) {
    Row row;
    row.label = label;
    row.base = stats_of(g);
    auto it = new_by_label.find(label);
    if (it == new_by_label.end()) {
      row.kind = RowKind::only_in_base;
    } else {
      row.now = stats_of(*it->second);
      row.settings_differ = label_settings_differ(g.runs, it->second->runs, base.scenario, now.scenario);
    }
    judge(row, tolerance_pct);
    if (!row.settings_differ.empty()) not_the_same_setting(row);
    c.rows.push_back(std::move(row));
    seen.insert(label);
  }
  for (const auto& [label, g] : ng) {
    if (seen.count(label)) continue;
    Row row;
    row.label = label;
    row.kind = RowKind::only_in_new;
    row.now = stats_of(g);
    judge(row, tolerance_pct);
    c.rows.push_back(std::move(row));
  }
  for (const auto& r : c.rows) {
    c.regressions += r.regression ? 1 : 0;
    c.settings_differ += r.settings_differ.empty() ? 0 : 1;
    c.compared += r.kind == RowKind::compared && r.settings_differ.empty() ? 1 : 0;
  }
  apply_comparability(c, comparability(base, now));
  return c;
}

}  // namespace wmb::compare
