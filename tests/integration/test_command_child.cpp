// `wmbench run --command` and `wmbench tune --command` end to end: the user's own job as the
// child (child/child_command.h) with small jobs written to temp folders: one that finishes, one
// that fails some other way, a real PyTorch CPU allocation failure under an address-space limit,
// a recorded MPS message, a job that ignores SIGTERM, floods stderr, never exits, forks a daemon,
// and one whose memory is in a grandchild. The suite that swaps for real is *Exclusive.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "cli_util.h"

namespace test_command_child {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

std::string job_scenario(const std::string& dir, const std::string& extra = "") {
  const std::string timeout = extra.find("\"timeout\"") == std::string::npos ? R"("timeout": "60s", )" : "";
  return scenario(dir, "job", R"({"name": "job", "device": "cpu", )" + timeout + extra +
                                  R"("matrix": [{"label": "a", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8",
                                  "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"}}]})");
}

// Runs the job once in the one-cell scenario; returns the run record (the folder in `dir`).
nlohmann::json run_job(const Tmp& t, std::vector<std::string> job, std::string* dir = nullptr,
                       const std::string& extra = "", Result* res = nullptr, RunOpts o = {}) {
  std::vector<std::string> args = {"run", job_scenario(t.path, extra), "--command", "--no-plots", "--out", t.path + "/out", "--"};
  args.insert(args.end(), job.begin(), job.end());
  Result r = wmbench(args, o);
  if (res) *res = r;
  const std::string d = only_result_dir(t.path + "/out");
  if (dir) *dir = d;
  EXPECT_FALSE(d.empty()) << r.out << r.err;
  if (d.empty() || !file_exists(d + "/runs/01-a.json")) return nlohmann::json::object();
  return read_json(d + "/runs/01-a.json");
}

bool any_warning(const nlohmann::json& run, const std::string& part) {
  for (const auto& w : run.value("warnings", nlohmann::json::array()))
    if (w.is_string() && has(w.get<std::string>(), part)) return true;
  return false;
}

const char* kTorchPython = WMBENCH_TORCH_PYTHON;

}  // namespace

TEST(CommandChild, AJobThatFinishesIsFinishedWithItsOutputKeptAndTheCellsEnvironment) {
  Tmp t;
  std::string dir;
  const auto job = script(t.path, "ok.sh", "#!/bin/sh\necho \"high=$PYTORCH_MPS_HIGH_WATERMARK_RATIO\"\necho to-stderr >&2\nexit 0\n");
  Result r;
  auto run = run_job(t, {job}, &dir, "", &r);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(run["stopped_by"], "finished") << run.dump(2);
  EXPECT_EQ(run["program"], "command");
  EXPECT_EQ(run["exit_code"], 0);
  EXPECT_TRUE(has(slurp(dir + "/runs/01-a.stdout.log"), "high=0.8"));
  EXPECT_TRUE(has(slurp(dir + "/runs/01-a.stderr.log"), "to-stderr"));
  EXPECT_TRUE(has(run["error_text"].get<std::string>(), "to-stderr")) << "the stderr tail is in the record";
  const auto machine = read_json(dir + "/machine.json");
  EXPECT_EQ(machine["child"]["kind"], "command");
  EXPECT_EQ(machine["child"]["command"][0], job);
  // The folder is one wmbench reads back: check passes, report works.
  auto c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
}

TEST(CommandChild, AnotherFailureIsExitedWithTheCodeAndTheStderrTailNeverPyTorchByGuess) {
  Tmp t;
  const auto job = script(t.path, "fail.sh", "#!/bin/sh\necho 'MemoryError: out of memory in my own code' >&2\nexit 7\n");
  auto run = run_job(t, {job});
  EXPECT_EQ(run["stopped_by"], "exited") << run.dump(2);
  EXPECT_EQ(run["exit_code"], 7);
  EXPECT_TRUE(has(run["detail"].get<std::string>(), "code 7")) << run["detail"];
  EXPECT_TRUE(has(run["detail"].get<std::string>(), "MemoryError")) << run["detail"];
}

