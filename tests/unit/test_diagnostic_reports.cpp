// macOS's JetsamEvent and panic reports (verdict/diagnostic_reports.h): the real texts of
// tests/data/diagnostic-reports/ (SOURCES.md says where each came from) parse to the pid, name,
// reason, time and summary they hold; hostile text and hostile folder entries are refused or
// skipped; the folder scan's filters and bounds; where the reports are looked for.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit_util.h"
#include "verdict/diagnostic_reports.h"

namespace test_diagnostic_reports {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;
using wmbt_unit::has;
using wmbt_unit::put;
using wmbt_unit::tmpdir;

namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(WMBENCH_TEST_DATA) + "/diagnostic-reports/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// Unix seconds of the reports' own timestamps (computed with Python's datetime, not this code).
constexpr int64_t kT_ios12 = 1565042799;   // 2019-08-05 17:06:39.79 -0500
constexpr int64_t kT_ios11 = 1577995873;   // 2020-01-03 04:11:13.65 +0800
constexpr int64_t kT_ios14 = 1602779398;   // 2020-10-15 17:29:58.79 +0100
constexpr int64_t kT_bridge = 1645674405;  // 2022-02-24 03:46:45.00 +0000

void set_mtime(const std::string& path, int64_t t) {
  struct timeval tv[2] = {{static_cast<time_t>(t), 0}, {static_cast<time_t>(t), 0}};
  ASSERT_EQ(::utimes(path.c_str(), tv), 0) << path;
}

bool all_printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return false;
  return true;
}

// A small report of the documented shape (header line, body with "processes"), for the tests that
// need many or altered ones; the real texts are the files above.
std::string tiny_jetsam(const std::string& timestamp, const std::string& processes) {
  return "{\"bug_type\":\"298\",\"timestamp\":\"" + timestamp + "\"}\n{\"processes\":[" + processes + "]}\n";
}

// A fresh folder under /tmp, removed with all it holds (links are removed, not followed).
struct Tmp {
  std::string path;
  explicit Tmp(const char* tag) : path(tmpdir(tag)) { EXPECT_FALSE(path.empty()); }
  ~Tmp() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Restores one environment variable when it goes out of scope.
struct EnvGuard {
  std::string name;
  bool had = false;
  std::string old;
  explicit EnvGuard(std::string n) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) had = true, old = v;
  }
  ~EnvGuard() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST(DiagnosticReports, RealJetsamVmPageshortage) {
  std::string why;
  const auto r = parse_jetsam_report(data("jetsam-ios12.4-vm-pageshortage.ips"), &why);
  ASSERT_TRUE(r) << why;
  ASSERT_TRUE(r->time_unix);
  EXPECT_EQ(*r->time_unix, kT_ios12);
  EXPECT_EQ(r->largest_process, "backboardd");
  ASSERT_EQ(r->killed.size(), 3u);  // CommCenter and xpcproxy have no "reason": not killed
  EXPECT_EQ(r->killed[0].pid, 19370);
  EXPECT_EQ(r->killed[0].name, "dataaccessd");
  EXPECT_EQ(r->killed[0].reason, "vm-pageshortage");
  EXPECT_EQ(r->killed[1].pid, 19385);
  EXPECT_EQ(r->killed[1].name, "rtcreportingd");
  EXPECT_EQ(r->killed[1].reason, "proc-thrashing");
  EXPECT_EQ(r->killed[2].pid, 19379);
}

TEST(DiagnosticReports, RealJetsamPerProcessLimit) {
  std::string why;
  const auto r = parse_jetsam_report(data("jetsam-ios11.4.1-per-process-limit.ips"), &why);
  ASSERT_TRUE(r) << why;
  ASSERT_TRUE(r->time_unix);
  EXPECT_EQ(*r->time_unix, kT_ios11);
  ASSERT_EQ(r->killed.size(), 1u);
  EXPECT_EQ(r->killed[0].pid, 2541);
  EXPECT_EQ(r->killed[0].name, "MemoryTest");
  EXPECT_EQ(r->killed[0].reason, "per-process-limit");
}

