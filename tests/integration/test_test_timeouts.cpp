// The test helpers themselves (issue 28): a test's timeout ends everything the test started, and
// no test starts a fill of a real device beyond a small bound.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli_util.h"

namespace test_test_timeouts {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

// Alive and not a zombie (an orphan's zombie may wait for a PID 1 that never reaps it).
bool running(pid_t p) {
  const char st = proc_state(p);
  return st != 0 && st != 'Z' && st != 'X';
}

pid_t pid_in(const std::string& file) {
  const std::string s = slurp(file);
  return s.empty() ? 0 : static_cast<pid_t>(std::atoi(s.c_str()));
}

}  // namespace

// `wmbench guard --grace 60s` over a command that ignores SIGTERM and leaves a sleeper in its
// group and one outside it (a setsid daemon on Linux): the test's timeout (3 s) must leave none of
// them, nor the guard, running. Before run() ended the tree, it SIGKILLed wmbench alone and the
// command's processes ran on.
TEST(TestTimeout, EndsEveryProcessTheTestStarted) {
  Tmp t;
  const std::string in_group = t.path + "/in-group.pid", outside = t.path + "/outside.pid", leader = t.path + "/leader.pid";
  // SIGTERM ignored by the leader and (inherited) by both sleepers; the guard's grace outlasts the
  // helper's, so only end_tree's SIGKILL can end them.
  const std::string job = "trap '' TERM; " + leave_a_sleeper_line() + " echo $! > '" + outside + "'; " +
                          "sleep 300 & echo $! > '" + in_group + "'; echo $$ > '" + leader + "'; wait";
  RunOpts o;
  o.timeout = 3;
  o.timeout_grace = 1;
  const auto r = run({WMBENCH_BIN, "guard", "--grace", "60s", "--", "/bin/sh", "-c", job}, o);
  EXPECT_TRUE(r.timed_out) << r.err;
  std::vector<pid_t> pids = {pid_in(leader), pid_in(in_group), pid_in(outside)};
  for (pid_t p : pids) ASSERT_GT(p, 0) << "the job did not write its pids in 3 s: " << r.err;
  for (pid_t p : pids) {
    EXPECT_TRUE(wait_for([&] { return !running(p); }, 10)) << "pid " << p << " outlived the test's timeout";
    if (running(p)) ::kill(p, SIGKILL);
  }
}

// The same through `wmbench run --command`: the job (in its own process group, as wmbench starts
// every child) and what it started end with the test's timeout.
TEST(TestTimeout, EndsTheJobOfARunAndItsChildren) {
  Tmp t;
  const std::string in_group = t.path + "/in-group.pid", leader = t.path + "/leader.pid";
  const std::string sc = scenario(t.path, "job", R"({"name": "job", "device": "cpu", "timeout": "10m",
    "guard": {"grace": "60s"}, "matrix": [{"label": "a"}]})");
  const std::string job = script(t.path, "job.sh", "#!/bin/sh\ntrap '' TERM\nsleep 300 &\necho $! > '" + in_group +
                                                       "'\necho $$ > '" + leader + "'\nwait\n");
  RunOpts o;
  o.timeout = 4;
  o.timeout_grace = 1;
  const auto r = wmbench({"run", sc, "--command", "--no-plots", "--out", t.path + "/out", "--", job}, o);
  EXPECT_TRUE(r.timed_out) << r.err;
  for (pid_t p : {pid_in(leader), pid_in(in_group)}) {
    ASSERT_GT(p, 0) << "the job did not write its pids in 4 s: " << r.err;
    EXPECT_TRUE(wait_for([&] { return !running(p); }, 10)) << "pid " << p << " outlived the test's timeout";
    if (running(p)) ::kill(p, SIGKILL);
  }
}

