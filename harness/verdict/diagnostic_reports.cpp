// Reading macOS's JetsamEvent and panic reports (diagnostic_reports.h). Not run on a Mac: the
// format knowledge comes from upstream sources and real reports, kept in
// tests/data/diagnostic-reports/ (SOURCES.md there says where each came from and what was cut):
//  - apple-oss-distributions/xnu doc/memorystatus/kill.md: the kill reasons (JETSAM_REASON_*);
//  - xnu bsd/kern/kern_memorystatus.c memorystatus_kill_cause_name[] (quoted from apple/darwin-xnu
//    a449c6a in faisalmemon/ios-crash-dump-analysis-book examples/jetsam/where-from.txt): the
//    strings a report's "reason" holds ("per-process-limit", "vm-pageshortage", ...);
//  - real JetsamEvent reports, faisalmemon/ios-crash-dump-analysis-book
//    examples/jetsam/jetsam_vm-pageshortage.crash and examples/resource/JetsamEvent-2020-10-15-172958.ips.synced
//    (a header line with bug_type "298" and "timestamp"; a body whose "processes" entries carry a
//    "reason" only when killed); jundot/omlx issue 702 and manaflow-ai/cmux issue 4214 quote macOS
//    ones of the same shape;
//  - real panics: the same book's examples/gpu_panic_osx/Kernel_2018-06-16-141249_Admins-MacBook-Pro-4.panic
//    (plain text, a "panic(cpu ..." line); JSON ones (header bug_type "210", body "panicString")
//    named in SOURCES.md; osquery/osquery issue 7215 (panic-full-*.ips files) and PR 7585
//    (Kernel-*.panic files become a JSON header and body) for where and how macOS keeps them.
#include "verdict/diagnostic_reports.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "io/json_input.h"
#include "io/utf8.h"

