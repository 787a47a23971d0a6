// Issue 43: iogpu.wired_limit_mb as a matrix axis that is always put back. On the simulated Mac
// (WMBENCH_SYSCTL_STANDIN: scripts/ci/fake-macos/bin/sysctl, which keeps its value in a file), an
// mps-model run writes the stand-in as an mps run writes the Mac's sysctl: the value must be as
// found after a normal end, Ctrl-C, SIGKILL of the child and SIGKILL of wmbench (put back by the
// next start, which says so). And the model: a real mps-model run's limit is HIGH x the wired limit.
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace test_wired_limit {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using namespace wmbt;

const std::string kStandin = std::string(WMBENCH_SOURCE_DIR) + "/scripts/ci/fake-macos/bin/sysctl";

// One test's simulated Mac: the stand-in's value file (starting at `found`) and the lever's state folder.
struct SimMac {
  Tmp t;
  std::string value = t.path + "/iogpu.wired_limit_mb";
  std::string out = t.path + "/out";
  explicit SimMac(const std::string& found) { write(value, found + "\n"); }
  RunOpts opts() const {
    RunOpts o;
    o.set_env["WMBENCH_SYSCTL_STANDIN"] = kStandin;
    o.set_env["FAKE_MACOS_SYSCTL_STATE"] = value;
    o.set_env["WMBENCH_LEVER_STATE"] = t.path + "/lever";
    o.timeout = 120;
    return o;
  }
  std::string now() const { return slurp(value); }
  std::string scenario(double step_delay) const {
    return wmbt::scenario(t.path, "wl", fmt_scenario(step_delay));
  }
  static std::string fmt_scenario(double step_delay) {
    return std::string(R"({"name": "wl", "device": "mps-model", "step": "16MiB", "cap": "768MiB", "timeout": "90s", )") +
           (step_delay > 0 ? "\"step_delay\": " + std::to_string(step_delay) + ", " : std::string()) +
           R"("guard": {"swap_budget": "1GiB"},
      "matrix": [{"label": "wl", "env": {}, "sysctl": {"iogpu.wired_limit_mb": 1024}}]})";
  }
};

// The fill child's pid, from the run's trace (its "start" line).
pid_t fill_child_pid(const std::string& out) {
  pid_t pid = 0;
  wait_for([&] {
    const std::string dir = only_result_dir(out);
    if (dir.empty()) return false;
    const std::string first = slurp(dir + "/runs/01-wl.trace.jsonl");
    if (first.find("\"pid\"") == std::string::npos) return false;
    pid = nlohmann::json::parse(first.substr(0, first.find('\n'))).value("pid", 0);
    return pid > 0;
  }, 60);
  return pid;
}

TEST(WiredLimitModel, TheLimitIsHighTimesTheWiredLimitInARealModelRun) {
  Tmp t;
  const std::string sc = scenario(t.path, "m", R"({"name": "m", "device": "mps-model", "step": "16MiB", "cap": "1GiB",
    "timeout": "60s", "guard": {"swap_budget": "1GiB"}, "matrix": [
      {"label": "h05-wl1024", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"},
       "sysctl": {"iogpu.wired_limit_mb": 1024}},
      {"label": "h025-wl2048", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.25", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.25"},
       "sysctl": {"iogpu.wired_limit_mb": 2048}},
      {"label": "h05-flag", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"}}]})");
  auto r = wmbench({"run", sc, "--wired-limit", "1536", "--out", t.path, "--no-plots"},
                   [] { RunOpts o; o.unset_env = {"WMBENCH_SYSCTL_STANDIN"}; return o; }());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path);
  const struct { const char* file; uint64_t wired_mib; double high; } want[] = {
      {"01-h05-wl1024", 1024, 0.5}, {"02-h025-wl2048", 2048, 0.25}, {"03-h05-flag", 1536, 0.5}};
  for (const auto& w : want) {
    const auto rec = read_json(dir + "/runs/" + w.file + ".json");
    EXPECT_EQ(rec["recommended_max_bytes"], w.wired_mib << 20) << rec.dump(2);
    EXPECT_EQ(rec["max_allowed_bytes"], static_cast<uint64_t>(w.high * static_cast<double>(w.wired_mib << 20))) << rec.dump(2);
    EXPECT_EQ(rec["stopped_by"], "pytorch") << rec.dump(2);
  }
  EXPECT_FALSE(file_exists(dir + "/lever.json"));  // mps-model only models it: nothing written
  EXPECT_EQ(read_json(dir + "/scenario.json")["matrix"][0]["sysctl"]["iogpu.wired_limit_mb"], 1024);
}

