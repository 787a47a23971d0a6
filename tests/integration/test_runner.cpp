// `wmbench run` end to end with real wmbench-fill children: every stop class that can happen on
// Linux, environment isolation, result folders, interruption and resume, and input errors. The
// tests of what the parent does with any child (a folder kept, the environment, Ctrl-C and resume, a
// killed parent) run on the model, whose child starts without libtorch (cli_util.h's wmbench();
// issue 44); the stops of a real cpu fill (cap, PyTorch, a kill, a timeout, a signal) stay on cpu.
#include <gtest/gtest.h>

#include <signal.h>

#include <fmt/format.h>

#include "cli_util.h"

namespace test_runner {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

const std::string kBin = WMBENCH_BIN;
const std::string kFill = WMBENCH_FILL_BIN;

nlohmann::json run_file(const std::string& dir, const std::string& stem) {
  return read_json(dir + "/runs/" + stem + ".json");
}

}  // namespace

TEST(Runner, CapStopsEveryCellAndWritesTheDatedFolder) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "small", R"({"name": "small", "device": "cpu", "step": "8MiB", "cap": "32MiB",
    "timeout": "60s", "matrix": [{"label": "a"}, {"label": "b", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"}}]})");
  auto r = wmbench({"run", sc, "--out", t + "/out", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t + "/out");
  EXPECT_NE(dir.find("-small"), std::string::npos) << dir;
  EXPECT_TRUE(file_exists(dir + "/machine.json"));
  EXPECT_TRUE(file_exists(dir + "/scenario.json"));
  EXPECT_TRUE(file_exists(dir + "/table.md"));
  EXPECT_TRUE(file_exists(dir + "/results.csv"));
  auto s = read_json(dir + "/summary.json");
  ASSERT_EQ(s["runs"].size(), 2u);
  for (const auto& run : s["runs"]) {
    EXPECT_EQ(run["stopped_by"], "cap") << run.dump();
    EXPECT_EQ(run["held_bytes"], 32u << 20);
    EXPECT_EQ(run["steps"], 4);
  }
  // The trace: start, samples, step events, end (a clean end).
  auto trace = read_jsonl(dir + "/runs/01-a.trace.jsonl");
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.front()["type"], "start");
  EXPECT_EQ(trace.back()["type"], "end");
  int samples = 0, steps = 0;
  for (auto& l : trace) {
    if (l["type"] == "sample") {
      ++samples;
      EXPECT_TRUE(l.contains("footprint") && l.contains("swap_used") && l.contains("level") && l.contains("t"));
    }
    if (l["type"] == "event" && l["kind"] == "step") ++steps;
  }
  EXPECT_GE(samples, 1);
  EXPECT_EQ(steps, 4);
  const std::string table = slurp(dir + "/table.md");
  EXPECT_NE(table.find("| `a` (default) | cap |"), std::string::npos) << table;
  EXPECT_NE(table.find("HIGH 0.5, LOW 0.5"), std::string::npos) << table;
  auto machine = read_json(dir + "/machine.json");
  EXPECT_FALSE(machine["torch_version"].get<std::string>().empty());
  EXPECT_TRUE(machine.contains("ended_utc"));
  EXPECT_EQ(machine["device"], "cpu");
}

TEST(Runner, AnExistingFolderIsNeverOverwritten) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "again", R"({"name": "again", "device": "mps-model", "step": "4MiB", "cap": "8MiB", "matrix": [{"label": "a"}]})");
  ASSERT_EQ(wmbench({"run", sc, "--out", t, "--no-plots"}).status, 0);
  auto first = only_result_dir(t);
  write(first + "/runs/01-a.json.keep", slurp(first + "/runs/01-a.json"));
  auto r2 = wmbench({"run", sc, "--out", t, "--no-plots"});
  ASSERT_EQ(r2.status, 0) << r2.err;
  EXPECT_TRUE(file_exists(first + "-2/summary.json"));
  EXPECT_EQ(slurp(first + "/runs/01-a.json"), slurp(first + "/runs/01-a.json.keep"));
}

