#include "doctor/doctor.h"

#include <sys/stat.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "common/exit_codes.h"
#include "doctor/fill_check.h"
#include "doctor/live.h"
#include "doctor/readers.h"
#include "host/machine_json.h"
#include "io/files.h"
#include "io/text_table.h"
#include "proctree/leftovers.h"
#include "tools/locate.h"

namespace wmb::doctor {

bool DoctorReport::ok() const {
  for (const auto& c : checks)
    if (c.verdict == Verdict::fail) return false;
  return true;
}

DoctorReport run_checks(MemoryProbe& probe, const std::string& fill_path) {
  DoctorReport r;
  r.platform = platform_name();
  adopt_orphans();  // Linux: the group's sleeps end as our children, reaped by find_leftovers
  const LiveNames names = live_names();
  for (auto& c : platform_checks(probe)) r.checks.push_back(std::move(c));
  r.checks.push_back(footprint_of_self(probe, names));
  r.checks.push_back(footprint_of_child(probe, names));
  r.checks.push_back(group_listing(names));
  r.checks.push_back(group_stopped_whole());
  r.checks.push_back(exit_watch_then_reap(names));
  const FillReading fill = run_tiny_fill(fill_plan(fill_path));
  if (auto c = recommended_check(fill)) r.checks.push_back(std::move(*c));
  r.checks.push_back(judge_fill(fill));
  return r;
}

std::string report_text(const DoctorReport& r) {
  TextRows rows = {{"check", "result", "expected", "seen", "why"}};
  size_t passed = 0, failed = 0, skipped = 0;
  for (const auto& c : r.checks) {
    rows.push_back({c.name, verdict_name(c.verdict), c.expected, c.seen, c.why});
    (c.verdict == Verdict::pass ? passed : c.verdict == Verdict::fail ? failed : skipped)++;
  }
  std::string out = aligned_columns(rows, true);
  out += fmt::format("\nwmbench doctor ({}): {} passed, {} failed, {} skipped\n", r.platform, passed, failed, skipped);
  return out;
}

nlohmann::json report_json(const DoctorReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"check", c.name}, {"verdict", verdict_name(c.verdict)}, {"expected", c.expected},
                      {"seen", c.seen}, {"why", c.why}});
  return {{"platform", r.platform}, {"ok", r.ok()}, {"checks", checks}, {"machine", machine_facts_json(machine_facts())}};
}

int run_doctor(const DoctorOptions& o) {
  std::unique_ptr<Folder> out;
  try {
    if (!o.out.empty()) {
      make_dirs(o.out);
      out = std::make_unique<Folder>(o.out);  // checked before the checks run
      const auto there = out->stat("doctor.json");
      if (there && !S_ISREG(there->mode))
        throw FileError(out->display("doctor.json") + " is " + file_kind(there->mode) +
                        ", not a regular file: refused (nothing is written through a link)");
    }
  } catch (const FileError& e) {
    std::cerr << "wmbench doctor: --out: " << e.what() << "\n";
    return kExitUsage;
  }
  auto probe = make_platform_probe();
  const DoctorReport r = run_checks(*probe, find_fill(o.fill));
  const nlohmann::json j = report_json(r);
  if (o.json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << report_text(r);
  if (out) {
    try {
      out->write_json("doctor.json", j);
      if (!o.json) std::cout << "wrote " << out->display("doctor.json") << " (attach it to a report)\n";
    } catch (const FileError& e) {
      std::cerr << "wmbench doctor: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (!r.ok())
    std::cerr << "wmbench doctor: a check failed (its why column says what): an assumption of wmbench's platform "
                 "code does not hold on this machine, or a part of wmbench is missing. Please report it with "
                 "doctor.json (wmbench doctor --out DIR) and what `wmbench info` prints.\n";
  return r.ok() ? kExitOk : kExitFail;
}

}  // namespace wmb::doctor