TEST(WiredLimitLever, ANormalEndLeavesTheValueAsFound) {
  SimMac m("5000");
  auto r = wmbench({"run", m.scenario(0), "--out", m.out, "--no-plots"}, m.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(m.now(), "5000\n");
  const auto j = read_json(only_result_dir(m.out) + "/lever.json");
  EXPECT_EQ(j["runs"]["01-wl"]["found_mib"], 5000) << j.dump(2);
  EXPECT_EQ(j["runs"]["01-wl"]["read_back_mib"], 1024) << j.dump(2);
  EXPECT_EQ(j["runs"]["01-wl"]["restore_read_back_mib"], 5000) << j.dump(2);
  EXPECT_EQ(read_json(only_result_dir(m.out) + "/runs/01-wl.json")["recommended_max_bytes"], 1024ull << 20);
  EXPECT_FALSE(file_exists(m.t.path + "/lever/wired-limit.json"));
  auto check = wmbench({"check", only_result_dir(m.out)}, m.opts());
  EXPECT_EQ(check.status, 0) << check.out << check.err;
}

TEST(WiredLimitLever, CtrlCLeavesTheValueAsFound) {
  SimMac m("0");
  RunOpts o = m.opts();
  o.while_running = [&](pid_t pid) {
    ASSERT_TRUE(wait_for([&] { return m.now() == "1024\n"; }, 60)) << m.now();
    ::kill(pid, SIGINT);
  };
  auto r = wmbench({"run", m.scenario(0.2), "--out", m.out, "--no-plots"}, o);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.out << r.err;
  EXPECT_EQ(m.now(), "0\n");
  EXPECT_FALSE(file_exists(m.t.path + "/lever/wired-limit.json"));
}

TEST(WiredLimitLever, SigkillOfTheChildLeavesTheValueAsFound) {
  SimMac m("7000");
  RunOpts o = m.opts();
  o.while_running = [&](pid_t) {
    const pid_t child = fill_child_pid(m.out);
    ASSERT_GT(child, 0);
    ASSERT_TRUE(wait_for([&] { return m.now() == "1024\n"; }, 60)) << m.now();
    ::kill(child, SIGKILL);
  };
  auto r = wmbench({"run", m.scenario(0.2), "--out", m.out, "--no-plots"}, o);
  EXPECT_EQ(m.now(), "7000\n") << r.out << r.err;
  EXPECT_EQ(read_json(only_result_dir(m.out) + "/runs/01-wl.json")["stopped_by"], "crash") << r.out << r.err;
}

TEST(WiredLimitLever, SigkillOfWmbenchIsPutBackByTheNextStartWhichSaysSo) {
  SimMac m("6000");
  RunOpts o = m.opts();
  pid_t child = 0;
  o.while_running = [&](pid_t pid) {
    child = fill_child_pid(m.out);
    ASSERT_TRUE(wait_for([&] { return m.now() == "1024\n"; }, 60)) << m.now();
    ::kill(pid, SIGKILL);
  };
  wmbench({"run", m.scenario(0.2), "--out", m.out, "--no-plots"}, o);
  if (child > 0) ::kill(child, SIGKILL);  // its parent is gone; the run is over
  EXPECT_EQ(m.now(), "1024\n");  // left set: wmbench could do nothing
  EXPECT_TRUE(file_exists(m.t.path + "/lever/wired-limit.json"));
  auto next = wmbench({"--version"}, m.opts());  // any command
  EXPECT_EQ(next.status, 0) << next.err;
  EXPECT_EQ(m.now(), "6000\n");
  EXPECT_TRUE(has(next.err, "put iogpu.wired_limit_mb back to 6000")) << next.err;
  EXPECT_FALSE(file_exists(m.t.path + "/lever/wired-limit.json"));
  auto again = wmbench({"--version"}, m.opts());
  EXPECT_EQ(again.err, "");  // said once
}

TEST(WiredLimitLever, ANonRootRunIsRefusedBeforeAnyFolder) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run wmbench as another user";
  SimMac m("0");
  ::chmod(m.t.path.c_str(), 0777);
  const std::string sc = m.scenario(0);
  const std::string err_path = m.t.path + "/err.txt";
  // The child's argv and environment are made before fork: after it, only async-signal-safe calls
  // (no setenv, no allocation).
  std::vector<std::string> env_text = child_environment({{"WMBENCH_SYSCTL_STANDIN", kStandin},
                                                         {"FAKE_MACOS_SYSCTL_STATE", m.value},
                                                         {"WMBENCH_LEVER_STATE", m.t.path + "/lever"},
                                                         {"WMBENCH_FILL", WMBENCH_FILL_BIN}},
                                                        {});
  std::vector<std::string> argv_text = {WMBENCH_BIN, "run", sc, "--out", m.out, "--no-plots"};
  const std::vector<char*> envp = exec_array(env_text), argv = exec_array(argv_text);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    ::dup2(fd, 2);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(99);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(98);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << slurp(err_path);
  EXPECT_TRUE(has(slurp(err_path), "needs root")) << slurp(err_path);
  EXPECT_FALSE(file_exists(m.out)) << "a folder was made";
  EXPECT_EQ(m.now(), "0\n");
}

TEST(WiredLimitLever, CpuAndHostileValuesAreRefusedBeforeAnyFolder) {
  SimMac m("0");
  auto cpu = wmbench({"run", m.scenario(0), "--device", "cpu", "--out", m.out}, m.opts());
  EXPECT_EQ(cpu.status, 2) << cpu.err;
  EXPECT_TRUE(has(cpu.err, "\"sysctl\".\"iogpu.wired_limit_mb\"") && has(cpu.err, "device cpu")) << cpu.err;
  const std::string big = scenario(m.t.path, "big", R"({"name": "b", "device": "mps-model", "step": "16MiB", "cap": "64MiB",
    "matrix": [{"label": "a", "sysctl": {"iogpu.wired_limit_mb": 1000000000}}]})");
  auto above = wmbench({"run", big, "--out", m.out}, m.opts());
  EXPECT_EQ(above.status, 2) << above.err;
  EXPECT_TRUE(has(above.err, "not below the RAM")) << above.err;
  EXPECT_FALSE(file_exists(m.out));
  EXPECT_EQ(m.now(), "0\n");
}

}  // namespace

}  // namespace test_wired_limit
