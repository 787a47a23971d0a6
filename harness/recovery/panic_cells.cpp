#include "recovery/panic_cells.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/utf8.h"
#include "results/run_record.h"
#include "scenario/scenario.h"
#include "verdict/diagnostic_reports.h"

namespace wmb {
namespace {

// A trace is read from its end: its last samples are what matters, and 8 MiB holds hours of
// 0.5 s samples. The start line is used when it is within the tail.
constexpr size_t kTraceTailBytes = size_t{8} << 20;

// "2026-11-29T19:20:15Z" -> unix seconds (days from the civil date, no time zone of the host's).
std::optional<int64_t> unix_of_utc(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char z = 0;
  if (s.size() != 20 || std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &z) != 7 || z != 'Z')
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  y -= mo <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60 + se;
}

std::string utc_of_unix(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  if (!gmtime_r(&tt, &tm)) return "";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

uint64_t bytes_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0;
}

// What a trace says: its start line (if within the tail) and its samples' figures.
struct TraceFacts {
  nlohmann::json start;  // null when not read
  size_t samples = 0;
  double last_t = 0;
  uint64_t first_swap = 0, last_swap = 0, peak_swap = 0, peak_footprint = 0, last_held = 0;
};

TraceFacts read_trace(const std::string& text) {
  TraceFacts f;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;  // the cut first line of a tail, or a line the panic cut short
    const auto type = j.find("type");
    if (type == j.end() || !type->is_string()) continue;
    if (*type == "start") {
      f.start = j;
      continue;
    }
    if (*type != "sample") continue;
    const auto t = j.find("t");
    if (t == j.end() || !t->is_number() || !(t->get<double>() >= 0) || t->get<double>() > 1e9) continue;
    const uint64_t swap = bytes_of(j, "swap_used");
    if (f.samples++ == 0) f.first_swap = swap;
    f.last_t = std::max(f.last_t, t->get<double>());
    f.last_swap = swap;
    f.peak_swap = std::max(f.peak_swap, swap);
    f.peak_footprint = std::max(f.peak_footprint, bytes_of(j, "footprint"));
    f.last_held = bytes_of(j, "held");
  }
  return f;
}

// The folder's plan: (label, repeat) -> run index, as runner/plan.cpp numbers it.
std::map<std::pair<std::string, int>, int> planned_indices(const nlohmann::json& sc) {
  std::map<std::pair<std::string, int>, int> out;
  const auto m = sc.find("matrix");
  if (m == sc.end() || !m->is_array()) return out;
  // scenario.json was checked by its schema when the report was read; read as if it had not been.
  const auto rit = sc.find("repeats");
  const int repeats = rit != sc.end() && rit->is_number_integer() && rit->get<int64_t>() > 0 && rit->get<int64_t>() <= 1000
                          ? static_cast<int>(rit->get<int64_t>())
                          : 1;
  const int n = static_cast<int>(m->size());
  for (int rep = 1; rep <= repeats; ++rep)
    for (int i = 0; i < n; ++i) {
      const auto& c = (*m)[static_cast<size_t>(i)];
      if (c.is_object() && c.contains("label") && c["label"].is_string() && label_problem(c["label"].get<std::string>()).empty())
        out[{c["label"].get<std::string>(), rep}] = (rep - 1) * n + i + 1;
    }
  return out;
}