TEST(DiagnosticReports, RealJetsamWithoutKillHasNoKilled) {
  std::string why;
  const auto r = parse_jetsam_report(data("jetsam-ios14.2-no-kill.ips"), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->time_unix, kT_ios14);
  EXPECT_EQ(r->largest_process, "AppStore");
  EXPECT_TRUE(r->killed.empty());
}

TEST(DiagnosticReports, RealJsonPanic) {
  std::string why;
  const auto r = parse_panic_report(data("panic-bridgeos6.2-json.panic"), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->time_unix, kT_bridge);
  EXPECT_EQ(r->summary, "Unexpected SoC (system) watchdog reset occurred during sleep/wake transition");
}

TEST(DiagnosticReports, RealPlainTextPanic) {
  std::string why;
  const auto r = parse_panic_report(data("panic-macos10.13-gpu-plain.panic"), &why);
  ASSERT_TRUE(r) << why;
  // "Sat Jun 16 14:12:49 2018" names no UTC offset: no time of its own (a scan takes the mtime).
  EXPECT_FALSE(r->time_unix);
  EXPECT_EQ(r->summary.rfind("panic(cpu 1 caller 0xffffff7f8903c9cf): \"GPU Panic: mux-regs 2 0 a0 99", 0), 0u) << r->summary;
  EXPECT_LE(r->summary.size(), 200u);
  EXPECT_EQ(r->summary.substr(r->summary.size() - 3), "...");
  EXPECT_TRUE(all_printable(r->summary));
}

TEST(DiagnosticReports, RealTruncatedPanicIsRefused) {
  std::string why;
  EXPECT_FALSE(parse_panic_report(data("panic-full-ios14.6-truncated.ips"), &why));
  EXPECT_TRUE(has(why, "body")) << why;
}

TEST(DiagnosticReports, KindsDoNotCross) {
  std::string why;
  EXPECT_FALSE(parse_panic_report(data("jetsam-ios12.4-vm-pageshortage.ips"), &why));
  EXPECT_TRUE(has(why, "not 210")) << why;
  EXPECT_FALSE(parse_jetsam_report(data("panic-bridgeos6.2-json.panic"), &why));
  EXPECT_TRUE(has(why, "not 298")) << why;
  EXPECT_FALSE(parse_jetsam_report(data("panic-macos10.13-gpu-plain.panic"), &why));
}

TEST(DiagnosticReports, GarbageIsRefusedWithAReason) {
  const std::string deep = "{\"bug_type\":\"298\"}\n" + std::string(200000, '[') + std::string(200000, ']');
  const std::vector<std::string> texts = {
      "", "\n", "garbage", "{", std::string("\0\xff\xfe{}\n{}", 9), "{\"bug_type\":\"298\"}",
      "{\"bug_type\":\"298\"}\n{\"processes\":[{\"pid\":1,", "{\"bug_type\":\"298\"}\n{\"processes\":{}}",
      "{\"bug_type\":\"298\"}\n{\"nothing\":1}", "{\"bug_type\":298.5}\n{\"processes\":[]}",
      "{\"bug_type\":\"298\"}\n{\"processes\":[{\"pid\":7,\"name\":\"\xff\",\"reason\":\"x\"}]}", deep,
      "{\"bug_type\":\"298\",\"bug_type\":\"298\"}\n{\"processes\":[]}", "[1,2]\n{\"processes\":[]}"};
  for (const std::string& t : texts) {
    std::string why;
    EXPECT_FALSE(parse_jetsam_report(t, &why)) << t.substr(0, 60);
    EXPECT_FALSE(why.empty()) << t.substr(0, 60);
    why.clear();
    EXPECT_FALSE(parse_panic_report(t, &why)) << t.substr(0, 60);
    EXPECT_FALSE(why.empty()) << t.substr(0, 60);
  }
  EXPECT_FALSE(parse_jetsam_report("garbage", nullptr));  // a null why is fine
  const std::string json_panic_no_string = "{\"bug_type\":\"210\"}\n{\"product\":\"x\",\"panicString\":\"  \\n\"}";
  std::string why;
  EXPECT_FALSE(parse_panic_report(json_panic_no_string, &why));
  EXPECT_TRUE(has(why, "panicString")) << why;
}