TEST(CommandChild, ARecordedMpsMessageOnStderrIsPyTorchWithItsLimit) {
  Tmp t;
  // Recorded text (tests/data/pytorch-error-messages.json, from a user's report), after a traceback.
  const auto msgs = read_json(std::string(WMBENCH_TEST_DATA) + "/pytorch-error-messages.json");
  std::string text;
  for (const auto& m : msgs)
    if (has(m["text"].get<std::string>(), "max allowed: 18.13 GB). Tried to allocate 4.50 MB")) text = m["text"];
  ASSERT_FALSE(text.empty());
  write(t.path + "/msg.txt", "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n" + text + "\n");
  const auto job = script(t.path, "mps.sh", "#!/bin/sh\ncat \"$(dirname \"$0\")/msg.txt\" >&2\nexit 1\n");
  auto run = run_job(t, {job});
  EXPECT_EQ(run["stopped_by"], "pytorch") << run.dump(2);
  EXPECT_EQ(run["error"]["kind"], "mps_oom");
  EXPECT_EQ(run["max_allowed_bytes"], static_cast<uint64_t>(std::llround(18.13 * (1ull << 30))));
  EXPECT_EQ(run["error"]["requested_bytes"], static_cast<uint64_t>(std::llround(4.5 * (1 << 20))));
}

