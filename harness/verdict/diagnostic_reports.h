// macOS's own reports of what the kernel did (issue 41, item 2): a JetsamEvent report when jetsam
// (memorystatus) killed processes, and a panic report after a kernel panic. Both lie in
// /Library/Logs/DiagnosticReports (and ~/Library/Logs/DiagnosticReports). This is the pure reading
// layer: parse one report's text, scan one folder for those written since a time, find the kill of
// one pid. The runner decides what a kill or a panic means for a run.
//
// Formats (diagnostic_reports.cpp names the upstream sources):
//  - JetsamEvent-YYYY-MM-DD-HHMMSS.ips: a one-line JSON header ({"bug_type":"298","timestamp":
//    "2019-08-05 17:06:39.79 -0500",...}), then a JSON body whose "processes" array lists every
//    process; only a killed one has a "reason" (xnu's memorystatus_kill_cause_name: "per-process-limit",
//    "vm-pageshortage", "vm-compressor-space-shortage", "highwater", ...).
//  - a panic: a .panic file (Kernel-*.panic, panic-full-*.panic) or panic-full-*.ips; since macOS 12
//    a one-line JSON header (bug_type "210") and a JSON body with "panicString"; older ones plain text
//    with a "panic(cpu ..." line (and sometimes a "Date/Time:" line).
//
// Every byte is hostile: nothing here throws or aborts; what cannot be read is skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wmb {

// Bounds of a folder scan: at most this many bytes read per file (a bigger file is skipped), at most
// this many folder entries looked at ("." and ".." not counted).
constexpr size_t kMaxDiagnosticReportBytes = size_t{8} << 20;  // 8 MiB
constexpr size_t kMaxDiagnosticReportEntries = 4096;
// A file last modified more than this long before `since_unix` is not read (a report is written when
// its event happens, so its own timestamp is not after its file's mtime; the slack covers clock steps).
constexpr int64_t kDiagnosticReportMtimeSlackS = 3600;

struct JetsamKill {
  int64_t pid = 0;
  std::string name;    // the process name as the report gives it (printable, at most 256 bytes)
  std::string reason;  // e.g. "per-process-limit", "vm-pageshortage" (printable, at most 64 bytes)
  std::string report_path = "";  // the report that names it (set by jetsam_kill_of; "" from a parse)
};

struct JetsamReport {
  std::string path;                  // "" from parse_jetsam_report; the file from a scan
  std::optional<int64_t> time_unix;  // the header's "timestamp" (else the body's "date"); a scan fills in the mtime
  bool time_from_mtime = false;      // true when a scan took time_unix from the file's mtime
  std::string largest_process;       // the body's "largestProcess" ("" when absent)
  std::vector<JetsamKill> killed;    // the processes with a "reason", in the report's order
};

struct PanicReport {
  std::string path;
  std::optional<int64_t> time_unix;  // the header's "timestamp" (else body "date", else a "Date/Time:" line)
  bool time_from_mtime = false;
  std::string summary;  // the first line of the panic string, at most 200 bytes, printable
};

// Parse one report's text. nullopt and *why set (when why is not null) when it is not that kind of
// report or is malformed. Never throws, never aborts.
std::optional<JetsamReport> parse_jetsam_report(std::string_view text, std::string* why);
std::optional<PanicReport> parse_panic_report(std::string_view text, std::string* why);

// "2023-05-10 14:03:21.00 -0700" (fraction optional, any number of digits) to unix seconds (the
// fraction dropped), with the report's own UTC offset; nullopt for anything else.
std::optional<int64_t> parse_report_timestamp(std::string_view s);

// Reports in `dir` whose time (the report's own timestamp, else the file's mtime) is >= since_unix,
// oldest first. Only regular files, opened without following links and without blocking; names
// starting with "JetsamEvent" and ending ".ips" (jetsam), ending ".panic" or "panic-full*.ips" /
// "panic-base*.ips" (panic); a name starting with "." is skipped. A folder that cannot be opened
// gives an empty list.
std::vector<JetsamReport> jetsam_reports_since(const std::string& dir, int64_t since_unix);
std::vector<PanicReport> panic_reports_since(const std::string& dir, int64_t since_unix);

// The jetsam kill of `pid` at or after since_unix in any of `dirs`, if one names it (the earliest).
std::optional<JetsamKill> jetsam_kill_of(const std::vector<std::string>& dirs, int64_t pid, int64_t since_unix);

// Where to look: the env var WMBENCH_DIAGNOSTIC_REPORTS (one absolute folder; a relative or empty
// value is ignored) if set; else on macOS /Library/Logs/DiagnosticReports and
// $HOME/Library/Logs/DiagnosticReports (HOME absolute only); else none.
std::vector<std::string> diagnostic_report_dirs();

}  // namespace wmb