TEST(Runner, AParentVariableDoesNotReachACellThatDoesNotSetIt) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "env", R"({"name": "env", "device": "mps-model", "step": "4MiB", "cap": "8MiB",
    "matrix": [{"label": "unset"}, {"label": "set", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"}}]})");
  RunOpts o;
  o.set_env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.3"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.3"},
               {"PYTORCH_CUDA_ALLOC_CONF", "per_process_memory_fraction:0.1"}};
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"}, o);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string dir = only_result_dir(t);
  auto unset = run_file(dir, "01-unset");
  ASSERT_TRUE(unset["child_env"].is_object()) << unset.dump();
  EXPECT_FALSE(unset["child_env"].contains("PYTORCH_MPS_HIGH_WATERMARK_RATIO")) << unset["child_env"].dump();
  EXPECT_FALSE(unset["child_env"].contains("PYTORCH_CUDA_ALLOC_CONF"));
  auto set = run_file(dir, "02-set");
  EXPECT_EQ(set["child_env"]["PYTORCH_MPS_HIGH_WATERMARK_RATIO"], "0.8");
  EXPECT_EQ(set["child_env"]["PYTORCH_MPS_LOW_WATERMARK_RATIO"], "0.8");
}

TEST(Runner, ARealCpuAllocationFailureIsStoppedByPyTorch) {
  // Checked first: where RLIMIT_AS is refused or ignored (macOS), this would be a real, unlimited
  // fill up to the cap.
  if (auto why = address_space_limit_unusable(); !why.empty()) GTEST_SKIP() << why;
  const std::string t = tmpdir();
  // 512 MiB beyond what the child maps by its hello (vm_size_at_hello), in 64 MiB steps: each step a
  // fresh map of random data, so a bigger headroom is only more memory written (issue 44: 3 GiB, in
  // 256 MiB steps, was 4.5 s more of CPU). wmbench itself maps a few tens of MiB.
  const uint64_t base = vm_size_at_hello({kFill});
  if (base == 0) GTEST_SKIP() << "the address space the child maps by its hello cannot be read here (address_space_of)";
  // The cap (a backstop, 2x the limit) is never reached: PyTorch refuses a step first.
  auto sc = scenario(t, "as", fmt::format(R"({{"name": "as", "device": "cpu", "step": "64MiB", "cap": "{}B", "timeout": "120s",
    "matrix": [{{"label": "rlimit"}}]}})", 2 * (base + (512ull << 20))));
  RunOpts o;
  o.rlimit_as = base + (512ull << 20);  // inherited by the child: its allocations fail with ENOMEM
  auto r = wmbench({"run", sc, "--out", t, "--no-plots", "--force"}, o);
  ASSERT_NE(r.status, 125) << "setrlimit failed in the test's child: " << r.err;
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto run = run_file(only_result_dir(t), "01-rlimit");
  EXPECT_EQ(run["stopped_by"], "pytorch") << run.dump(2);
  EXPECT_NE(run["error_text"].get<std::string>().find("can't allocate memory"), std::string::npos) << run.dump(2);
  EXPECT_EQ(run["error"]["kind"], "cpu_oom");
  EXPECT_EQ(run["error"]["requested_bytes"], 64u << 20);
  EXPECT_GT(run["held_bytes"].get<uint64_t>(), 0u);
}

TEST(Runner, AChildKilledFromOutsideIsACrash) {
  WMBT_SKIP_IF(free_memory_below(1ull << 30));  // a GiB cap: refused where less is free (small Macs)
  const std::string t = tmpdir();
  auto sc = scenario(t, "crash", R"({"name": "crash", "device": "mps-model", "step": "4MiB", "cap": "1GiB", "step_delay": "200ms",
    "timeout": "120s", "matrix": [{"label": "victim"}]})");
  RunOpts o;
  o.while_running = [&](pid_t) {
    std::string dir;
    ASSERT_TRUE(wait_for([&] {
      dir = only_result_dir(t);
      if (dir.empty() || !file_exists(dir + "/runs/01-victim.trace.jsonl")) return false;
      auto lines = read_jsonl(dir + "/runs/01-victim.trace.jsonl");
      for (auto& l : lines)
        if (l["type"] == "event" && l["kind"] == "step") return true;
      return false;
    }, 60));
    pid_t child = read_jsonl(dir + "/runs/01-victim.trace.jsonl").front()["pid"];
    ::kill(child, SIGKILL);  // as the kernel's OOM killer or macOS jetsam would
  };
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"}, o);
  ASSERT_EQ(r.status, 0) << r.err;
  auto run = run_file(only_result_dir(t), "01-victim");
  EXPECT_EQ(run["stopped_by"], "crash") << run.dump(2);
  EXPECT_NE(run["detail"].get<std::string>().find("SIGKILL"), std::string::npos);
  EXPECT_EQ(run["signal"], SIGKILL);
  // A stopped run's trace has no "end".
  EXPECT_NE(read_jsonl(only_result_dir(t) + "/runs/01-victim.trace.jsonl").back()["type"], "end");
}