TEST(DiagnosticReports, HostileProcessEntriesAreSkippedOrMadePrintable) {
  const std::string procs =
      "{\"pid\":-5,\"name\":\"neg\",\"reason\":\"x\"},{\"pid\":\"12\",\"name\":\"str\",\"reason\":\"x\"},"
      "{\"pid\":99999999999,\"name\":\"huge\",\"reason\":\"x\"},{\"pid\":13,\"name\":\"noreason\"},"
      "{\"pid\":14,\"name\":\"numreason\",\"reason\":7},{\"pid\":15,\"name\":\"empty\",\"reason\":\"\"},\"notanobject\","
      "{\"pid\":16,\"name\":\"\\u001b[31mevil\\u0007\\u0085x\",\"reason\":\"vm-pageshortage\\n\"},"
      "{\"pid\":17,\"reason\":\"per-process-limit\"},{\"pid\":18.5,\"name\":\"frac\",\"reason\":\"x\"}";
  std::string why;
  const auto r = parse_jetsam_report(tiny_jetsam("2024-01-01 00:00:00.00 +0000", procs), &why);
  ASSERT_TRUE(r) << why;
  ASSERT_EQ(r->killed.size(), 2u);
  EXPECT_EQ(r->killed[0].pid, 16);
  EXPECT_TRUE(all_printable(r->killed[0].name)) << r->killed[0].name;
  EXPECT_TRUE(has(r->killed[0].name, "[31mevil")) << r->killed[0].name;
  EXPECT_FALSE(has(r->killed[0].name, "\xc2\x85"));
  EXPECT_EQ(r->killed[0].reason, "vm-pageshortage");
  EXPECT_EQ(r->killed[1].pid, 17);
  EXPECT_EQ(r->killed[1].name, "");
  const auto long_name = parse_jetsam_report(
      tiny_jetsam("2024-01-01 00:00:00 +0000", "{\"pid\":3,\"name\":\"" + std::string(5000, 'n') + "\",\"reason\":\"x\"}"), &why);
  ASSERT_TRUE(long_name) << why;
  EXPECT_LE(long_name->killed.at(0).name.size(), 256u);
}

TEST(DiagnosticReports, PanicSummaryIsTheFirstLineBoundedAndPrintable) {
  const std::string panic = "{\"bug_type\":\"210\",\"timestamp\":\"2024-02-29 23:59:59.00 +0000\"}\n"
                            "{\"panicString\":\"\\n  panic(cpu 3): \\u001b]0;x\\u0007" +
                            std::string(1000, 'y') + "\\nsecond line\"}";
  std::string why;
  const auto r = parse_panic_report(panic, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->time_unix, 1709251199);
  EXPECT_EQ(r->summary.rfind("panic(cpu 3):", 0), 0u) << r->summary;
  EXPECT_LE(r->summary.size(), 200u);
  EXPECT_TRUE(all_printable(r->summary));
  EXPECT_FALSE(has(r->summary, "second line"));
  // A plain-text panic with a "Date/Time:" line (the older text form) takes its time from it.
  const auto plain =
      parse_panic_report("Date/Time:       2023-05-10 14:03:21.0825 -0700\nx\n  panic(cpu 0 caller 0x1): \"boom\"\n", &why);
  ASSERT_TRUE(plain) << why;
  EXPECT_EQ(plain->time_unix, 1683752601);
  EXPECT_EQ(plain->summary, "panic(cpu 0 caller 0x1): \"boom\"");
  // macOSPanicString stands in when panicString is empty.
  const auto mac =
      parse_panic_report("{\"bug_type\":\"210\"}\n{\"panicString\":\"\",\"macOSPanicString\":\"panic(cpu 1): m\"}", &why);
  ASSERT_TRUE(mac) << why;
  EXPECT_EQ(mac->summary, "panic(cpu 1): m");
  EXPECT_FALSE(mac->time_unix);
}

