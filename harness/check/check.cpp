#include "check/check.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/terminal_text.h"
#include "io/utf8.h"
#include "common/limits.h"
#include "io/json_input.h"
#include "common/units.h"
#include "check/check_releases.h"
#include "check/check_tune.h"
#include "results/folder_lock.h"
#include "results/folder_schema.h"
#include "results/report.h"
#include "results/summary_stream.h"

namespace wmb {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

struct Ctx {
  const Folder& f;
  CheckResult& out;
  void problem(const std::string& rel, const std::string& msg) { out.problems.push_back(fmt::format("{}: {}", f.display(rel), msg)); }
  void problem(const std::string& msg) { out.problems.push_back(msg); }
};

// The folder's own files and what may sit next to them.
void check_listing(Ctx& c) {
  static const std::set<std::string> known = {"README.md", "machine.json", "scenario.json", "summary.json", "table.md",
                                              "results.csv", "runs", "plots", kLockFileName,
                                              "tune.json",   // tune.json: `wmbench tune` (tune/tune.h)
                                              "lever.json"};  // a cell's iogpu.wired_limit_mb (lever/wired_lever.h)
  for (const auto& e : c.f.list("")) {
    if (e.name.find(".tmp.") != std::string::npos) {
      c.problem(e.name, "a half-written file (a write was cut short); remove it");
      continue;
    }
    if (S_ISLNK(e.mode)) {
      c.problem(e.name, "a symbolic link; a result folder holds only its own files");
      continue;
    }
    if (!known.count(e.name)) c.out.notes.push_back(fmt::format("{}: not a file wmbench writes", c.f.display(e.name)));
    const bool dir = e.name == "runs" || e.name == "plots";
    if (known.count(e.name) && dir != S_ISDIR(e.mode))
      c.problem(e.name, fmt::format("it is {}; expected {}", file_kind(e.mode), dir ? "a folder" : "a regular file"));
  }
  if (c.f.exists("runs") && S_ISDIR(c.f.stat("runs")->mode)) {
    for (const auto& e : c.f.list("runs")) {
      const std::string rel = "runs/" + e.name;
      if (e.name.find(".tmp.") != std::string::npos) c.problem(rel, "a half-written file (a write was cut short); remove it");
      else if (!S_ISREG(e.mode)) c.problem(rel, fmt::format("it is {}, not a regular file", file_kind(e.mode)));
      else if (!ends_with(e.name, ".json") && !ends_with(e.name, ".trace.jsonl") && !ends_with(e.name, ".stderr.log") &&
               !ends_with(e.name, ".stdout.log"))  // .stdout.log: a command child's (child/job_watch.h)
        c.out.notes.push_back(fmt::format("{}: not a file wmbench writes", c.f.display(rel)));
    }
  }
}

std::optional<double> plain_ratio(const std::map<std::string, std::string>& env, const char* key, double dflt) {
  auto it = env.find(key);
  if (it == env.end()) return dflt;
  const char* s = it->second.c_str();
  char* end = nullptr;
  const double d = std::strtod(s, &end);
  if (end == s || *end != '\0' || !std::isfinite(d)) return std::nullopt;
  return d;
}

void check_numbers(Ctx& c, const std::string& rel, const RunRecord& r, const nlohmann::json& machine) {
  auto bad = [&](const std::string& m) { c.problem(rel, m); };
  if (r.cap_bytes && r.held_bytes > *r.cap_bytes)
    bad(fmt::format("held_bytes {} exceeds cap_bytes {}", r.held_bytes, *r.cap_bytes));
  if (r.program == "fill" && r.step_bytes > 0 && r.held_bytes % r.step_bytes != 0)
    bad(fmt::format("held_bytes {} is not a multiple of step_bytes {} (a fill holds whole steps)", r.held_bytes, r.step_bytes));
  if (r.program == "fill" && r.step_bytes > 0 && r.held_bytes / r.step_bytes != static_cast<uint64_t>(r.steps))
    bad(fmt::format("held_bytes {} is {} steps of {}, but steps says {}", r.held_bytes, r.held_bytes / r.step_bytes,
                    r.step_bytes, r.steps));
  if (r.swap_peak_bytes < r.swap_before_bytes)
    bad(fmt::format("swap_peak_bytes {} is below swap_before_bytes {}", r.swap_peak_bytes, r.swap_before_bytes));
  if (r.swap_peak_bytes < r.swap_after_bytes)
    bad(fmt::format("swap_peak_bytes {} is below swap_after_bytes {}", r.swap_peak_bytes, r.swap_after_bytes));
  if (r.repeat < 1) bad(fmt::format("repeat {} is below 1 (repeats count from 1)", r.repeat));
  // The allocator's own counts (ARCHITECTURE.md: allocator_peak_bytes is the highest
  // allocated_bytes since the child started, so never below the last one), and no count above
  // the largest memory a modelled Mac or a GPU has (kMaxModelBytes, 1 PiB; issue 30: 2^62 passed).
  if (r.allocator_peak_bytes && r.allocated_bytes && *r.allocator_peak_bytes < *r.allocated_bytes)
    bad(fmt::format("allocator_peak_bytes {} is below allocated_bytes {}: the peak is the most the allocator ever had "
                    "allocated, so at least the last count",
                    *r.allocator_peak_bytes, *r.allocated_bytes));
  for (const auto& [key, v] : {std::pair<const char*, std::optional<uint64_t>>{"allocated_bytes", r.allocated_bytes},
                               {"driver_bytes", r.driver_bytes},
                               {"allocator_peak_bytes", r.allocator_peak_bytes},
                               {"peak_footprint_bytes", r.peak_footprint_bytes},
                               {"held_bytes", std::optional<uint64_t>(r.held_bytes)}})
    if (v && *v > kMaxModelBytes)
      bad(fmt::format("{} {} is above {}, more memory than any machine wmbench measures has", key, *v,
                      format_size(kMaxModelBytes)));
  // Linux's swap is the swap devices machine.json counted (macOS grows its swap files on demand).
  if (machine.is_object() && machine.value("os", "") == "Linux" && machine.contains("swap_total_bytes") &&
      machine["swap_total_bytes"].is_number_unsigned()) {
    const uint64_t total = machine["swap_total_bytes"].get<uint64_t>();
    if (r.swap_peak_bytes > total)
      bad(fmt::format("swap_peak_bytes {} exceeds the machine's swap of {} bytes (machine.json swap_total_bytes)",
                      r.swap_peak_bytes, total));
  }
  auto t0 = parse_utc(r.started_utc), t1 = parse_utc(r.ended_utc);
  if (!r.started_utc.empty() && !t0) bad(fmt::format("started_utc \"{}\" is not a UTC time like 2026-11-29T19:16:55Z", r.started_utc));
  if (!r.ended_utc.empty() && !t1) bad(fmt::format("ended_utc \"{}\" is not a UTC time like 2026-11-29T19:16:55Z", r.ended_utc));
  if (t0 && t1 && *t1 < *t0) bad(fmt::format("ended_utc {} is before started_utc {}", r.ended_utc, r.started_utc));
  // PyTorch's MPS limit: max allowed = HIGH x recommendedMaxWorkingSetSize (MPSAllocator.mm,
  // m_max_total_allowed_size); the message prints it to 2 decimals of its unit.
  const bool mps = r.device == "mps" || r.device == "mps-model";
  std::optional<uint64_t> rec = r.recommended_max_bytes;
  if (!rec && machine.is_object() && machine.contains("recommended_max_bytes") && machine["recommended_max_bytes"].is_number_unsigned())
    rec = machine["recommended_max_bytes"].get<uint64_t>();
  if (mps && r.stopped_by == "pytorch" && r.max_allowed_bytes && rec) {
    if (auto ratio = plain_ratio(r.env, "PYTORCH_MPS_HIGH_WATERMARK_RATIO", 1.7); ratio && *ratio > 0) {
      const double want = *ratio * static_cast<double>(*rec);
      const double got = static_cast<double>(*r.max_allowed_bytes);
      if (std::fabs(got - want) > 0.005 * want + 8.0 * MiB)
        bad(fmt::format("max_allowed_bytes {} is not HIGH {} x recommended max {} = {:.0f}", *r.max_allowed_bytes, *ratio,
                        *rec, want));
    }
  }
  if (r.stopped_by == "pytorch" && r.max_allowed_bytes && r.held_bytes > *r.max_allowed_bytes && mps)
    bad(fmt::format("held_bytes {} exceeds the max allowed {} that stopped it", r.held_bytes, *r.max_allowed_bytes));
}

// CSV records of `t` (a quoted field may hold a comma, a quote or a newline), each a list of fields.
std::vector<std::vector<std::string>> csv_records(const std::string& t) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    any = true;
    if (quoted) {
      if (ch == '"' && i + 1 < t.size() && t[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (any) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

// results.csv compared value by value with what runs/ give (the CSV exporter's own rendering of
// the records): README says check verifies it, and a row saying `cap` with 999 bytes held is not
// what its record says (issue 30). Columns are matched by name, rows by index.
void check_csv_values(Ctx& c, const std::string& text, const Report& rep) {
  const auto got = csv_records(text);
  const auto want = csv_records(make_csv_exporter()->render(rep));
  if (got.empty()) {
    c.problem("results.csv", "is empty; expected a header and a row per run");
    return;
  }
  const auto& gh = got[0];
  const auto& wh = want[0];
  std::map<std::string, size_t> gcol;
  for (size_t i = 0; i < gh.size(); ++i) gcol.emplace(gh[i], i);
  if (!gcol.count("index")) {
    c.problem("results.csv", "has no \"index\" column (`wmbench report DIR` rebuilds it)");
    return;
  }
  const size_t gi = gcol["index"];
  std::map<std::string, const std::vector<std::string>*> by_index;
  for (size_t r = 1; r < got.size(); ++r) {
    if (got[r].size() != gh.size()) {
      c.problem("results.csv", fmt::format("row {} has {} fields; the header has {}", r, got[r].size(), gh.size()));
      continue;
    }
    if (!by_index.emplace(got[r][gi], &got[r]).second)
      c.problem("results.csv", fmt::format("two rows of index {}", escape_controls_line(utf8_sanitize(got[r][gi], 40))));
  }
  constexpr size_t kMaxNamed = 20;
  size_t named = 0, more = 0;
  // "setting" is the env in words (describe_env), whose wording an older wmbench had otherwise
  // ("HIGH 0.0 alone"): a note; the env itself is checked against scenario.json. Every other
  // column is a value of the record: a problem.
  std::set<std::string> seen;
  for (size_t r = 1; r < want.size(); ++r) {
    const auto& w = want[r];
    const std::string& idx = w[0];
    const std::string stem = r - 1 < rep.runs.size() ? rep.runs[r - 1].file_stem() : idx;
    seen.insert(idx);
    auto it = by_index.find(idx);
    if (it == by_index.end()) {
      c.problem("results.csv", fmt::format("has no row for run {} of runs/", stem));
      continue;
    }
    for (size_t k = 0; k < wh.size() && k < w.size(); ++k) {
      auto col = gcol.find(wh[k]);
      if (col == gcol.end()) continue;  // a column an older wmbench did not write
      const std::string& g = (*it->second)[col->second];
      if (g == w[k]) continue;
      if (wh[k] == "setting") {
        c.out.notes.push_back(fmt::format("{}: run {}: setting \"{}\" is worded \"{}\" by this wmbench (`wmbench report "
                                          "DIR` rewrites it)",
                                          c.f.display("results.csv"), stem, escape_controls_line(utf8_sanitize(g, 80)),
                                          escape_controls_line(utf8_sanitize(w[k], 80))));
        continue;
      }
      if (++named > kMaxNamed) {
        ++more;
        continue;
      }
      c.problem("results.csv", fmt::format("run {}: {} is \"{}\" here but \"{}\" in runs/{}.json (`wmbench report DIR` "
                                           "rebuilds it)",
                                           stem, wh[k], escape_controls_line(utf8_sanitize(g, 80)),
                                           escape_controls_line(utf8_sanitize(w[k], 80)), stem));
    }
  }
  if (more) c.problem("results.csv", fmt::format("and {} more values that differ from runs/", more));
  for (const auto& [idx, row] : by_index)
    if (!seen.count(idx))
      c.problem("results.csv", fmt::format("has a row of index {}, which no record of runs/ has",
                                           escape_controls_line(utf8_sanitize(idx, 40))));
}

// A Markdown table row's cells after the first (the setting, in words): the record's values.
std::vector<std::string> value_cells(const std::string& row) {
  std::vector<std::string> cells;
  size_t pos = row.find(" | ");
  while (pos != std::string::npos) {
    const size_t next = row.find(" | ", pos + 3);
    cells.push_back(row.substr(pos + 3, next == std::string::npos ? std::string::npos : next - pos - 3));
    pos = next;
  }
  return cells;
}

// The rows of table.md that begin with LABEL's cell, other than its not-run rows.
std::vector<std::string> table_rows_of(const std::string& t, const std::string& label) {
  std::vector<std::string> rows;
  const std::string head = "| `" + label + "`";
  size_t pos = 0;
  while (pos < t.size()) {
    size_t end = t.find('\n', pos);
    if (end == std::string::npos) end = t.size();
    const std::string line = t.substr(pos, end - pos);
    if (line.rfind(head, 0) == 0 && line.find(" | not run: ") == std::string::npos) rows.push_back(line);
    pos = end + 1;
  }
  return rows;
}

// Rows of table.md / results.csv name each label, and say what the records say.
void check_tables(Ctx& c, const Report& rep) {
  const auto& runs = rep.runs;
  const auto& not_run = rep.not_run;
  if (c.f.exists("table.md")) {
    try {
      const std::string t = c.f.read("table.md", kMaxReadBytes);
      std::set<std::string> labels, unrun;
      for (const auto& r : runs) labels.insert(r.label);
      for (const auto& n : not_run) labels.insert(n.label), unrun.insert(n.label);
      for (const auto& l : labels)
        if (t.find("| `" + l + "`") == std::string::npos) c.problem("table.md", fmt::format("has no row for `{}`", l));
      // The row of each label whose runs all have records: as the table exporter renders them.
      const std::string want = make_table_exporter()->render(rep);
      for (const auto& l : labels) {
        if (unrun.count(l)) continue;
        const auto g = table_rows_of(t, l), w = table_rows_of(want, l);
        if (g.empty() || g == w) continue;
        // The setting cell is words (an older wmbench's wording): a note; the other cells are values.
        bool values_differ = g.size() != w.size();
        for (size_t i = 0; !values_differ && i < g.size(); ++i) values_differ = value_cells(g[i]) != value_cells(w[i]);
        if (!values_differ) {
          c.out.notes.push_back(fmt::format("{}: the setting of `{}` is worded otherwise by this wmbench (`wmbench report "
                                            "DIR` rewrites it)",
                                            c.f.display("table.md"), l));
          continue;
        }
        c.problem("table.md", fmt::format("the row of `{}` says \"{}\" but its records in runs/ give \"{}\" (`wmbench "
                                          "report DIR` rebuilds it)",
                                          l, escape_controls_line(utf8_sanitize(g.front(), 200)),
                                          escape_controls_line(utf8_sanitize(w.empty() ? std::string() : w.front(), 200))));
      }
    } catch (const FileError& e) {
      c.problem(e.what());
    }
  } else {
    c.problem("table.md", "missing (`wmbench report DIR` writes it)");
  }
  if (c.f.exists("results.csv")) {
    try {
      const std::string t = c.f.read("results.csv", kMaxReadBytes);
      // CSV records, not lines: a quoted field may hold a newline (an env value with one).
      size_t lines = 0;
      bool quoted = false;
      for (char ch : t) {
        if (ch == '"') quoted = !quoted;
        else if (ch == '\n' && !quoted) ++lines;
      }
      if (!t.empty() && t.back() != '\n') ++lines;
      if (lines != runs.size() + 1)
        c.problem("results.csv", fmt::format("has {} data rows; runs/ holds {} records", lines ? lines - 1 : 0, runs.size()));
      check_csv_values(c, t, rep);
    } catch (const FileError& e) {
      c.problem(e.what());
    }
  }
}

void check_summary(Ctx& c, const Report& rep) {
  if (!c.f.exists("summary.json")) {
    c.problem("summary.json", "missing (`wmbench report DIR` writes it)");
    return;
  }
  std::map<std::pair<std::string, int>, const RunRecord*> disk;
  for (const auto& r : rep.runs) disk[{r.label, r.repeat}] = &r;
  std::set<std::pair<std::string, int>> seen;
  const std::string src = c.f.display("summary.json");
  std::vector<std::string> unknown;
  // Each run is checked against its record as it is read, then dropped: bounded memory
  // (results/summary_stream.h; BENCHMARKS.md "check of a 32 MiB summary.json").
  auto one_run = [&](nlohmann::json&& j, size_t i) {
    const RunRecord r = run_from_json(j, src, fmt::format("runs[{}]", i), &unknown);
    auto it = disk.find({r.label, r.repeat});
    seen.insert({r.label, r.repeat});
    if (it == disk.end()) {
      c.problem("summary.json", fmt::format("holds run {} (repeat {}), which has no file in runs/", r.file_stem(), r.repeat));
      return;
    }
    const nlohmann::json a = to_json(r), b = to_json(*it->second);
    for (auto k = b.begin(); k != b.end(); ++k)
      if (a[k.key()] != k.value())
        c.problem("summary.json", fmt::format("run {}: \"{}\" is {} here but {} in runs/{}.json", r.file_stem(), k.key(),
                                              json_preview(a[k.key()], 60), json_preview(k.value(), 60), it->second->file_stem()));
  };
  SummaryFile s;
  try {
    const std::string text = c.f.read("summary.json", kMaxFolderJsonBytes);
    SummaryHead head = stream_summary_json(text, src, one_run);
    if (!head.has_runs) throw InputError(fmt::format("{}: key \"runs\" is missing; expected the list of run records", src));
    head.head["runs"] = nlohmann::json::array();  // read above, one by one
    s = check_summary_json(head.head, src, &unknown);
    for (const auto& k : head.unknown) unknown.push_back(k);
  } catch (const FileError& e) {
    c.problem(e.what());
    return;
  }
  // Kept, not problems, as machine.json's are (issue 30: they got no note).
  for (const auto& k : unknown)
    c.out.notes.push_back(fmt::format("{}: unknown key \"{}\" kept", src, escape_controls_line(utf8_sanitize(k, 120))));
  if (!rep.machine.is_null() && s.machine != rep.machine)
    c.problem("summary.json", "its \"machine\" differs from machine.json (rebuild it with `wmbench report DIR`)");
  // The device decides what the folder is compared with (a history series): compare and history
  // refuse a folder whose files disagree on it (readback/folder_device.h).
  const std::string mdev = device_in(rep.machine);
  const std::string refused = "; compare and history refuse the folder until its files agree";
  if (!s.device.empty() && !mdev.empty() && s.device != mdev) {
    c.problem("summary.json", fmt::format("device \"{}\" but machine.json says \"{}\"{} (`wmbench report DIR` rebuilds "
                                          "summary.json from machine.json and runs/)",
                                          escape_controls_line(s.device), mdev, refused));
  } else if (!s.device.empty() && mdev.empty()) {
    for (const auto& r : rep.runs)
      if (!r.device.empty() && r.device != s.device) {
        c.problem("summary.json", fmt::format("device \"{}\" but runs/{}.json says \"{}\"{}", escape_controls_line(s.device),
                                              r.file_stem(), r.device, refused));
        break;
      }
  }
  const std::string name = rep.scenario.is_object() ? rep.scenario.value("name", "") : "";
  if (!name.empty() && s.scenario != name)
    c.problem("summary.json", fmt::format("scenario \"{}\" but scenario.json names \"{}\"", s.scenario, name));
  for (const auto& [key, r] : disk)
    if (!seen.count(key)) c.problem("summary.json", fmt::format("lacks run {} of runs/", r->file_stem()));
}

// What a resumed folder's model would run with, and text meant for a terminal (issue 22): the
// model's sizes within the bounds of --recommended-max/--model-mac-ram, and no control
// characters (escape sequences: OSC 52, screen clears) in machine.json's strings.
void check_machine_extras(Ctx& c, const nlohmann::json& m) {
  if (!m.is_object()) return;
  if (m.contains("model") && m["model"].is_object()) {
    for (const char* k : {"recommended_max_bytes", "mac_ram_bytes"}) {
      const auto it = m["model"].find(k);
      if (it == m["model"].end() || !it->is_number_unsigned()) continue;
      try {
        (void)check_model_bytes(it->get<uint64_t>(), std::string("model.") + k);
      } catch (const UnitError& e) {
        c.problem("machine.json", std::string(e.what()) + "; `run --resume` refuses it");
      }
    }
  }
  // Every string at any depth (model.revision, sandbox.kind, ...) and every key, named by its path;
  // at most kMaxNamed named, the rest counted.
  constexpr size_t kMaxNamed = 10;
  size_t found = 0;
  const auto flag = [&](const std::string& path, const std::string& what, const std::string& text) {
    if (++found > kMaxNamed) return;
    c.problem("machine.json", fmt::format("{} \"{}\" holds control characters (escape sequences): {}", what,
                                          escape_controls_line(utf8_sanitize(path, 120)),
                                          escape_controls_line(utf8_sanitize(text, 120))));
  };
  // One path, grown and cut back as the walk goes (no copy per key: a hostile file of a million
  // keys nested 30 deep costs what its size does); each key at most 40 bytes of it.
  std::string path;
  const std::function<void(const nlohmann::json&, int)> walk = [&](const nlohmann::json& j, int depth) {
    if (j.is_string()) {
      const std::string& v = j.get_ref<const std::string&>();
      if (escape_controls_line(v) != v) flag(path, "value of", v);
      return;
    }
    if (depth >= 32) return;  // deeper than any machine.json wmbench writes; the reader bounds depth too
    const size_t len = path.size();
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (len) path += '.';
        path.append(it.key(), 0, 40);
        if (escape_controls_line(it.key()) != it.key()) flag(path, "key", it.key());
        walk(it.value(), depth + 1);
        path.resize(len);
      }
    } else if (j.is_array()) {
      size_t i = 0;
      for (const auto& v : j) {
        path += '[';
        path += std::to_string(i++);
        path += ']';
        walk(v, depth + 1);
        path.resize(len);
      }
    }
  };
  walk(m, 0);
  if (found > kMaxNamed)
    c.problem("machine.json", fmt::format("and {} more keys or values with control characters", found - kMaxNamed));
}

// The folder's listing (a FileError there is a problem), then the files every folder needs.
void check_own_files(Ctx& c) {
  try {
    check_listing(c);
  } catch (const FileError& e) {
    c.problem(e.what());
  }
  for (const char* need : {"machine.json", "scenario.json"})
    if (!c.f.exists(need)) c.problem(need, "missing");
}

// scenario.json's cells: each label into `cells`, and a problem per env key `run --resume` refuses.
void check_scenario_cells(Ctx& c, nlohmann::json& scenario, std::set<std::string>& cells) {
  // `scenario` is not const: scenario["matrix"] stays the non-const operator[] it always was.
  for (const auto& cell : scenario["matrix"]) {
    cells.insert(cell["label"].get<std::string>());
    if (!cell.contains("env") || !cell["env"].is_object()) continue;
    for (auto it = cell["env"].begin(); it != cell["env"].end(); ++it)
      if (!cell_env_allowed(it.key()))
        c.problem("scenario.json", fmt::format("cell \"{}\" sets {}; {}; `run --resume` refuses it",
                                               cell["label"].get<std::string>(), utf8_sanitize(it.key(), 64), allowed_env_text()));
  }
}

// A note when scenario.json runs a command of its own.
void note_own_command(Ctx& c, const nlohmann::json& scenario) {
  // A folder that runs a command of its own (someone's job): said, since `run --resume` would
  // start it (only with --command, job/run_setup.cpp). Not a problem: the user's own folders do.
  if (scenario.value("program", "") == "command" && scenario.contains("command") && scenario["command"].is_array())
    c.out.notes.push_back(fmt::format("scenario.json: the folder runs a command of its own, {}; `run --resume` starts it "
                                      "only with --command (read it first)",
                                      utf8_sanitize(scenario["command"].dump(-1, ' ', false,
                                                                             nlohmann::json::error_handler_t::replace),
                                                    400)));
}

// Each scenario.json cell's label and the env it was planned with ({} when it sets none).
std::map<std::string, nlohmann::json> planned_envs(const nlohmann::json& scenario) {
  // The settings each cell was planned with: a record that ran other settings under the label
  // would be compared as if it were the cell (compare/cell_settings.h).
  std::map<std::string, nlohmann::json> planned_env;
  if (scenario.is_object() && scenario.contains("matrix") && scenario["matrix"].is_array())
    for (const auto& cell : scenario["matrix"])
      if (cell.is_object() && cell.contains("label") && cell["label"].is_string())
        planned_env[cell["label"].get<std::string>()] =
            cell.contains("env") && cell["env"].is_object() ? cell["env"] : nlohmann::json::object();
  return planned_env;
}

// scenario.json's device against machine.json's (`machine_device`; "" when it names none).
void check_scenario_device(Ctx& c, const nlohmann::json& scenario, const std::string& machine_device) {
  if (scenario.is_object() && scenario.contains("device") && scenario["device"].is_string()) {
    const std::string sdev = device_in(scenario);
    if (!machine_device.empty() && sdev != machine_device)
      c.problem("scenario.json", fmt::format("device \"{}\" but machine.json says \"{}\"; compare and history refuse the "
                                             "folder until its files agree",
                                             escape_controls_line(sdev), machine_device));
  }
}

// A record's cell (label, repeat) and index are no other record's; `cell_of`/`index_of` name the first of each.
void check_run_unique(Ctx& c, const std::string& rel, const RunRecord& r,
                      std::map<std::pair<std::string, int>, std::string>& cell_of, std::map<int, std::string>& index_of) {
  if (auto [it, fresh] = cell_of.insert({{r.label, r.repeat}, r.file_stem()}); !fresh)
    c.problem(rel, fmt::format("a second record of cell \"{}\" repeat {} (the first is {})", r.label, r.repeat, it->second));
  if (auto [it, fresh] = index_of.insert({r.index, r.file_stem()}); !fresh)
    c.problem(rel, fmt::format("index {} is also the index of {}", r.index, it->second));
}

// A record against the plan: a cell of scenario.json, a planned repeat, the cell's env, machine.json's device.
void check_run_planned(Ctx& c, const std::string& rel, const RunRecord& r, const std::set<std::string>& cells, int repeats,
                       const std::map<std::string, nlohmann::json>& planned_env, const std::string& machine_device) {
  if (!cells.empty() && !cells.count(r.label))
    c.problem(rel, fmt::format("label \"{}\" is not a cell of scenario.json", r.label));
  if (r.repeat > repeats) c.problem(rel, fmt::format("repeat {} but scenario.json plans {}", r.repeat, repeats));
  if (auto it = planned_env.find(r.label); it != planned_env.end() && nlohmann::json(r.env) != it->second)
    c.problem(rel, fmt::format("env {} but scenario.json's cell \"{}\" sets {} (a record of other settings under its label)",
                               escape_controls_line(json_preview(nlohmann::json(r.env), 120)), r.label,
                               escape_controls_line(json_preview(it->second, 120))));
  if (!machine_device.empty() && !r.device.empty() && r.device != machine_device)
    c.problem(rel, fmt::format("device \"{}\" but machine.json says \"{}\"; compare and history refuse the folder until "
                               "its files agree",
                               r.device, machine_device));
}

// A record's trace file: a note when it is missing, a problem when it is not a regular file.
void check_run_trace(Ctx& c, const std::string& rel, const RunRecord& r) {
  if (!r.trace.empty()) {
    try {
      auto st = c.f.stat(r.trace);
      if (!st) c.out.notes.push_back(fmt::format("{}: its trace {} is missing", c.f.display(rel), r.trace));
      else if (!S_ISREG(st->mode)) c.problem(rel, fmt::format("its trace {} is {}", r.trace, file_kind(st->mode)));
    } catch (const FileError& e) {
      c.problem(rel, std::string("its trace: ") + e.what());
    }
  }
}

// machine.json's started_utc and ended_utc: UTC times, the end not before the start.
void check_machine_times(Ctx& c, const nlohmann::json& machine) {
  if (machine.is_object()) {
    auto a = parse_utc(machine.value("started_utc", "")), b = parse_utc(machine.value("ended_utc", ""));
    if (machine.contains("started_utc") && !a) c.problem("machine.json", "started_utc is not a UTC time like 2026-11-29T19:16:55Z");
    if (machine.contains("ended_utc") && !b) c.problem("machine.json", "ended_utc is not a UTC time like 2026-11-29T19:16:55Z");
    if (a && b && *b < *a) c.problem("machine.json", "ended_utc is before started_utc");
  }
}

}  // namespace

std::optional<long long> parse_utc(const std::string& s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
    return std::nullopt;
  std::tm tm{};
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  tm.tm_year = std::atoi(s.substr(0, 4).c_str()) - 1900;
  tm.tm_mon = std::atoi(s.substr(5, 2).c_str()) - 1;
  tm.tm_mday = std::atoi(s.substr(8, 2).c_str());
  tm.tm_hour = std::atoi(s.substr(11, 2).c_str());
  tm.tm_min = std::atoi(s.substr(14, 2).c_str());
  tm.tm_sec = std::atoi(s.substr(17, 2).c_str());
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  const int mday = tm.tm_mday;
  const long long t = static_cast<long long>(timegm(&tm));
  if (tm.tm_mday != mday) return std::nullopt;  // 2026-02-30 normalised to March
  return t;
}

CheckResult check_result_folder(const std::string& dir) {
  if (is_releases_folder(dir)) return check_releases_folder(dir);  // check_releases.h
  CheckResult out;
  std::optional<Folder> f;
  try {
    f.emplace(dir);
    if (!f->exists("machine.json") && !f->exists("runs") && !f->exists("scenario.json")) {
      out.unreadable = true;
      out.problems.push_back(fmt::format("{}: not a wmbench result folder (no machine.json, scenario.json or runs/)", dir));
      return out;
    }
  } catch (const FileError& e) {
    out.unreadable = true;
    out.problems.push_back(e.what());
    return out;
  }
  Ctx c{*f, out};
  check_own_files(c);
  Report rep;
  try {
    rep = load_report(dir, "not run");
  } catch (const FileError& e) {
    c.problem(e.what());
    return out;
  }
  out.notes.insert(out.notes.end(), rep.notes.begin(), rep.notes.end());
  out.problems.insert(out.problems.end(), rep.problems.begin(), rep.problems.end());
  out.runs = rep.runs.size();
  std::set<std::string> cells;
  int repeats = 1;
  if (rep.scenario.is_object()) {
    check_scenario_cells(c, rep.scenario, cells);
    repeats = rep.scenario.value("repeats", 1);
    note_own_command(c, rep.scenario);
  }
  const std::map<std::string, nlohmann::json> planned_env = planned_envs(rep.scenario);
  const std::string machine_device = device_in(rep.machine);
  check_scenario_device(c, rep.scenario, machine_device);
  std::map<std::pair<std::string, int>, std::string> cell_of;
  std::map<int, std::string> index_of;
  for (const auto& r : rep.runs) {
    const std::string rel = "runs/" + r.file_stem() + ".json";
    if (!f->exists(rel))
      c.problem(fmt::format("{}: a run file holds the record {} (index {}, label {}); its name should be {}.json",
                            f->display("runs"), r.file_stem(), r.index, r.label, r.file_stem()));
    check_run_unique(c, rel, r, cell_of, index_of);
    check_run_planned(c, rel, r, cells, repeats, planned_env, machine_device);
    check_run_trace(c, rel, r);
    check_numbers(c, rel, r, rep.machine);
  }
  check_machine_times(c, rep.machine);
  check_machine_extras(c, rep.machine);
  check_summary(c, rep);
  check_tables(c, rep);
  check_tune_json(*f, rep, out.problems, out.notes);
  return out;
}

}  // namespace wmb