TEST(Runner, AHangingChildIsStoppedByTheTimeout) {
  WMBT_SKIP_IF(free_memory_below(1ull << 30));  // a GiB cap: refused where less is free (small Macs)
  const std::string t = tmpdir();
  auto sc = scenario(t, "slow", R"({"name": "slow", "device": "mps-model", "step": "4MiB", "cap": "1GiB", "step_delay": "500ms",
    "timeout": "1.5s", "guard": {"grace": "2s"}, "matrix": [{"label": "hang"}]})");
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto run = run_file(only_result_dir(t), "01-hang");
  EXPECT_EQ(run["stopped_by"], "timeout") << run.dump(2);
  EXPECT_GE(run["duration_s"].get<double>(), 1.5);
  EXPECT_LT(run["duration_s"].get<double>(), 10.0);
  EXPECT_EQ(run["signal"], SIGTERM);
}

TEST(Runner, SigintWritesFinishedRunsMarksTheRestAndResumeFinishes) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "int", R"({"name": "int", "device": "mps-model", "step": "4MiB", "cap": "48MiB", "step_delay": "250ms",
    "timeout": "120s", "matrix": [{"label": "fast"}, {"label": "slow"}, {"label": "later"}]})");
  RunOpts o;
  o.while_running = [&](pid_t pid) {
    ASSERT_TRUE(wait_for([&] {
      std::string dir = only_result_dir(t);
      return !dir.empty() && file_exists(dir + "/runs/01-fast.json") && file_exists(dir + "/runs/02-slow.trace.jsonl");
    }, 60));
    // The slow cell is under way once its trace has samples (one each 0.5 s): interrupted mid-fill.
    wait_for([&] {
      const std::string trace = slurp(only_result_dir(t) + "/runs/02-slow.trace.jsonl");
      return std::count(trace.begin(), trace.end(), '\n') >= 2;
    }, 60);
    ::kill(pid, SIGINT);
  };
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"}, o);
  EXPECT_EQ(r.status, 130) << r.out << r.err;
  const std::string dir = only_result_dir(t);
  EXPECT_EQ(run_file(dir, "01-fast")["stopped_by"], "cap");
  EXPECT_EQ(run_file(dir, "02-slow")["stopped_by"], "interrupted");
  auto s = read_json(dir + "/summary.json");
  ASSERT_EQ(s["not_run"].size(), 1u) << s.dump(2);
  EXPECT_EQ(s["not_run"][0]["label"], "later");
  EXPECT_NE(s["not_run"][0]["why"].get<std::string>().find("SIGINT"), std::string::npos);
  const std::string fast_before = slurp(dir + "/runs/01-fast.json");
  // Resume: only the cells not finished run.
  auto r2 = wmbench({"run", "--resume", dir, "--no-plots"});
  ASSERT_EQ(r2.status, 0) << r2.out << r2.err;
  EXPECT_EQ(slurp(dir + "/runs/01-fast.json"), fast_before) << "a finished run is not run again";
  EXPECT_EQ(run_file(dir, "02-slow")["stopped_by"], "cap");
  EXPECT_EQ(run_file(dir, "03-later")["stopped_by"], "cap");
  auto s2 = read_json(dir + "/summary.json");
  EXPECT_EQ(s2["runs"].size(), 3u);
  EXPECT_TRUE(s2["not_run"].empty());
}

TEST(Runner, ReportRebuildsAfterTheParentIsKilled) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "kill", R"({"name": "kill", "device": "mps-model", "step": "4MiB", "cap": "40MiB", "step_delay": "200ms",
    "timeout": "120s", "matrix": [{"label": "one"}, {"label": "two"}]})");
  RunOpts o;
  o.while_running = [&](pid_t pid) {
    ASSERT_TRUE(wait_for([&] {
      std::string dir = only_result_dir(t);
      return !dir.empty() && file_exists(dir + "/runs/01-one.json") &&
             slurp(dir + "/runs/02-two.trace.jsonl").find("\"start\"") != std::string::npos;
    }, 60));
    ::kill(pid, SIGKILL);
  };
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"}, o);
  EXPECT_EQ(r.status, 128 + SIGKILL);
  const std::string dir = only_result_dir(t);
  EXPECT_FALSE(file_exists(dir + "/summary.json")) << "the parent died before writing it";
  auto rep = wmbench({"report", dir});
  ASSERT_EQ(rep.status, 0) << rep.err;
  auto s = read_json(dir + "/summary.json");
  ASSERT_EQ(s["runs"].size(), 1u);
  EXPECT_EQ(s["runs"][0]["stopped_by"], "cap");
  EXPECT_EQ(s["not_run"].size(), 1u);
  EXPECT_NE(slurp(dir + "/table.md").find("`two`"), std::string::npos);
  // The child of the killed parent must not go on filling unwatched (Linux: PR_SET_PDEATHSIG).
  pid_t orphan = read_jsonl(dir + "/runs/02-two.trace.jsonl").front()["pid"];
  EXPECT_TRUE(wait_for([&] { return ::kill(orphan, 0) != 0; }, 5)) << "the child outlived its parent";
}

