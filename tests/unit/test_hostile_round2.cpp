// Hostile input, round two (issue 22): the pure pieces of each class, without child processes.
// The end-to-end cases are tests/integration/test_hostile_round2.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "tools/locate.h"
#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/safe_open.h"
#include "io/terminal_text.h"
#include "io/text_table.h"
#include "common/units.h"
#include "guard/policy.h"
#include "mpsmodel/watermark.h"
#include "probe/probe.h"
#include "check/check.h"
#include "results/report.h"
#include "results/run_record.h"
#include "scenario/device_here.h"
#include "tools/python_isolated.h"
#include "results/rescue_record.h"
#include "common/run_error.h"
#include "runner/runner.h"
#include "tools/short_command.h"
#include "common/limits.h"
#include "scenario/scenario.h"

#include "unit_util.h"

namespace test_hostile_round2 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

std::string tmpdir() { return wmbt_unit::tmpdir("round2"); }
using wmbt_unit::error_of;
using wmbt_unit::has;
using wmbt_unit::put;
using wmbt_unit::sample_run;

Scenario parse(const std::string& text) {
  std::vector<std::string> w;
  return parse_scenario(text, "s.json", w);
}

std::string make_folder(const std::string& os = "Linux", uint64_t swap_total = 0) {
  const std::string d = tmpdir();
  make_dirs(d + "/runs");
  Scenario sc = parse(R"({"name": "t", "device": "cpu", "matrix": [{"label": "a"}, {"label": "b"}]})");
  write_json_atomic(d + "/scenario.json", to_json(sc));
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"os", os}, {"ram_bytes", 8 * GiB}, {"swap_total_bytes", swap_total},
                                          {"started_utc", "2026-12-01T10:00:00Z"}, {"ended_utc", "2026-12-01T10:01:00Z"}});
  for (auto r : {sample_run(1, "a"), sample_run(2, "b")}) write_json_atomic(d + "/runs/" + r.file_stem() + ".json", to_json(r));
  write_report(load_report(d));
  return d;
}

std::string problems_of(const CheckResult& c) {
  std::string all;
  for (const auto& p : c.problems) all += p + "\n";
  return all;
}

class FakeProbe : public MemoryProbe {
 public:
  SystemMemory system() override {
    SystemMemory m;
    m.ram_total = 8 * GiB;
    m.level = 10;
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return {}; }
  std::string name() const override { return "fake"; }
};

class FakeClock : public Clock {
 public:
  double now() override { return t; }
  double t = 0;
};

class StopSleeper : public Sleeper {
 public:
  explicit StopSleeper(FakeClock& c) : c_(c) {}
  void sleep(double s) override {
    c_.t += s;
    ++sleeps;
  }
  bool interrupted() const override { return sleeps >= 2; }
  int sleeps = 0;

 private:
  FakeClock& c_;
};

}  // namespace

// ---- A. nothing runs that the user did not name ----

TEST(Round2EnvAllowlist, OnlyPytorchVariablesUnlessNamedOnPurpose) {
  EXPECT_TRUE(cell_env_allowed("PYTORCH_MPS_HIGH_WATERMARK_RATIO"));
  EXPECT_TRUE(cell_env_allowed("PYTORCH_CUDA_ALLOC_CONF"));
  for (const char* bad : {"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PATH", "PYTORCH"})
    EXPECT_FALSE(cell_env_allowed(bad)) << bad;
  EXPECT_TRUE(cell_env_allowed("OMP_NUM_THREADS", {"OMP_NUM_THREADS"}));
  EXPECT_EQ(disallowed_env({{"LD_PRELOAD", "x"}, {"PYTORCH_A", "1"}, {"PATH", "/"}}),
            (std::vector<std::string>{"LD_PRELOAD", "PATH"}));
}

TEST(Round2EnvAllowlist, CheckFlagsACellEnvOutsideTheAllowlist) {
  const std::string d = make_folder();
  auto j = read_json_file(d + "/scenario.json");
  j["matrix"][0]["env"] = {{"LD_PRELOAD", "/tmp/evil.so"}};
  write_json_atomic(d + "/scenario.json", j);
  const auto c = check_result_folder(d);
  EXPECT_TRUE(has(problems_of(c), "LD_PRELOAD")) << problems_of(c);
}

