// Issue 41, item 2, for real with wmbench and its fill child: what macOS's own reports say ends a
// run (verdict/diagnostic_reports.h). A SIGKILL of the child beside a JetsamEvent report that names
// it is stopped_by "kernel" (jetsam) with the report's reason; a cell during which "the Mac
// panicked" (wmbench and the child killed at once, then a .panic report dated after the trace's
// last sample) is recorded as "kernel" (panic) by `run --resume` and by `report`, keeps its trace,
// and runs again only with --force. The reports are planted in a folder named by
// WMBENCH_DIAGNOSTIC_REPORTS (on a Mac the default folders are /Library/Logs/DiagnosticReports and
// ~/Library/Logs/DiagnosticReports); their texts have the shape of the real ones in
// tests/data/diagnostic-reports/ (SOURCES.md), with this test's time and pid.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <ctime>
#include <sstream>
#include <string>

#include "cli_util.h"

namespace test_kernel_reports {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

// "2026-12-05 10:41:07.00 +0000": the reports' own timestamp form, for the time t.
std::string report_time(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S.00 +0000", &tm);
  return buf;
}

// A fill slow enough to be caught mid-cell: 8 MiB every 0.2 s up to 128 MiB (about 3 s). On the
// model, whose child has no libtorch to start (cli_util.h's wmbench()): what is under test is the
// parent's record of a cell the kernel or a panic ended, the same for every device.
std::string slow_scenario(const std::string& dir) {
  return scenario(dir, "k", R"({"name": "k", "device": "mps-model", "step": "8MiB", "cap": "128MiB", "step_delay": 0.2,
      "timeout": "120s", "matrix": [{"label": "a"}, {"label": "b"}]})");
}

// The samples of a trace so far.
size_t samples_in(const std::string& trace) {
  const std::string text = slurp(trace);
  size_t n = 0;
  for (size_t at = text.find("\"type\":\"sample\""); at != std::string::npos; at = text.find("\"type\":\"sample\"", at + 1)) ++n;
  return n;
}

// True once a sample of the trace `text` saw a step held (a step event line alone is not enough:
// the record after a panic is made from the samples).
bool a_sample_holds_a_step(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "sample" && j.value("held", uint64_t{0}) > 0) return true;
  }
  return false;
}

// The pid of the child of the first cell, once its trace has `samples` samples, one of them with a
// step held (so the record made after the panic holds whole steps: check compares them); 0 when not.
pid_t child_after_samples(const std::string& out, size_t samples) {
  pid_t pid = 0;
  wait_for([&] {
    const std::string dir = only_result_dir(out);
    if (dir.empty()) return false;
    const std::string trace = dir + "/runs/01-a.trace.jsonl";
    const std::string text = slurp(trace);
    if (text.find("\"pid\"") == std::string::npos || samples_in(trace) < samples) return false;
    if (!a_sample_holds_a_step(text)) return false;
    pid = nlohmann::json::parse(text.substr(0, text.find('\n'))).value("pid", 0);
    return pid > 0;
  }, 60);
  return pid;
}

// A macOS 12+ panic report (the shape of panic-bridgeos6.2-json.panic): header, then body.
std::string panic_text(std::time_t t) {
  return R"J({"bug_type":"210","os_version":"macOS 26.1 (25B78)","timestamp":")J" + report_time(t) +
         R"J(","incident_id":"00000000-0000-0000-0000-000000000000"})J" "\n"
         R"J({"panicString":"panic(cpu 3 caller 0xfffffe0012345678): watchdog timeout: no checkins from watchdogd in 91 seconds\nmore","date":")J" +
         report_time(t) + R"J("})J" "\n";
}

// A JetsamEvent report (the shape of jetsam-ios12.4-vm-pageshortage.ips) naming pid as killed.
std::string jetsam_text(std::time_t t, pid_t pid, const std::string& reason) {
  return R"J({"bug_type":"298","os_version":"macOS 26.1 (25B78)","timestamp":")J" + report_time(t) +
         R"J(","incident_id":"00000000-0000-0000-0000-000000000001"})J" "\n"
         R"J({"largestProcess":"wmbench-fill","processes":[{"pid":1,"name":"launchd"},{"pid":)J" + std::to_string(pid) +
         R"J(,"name":"wmbench-fill","reason":")J" + reason + R"J(","rpages":4096}]})J" "\n";
}