TEST(CommandChild, ARealPyTorchCpuAllocationFailureUnderAnAddressSpaceLimitIsPyTorch) {
  if (std::string(kTorchPython).empty()) GTEST_SKIP() << "no python3 with torch (apt install python3-torch)";
  // macOS rejects or ignores RLIMIT_AS and has no /proc/self/status: the job would be a real,
  // unlimited allocation there (issue 28).
  WMBT_SKIP_IF(address_space_limit_unusable());
  Tmp t;
  // The job limits its own address space (and says so if the kernel refused), then allocates past it.
  const auto py = script(t.path, "oom.py", R"(import resource, sys
import torch
vm = 0
for line in open("/proc/self/status"):
    if line.startswith("VmSize:"):
        vm = int(line.split()[1]) * 1024
limit = vm + (512 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
if resource.getrlimit(resource.RLIMIT_AS) != (limit, limit):
    sys.exit(125)
held = [torch.empty(64 << 20, dtype=torch.uint8) for _ in range(64)]
)");
  auto run = run_job(t, {kTorchPython, py});
  ASSERT_NE(run["exit_code"], 125) << "setrlimit was refused";
  EXPECT_EQ(run["stopped_by"], "pytorch") << run.dump(2);
  EXPECT_EQ(run["error"]["kind"], "cpu_oom");
  EXPECT_EQ(run["error"]["requested_bytes"], 64u << 20);
}

TEST(CommandChild, AJobThatIgnoresSigtermIsKilledAfterTheGraceAndSaysSo) {
  Tmp t;
  const auto job = script(t.path, "stubborn.sh", "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.1; done\n");
  // 2 s: time for sh to set its trap before the timeout's SIGTERM, however loaded the machine.
  auto run = run_job(t, {job}, nullptr, R"("timeout": "2s", "guard": {"grace": "1s"}, )");
  EXPECT_EQ(run["stopped_by"], "timeout") << run.dump(2);
  EXPECT_TRUE(has(run["detail"].get<std::string>(), "SIGKILL was needed")) << run["detail"];
  EXPECT_TRUE(any_warning(run, "ignored SIGTERM")) << run.dump(2);
  EXPECT_EQ(run["signal"], SIGKILL);
}

TEST(CommandChild, AJobThatNeverExitsIsStoppedByTheTimeout) {
  Tmp t;
  auto run = run_job(t, {"sleep", "600"}, nullptr, R"("timeout": "1s", )");
  EXPECT_EQ(run["stopped_by"], "timeout") << run.dump(2);
  EXPECT_LT(run["duration_s"].get<double>(), 30);
}

TEST(CommandChild, AFloodOfStderrIsKeptBounded) {
  Tmp t;
  std::string dir;
  // 24 MiB of stderr, then a last line and a failure.
  const auto job = script(t.path, "flood.sh",
                          "#!/bin/sh\nhead -c 25165824 /dev/zero | tr '\\0' 'x' >&2\necho >&2\necho 'the last words' >&2\nexit 3\n");
  auto run = run_job(t, {job}, &dir);
  EXPECT_EQ(run["stopped_by"], "exited") << run.dump(2);
  EXPECT_TRUE(has(run["detail"].get<std::string>(), "the last words")) << run["detail"];
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/runs/01-a.stderr.log").c_str(), &st), 0);
  EXPECT_LT(static_cast<uint64_t>(st.st_size), (1u << 20) + (256u << 10) + 4096) << "the log is bounded";
  EXPECT_TRUE(any_warning(run, "the logs keep the first")) << run.dump(2);
  EXPECT_LT(run["error_text"].get<std::string>().size(), 8192u);
}

TEST(CommandChild, ADaemonTheJobForkedIsStoppedOrNamed) {
  Tmp t;
  // Out of the job's group and session on Linux; on macOS (no setsid(1), and the leftover check
  // sees only the job's process group) a background job of the group (platform_util.h).
  const auto job = script(t.path, "daemon.sh", "#!/bin/sh\n" + leave_a_sleeper_line() + "\nexit 0\n");
  auto run = run_job(t, {job});
  EXPECT_EQ(run["stopped_by"], "finished") << run.dump(2);
  EXPECT_TRUE(any_warning(run, left_running_words(1))) << run.dump(2);
  if (::geteuid() == 0) EXPECT_TRUE(any_warning(run, "stopped them")) << run.dump(2);
}

TEST(CommandChild, TheFootprintIsTheWholeProcessTrees) {
  Tmp t;
  // The memory is in a grandchild (sh -> python3), the leader holds almost nothing.
  const auto job = script(t.path, "tree.sh",
                          "#!/bin/sh\npython3 -c 'import time; x = bytearray(300 << 20); time.sleep(2)'\necho done\n");
  auto run = run_job(t, {job});
  EXPECT_EQ(run["stopped_by"], "finished") << run.dump(2);
  EXPECT_GT(run["peak_footprint_bytes"].get<uint64_t>(), 250ull << 20) << run.dump(2);
}

TEST(CommandChild, AMissingOrNonExecutableProgramIsRefusedBeforeAnyFolder) {
  Tmp t;
  const std::string sc = job_scenario(t.path);
  auto r = wmbench({"run", sc, "--command", "--out", t.path + "/out", "--", t.path + "/no-such-job"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(has(r.err, t.path + "/no-such-job")) << r.err;
  const auto plain = t.path + "/plain.sh";
  write(plain, "#!/bin/sh\n");
  ::chmod(plain.c_str(), 0644);
  r = wmbench({"run", sc, "--command", "--out", t.path + "/out", "--", plain});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "not executable")) << r.err;
  r = wmbench({"run", sc, "--command", "--out", t.path + "/out"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "no command given")) << r.err;
  r = wmbench({"run", sc, "--out", t.path + "/out", "--", true_program()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--command is not given")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out")) << "no folder was made";
}

TEST(CommandChild, AScenarioCanNameTheCommand) {
  Tmp t;
  const auto sc = scenario(t.path, "named", R"({"name": "named", "device": "cpu", "program": "command",
    "command": ["sh", "-c", "exit 0"], "matrix": [{"label": "a"}]})");
  // Runs only when the user says so: a scenario's command is not started without --command.
  auto r = wmbench({"run", sc, "--no-plots", "--out", t.path + "/out"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "the scenario runs a command of its own: [\"sh\",\"-c\",\"exit 0\"]; it runs only with --command"))
      << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out")) << "no folder was made";
  r = wmbench({"run", sc, "--command", "--no-plots", "--out", t.path + "/out"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  EXPECT_EQ(read_json(dir + "/runs/01-a.json")["stopped_by"], "finished");
  // Nor a downloaded folder's, on --resume (its scenario.json names the command).
  ASSERT_EQ(::unlink((dir + "/runs/01-a.json").c_str()), 0);
  r = wmbench({"run", "--resume", dir, "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "the folder to resume runs a command of its own")) << r.err;
  EXPECT_FALSE(file_exists(dir + "/runs/01-a.json")) << "nothing ran";
  r = wmbench({"run", "--resume", dir, "--command", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_json(dir + "/runs/01-a.json")["stopped_by"], "finished");
  // A reviewer's `check` says what the folder would run.
  r = wmbench({"check", dir});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "note: scenario.json: the folder runs a command of its own, [\"sh\",\"-c\",\"exit 0\"]"))
      << r.out;
  const auto bad = scenario(t.path, "bad", R"({"name": "bad", "device": "cpu", "program": "command",
    "command": [], "matrix": [{"label": "a"}]})");
  r = wmbench({"run", bad, "--out", t.path + "/out2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "command")) << r.err;
}

// tune refuses, before any folder, what would give a meaningless or unreadable search: a device
// the MPS ratios do nothing on, a name too long for its folder, and a --resume of no result folder.
TEST(CommandTune, RefusesWhatWouldMakeAMeaninglessSearch) {
  Tmp t;
  auto r = wmbench({"tune", job_scenario(t.path), "--no-plots", "--out", t.path + "/out"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "which do nothing on device cpu")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out")) << "no folder was made";
  const std::string name(60, 'n');
  const auto long_name = scenario(t.path, "long", R"({"name": ")" + name + R"(", "device": "mps-model",
    "matrix": [{"label": "a"}]})");
  r = wmbench({"tune", long_name, "--no-plots", "--out", t.path + "/out"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "too long for a tune folder")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out")) << "no folder was made";
  // A resumed search's policy differing from the command line's is refused by the one resume gate
  // (issue 40; tests/integration/test_hostile_round4.cpp); a folder that is no result folder first.
  r = wmbench({"tune", "--resume", t.path, "--repeat", "2", "--timeout", "1m"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "no scenario.json there")) << r.err;
}

// tune with a job whose outcome depends on the ratio: a clean PyTorch error at HIGH <= 0.9, some
// other failure above. The answer must be bracketed by its own probes.
TEST(CommandTune, FindsTheHighestCleanRatioBracketedByItsProbes) {
  Tmp t;
  const auto job = script(t.path, "ratio.sh", R"(#!/bin/sh
case "$PYTORCH_MPS_HIGH_WATERMARK_RATIO" in
  0.[0-8]*|0.9|0.90*) echo "RuntimeError: MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 0 bytes, max allowed: 1.50 GB). Tried to allocate 600.00 MB on private pool." >&2; exit 1;;
  *) echo "not a memory error" >&2; exit 4;;
esac
)");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  EXPECT_TRUE(has(dir, "-tune-job")) << dir;
  const auto tune = read_json(dir + "/tune.json");
  ASSERT_EQ(tune["outcome"], "found") << tune.dump(2);
  const double answer = tune["answer"]["high"];
  const double unclean = tune["lowest_unclean"];
  EXPECT_LE(answer, 0.9);
  EXPECT_GT(unclean, 0.9);
  EXPECT_LE(unclean - answer, 0.05 + 1e-9);
  EXPECT_EQ(tune["answer"]["low"], answer);
  EXPECT_TRUE(has(tune["export"].get<std::string>(), fmt::format("PYTORCH_MPS_HIGH_WATERMARK_RATIO={}", tune["answer"]["high"].dump())))
      << tune["export"];
  bool clean_at_answer = false, unclean_above = false;
  for (const auto& p : tune["probes"]) {
    if (p["high"] == answer && p["clean"] == true && p["stopped_by"] == "pytorch") clean_at_answer = true;
    if (p["high"] == unclean && p["clean"] == false && p["stopped_by"] == "exited") unclean_above = true;
  }
  EXPECT_TRUE(clean_at_answer && unclean_above) << tune.dump(2);
  EXPECT_LE(tune["probes"].size(), 7u);
  const std::string readme = slurp(dir + "/README.md");
  EXPECT_EQ(readme.find("# wmbench tune"), 0u);
  EXPECT_TRUE(has(readme, "Free memory changes with the apps open")) << readme.substr(0, 600);
  auto c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
}

TEST(CommandTune, EdgeAnswersAreSaidPlainly) {
  Tmp t;
  const auto clean = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/a", "--", clean});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "Nothing to set")) << r.out;
  EXPECT_EQ(read_json(only_result_dir(t.path + "/a") + "/tune.json")["outcome"], "nothing_to_set");
  const auto never = script(t.path, "never.sh", "#!/bin/sh\nexit 9\n");
  r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/b", "--", never});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // A job that fails on its own (exit 9) is no memory stop (issue 30: it was said to have swapped).
  EXPECT_TRUE(has(r.out, "No safe setting found")) << r.out;
  EXPECT_TRUE(has(r.out, "not for memory")) << r.out;
  EXPECT_TRUE(has(r.out, "ended as `exited`")) << r.out;
  EXPECT_FALSE(has(r.out, "swapped or was stopped by the guard")) << r.out;
  const auto tj = read_json(only_result_dir(t.path + "/b") + "/tune.json");
  EXPECT_EQ(tj["outcome"], "no_safe_setting");
  EXPECT_TRUE(tj["answer"].is_null());
  EXPECT_EQ(tj["probes"].size(), 2u);
}

TEST(CommandTune, BadPoliciesAreRefusedBeforeAnyFolder) {
  Tmp t;
  const std::string sc = job_scenario(t.path);
  for (std::vector<std::string> bad : {std::vector<std::string>{"--resolution", "0"}, {"--resolution", "-1"},
                                        {"--resolution", "1.5"}, {"--bracket", "0,1"}, {"--bracket", "0.5,2.5"},
                                        {"--bracket", "1.2,0.8"}, {"--low", "2"}, {"--repeat", "0"}}) {
    std::vector<std::string> args = {"tune", sc, "--command", "--out", t.path + "/out"};
    args.insert(args.end(), bad.begin(), bad.end());
    args.insert(args.end(), {"--", true_program()});
    auto r = wmbench(args);
    EXPECT_EQ(r.status, 2) << bad[0] << " " << bad[1] << ": " << r.err;
    EXPECT_FALSE(r.err.empty());
  }
  EXPECT_FALSE(file_exists(t.path + "/out"));
}

TEST(CommandTune, ResumeContinuesAnInterruptedSearchFromItsProbes) {
  Tmp t;
  // At HIGH 1.1 (the third probe) the job interrupts wmbench once, as a user's Ctrl-C would.
  const auto job = script(t.path, "ratio.sh", R"(#!/bin/sh
if [ "$PYTORCH_MPS_HIGH_WATERMARK_RATIO" = 1.1 ] && [ ! -e "$(dirname "$0")/interrupted" ]; then
  touch "$(dirname "$0")/interrupted"; kill -INT $PPID; sleep 30
fi
case "$PYTORCH_MPS_HIGH_WATERMARK_RATIO" in
  0.[0-8]*|0.9|0.90*) echo "RuntimeError: MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 0 bytes, max allowed: 1.50 GB). Tried to allocate 600.00 MB on private pool." >&2; exit 1;;
  *) echo "not a memory error" >&2; exit 4;;
esac
)");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 128 + SIGINT) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  EXPECT_TRUE(has(r.out, "wmbench tune --resume " + dir + " --command")) << r.out;
  EXPECT_TRUE(read_json(dir + "/tune.json")["answer"].is_null());
  r = wmbench({"tune", "--resume", dir, "--no-plots"});
  EXPECT_EQ(r.status, 2) << "a folder's command runs only with --command: " << r.out << r.err;
  r = wmbench({"tune", "--resume", dir, "--command", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto tune = read_json(dir + "/tune.json");
  EXPECT_EQ(tune["outcome"], "found") << tune.dump(2);
  EXPECT_EQ(tune["answer"]["high"], 0.875);
  std::set<std::string> labels;
  for (const auto& p : tune["probes"]) EXPECT_TRUE(labels.insert(p["label"].get<std::string>()).second) << "one record per run";
  EXPECT_EQ(tune["probes"].size(), 7u) << "the interrupted probe ran again, nothing else twice";
  EXPECT_EQ(tune["probes"][2]["stopped_by"], "exited");
}

namespace {

}  // namespace

// Real swap in a memory cgroup: run alone (ctest runs *Exclusive suites one at a time).
TEST(CommandSwapExclusive, AJobThatAllocatesPastTheSandboxSwapsAndIsStoppedByTheGuard) {
  if (auto why = real_swap_skip_reason(1ull << 30); !why.empty()) GTEST_SKIP() << why;
  Tmp t;
  const auto job = script(t.path, "swap.sh",
                          "#!/bin/sh\npython3 -c 'import time; x = bytearray(700 << 20); time.sleep(60)'\n");
  std::vector<std::string> args = {"run", job_scenario(t.path, R"("timeout": "120s", "guard": {"swap_budget": "64MiB"}, )"),
                                   "--command", "--ram-limit", "256MiB", "--no-plots", "--out", t.path + "/out", "--", job};
  auto r = wmbench(args);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto run = read_json(only_result_dir(t.path + "/out") + "/runs/01-a.json");
  EXPECT_EQ(run["stopped_by"], "guard") << run.dump(2);
  EXPECT_GT(run["swap_peak_bytes"].get<uint64_t>(), run["swap_before_bytes"].get<uint64_t>() + (64ull << 20));
  EXPECT_GT(run["peak_footprint_bytes"].get<uint64_t>(), 256ull << 20) << "the grandchild's RSS + swap";
}

}  // namespace test_command_child