TEST(Runner, BadInputIsAClearErrorAndNothingRuns) {
  const std::string t = tmpdir();
  auto good = scenario(t, "g", R"({"name": "g", "device": "cpu", "step": "4MiB", "cap": "8MiB", "matrix": [{"label": "a"}]})");
  struct Case {
    std::vector<std::string> args;
    std::string must;
  };
  std::vector<Case> cases = {
      {{"run", t + "/missing.json", "--out", t + "/o"}, "does not exist"},
      {{"run", scenario(t, "bad", "{\"name\": \"x\",\n \"device\": }"), "--out", t + "/o"}, "bad.json:2:"},
      {{"run", scenario(t, "dev", R"({"name": "x", "device": "tpu", "matrix": [{"label": "a"}]})"), "--out", t + "/o"},
       "allowed: mps, cuda, cpu, mps-model"},
      {{"run", good, "--only", "nope", "--out", t + "/o"}, "no cell is labelled \"nope\""},
      {{"run", good, "--ram-limit", "lots", "--out", t + "/o"}, "size \"lots\""},
      {{"run", good, "--device", "gpu", "--out", t + "/o"}, "--device \"gpu\""},
      {{"run", good, "--cap", "-5GiB", "--out", t + "/o"}, "negative"},
      {{"run", good, "--fill", "/nonexistent/wmbench-fill", "--out", t + "/o"}, "not an executable"},
      {{"run", good, "--out", uncreatable_folder()}, "cannot create folder"},
  };
  for (const auto& c : cases) {
    auto r = wmbench(c.args);
    EXPECT_EQ(r.status, 2) << c.args[1] << "\n" << r.err;
    EXPECT_NE(r.err.find(c.must), std::string::npos) << "wanted: " << c.must << "\ngot: " << r.err;
  }
  EXPECT_FALSE(file_exists(t + "/o")) << "nothing ran";
}

TEST(Runner, RefusesACpuFillBeyondFreeMemoryUnlessForced) {
  const std::string t = tmpdir();
  auto sc = scenario(t, "big", R"({"name": "big", "device": "cpu", "step": "1GiB", "cap": "64TiB", "matrix": [{"label": "a"}]})");
  auto r = wmbench({"run", sc, "--out", t + "/o"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("refusing a cpu fill"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos);
  EXPECT_FALSE(file_exists(t + "/o"));
}

// SIGTERM and SIGHUP to the parent behave like SIGINT: the child is stopped, exit 128+N.
class RunnerSignal : public ::testing::TestWithParam<int> {};

TEST_P(RunnerSignal, StopsTheChildAndExits128PlusN) {
  WMBT_SKIP_IF(free_memory_below(1ull << 30));  // a GiB cap: refused where less is free (small Macs)
  const int sig = GetParam();
  const std::string t = tmpdir();
  auto sc = scenario(t, "sig", R"({"name": "sig", "device": "mps-model", "step": "4MiB", "cap": "1GiB", "step_delay": "200ms",
    "timeout": "120s", "matrix": [{"label": "only"}]})");
  RunOpts o;
  o.while_running = [&](pid_t pid) {
    ASSERT_TRUE(wait_for([&] {
      std::string dir = only_result_dir(t);
      return !dir.empty() && file_exists(dir + "/runs/01-only.trace.jsonl") &&
             slurp(dir + "/runs/01-only.trace.jsonl").find("\"step\"") != std::string::npos;
    }, 60));
    ::kill(pid, sig);
  };
  auto r = wmbench({"run", sc, "--out", t, "--no-plots"}, o);
  EXPECT_EQ(r.status, 128 + sig) << r.err;
  const std::string dir = only_result_dir(t);
  auto run = run_file(dir, "01-only");
  EXPECT_EQ(run["stopped_by"], "interrupted");
  pid_t child = read_jsonl(dir + "/runs/01-only.trace.jsonl").front()["pid"];
  EXPECT_NE(::kill(child, 0), 0) << "the child is gone";
  EXPECT_TRUE(file_exists(dir + "/summary.json"));
}

INSTANTIATE_TEST_SUITE_P(Signals, RunnerSignal, ::testing::Values(SIGTERM, SIGHUP));

}  // namespace test_runner