TEST(DiagnosticReports, Timestamps) {
  EXPECT_EQ(parse_report_timestamp("2023-05-10 14:03:21.00 -0700"), 1683752601);
  EXPECT_EQ(parse_report_timestamp("2023-05-10 14:03:21 -0700"), 1683752601);
  EXPECT_EQ(parse_report_timestamp("2023-05-10 14:03:21.123456789 -0700"), 1683752601);
  EXPECT_EQ(parse_report_timestamp("2024-02-29 23:59:59.00 +0000"), 1709251199);
  EXPECT_EQ(parse_report_timestamp("2000-03-01 00:00:00.00 +0530"), 951849000);
  EXPECT_EQ(parse_report_timestamp("1970-01-01 00:00:00.00 +0000"), 0);
  for (const char* bad : {"", "garbage", "2023-13-10 14:03:21.00 -0700", "2023-02-29 00:00:00 +0000",
                          "2023-04-31 00:00:00 +0000", "1969-12-31 23:59:59 +0000", "2023-05-10 24:00:00 +0000",
                          "2023-05-10 14:60:00 +0000", "2023-05-10 14:03:21.00", "2023-05-10 14:03:21.00 +2400",
                          "2023-05-10 14:03:21.00 -0760", "2023-05-10 14:03:21. +0000", "2023-05-10 14:03:21.00 +0000 x",
                          "2023-05-10T14:03:21Z", "+023-05-10 14:03:21 +0000", "2023-5-10 14:03:21 +0000",
                          "2023-05-10 14:03:21.0000000000 +0000", "Sat Jun 16 14:12:49 2018"})
    EXPECT_FALSE(parse_report_timestamp(bad)) << bad;
}

TEST(DiagnosticReports, ScanSkipsWhatIsNotARegularJetsamReport) {
  const Tmp dir_tmp("dr-scan");
  const std::string& dir = dir_tmp.path;
  const Tmp outside_tmp("dr-outside");
  const std::string& outside = outside_tmp.path;
  put(dir + "/JetsamEvent-2019-08-05-170639.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/JetsamEvent-2020-01-03-041113.ips", data("jetsam-ios11.4.1-per-process-limit.ips"));
  put(dir + "/JetsamEvent-2020-10-15-172958.ips", data("jetsam-ios14.2-no-kill.ips"));
  put(dir + "/JetsamEvent-garbage.ips", "garbage\xff\n{");
  put(dir + "/JetsamEvent-empty.ips", "");
  put(dir + "/JetsamEvent-truncated.ips", data("jetsam-ios12.4-vm-pageshortage.ips").substr(0, 900));
  put(dir + "/JetsamEvent-bug210.ips", data("panic-bridgeos6.2-json.panic"));
  put(dir + "/.JetsamEvent-hidden.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/Other-2019.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/JetsamEvent-2019.txt", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(outside + "/target.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  ASSERT_EQ(::symlink((outside + "/target.ips").c_str(), (dir + "/JetsamEvent-link.ips").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir + "/JetsamEvent-fifo.ips").c_str(), 0600), 0);  // no writer: a blocking open would hang
  ASSERT_EQ(::mkdir((dir + "/JetsamEvent-dir.ips").c_str(), 0700), 0);

  const auto all = jetsam_reports_since(dir, 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].path, dir + "/JetsamEvent-2019-08-05-170639.ips");  // oldest first
  EXPECT_EQ(all[0].time_unix, kT_ios12);
  EXPECT_FALSE(all[0].time_from_mtime);
  EXPECT_EQ(all[1].path, dir + "/JetsamEvent-2020-01-03-041113.ips");
  EXPECT_EQ(all[2].path, dir + "/JetsamEvent-2020-10-15-172958.ips");
  EXPECT_EQ(jetsam_reports_since(dir, kT_ios11).size(), 2u);  // at or after
  EXPECT_EQ(jetsam_reports_since(dir, kT_ios11 + 1).size(), 1u);
  EXPECT_TRUE(jetsam_reports_since(dir, kT_ios14 + 1).empty());
  EXPECT_TRUE(jetsam_reports_since(dir + "/no-such-folder", 0).empty());
  EXPECT_TRUE(jetsam_reports_since(dir + "/JetsamEvent-empty.ips", 0).empty());  // a file, not a folder
  EXPECT_TRUE(jetsam_reports_since("", 0).empty());
}

TEST(DiagnosticReports, ScanRefusesAFileOverTheCap) {
  const Tmp dir_tmp("dr-cap");
  const std::string& dir = dir_tmp.path;
  const std::string report = tiny_jetsam("2024-01-01 00:00:00.00 +0000", "{\"pid\":42,\"name\":\"big\",\"reason\":\"x\"}");
  put(dir + "/JetsamEvent-exact.ips", report + std::string(kMaxDiagnosticReportBytes - report.size(), ' '));
  put(dir + "/JetsamEvent-over.ips", report + std::string(kMaxDiagnosticReportBytes - report.size() + 1, ' '));
  const auto r = jetsam_reports_since(dir, 0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].path, dir + "/JetsamEvent-exact.ips");
}

