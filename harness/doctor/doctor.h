// `wmbench doctor`: on the machine it runs on, each assumption wmbench's platform code makes,
// checked live in under a minute and under 1 GiB, as a table (check, expected, seen,
// pass/fail/skip and why) or JSON, and doctor.json for a report. The first thing to run on a new
// Mac. The checks are pure (checks.h); the readings come from live.h (processes: the same code on
// both systems), fill_check.h (a tiny fill at HIGH 0.01) and readers.h (this OS's own: sysctl,
// Metal, /proc, /sys).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/checks.h"
#include "probe/probe.h"

namespace wmb::doctor {

struct DoctorReport {
  std::string platform;  // "linux" | "macos"
  std::vector<Check> checks;
  bool ok() const;       // no check failed
};

// Every check, reading memory through `probe` (the platform's; a test plants a wrong one) and
// filling with the wmbench-fill at `fill_path` ("" = none found: the fill check fails).
DoctorReport run_checks(MemoryProbe& probe, const std::string& fill_path);

// The table: check, verdict, expected, seen, why; then one line that says how many passed.
std::string report_text(const DoctorReport& r);
// {"platform", "ok", "checks": [{"check", "verdict", "expected", "seen", "why"}], "machine"}.
nlohmann::json report_json(const DoctorReport& r);

struct DoctorOptions {
  bool json = false;
  std::string out;   // a folder to write doctor.json into ("" = none written)
  std::string fill;  // wmbench-fill to use ("" = tools/locate.h find_fill)
};
// The command: runs, prints, writes OUT/doctor.json (never through a link: io/files.h Folder).
// Exit 0 when no check failed, 1 when one did, 2 when --out cannot be written.
int run_doctor(const DoctorOptions& o);

}  // namespace wmb::doctor
