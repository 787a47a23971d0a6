// The history of many result folders: loading, the facts of each folder, grouping into series by
// (scenario, device), ordering, and the neighbour comparisons (compare::compare_folders).
// Rendering lives in export_markdown.cpp and export_json.cpp, the command in run.cpp.
#include "history/history.h"

#include "common/child_kinds.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"

namespace wmb::history {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<Order> parse_order(const std::string& text) {
  if (text == "date") return Order::date;
  if (text == "torch") return Order::torch;
  if (text == "machine") return Order::machine;
  return std::nullopt;
}

const char* order_name(Order o) {
  switch (o) {
    case Order::date: return "date";
    case Order::torch: return "torch";
    case Order::machine: return "machine";
  }
  return "?";
}

bool History::regressed() const {
  return std::any_of(series.begin(), series.end(), [](const Series& s) { return s.newest_regressed(); });
}

namespace {

// A size from hostile JSON: a non-negative integer, else nothing.
std::optional<uint64_t> size_of(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer() && it->get<int64_t>() >= 0) return static_cast<uint64_t>(it->get<int64_t>());
  return std::nullopt;
}

std::string text_of(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// summary.json's "machine" overlaid by machine.json, as compare reads them.
json machine_of(const compare::ResultFolder& f) {
  json m = json::object();
  if (auto it = f.summary.find("machine"); it != f.summary.end() && it->is_object()) m = *it;
  if (f.machine.is_object()) m.update(f.machine);
  return m;
}

// "48 GiB" for whole GiB (RAM sizes, sandbox limits), else the compact form ("141 MiB").
std::string gib_short(uint64_t b) {
  if (b > 0 && b % GiB == 0) return fmt::format("{} GiB", b / GiB);
  return format_size_short(b);
}

// The child that ran (machine.json "child": {"kind": one of child_kinds(), ...}, common/child_kinds.h;
// folders without the key were made by the native child).
std::string child_of(const json& m, const std::string& where) {
  auto it = m.find("child");
  if (it == m.end() || it->is_null()) return "native";
  if (!it->is_object()) throw HistoryError(fmt::format("{}: \"child\" must be an object, got {}", where, json_preview(*it)));
  const std::string kind = text_of(*it, "kind");
  if (!is_child_kind(kind)) {
    throw HistoryError(fmt::format("{}: \"child\".\"kind\" must be {}, got {}", where, child_kinds_text(),
                                   it->contains("kind") ? json_preview((*it)["kind"]) : std::string("nothing")));
  }
  return kind;
}

std::string os_of(const json& m) {
  if (const auto& mac = m.value("mac", json()); mac.is_object()) {
    // CONTRACTS.md: machine.json "mac" = {product_version, build_version, hw_model, ...} on macOS.
    std::string s = "macOS " + text_of(mac, "product_version");
    if (!text_of(mac, "build_version").empty()) s += " (" + text_of(mac, "build_version") + ")";
    if (!text_of(mac, "hw_model").empty()) s += ", " + text_of(mac, "hw_model");
    return s;
  }
  std::string os = text_of(m, "os"), v = text_of(m, "os_version");
  if (auto k = v.find(", kernel"); k != std::string::npos) v = v.substr(0, k);  // "Debian ... , kernel 6.1"
  if (os == "Linux" && !v.empty()) return v;
  if (os.empty()) return v.empty() ? "?" : v;
  return v.empty() ? os : os + " " + v;
}

std::string setup_of(const json& scenario, const json& m) {
  std::vector<std::string> parts;
  const json resolved = scenario.is_object() ? scenario.value("resolved", json()) : json();
  if (auto v = size_of(resolved, "step_bytes")) parts.push_back("step " + gib_short(*v));
  if (auto v = size_of(resolved, "cap_bytes")) parts.push_back("cap " + gib_short(*v));
  if (auto v = size_of(resolved, "swap_budget_bytes")) parts.push_back("swap budget " + gib_short(*v));
  if (auto v = size_of(m.value("sandbox", json()), "ram_limit_bytes")) parts.push_back("sandbox " + gib_short(*v));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}


// "2.11.0+cu130" -> {2, 11, 0}, release; "2.12.0.dev20261201" -> {2, 12, 0}, pre-release.
struct VersionKey {
  bool known = false;
  std::vector<long> parts;
  bool release = true;
  bool operator<(const VersionKey& o) const {
    return std::tie(known, parts, release) < std::tie(o.known, o.parts, o.release);
  }
};

VersionKey version_key(const std::string& v) {
  VersionKey k;
  size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && n < 100000000) n = n * 10 + (v[i++] - '0');
    k.parts.push_back(n);
    if (i < v.size() && v[i] == '.' && i + 1 < v.size() && std::isdigit(static_cast<unsigned char>(v[i + 1]))) ++i;
    else break;
  }
  k.known = !k.parts.empty();
  const std::string rest = v.substr(i, v.find('+') == std::string::npos ? std::string::npos : v.find('+') - i);
  k.release = rest.empty();  // ".dev2026", "a0", "rc1" come before the release
  return k;
}

void order_folders(std::vector<std::pair<FolderInfo, const Input*>>& v, Order order) {
  auto date_key = [](const FolderInfo& f) { return std::make_tuple(f.started_utc.empty() ? f.side.date : f.started_utc, f.side.path); };
  std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    const FolderInfo &x = a.first, &y = b.first;
    switch (order) {
      case Order::torch: {
        const auto kx = version_key(x.side.torch_version), ky = version_key(y.side.torch_version);
        if (kx < ky || ky < kx) return kx < ky;
        break;
      }
      case Order::machine: {
        const uint64_t rx = x.ram_bytes.value_or(0), ry = y.ram_bytes.value_or(0);
        if (rx != ry) return rx < ry;
        if (x.machine != y.machine) return x.machine < y.machine;
        break;
      }
      case Order::date: break;
    }
    return date_key(x) < date_key(y);
  });
}