TEST(DiagnosticReports, ScanLooksAtABoundedNumberOfEntries) {
  const Tmp dir_tmp("dr-many");
  const std::string& dir = dir_tmp.path;
  for (size_t i = 0; i <= kMaxDiagnosticReportEntries; ++i)
    put(dir + "/JetsamEvent-" + std::to_string(i) + ".ips",
        tiny_jetsam("2024-01-01 00:00:00 +0000", "{\"pid\":" + std::to_string(i + 1) + ",\"reason\":\"x\"}"));
  EXPECT_EQ(jetsam_reports_since(dir, 0).size(), kMaxDiagnosticReportEntries);
}

TEST(DiagnosticReports, PanicScan) {
  const Tmp dir_tmp("dr-panic");
  const std::string& dir = dir_tmp.path;
  put(dir + "/Kernel_2018-06-16-141249_Admins-MacBook-Pro-4.panic", data("panic-macos10.13-gpu-plain.panic"));
  set_mtime(dir + "/Kernel_2018-06-16-141249_Admins-MacBook-Pro-4.panic", kT_bridge + 100);
  put(dir + "/panic-full-2022-02-24-034645.panic", data("panic-bridgeos6.2-json.panic"));
  put(dir + "/panic-full-2021-07-19-063405.000.ips", data("panic-full-ios14.6-truncated.ips"));
  put(dir + "/.contents.panic", data("panic-bridgeos6.2-json.panic"));
  put(dir + "/JetsamEvent-2019-08-05-170639.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/panic-full-jetsam.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/Other.ips", data("panic-bridgeos6.2-json.panic"));

  const auto all = panic_reports_since(dir, 0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].path, dir + "/panic-full-2022-02-24-034645.panic");
  EXPECT_EQ(all[0].time_unix, kT_bridge);
  EXPECT_EQ(all[1].path, dir + "/Kernel_2018-06-16-141249_Admins-MacBook-Pro-4.panic");
  EXPECT_EQ(all[1].time_unix, kT_bridge + 100);  // no time of its own: the mtime
  EXPECT_TRUE(all[1].time_from_mtime);
  ASSERT_EQ(panic_reports_since(dir, kT_bridge + 100).size(), 1u);
  EXPECT_TRUE(panic_reports_since(dir, kT_bridge + 101).empty());

  // A file last modified long before since_unix is not read, whatever its own timestamp says.
  const Tmp old_tmp("dr-old");
  const std::string& old = old_tmp.path;
  put(old + "/panic-full-2030.panic",
      "{\"bug_type\":\"210\",\"timestamp\":\"2030-01-01 00:00:00.00 +0000\"}\n{\"panicString\":\"p\"}");
  set_mtime(old + "/panic-full-2030.panic", 1893456000);
  EXPECT_EQ(panic_reports_since(old, 1893456000).size(), 1u);  // 2030-01-01 UTC
  set_mtime(old + "/panic-full-2030.panic", 1893456000 - kDiagnosticReportMtimeSlackS - 1);
  EXPECT_TRUE(panic_reports_since(old, 1893456000).empty());
}