// `wmbench run` of the slow scenario, killed as a panic would end it: wmbench and its child at once,
// once the first cell's trace has two samples. Returns the result folder.
std::string run_until_the_panic(const Tmp& t, const std::string& out) {
  RunOpts o;
  o.timeout = 120;
  o.while_running = [&](pid_t pid) {
    const pid_t child = child_after_samples(out, 2);
    ::kill(pid, SIGKILL);
    if (child > 0) ::kill(child, SIGKILL);
  };
  wmbench({"run", slow_scenario(t.path), "--out", out, "--no-plots"}, o);
  const std::string dir = only_result_dir(out);
  EXPECT_FALSE(dir.empty());
  EXPECT_FALSE(file_exists(dir + "/runs/01-a.json")) << "wmbench was killed mid-cell: no record";
  return dir;
}

RunOpts with_reports(const std::string& reports) {
  RunOpts o;
  o.timeout = 120;
  o.set_env["WMBENCH_DIAGNOSTIC_REPORTS"] = reports;
  return o;
}

void expect_panic_record(const std::string& dir, size_t samples_before) {
  const auto a = read_json(dir + "/runs/01-a.json");
  EXPECT_EQ(a["stopped_by"], "kernel") << a.dump(2);
  EXPECT_EQ(a["kernel_event"], "panic") << a.dump(2);
  EXPECT_TRUE(has(a["detail"].get<std::string>(), "the Mac panicked during this cell")) << a["detail"];
  EXPECT_TRUE(has(a["detail"].get<std::string>(), "watchdog timeout")) << a["detail"];
  EXPECT_EQ(a["trace"], "runs/01-a.trace.jsonl");
  EXPECT_GE(samples_in(dir + "/runs/01-a.trace.jsonl"), samples_before) << "the trace is kept up to its last sample";
  EXPECT_GT(a["peak_footprint_bytes"].get<uint64_t>(), 0u) << a.dump(2);
  // What the last sample held, in whole steps (the kill came once a step was held).
  EXPECT_GT(a["held_bytes"].get<uint64_t>(), 0u) << a.dump(2);
  EXPECT_EQ(a["held_bytes"].get<uint64_t>(), a["steps"].get<uint64_t>() * a["step_bytes"].get<uint64_t>()) << a.dump(2);
}

}  // namespace

TEST(KernelReports, ACellThePanicFollowedIsKernelOnResumeAndRunsAgainOnlyWithForce) {
  Tmp t;
  const std::string reports = t.path + "/DiagnosticReports", out = t.path + "/out";
  ::mkdir(reports.c_str(), 0755);
  const std::string dir = run_until_the_panic(t, out);
  ASSERT_FALSE(dir.empty());
  const size_t samples = samples_in(dir + "/runs/01-a.trace.jsonl");
  ASSERT_GE(samples, 2u);

  // Without a panic report, --resume runs the cell again (the parent was killed: no record).
  // With one dated after the trace's last sample: recorded as kernel, not run again.
  write(reports + "/panic-full-2026-12-05-000000.0002.panic", panic_text(std::time(nullptr) + 2));
  auto r = wmbench({"run", "--resume", dir, "--no-plots"}, with_reports(reports));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "recorded cell \"a\" repeat 1 (runs/01-a.json): the Mac panicked during it")) << r.err;
  EXPECT_TRUE(has(r.err, "it is not run again (--force runs it again)")) << r.err;
  expect_panic_record(dir, samples);
  EXPECT_EQ(read_json(dir + "/runs/02-b.json")["stopped_by"], "cap") << "the other cell ran";
  EXPECT_TRUE(has(slurp(dir + "/table.md"), "kernel")) << slurp(dir + "/table.md");
  auto check = wmbench({"check", dir});
  EXPECT_EQ(check.status, 0) << check.out << check.err;

  // Asked for by name without --force: refused, naming it; nothing ran.
  r = wmbench({"run", "--resume", dir, "--only", "a", "--no-plots"}, with_reports(reports));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "the Mac panicked during cell \"a\" repeat 1")) << r.err;
  EXPECT_TRUE(has(r.err, "it is not run again without --force")) << r.err;
  EXPECT_EQ(read_json(dir + "/runs/01-a.json")["kernel_event"], "panic");

  // With --force it runs again.
  r = wmbench({"run", "--resume", dir, "--only", "a", "--force", "--no-plots"}, with_reports(reports));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_json(dir + "/runs/01-a.json")["stopped_by"], "cap") << r.err;
}