// Differences of setup between neighbours: a changed stop reason may come from them, not torch.
std::vector<std::string> setup_notes(const FolderInfo& a, const FolderInfo& b) {
  std::vector<std::string> out;
  if (a.setup != b.setup) out.push_back(fmt::format("setup differs: {} -> {}", a.setup.empty() ? "?" : a.setup,
                                                    b.setup.empty() ? "?" : b.setup));
  if (a.recommended_max != b.recommended_max) {
    auto t = [](const std::optional<uint64_t>& v) { return v ? format_size(*v) : std::string("-"); };
    out.push_back(fmt::format("{} differs: {} -> {}", b.side.device == "cuda" ? "device memory" : "recommended max",
                              t(a.recommended_max), t(b.recommended_max)));
  }
  if (a.child != b.child) out.push_back(fmt::format("child differs: {} -> {}", a.child, b.child));
  return out;
}

Series build_series(std::vector<std::pair<FolderInfo, const Input*>> members, Order order, double tol) {
  order_folders(members, order);
  Series s;
  s.scenario = members.front().first.side.scenario;
  s.device = members.front().first.side.device;
  std::vector<std::string> labels;
  std::map<std::string, size_t> label_index;
  std::vector<std::map<std::string, compare::SideStats>> stats(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    s.folders.push_back(members[i].first);
    for (auto& [label, st] : compare::label_stats(members[i].second->folder.summary)) {
      if (label_index.emplace(label, labels.size()).second) labels.push_back(label);
      stats[i][label] = st;
    }
  }
  for (size_t i = 0; i + 1 < members.size(); ++i) {
    s.steps.push_back(compare::compare_folders(members[i].second->folder, members[i + 1].second->folder, tol));
    auto notes = s.steps.back().notes;
    for (auto& n : setup_notes(members[i].first, members[i + 1].first)) notes.push_back(std::move(n));
    s.step_notes.push_back(std::move(notes));
  }
  for (const auto& label : labels) {
    Setting set;
    set.label = label;
    for (size_t i = 0; i < members.size(); ++i) {
      Cell c;
      if (auto it = stats[i].find(label); it != stats[i].end()) {
        c.present = true;
        c.stats = it->second;
      }
      if (i > 0) {
        for (const auto& row : s.steps[i - 1].rows) {
          if (row.label != label) continue;
          c.compared = true;
          c.kind = row.kind;
          c.regression = row.regression;
          c.verdict = row.verdict;
        }
      }
      set.cells.push_back(std::move(c));
    }
    s.settings.push_back(std::move(set));
  }
  return s;
}

}  // namespace

FolderInfo folder_info(const Input& in) {
  FolderInfo f;
  f.side = compare::side_info(in.folder);
  const json m = machine_of(in.folder);
  f.started_utc = text_of(m, "started_utc");
  f.child = child_of(m, in.folder.path + "/machine.json");
  const json model = m.value("model", json());
  const auto mac_ram = size_of(model, "mac_ram_bytes");
  if (mac_ram) {
    f.machine = fmt::format("MODEL of a {} Mac on {}", gib_short(*mac_ram), f.side.chip);
    f.ram_bytes = mac_ram;
  } else {
    f.machine = f.side.chip;
    f.ram_bytes = size_of(m, "ram_bytes");
  }
  f.os = os_of(m);
  f.recommended_max = size_of(m, "recommended_max_bytes");
  f.setup = setup_of(in.scenario, m);
  return f;
}

Input load_input(const std::string& dir) {
  Input in;
  try {
    in.folder = compare::load_result_folder(dir);
  } catch (const compare::CompareError& e) {
    throw HistoryError(e.what());
  }
  in.scenario = in.folder.scenario;  // read (bounded, an object) by load_result_folder
  return in;
}

History build_history(const std::vector<Input>& inputs, Order order, double tolerance_pct,
                      const std::string& only_scenario) {
  if (!std::isfinite(tolerance_pct) || tolerance_pct < 0) {
    throw HistoryError(fmt::format("tolerance {} %: must be a finite number >= 0", tolerance_pct));
  }
  History h;
  h.order = order;
  h.tolerance_pct = tolerance_pct;
  h.only_scenario = only_scenario;
  std::vector<std::pair<std::string, std::string>> keys;  // first-seen order
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<FolderInfo, const Input*>>> groups;
  std::set<std::string> seen_paths;
  for (const auto& in : inputs) {
    FolderInfo f = folder_info(in);
    std::error_code ec;
    std::string canon = fs::weakly_canonical(fs::path(in.folder.path), ec).string();
    if (ec) canon = fs::path(in.folder.path).lexically_normal().string();
    if (!seen_paths.insert(canon).second) {
      throw HistoryError(fmt::format("\"{}\" is given twice (a folder counts once in a history)", in.folder.path));
    }
    if (!only_scenario.empty() && f.side.scenario != only_scenario) {
      h.skipped.push_back({f.side.path, f.side.scenario, f.side.device});
      continue;
    }
    const auto key = std::make_pair(f.side.scenario, f.side.device);
    if (!groups.count(key)) keys.push_back(key);
    groups[key].emplace_back(std::move(f), &in);
  }
  for (const auto& key : keys) {
    try {
      h.series.push_back(build_series(groups[key], order, tolerance_pct));
    } catch (const compare::CompareError& e) {
      throw HistoryError(e.what());
    }
  }
  return h;
}

}  // namespace wmb::history