TEST(DiagnosticReports, JetsamKillOf) {
  const Tmp dir_tmp("dr-kill");
  const std::string& dir = dir_tmp.path;
  put(dir + "/JetsamEvent-2019-08-05-170639.ips", data("jetsam-ios12.4-vm-pageshortage.ips"));
  put(dir + "/JetsamEvent-2020-01-03-041113.ips", data("jetsam-ios11.4.1-per-process-limit.ips"));
  const std::vector<std::string> dirs = {dir + "/missing", dir};

  const auto k = jetsam_kill_of(dirs, 19370, 0);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->name, "dataaccessd");
  EXPECT_EQ(k->reason, "vm-pageshortage");
  const auto p = jetsam_kill_of(dirs, 2541, kT_ios11);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason, "per-process-limit");
  EXPECT_FALSE(jetsam_kill_of(dirs, 86, 0));              // listed, but not killed
  EXPECT_FALSE(jetsam_kill_of(dirs, 12345, 0));           // not named
  EXPECT_FALSE(jetsam_kill_of(dirs, 19370, kT_ios12 + 1));  // named, but before since
  EXPECT_FALSE(jetsam_kill_of(dirs, 2541, kT_ios11 + 1));
  EXPECT_FALSE(jetsam_kill_of({}, 19370, 0));
  EXPECT_FALSE(jetsam_kill_of(dirs, 0, 0));
  EXPECT_FALSE(jetsam_kill_of(dirs, -1, 0));

  // The same pid in two reports: the earliest at or after since_unix.
  put(dir + "/JetsamEvent-later.ips",
      tiny_jetsam("2021-01-01 00:00:00 +0000", "{\"pid\":19370,\"name\":\"later\",\"reason\":\"highwater\"}"));
  EXPECT_EQ(jetsam_kill_of(dirs, 19370, 0)->name, "dataaccessd");
  EXPECT_EQ(jetsam_kill_of(dirs, 19370, kT_ios12 + 1)->name, "later");
}

TEST(DiagnosticReports, DirsHonourTheEnvironmentOnlyWhenAbsolute) {
  EnvGuard env("WMBENCH_DIAGNOSTIC_REPORTS");
  EnvGuard home("HOME");
  ::setenv("WMBENCH_DIAGNOSTIC_REPORTS", "/tmp/wmbench-dr-reports", 1);
  EXPECT_EQ(diagnostic_report_dirs(), std::vector<std::string>{"/tmp/wmbench-dr-reports"});

  ::setenv("HOME", "/Users/someone", 1);
#ifdef __APPLE__
  const std::vector<std::string> defaults = {"/Library/Logs/DiagnosticReports",
                                             "/Users/someone/Library/Logs/DiagnosticReports"};
#else
  const std::vector<std::string> defaults = {};
#endif
  for (const char* ignored : {"relative/reports", "", "./x"}) {
    ::setenv("WMBENCH_DIAGNOSTIC_REPORTS", ignored, 1);
    EXPECT_EQ(diagnostic_report_dirs(), defaults) << ignored;
  }
  ::unsetenv("WMBENCH_DIAGNOSTIC_REPORTS");
  EXPECT_EQ(diagnostic_report_dirs(), defaults);

  ::setenv("HOME", "relative-home", 1);  // a HOME that is not absolute is not used
#ifdef __APPLE__
  EXPECT_EQ(diagnostic_report_dirs(), std::vector<std::string>{"/Library/Logs/DiagnosticReports"});
#else
  EXPECT_TRUE(diagnostic_report_dirs().empty());
#endif
}

}  // namespace test_diagnostic_reports