// No test fills a real device beyond the bound: a `wmbench run` on mps without a small cap and a
// short timeout is refused by run() itself, on every system, before anything starts.
TEST(TestTimeout, AnUnboundedRunOnTheRealDeviceIsRefusedBeforeItStarts) {
  const std::string src = std::string(WMBENCH_SOURCE_DIR) + "/scenarios";
  const std::string bin = WMBENCH_BIN;
  // PythonRun.ATorchTooOldForMpsIsRefusedBeforeAnyFolder as it was: the whole matrix, 95 % of RAM, 30 min a cell.
  EXPECT_NE(device_memory_unbounded({bin, "run", "mps-watermark", "--device", "mps", "--out", "/tmp/x"}, src), "");
  EXPECT_NE(device_memory_unbounded({bin, "run", "mps-watermark", "--out", "/tmp/x"}, src), "") << "the scenario's device";
  EXPECT_NE(device_memory_unbounded({bin, "tune", "mps-ci", "--cap", "1GiB", "--timeout", "30s"}, src), "");
  EXPECT_NE(device_memory_unbounded({bin, "run", "--device", "mps", "--cap", "64MiB", "--timeout", "30m"}, src), "");
  // A scenario file's own cap and timeout count; its 30 min default does not pass.
  Tmp t;
  const std::string small = scenario(t.path, "small", R"({"name": "s", "device": "mps", "cap": "8MiB", "timeout": "30s", "matrix": [{"label": "a"}]})");
  const std::string long_one = scenario(t.path, "long", R"({"name": "l", "device": "mps", "cap": "8MiB", "matrix": [{"label": "a"}]})");
  EXPECT_EQ(device_memory_unbounded({bin, "run", small, "--out", "/tmp/x"}, src), "");
  EXPECT_NE(device_memory_unbounded({bin, "run", long_one, "--out", "/tmp/x"}, src), "");
  EXPECT_NE(device_memory_unbounded({bin, "run", small, "--cap", "1GiB"}, src), "") << "the flag overrides the file";
  // Bounded, or not a real device: allowed.
  EXPECT_EQ(device_memory_unbounded({bin, "run", "mps-watermark", "--device", "mps", "--cap", "64MiB", "--timeout", "30s"}, src), "");
  EXPECT_EQ(device_memory_unbounded({bin, "run", "mps-watermark", "--device", "cpu"}, src), "");
  EXPECT_EQ(device_memory_unbounded({bin, "run", "mps-watermark", "--device", "mps-model"}, src), "");
  EXPECT_EQ(device_memory_unbounded({bin, "report", "/tmp/x"}, src), "");
  EXPECT_EQ(device_memory_unbounded({bin, "run", "--device", "cpu"}, src), "");
  // The default matrix runs on mps only on a Mac.
  EXPECT_EQ(device_memory_unbounded({bin, "run", "--out", "/tmp/x"}, src).empty(), !kApple);
}

// The real MPS matrix (scenarios/mps-ci.json: three cells, 64 MiB steps, PyTorch's limit stops
// each long before swap), only when asked: WMBENCH_TEST_REAL_MPS=1 on a Mac, alone (an
// *Exclusive suite runs by itself). README, "On macOS".
TEST(RealMpsExclusive, TheCiMatrixOnThisMacEndsByPyTorchAndConfig) {
  if (!kApple) GTEST_SKIP() << "the real mps device is on a Mac only";
  const char* asked = std::getenv("WMBENCH_TEST_REAL_MPS");
  if (!asked || std::string(asked) != "1")
    GTEST_SKIP() << "fills real MPS memory: runs only with WMBENCH_TEST_REAL_MPS=1 (README, On macOS)";
  Tmp t;
  RunOpts o;
  o.unbounded_device_ok = true;  // this is the one test that runs the real matrix, alone
  o.timeout = 850;  // inside ctest's 900 s for an integration test; mps-ci is 3 cells of at most 5 min
  const auto r = wmbench({"run", "mps-ci", "--no-plots", "--out", t.path + "/out"}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  const auto summary = read_json(dir + "/summary.json");
  ASSERT_TRUE(summary.contains("runs")) << summary.dump(2);
  for (const auto& run : summary["runs"]) {
    const std::string label = run.value("label", ""), by = run.value("stopped_by", "");
    if (label == "high-0.3-alone") EXPECT_EQ(by, "config") << run.dump(2);
    else EXPECT_TRUE(by == "pytorch" || by == "cap") << run.dump(2);
  }
}

}  // namespace test_test_timeouts