TEST(Round2Python, EveryPythonRunsIsolatedWithoutPythonVariables) {
  const auto argv = isolated_python_argv("/usr/bin/python3", {"-c", "import torch"});
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(argv[1], "-I");
  const auto env = isolated_python_env({{"PYTHONPATH", "/evil"}, {"PYTHONSTARTUP", "/evil.py"}, {"PYTHONHOME", "/x"},
                                        {"PATH", "/usr/bin"}, {"HOME", "/root"}});
  EXPECT_EQ(env.count("PYTHONPATH") + env.count("PYTHONSTARTUP") + env.count("PYTHONHOME"), 0u);
  EXPECT_EQ(env.at("PATH"), "/usr/bin");
  EXPECT_EQ(absolute_for_child("rel/dir")[0], '/');
}

TEST(Round2Python, RepoFilesAreNeverFoundInTheCurrentFolder) {
  const std::string t = tmpdir();
  ::mkdir((t + "/plots").c_str(), 0755);
  put(t + "/plots/table.py", "raise SystemExit('planted')\n");
  ::mkdir((t + "/scenarios").c_str(), 0755);
  put(t + "/scenarios/zz-planted-only-here.json", "{}");
  char old[4096];
  ASSERT_NE(::getcwd(old, sizeof old), nullptr);
  ASSERT_EQ(::chdir(t.c_str()), 0);
  const std::string found = find_repo_file("plots/table.py");
  const std::string planted_only = find_repo_file("scenarios/zz-planted-only-here.json");
  ASSERT_EQ(::chdir(old), 0);
  EXPECT_FALSE(has(found, t)) << found;
  EXPECT_NE(found.rfind("./", 0), 0u) << found;
  EXPECT_EQ(planted_only, "") << "a file only in the current folder is not found";
}

// ---- B. nothing written through a link ----

TEST(Round2SafeOpen, LinksFifosAndProcFilesAreRefusedARegularFileIsTruncated) {
  const std::string t = tmpdir();
  put(t + "/victim", "precious");
  ::symlink((t + "/victim").c_str(), (t + "/link").c_str());
  EXPECT_TRUE(has(error_of([&] { ::close(open_user_file_for_write(t + "/link")); }), "symbolic link"));
  ::symlink((t + "/absent").c_str(), (t + "/dangling").c_str());
  EXPECT_FALSE(error_of([&] { ::close(open_user_file_for_write(t + "/dangling")); }).empty());
  EXPECT_NE(::access((t + "/absent").c_str(), F_OK), 0) << "a dangling link's target is never created";
  ::mkfifo((t + "/fifo").c_str(), 0644);
  EXPECT_TRUE(has(error_of([&] { ::close(open_user_file_for_write(t + "/fifo")); }), "FIFO"));
#ifdef __linux__
  EXPECT_TRUE(has(error_of([&] { ::close(open_user_file_for_write("/proc/self/mem")); }), "/proc"));
#endif
  EXPECT_FALSE(error_of([&] { ::close(open_user_file_for_write(t)); }).empty()) << "unlisted: a folder";
  EXPECT_EQ(read_file(t + "/victim"), "precious");
  put(t + "/old", "old content");
  const int fd = open_user_file_for_write(t + "/old");
  ::close(fd);
  EXPECT_EQ(read_file(t + "/old"), "");
}

TEST(Round2Rescue, ARecordThatCannotBeWrittenIsWrittenBesideAndSaid) {
  const std::string d = make_folder();
  put(d + "/victim", "precious");
  ::unlink((d + "/runs/02-b.json").c_str());
  ::symlink((d + "/victim").c_str(), (d + "/runs/02-b.json").c_str());
  Folder f(d);
  const RunRecord r = sample_run(2, "b");
  EXPECT_FALSE(error_of([&] { f.write_json("runs/02-b.json", to_json(r)); }).empty());
  std::string why;
  const std::string put_at = rescue_record(f, r.file_stem(), to_json(r), why);
  EXPECT_EQ(put_at, d + "/runs/02-b.json.rescued") << why;
  EXPECT_EQ(read_json_file(put_at)["label"], "b");
  EXPECT_EQ(read_file(d + "/victim"), "precious");
  // Unlisted: runs/ itself is a link: the folder's own level takes the record.
  const std::string e = make_folder();
  ::rename((e + "/runs").c_str(), (e + "/runs-real").c_str());
  ::symlink((e + "/runs-real").c_str(), (e + "/runs").c_str());
  Folder g(e);
  std::string why2;
  EXPECT_EQ(rescue_record(g, r.file_stem(), to_json(r), why2), e + "/02-b.json.rescued") << why2;
}