namespace wmb {
namespace {

using nlohmann::json;

constexpr size_t kMaxNameBytes = 256;
constexpr size_t kMaxReasonBytes = 64;
constexpr size_t kMaxSummaryBytes = 200;
constexpr size_t kMaxKills = 4096;
constexpr size_t kMaxPathBytes = 4096;

void set_why(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

// Sets *why and gives nullopt: `return refuse(why, "...");`.
std::nullopt_t refuse(std::string* why, std::string text) {
  set_why(why, std::move(text));
  return std::nullopt;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// `s` as one printable line: ill-formed UTF-8 becomes U+FFFD, every C0/C1 control and DEL a space,
// cut on a character boundary to at most max_bytes (ending "..." when cut).
std::string printable(std::string_view s, size_t max_bytes) {
  const std::string u = utf8_sanitize(s.substr(0, std::min(s.size(), max_bytes * 4 + 16)));
  std::string out;
  for (size_t i = 0; i < u.size(); ++i) {
    const auto c = static_cast<unsigned char>(u[i]);
    const bool c1 = c == 0xC2 && i + 1 < u.size() && static_cast<unsigned char>(u[i + 1]) <= 0x9F &&
                    static_cast<unsigned char>(u[i + 1]) >= 0x80;
    if (c1) ++i;
    out += (c < 0x20 || c == 0x7F || c1) ? ' ' : static_cast<char>(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  size_t lead = out.find_first_not_of(' ');
  out.erase(0, lead == std::string::npos ? out.size() : lead);
  if (out.size() > max_bytes) out = std::string(utf8_prefix(out, max_bytes - 3)) + "...";
  return out;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t days_in_month(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly n ASCII digits at s[*i]; advances *i.
std::optional<int64_t> digits(std::string_view s, size_t* i, size_t n) {
  if (*i + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[*i + k];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  *i += n;
  return v;
}

bool take(std::string_view s, size_t* i, char c) {
  if (*i >= s.size() || s[*i] != c) return false;
  ++*i;
  return true;
}

// "+HHMM" / "-HHMM" as seconds east of UTC.
std::optional<int64_t> utc_offset(std::string_view s, size_t* i) {
  if (*i >= s.size() || (s[*i] != '+' && s[*i] != '-')) return std::nullopt;
  const int64_t sign = s[(*i)++] == '-' ? -1 : 1;
  const auto hh = digits(s, i, 2);
  const auto mm = digits(s, i, 2);
  if (!hh || !mm || *hh > 23 || *mm > 59) return std::nullopt;
  return sign * (*hh * 3600 + *mm * 60);
}

// The text's first line (without a trailing CR) and the rest.
std::pair<std::string_view, std::string_view> split_first_line(std::string_view text) {
  const size_t nl = text.find('\n');
  std::string_view head = text.substr(0, nl);
  if (!head.empty() && head.back() == '\r') head.remove_suffix(1);
  return {head, nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1)};
}

// A JSON object through the one bounded loader (depth, duplicate keys, UTF-8); nullopt and *why
// on anything else.
std::optional<json> parse_object(std::string_view text, const char* what, std::string* why) {
  try {
    json j = parse_json_text(text, what, kMaxDiagnosticReportBytes);
    if (j.is_object()) return j;
    set_why(why, std::string(what) + " is not a JSON object");
  } catch (const std::exception& e) {
    set_why(why, e.what());
  }
  return std::nullopt;
}

const json* member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::optional<std::string> string_member(const json& obj, const char* key) {
  const json* v = member(obj, key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

// The header's bug_type as text ("298"); a number is read as its digits.
std::optional<std::string> bug_type_of(const json& header) {
  const json* v = member(header, "bug_type");
  if (!v) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
  return std::string("?");
}

// The report's own time: the header's "timestamp", else the body's "date".
std::optional<int64_t> report_time(const json& header, const json* body) {
  if (auto t = string_member(header, "timestamp"); t && parse_report_timestamp(*t)) return parse_report_timestamp(*t);
  if (body)
    if (auto d = string_member(*body, "date")) return parse_report_timestamp(*d);
  return std::nullopt;
}

// One "processes" entry with a "reason" (the killed ones); nullopt for every other entry and for an
// entry whose pid is not a whole number in 1..2^31-1.
std::optional<JetsamKill> kill_of(const json& p) {
  if (!p.is_object()) return std::nullopt;
  const auto reason = string_member(p, "reason");
  const json* pid = member(p, "pid");
  if (!reason || reason->empty() || !pid || !pid->is_number_integer()) return std::nullopt;
  const int64_t v = pid->is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(pid->get<uint64_t>(), 1ULL << 40))
                                              : pid->get<int64_t>();
  if (v < 1 || v > 0x7FFFFFFF) return std::nullopt;
  return JetsamKill{v, printable(string_member(p, "name").value_or(""), kMaxNameBytes),
                    printable(*reason, kMaxReasonBytes)};
}

std::optional<JetsamReport> parse_jetsam(std::string_view text, std::string* why) {
  const auto [head, rest] = split_first_line(text);
  if (head.empty()) return refuse(why, "empty report");
  const auto header = parse_object(head, "the report's first line", why);
  if (!header) return std::nullopt;
  const auto bug = bug_type_of(*header);
  if (!bug || *bug != "298")
    return refuse(why, "bug_type " + printable(bug.value_or("(none)"), 16) + ", not 298 (a JetsamEvent)");
  const auto body = parse_object(rest, "the report's body", why);
  if (!body) return std::nullopt;
  const json* procs = member(*body, "processes");
  if (!procs || !procs->is_array()) return refuse(why, "the report's body has no \"processes\" array");
  JetsamReport r;
  r.time_unix = report_time(*header, &*body);
  r.largest_process = printable(string_member(*body, "largestProcess").value_or(""), kMaxNameBytes);
  for (const json& p : *procs) {
    if (r.killed.size() >= kMaxKills) break;
    if (auto k = kill_of(p)) r.killed.push_back(std::move(*k));
  }
  return r;
}

// The first line of a panic string, made printable; "" when there is none.
std::string first_line_summary(std::string_view s) {
  const size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  s.remove_prefix(start);
  return printable(s.substr(0, s.find('\n')), kMaxSummaryBytes);
}

// A plain-text panic: its "panic(" line (leading blanks allowed) and a "Date/Time:" line if any.
std::optional<PanicReport> parse_plain_panic(std::string_view text, std::string* why) {
  PanicReport r;
  while (!text.empty()) {
    auto [line, rest] = split_first_line(text);
    text = rest;
    const size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos) continue;
    line.remove_prefix(b);
    if (r.summary.empty() && starts_with(line, "panic(")) r.summary = first_line_summary(line);
    if (!r.time_unix && starts_with(line, "Date/Time:")) {
      std::string_view v = line.substr(10);
      v.remove_prefix(std::min(v.size(), v.find_first_not_of(" \t")));
      r.time_unix = parse_report_timestamp(v);
    }
  }
  if (r.summary.empty()) return refuse(why, "no \"panic(\" line and no JSON panicString: not a panic report");
  return r;
}

// A JSON panic (bug_type "210"): the body's "panicString" (else "macOSPanicString"); a header
// followed by plain text is read as plain text.
std::optional<PanicReport> parse_json_panic(const json& header, std::string_view rest, std::string* why) {
  const auto bug = bug_type_of(header);
  if (bug && *bug != "210")
    return refuse(why, "bug_type " + printable(*bug, 16) + ", not 210 (a panic)");
  std::string body_why;
  const auto body = parse_object(rest, "the report's body", &body_why);
  if (!body) {
    auto plain = parse_plain_panic(rest, nullptr);
    if (!plain) return refuse(why, "the panic report's body is neither JSON nor text with a \"panic(\" line: " + body_why);
    if (auto t = report_time(header, nullptr)) plain->time_unix = t;
    return plain;
  }
  std::string text = string_member(*body, "panicString").value_or("");
  if (first_line_summary(text).empty()) text = string_member(*body, "macOSPanicString").value_or("");
  PanicReport r;
  r.summary = first_line_summary(text);
  if (r.summary.empty()) return refuse(why, "the report's body has no panicString");
  r.time_unix = report_time(header, &*body);
  return r;
}

std::optional<PanicReport> parse_panic(std::string_view text, std::string* why) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return refuse(why, "empty report");
  const auto [head, rest] = split_first_line(text);
  if (!head.empty() && head.front() == '{') {
    std::string head_why;
    if (const auto header = parse_object(head, "the report's first line", &head_why))
      return parse_json_panic(*header, rest, why);
  }
  return parse_plain_panic(text, why);
}

// ---- the folder scan ----

enum class Kind { Jetsam, Panic };

bool wanted(std::string_view name, Kind kind) {
  if (name.empty() || name.front() == '.') return false;
  if (kind == Kind::Jetsam) return starts_with(name, "JetsamEvent") && ends_with(name, ".ips");
  return ends_with(name, ".panic") ||
         (ends_with(name, ".ips") && (starts_with(name, "panic-full") || starts_with(name, "panic-base")));
}

struct FileText {
  std::string text;
  int64_t mtime = 0;
};

// Reads at most kMaxDiagnosticReportBytes of the regular file `name` in the folder `dfd`, without
// following a link or blocking on a FIFO; nullopt for anything else, a bigger file, or one last
// modified long before since_unix.
std::optional<FileText> read_report_file(int dfd, const char* name, int64_t since_unix) {
  const int fd = ::openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  FileText out;
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                  static_cast<uint64_t>(st.st_size) <= kMaxDiagnosticReportBytes &&
                  static_cast<int64_t>(st.st_mtime) >= since_unix - kDiagnosticReportMtimeSlackS;
  if (ok) {
    out.mtime = static_cast<int64_t>(st.st_mtime);
    char buf[65536];
    while (out.text.size() <= kMaxDiagnosticReportBytes) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.text.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  if (!ok || out.text.size() > kMaxDiagnosticReportBytes) return std::nullopt;  // it grew while read
  return out;
}

// Calls f(name, file) for each wanted file among the first kMaxDiagnosticReportEntries entries.
template <typename F>
void for_each_report_file(const std::string& dir, Kind kind, int64_t since_unix, F&& f) {
  if (dir.empty() || dir.size() > kMaxPathBytes || dir.find('\0') != std::string::npos) return;
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  DIR* d = ::fdopendir(dfd);
  if (!d) {
    ::close(dfd);
    return;
  }
  size_t seen = 0;
  while (seen < kMaxDiagnosticReportEntries) {
    const dirent* e = ::readdir(d);
    if (!e) break;
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    ++seen;
    if (!wanted(name, kind)) continue;
    if (auto file = read_report_file(dfd, e->d_name, since_unix)) f(std::string(name), *file);
  }
  ::closedir(d);
}

template <typename Report>
std::vector<Report> scan(const std::string& dir, Kind kind, int64_t since_unix,
                         std::optional<Report> (*parse)(std::string_view, std::string*)) {
  std::vector<Report> out;
  for_each_report_file(dir, kind, since_unix, [&](const std::string& name, const FileText& file) {
    auto r = parse(file.text, nullptr);
    if (!r) return;
    if (!r->time_unix) {
      r->time_unix = file.mtime;
      r->time_from_mtime = true;
    }
    if (*r->time_unix < since_unix) return;
    r->path = dir + (dir.back() == '/' ? "" : "/") + name;
    out.push_back(std::move(*r));
  });
  std::sort(out.begin(), out.end(), [](const Report& a, const Report& b) {
    return a.time_unix != b.time_unix ? *a.time_unix < *b.time_unix : a.path < b.path;
  });
  return out;
}

std::optional<std::string> absolute_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || v[0] != '/' || std::strlen(v) > kMaxPathBytes) return std::nullopt;
  return std::string(v);
}

}  // namespace

std::optional<int64_t> parse_report_timestamp(std::string_view s) {
  size_t i = 0;
  const auto y = digits(s, &i, 4);
  const bool d1 = take(s, &i, '-');
  const auto mo = digits(s, &i, 2);
  const bool d2 = take(s, &i, '-');
  const auto d = digits(s, &i, 2);
  const bool sp = take(s, &i, ' ');
  const auto h = digits(s, &i, 2);
  const bool c1 = take(s, &i, ':');
  const auto mi = digits(s, &i, 2);
  const bool c2 = take(s, &i, ':');
  const auto se = digits(s, &i, 2);
  if (!y || !mo || !d || !h || !mi || !se || !d1 || !d2 || !sp || !c1 || !c2) return std::nullopt;
  if (*y < 1970 || *mo < 1 || *mo > 12 || *d < 1 || *d > days_in_month(*y, *mo) || *h > 23 || *mi > 59 || *se > 60)
    return std::nullopt;
  if (take(s, &i, '.')) {
    const size_t f = i;
    while (i < s.size() && i - f < 9 && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == f) return std::nullopt;
  }
  if (!take(s, &i, ' ')) return std::nullopt;
  const auto off = utc_offset(s, &i);
  if (!off || i != s.size()) return std::nullopt;
  return days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *se - *off;
}

std::optional<JetsamReport> parse_jetsam_report(std::string_view text, std::string* why) {
  try {
    return parse_jetsam(text, why);
  } catch (const std::exception& e) {
    set_why(why, std::string("unreadable report: ") + e.what());
  } catch (...) {
    set_why(why, "unreadable report");
  }
  return std::nullopt;
}

std::optional<PanicReport> parse_panic_report(std::string_view text, std::string* why) {
  try {
    return parse_panic(text, why);
  } catch (const std::exception& e) {
    set_why(why, std::string("unreadable report: ") + e.what());
  } catch (...) {
    set_why(why, "unreadable report");
  }
  return std::nullopt;
}

std::vector<JetsamReport> jetsam_reports_since(const std::string& dir, int64_t since_unix) {
  try {
    return scan<JetsamReport>(dir, Kind::Jetsam, since_unix, &parse_jetsam_report);
  } catch (...) {
    return {};
  }
}

std::vector<PanicReport> panic_reports_since(const std::string& dir, int64_t since_unix) {
  try {
    return scan<PanicReport>(dir, Kind::Panic, since_unix, &parse_panic_report);
  } catch (...) {
    return {};
  }
}

std::optional<JetsamKill> jetsam_kill_of(const std::vector<std::string>& dirs, int64_t pid, int64_t since_unix) {
  if (pid < 1) return std::nullopt;
  std::optional<std::pair<int64_t, JetsamKill>> best;
  for (const std::string& dir : dirs)
    for (const JetsamReport& r : jetsam_reports_since(dir, since_unix))
      for (const JetsamKill& k : r.killed)
        if (k.pid == pid && (!best || *r.time_unix < best->first)) {
          best = std::make_pair(*r.time_unix, k);
          best->second.report_path = r.path;
        }
  if (!best) return std::nullopt;
  return best->second;
}

std::vector<std::string> diagnostic_report_dirs() {
  try {
    if (auto v = absolute_env("WMBENCH_DIAGNOSTIC_REPORTS")) return {*v};
#ifdef __APPLE__
    std::vector<std::string> out{"/Library/Logs/DiagnosticReports"};
    if (auto home = absolute_env("HOME")) {
      std::string mine = *home + (home->back() == '/' ? "" : "/") + "Library/Logs/DiagnosticReports";
      if (mine != out.front()) out.push_back(std::move(mine));
    }
    return out;
#else
    return {};
#endif
  } catch (...) {
    return {};
  }
}

}  // namespace wmb