TEST(KernelReports, ReportRecordsThePanickedCellAndAReportBeforeTheLastSampleIsNotThePanic) {
  Tmp t;
  const std::string reports = t.path + "/DiagnosticReports", out = t.path + "/out";
  ::mkdir(reports.c_str(), 0755);
  const std::string dir = run_until_the_panic(t, out);
  ASSERT_FALSE(dir.empty());
  const size_t samples = samples_in(dir + "/runs/01-a.trace.jsonl");

  // A panic an hour before the cell ran is not this cell's: nothing is recorded.
  write(reports + "/panic-full-old.panic", panic_text(std::time(nullptr) - 3600));
  auto r = wmbench({"report", dir, "-q"}, with_reports(reports));
  EXPECT_FALSE(file_exists(dir + "/runs/01-a.json")) << r.err;
  EXPECT_FALSE(has(r.err, "panicked")) << r.err;

  write(reports + "/panic-full-new.panic", panic_text(std::time(nullptr) + 2));
  r = wmbench({"report", dir, "-q"}, with_reports(reports));
  EXPECT_TRUE(has(r.err, "wmbench report: recorded cell \"a\" repeat 1")) << r.out << r.err;
  expect_panic_record(dir, samples);
  EXPECT_TRUE(has(r.err + r.out, "panic-full-new.panic")) << r.err;
  EXPECT_TRUE(has(read_json(dir + "/runs/01-a.json")["detail"].get<std::string>(), "panic-full-new.panic"));
}

// `wmbench run` of cell "a" whose child, once a sample is in, is named killed by a JetsamEvent
// report (the pid + `pid_offset`: 0 names the child itself) and then SIGKILLed. Its run record.
nlohmann::json run_with_jetsam_report(const std::string& reason, pid_t pid_offset) {
  Tmp t;
  const std::string reports = t.path + "/DiagnosticReports", out = t.path + "/out";
  ::mkdir(reports.c_str(), 0755);
  RunOpts o = with_reports(reports);
  o.while_running = [&](pid_t) {
    const pid_t child = child_after_samples(out, 1);
    ASSERT_GT(child, 0);
    write(reports + "/JetsamEvent-2026-12-05-000000.ips", jetsam_text(std::time(nullptr), child + pid_offset, reason));
    ::kill(child, SIGKILL);
  };
  auto r = wmbench({"run", slow_scenario(t.path), "--only", "a", "--out", out, "--no-plots"}, o);
  const std::string dir = only_result_dir(out);
  if (dir.empty()) {
    ADD_FAILURE() << "no result folder: " << r.out << r.err;
    return nlohmann::json::object();
  }
  return read_json(dir + "/runs/01-a.json");
}

TEST(KernelReports, AChildAJetsamReportNamesIsKernelWithTheReportsReason) {
  const auto a = run_with_jetsam_report("per-process-limit", 0);
  EXPECT_EQ(a["stopped_by"], "kernel") << a.dump(2);
  EXPECT_EQ(a["kernel_event"], "jetsam") << a.dump(2);
  EXPECT_TRUE(has(a["detail"].get<std::string>(), "per-process-limit")) << a["detail"];
  EXPECT_TRUE(has(a["detail"].get<std::string>(), "JetsamEvent-2026-12-05-000000.ips")) << a["detail"];
}

// A report that names another pid is not this child's kill.
TEST(KernelReports, ASigkillNoReportNamesStaysACrash) {
  const auto a = run_with_jetsam_report("vm-pageshortage", 100000);
  EXPECT_EQ(a["stopped_by"], "crash") << a.dump(2);
  EXPECT_TRUE(a["kernel_event"].is_null()) << a.dump(2);
}

}  // namespace test_kernel_reports