// The trace's time of its last sample: its start line's utc plus the sample's t, else the
// file's modification time (the syncing thread wrote it then).
std::optional<int64_t> last_sample_unix(const Folder& folder, const std::string& rel, const TraceFacts& f) {
  if (f.start.is_object() && f.start.contains("utc") && f.start["utc"].is_string())
    if (const auto t0 = unix_of_utc(f.start["utc"].get<std::string>())) return *t0 + static_cast<int64_t>(f.last_t);
  struct stat st{};
  if (::fstatat(folder.fd(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<int64_t>(st.st_mtime);
}

RunRecord panic_record(const NotRun& nr, int index, const std::string& trace, const TraceFacts& f, const PanicReport& p,
                       int64_t last_unix, const nlohmann::json& scenario) {
  RunRecord r;
  r.index = index;
  r.label = nr.label;
  r.repeat = nr.repeat;
  const nlohmann::json& st = f.start;
  if (st.is_object()) {
    if (st.contains("env") && st["env"].is_object())
      for (auto it = st["env"].begin(); it != st["env"].end(); ++it)
        if (it->is_string()) r.env[it.key()] = it->get<std::string>();
    if (st.contains("device") && st["device"].is_string()) r.device = st["device"].get<std::string>();
    r.step_bytes = bytes_of(st, "step_bytes");
    if (st.contains("utc") && st["utc"].is_string()) r.started_utc = st["utc"].get<std::string>();
  }
  if (r.device.empty() && scenario.contains("device") && scenario["device"].is_string()) r.device = scenario["device"].get<std::string>();
  const int64_t panic_at = p.time_unix.value_or(last_unix);
  r.stopped_by = "kernel";
  r.kernel_event = "panic";
  r.detail = fmt::format("the Mac panicked during this cell ({}, {}{}); its trace is kept up to its last sample, {} s "
                         "before the panic",
                         p.path, utc_of_unix(panic_at), p.summary.empty() ? "" : ": " + p.summary,
                         panic_at >= last_unix ? panic_at - last_unix : 0);
  r.held_bytes = f.last_held;
  // A fill holds whole steps: the steps the last sample held (check compares the two).
  if (r.step_bytes > 0) r.steps = static_cast<int>(std::min<uint64_t>(r.held_bytes / r.step_bytes, std::numeric_limits<int>::max()));
  r.swap_before_bytes = f.first_swap;
  r.swap_after_bytes = f.last_swap;
  r.swap_peak_bytes = f.peak_swap;
  if (f.peak_footprint) r.peak_footprint_bytes = f.peak_footprint;
  r.peak_footprint_source = "sampled";
  r.duration_s = f.last_t;
  r.ended_utc = utc_of_unix(panic_at);
  r.trace = trace;
  r.warnings.push_back("recorded after the panic from the trace and the panic report (no run file was written): "
                       "held, swap and footprint are the last samples'");
  return r;
}

}  // namespace

std::vector<PanickedCell> record_panicked_cells(const Folder& folder, const Report& report, const std::vector<std::string>& dirs) {
  std::vector<PanickedCell> out;
  if (dirs.empty() || report.not_run.empty()) return out;
  const auto index_of = planned_indices(report.scenario);
  for (const NotRun& nr : report.not_run) {
    const auto it = index_of.find({nr.label, nr.repeat});
    if (it == index_of.end()) continue;
    // Only labels that are file names (scenario/scenario.h label_problem: no '/', no ".."): runs/ holds them.
    const std::string stem = fmt::format("{:02d}-{}", it->second, nr.label);
    const std::string trace = "runs/" + stem + ".trace.jsonl";
    const std::string text = folder.read_tail(trace, kTraceTailBytes);
    if (text.empty()) continue;
    const TraceFacts f = read_trace(text);
    if (f.samples == 0) continue;
    const auto last = last_sample_unix(folder, trace, f);
    if (!last) continue;
    std::vector<PanicReport> panics;
    for (const auto& d : dirs)
      for (auto& p : panic_reports_since(d, *last)) panics.push_back(std::move(p));
    const PanicReport* hit = nullptr;
    for (const auto& p : panics)
      if (p.time_unix && *p.time_unix >= *last && *p.time_unix <= *last + kPanicWindowSeconds &&
          (!hit || *p.time_unix < *hit->time_unix))
        hit = &p;
    if (!hit) continue;
    RunRecord r = panic_record(nr, it->second, trace, f, *hit, *last, report.scenario);
    fit_run_record(r);
    const std::string file = "runs/" + r.file_stem() + ".json";
    folder.write_json(file, to_json(r));
    out.push_back({nr.label, nr.repeat, it->second, hit->path, utf8_sanitize(hit->summary, 200), file});
  }
  return out;
}

std::string panicked_cell_text(const PanickedCell& c) {
  return fmt::format("cell \"{}\" repeat {} ({}): the Mac panicked during it ({}{})", c.label, c.repeat, c.file, c.report,
                     c.summary.empty() ? "" : ": " + c.summary);
}

bool is_panic_record(const RunRecord& r) { return r.stopped_by == "kernel" && r.kernel_event == "panic"; }

}  // namespace wmb