// ---- C / D. one bound per input, the same for writers and readers ----

TEST(Round2Bounds, EnvValuesRepeatsPlanAndIntervalsAreBoundedByTheScenarioSchema) {
  const std::string big(kMaxCellEnvValueBytes + 1, 'x');
  const std::string e = error_of([&] {
    parse(R"({"name": "t", "device": "cpu", "matrix": [{"label": "a", "env": {"PYTORCH_X": ")" + big + R"("}}]})");
  });
  EXPECT_TRUE(has(e, "PYTORCH_X") && has(e, "E2BIG")) << e.substr(0, 300);
  EXPECT_LT(e.size(), 2000u);
  EXPECT_TRUE(has(error_of([] { parse(R"({"name": "t", "device": "cpu", "repeats": 1001, "matrix": [{"label": "a"}]})"); }),
                  "1..1000"));
  std::string cells;
  for (int i = 0; i < 11; ++i) cells += std::string(i ? "," : "") + "{\"label\": \"c" + std::to_string(i) + "\"}";
  EXPECT_TRUE(has(error_of([&] { parse(R"({"name": "t", "device": "cpu", "repeats": 1000, "matrix": [)" + cells + "]}"); }),
                  "11 cells x 1000 repeats"));
  EXPECT_TRUE(has(error_of([] {
                    parse(R"({"name": "t", "device": "cpu", "guard": {"interval": "1ms"}, "matrix": [{"label": "a"}]})");
                  }),
                  "guard.interval"));
  EXPECT_NO_THROW(parse(R"({"name": "t", "device": "cpu", "repeats": 1000, "guard": {"interval": "10ms"}, "matrix": [{"label": "a"}]})"));
}

TEST(Round2Bounds, TheCliChecksAreTheSchemasChecks) {
  EXPECT_THROW(check_percent(std::nan(""), "--wait-free"), UnitError);
  EXPECT_THROW(check_percent(100.5, "--kill-free"), UnitError);
  EXPECT_EQ(check_percent(0, "x"), 0);
  EXPECT_THROW(check_repeats(1001, "--repeat"), UnitError);
  EXPECT_THROW(check_repeats(0, "--repeat"), UnitError);
  EXPECT_THROW(check_plan_size(400, 1000, "plan"), UnitError);
  EXPECT_NO_THROW(check_plan_size(10, 1000, "plan"));
  EXPECT_THROW(check_interval(1e-9, "--interval"), UnitError);
  EXPECT_THROW(check_model_bytes(1, "--recommended-max"), UnitError);
  EXPECT_THROW(check_model_bytes(~0ull, "--model-mac-ram"), UnitError);
  EXPECT_EQ(check_model_bytes(48 * GiB, "x"), 48 * GiB);
}

TEST(Round2Bounds, ARecordWithRepeatZeroIsRefusedByTheSchema) {
  // nlohmann reads 0 as an unsigned number: the lower bound was skipped for it.
  const std::string e = error_of([] {
    (void)run_from_json(nlohmann::json::parse(R"({"index": 1, "label": "a", "repeat": 0, "stopped_by": "cap"})"), "r.json");
  });
  EXPECT_TRUE(has(e, "repeat") && has(e, "outside 1..")) << e;
}

TEST(Round2Duplicates, EveryCopyIsNamedAndNoneIsTabled) {
  const std::string d = make_folder();
  write_json_atomic(d + "/runs/07-a.json", to_json(sample_run(7, "a")));
  const Report r = load_report(d);
  std::string all;
  for (const auto& p : r.problems) all += p + "\n";
  EXPECT_TRUE(has(all, "runs/01-a.json") && has(all, "runs/07-a.json")) << all;
  for (const auto& run : r.runs) EXPECT_NE(run.label, "a");
  const auto c = check_result_folder(d);
  EXPECT_TRUE(has(problems_of(c), "07-a.json")) << problems_of(c);
}

// ---- F. numbers ----

TEST(Round2Numbers, LimitsSaturateInsteadOfOverflowing) {
  mpsmodel::WatermarkConfig cfg;
  cfg.high = 1.7;
  cfg.low = 1.4;
  const auto l = mpsmodel::compute_limits(cfg, uint64_t{1} << 63);
  EXPECT_TRUE(l.limited());
  EXPECT_GT(l.max_allowed, uint64_t{1} << 63) << "never wrapped to a small limit";
}

TEST(Round2Numbers, CheckFlagsSwapPeakOverTheMachinesSwap) {
  const std::string d = make_folder("Linux", 0);
  auto j = read_json_file(d + "/runs/01-a.json");
  j["swap_peak_bytes"] = uint64_t{1} << 62;
  write_json_atomic(d + "/runs/01-a.json", j);
  write_report(load_report(d));
  EXPECT_TRUE(has(problems_of(check_result_folder(d)), "swap_peak_bytes")) << problems_of(check_result_folder(d));
}

// ---- E. every wait ends on a signal ----

TEST(Round2Signals, TheFreeMemoryWaitEndsWhenTheSleeperIsInterrupted) {
  FakeProbe probe;
  FakeClock clock;
  StopSleeper sleeper(clock);
  const WaitOutcome w = wait_for_free(probe, clock, sleeper, 50, 300);
  EXPECT_FALSE(w.ok);
  EXPECT_TRUE(has(w.why, "interrupted")) << w.why;
  EXPECT_LE(sleeper.sleeps, 2) << "not until the 5 min timeout";
}

TEST(Round2Signals, ACommandThatLeavesADaemonHoldingStdoutIsNotWaitedOnToTheTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  const CommandOutput r = run_short_command({"/bin/sh", "-c", "sleep 30 & echo drawn"}, 60);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.ok()) << r.failure();
  EXPECT_EQ(r.out, "drawn\n");
  EXPECT_LT(took, 15) << "waited for the daemon";
}

// ---- G. text from others is data ----

TEST(Round2Text, ControlCharactersAreEscapedC1IncludedNewlinesKept) {
  EXPECT_EQ(escape_controls("a\x1b]52;c;SGVsbG8=\x07z"), "a\\u001b]52;c;SGVsbG8=\\u0007z");
  EXPECT_EQ(escape_controls("x\xc2\x9b" "2J"), "x\\u009b2J");
  EXPECT_EQ(escape_controls("caf\xc3\xa9 \xc2\xa0ok\n\tz\x7f"), "caf\xc3\xa9 \xc2\xa0ok\n\tz\\u007f");
  EXPECT_EQ(escape_controls_line("a\nb\r"), "a\\u000ab\\u000d");
  // JSON that passes the filter still parses to the same text.
  const std::string j = nlohmann::json("x\xc2\x9by").dump();
  EXPECT_EQ(nlohmann::json::parse(escape_controls(j)).get<std::string>(), "x\xc2\x9by");
}

TEST(Round2Text, MarkdownCellsEscapeHtmlAndControlsInOneHelper) {
  EXPECT_EQ(md_escape("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)>");
  EXPECT_EQ(md_escape("a\x1b[2Jb|c\nd"), "a\\u001b[2Jb\\|c d");
  EXPECT_EQ(md_code("<b>"), "`<b>`");
  EXPECT_EQ(md_escape("a|b\nc\rd`e"), "a\\|b c d'e");
}

TEST(Round2Text, TableMdKeepsRowsWholeAndEscapesAContributedMachine) {
  const std::string d = make_folder();
  auto m = read_json_file(d + "/machine.json");
  m["torch_version"] = "2.5\x1b]52;c;eA==\x07";
  m["chip"] = "<script>x</script>";
  write_json_atomic(d + "/machine.json", m);
  auto r0 = read_json_file(d + "/runs/01-a.json");
  r0["env"] = {{"PYTORCH_NOTE", "x\n| fake | row |"}};
  write_json_atomic(d + "/runs/01-a.json", r0);
  write_report(load_report(d));
  for (const char* f : {"/table.md", "/README.md"}) {
    const std::string md = read_file(d + f);
    EXPECT_FALSE(has(md, "\x1b")) << f;
    EXPECT_FALSE(has(md, "<script>")) << f;
    EXPECT_FALSE(has(md, "\n| fake | row |")) << f << md;
  }
}

// ---- H. the right class ----

TEST(Round2Class, DeviceMpsOffAMacIsRefusedNamingTheFix) {
  Scenario sc = parse(R"({"name": "t", "device": "mps", "matrix": [{"label": "a"}]})");
#ifdef __APPLE__
  EXPECT_NO_THROW(refuse_device_not_here(sc, ""));
#else
  const std::string e = error_of([&] { refuse_device_not_here(sc, "s.json"); });
  EXPECT_TRUE(has(e, "--device mps-model") && has(e, "only on macOS")) << e;
  sc.device = "mps-model";
  EXPECT_NO_THROW(refuse_device_not_here(sc, ""));
#endif
}

}  // namespace test_hostile_round2
