// The child seam (child/child_spec.h): the native child's argv, environment and machine.json
// description; the flags every kind gets; the Python child's refusals (an interpreter that
// cannot run, is not a Python, has no torch, or hangs), all through the no-shell spawner.
#include <gtest/gtest.h>
#include "../scratch_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "common/units.h"
#include "child/child_info.h"
#include "child/child_python.h"
#include "child/child_spec.h"
#include "common/run_error.h"
#include "runner/runner.h"
#include "tools/short_command.h"
#include "../integration/platform_util.h"

namespace test_child_seam {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

std::string tmpdir() { return wmbt_scratch::new_dir("unit"); }

std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string p = dir + "/" + name;
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  ::chmod(p.c_str(), 0755);
  return p;
}

Scenario small_scenario() {
  Scenario s;
  s.name = "t";
  s.device = "mps-model";
  s.step = SizeExpr{"8MiB"};
  s.cap = SizeExpr{"32MiB"};
  return s;
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const RunRefused& e) {
    EXPECT_EQ(e.exit_code, 2);
    return e.what();
  }
  ADD_FAILURE() << "not refused";
  return "";
}

}  // namespace

TEST(ChildSeam, TheNativeChildRunsTheFillWithTheFlagsAndSaysSoInMachineJson) {
  // It says its hello to --hello-only, as wmbench-fill does (the probe before any folder exists).
  const std::string fill = script(tmpdir(), "wmbench-fill",
                                  R"(echo '{"type":"hello","pid":1,"torch_version":"1.13.1","device":"cpu"}')");
  auto child = native_fill_child(fill);
  EXPECT_EQ(child->describe(), (nlohmann::json{{"kind", "native"}, {"program", fill}, {"python", nullptr}}));
  EXPECT_EQ(child->program(), fill);
  const std::vector<std::string> flags = {"--device", "cpu", "--step", "4"};
  const auto argv = child->argv(flags);
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[0], fill);
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.end()), flags);
  auto env = child->environment({{"PATH", "/bin"}, {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.3"}},
                                {{"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.5"}});
  EXPECT_EQ(env.count("PYTORCH_MPS_HIGH_WATERMARK_RATIO"), 0u) << "the parent's setting does not leak";
  EXPECT_EQ(env["PYTORCH_MPS_LOW_WATERMARK_RATIO"], "0.5");
  EXPECT_EQ(env["PATH"], "/bin");
  EXPECT_NE(child->cannot_start("ENOENT").find("--fill"), std::string::npos);
}

TEST(ChildSeam, ANativeFillThatIsNotExecutableIsRefused) {
  const std::string t = tmpdir();
  std::ofstream(t + "/plain") << "x";
  EXPECT_NE(refusal([&] { native_fill_child(t + "/plain"); }).find("is not an executable file"), std::string::npos);
}

TEST(ChildSeam, ANativeFillThatCannotRunOrSaysNoHelloIsRefusedBeforeAnyFolder) {
  const std::string t = tmpdir();
  struct Case {
    std::string body, must;
  };
  const std::vector<Case> cases = {
      {"exit 0", "said no hello"},                      // runs, says nothing
      {"echo not json; exit 0", "said no hello"},       // not the protocol
      {"exit 3", "exit 3"},                             // fails
      {"kill -SEGV $$", "SIGSEGV"},                     // crashes
      {R"(echo '{"type":"hello","torch_version":{"x":1}}')", "said no hello"},  // a hello of the wrong shape
      {R"(echo '{"type":"error","text":"libtorch_cpu.so: cannot open shared object file"}'; exit 1)", "libtorch_cpu.so"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string fill = script(t, "fill" + std::to_string(i++), c.body);
    const std::string why = refusal([&] { native_fill_child(fill); });
    EXPECT_NE(why.find("cannot be used as wmbench-fill"), std::string::npos) << c.body << ": " << why;
    EXPECT_NE(why.find(c.must), std::string::npos) << c.body << ": " << why;
  }
  // Not a program at all (a script without its interpreter line): exec fails.
  std::ofstream(t + "/noexec") << "garbage\n";
  ::chmod((t + "/noexec").c_str(), 0755);
  EXPECT_NE(refusal([&] { native_fill_child(t + "/noexec"); }).find("cannot be used"), std::string::npos);
}

// The probe's hello (device cpu) answers `info`'s question for cpu: one start, not two. Another
// device starts the program again, once.
TEST(ChildSeam, AHelloForADeviceIsAskedOnceAndAnotherDeviceAsksAgain) {
  const std::string t = tmpdir();
  const std::string fill = script(t, "wmbench-fill", "echo started >> " + t + R"(/starts
dev=cpu; [ "$1" = --device ] && dev=$2
echo "{\"type\":\"hello\",\"pid\":1,\"torch_version\":\"1.13.1\",\"device\":\"$dev\"}")");
  const auto starts = [&] {
    std::ifstream in(t + "/starts");
    return static_cast<int>(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
  };
  auto child = native_fill_child(fill);
  EXPECT_EQ(starts(), 1) << "the probe";
  auto cpu = fetch_child_hello(*child, "cpu", 10, nullptr);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->value("device", ""), "cpu");
  EXPECT_EQ(starts(), 1) << "the probe's hello was kept";
  auto model = fetch_child_hello(*child, "mps-model", 10, nullptr);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->value("device", ""), "mps-model");
  EXPECT_EQ(starts(), 2);
  EXPECT_TRUE(fetch_child_hello(*child, "mps-model", 10, nullptr));
  EXPECT_EQ(starts(), 2);
}

// A run on the model asks the model for the probe's hello, not cpu (whose hello always starts
// libtorch): one start, and the runs' device is the one it answered for. Other devices ask cpu,
// which every wmbench-fill has (cuda and mps are checked by the runs themselves).
TEST(ChildSeam, TheProbeOfARunOnTheModelAsksTheModelAndOtherDevicesAskCpu) {
  const std::string t = tmpdir();
  const std::string fill = script(t, "wmbench-fill", "echo \"$*\" >> " + t + R"(/argv
dev=cpu; [ "$1" = --device ] && dev=$2
echo "{\"type\":\"hello\",\"pid\":1,\"torch_version\":\"1.13.1\",\"device\":\"$dev\"}")");
  const auto argv_lines = [&] {
    std::ifstream in(t + "/argv");
    std::vector<std::string> v;
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  };
  auto model = native_fill_child(fill, "mps-model");
  ASSERT_EQ(argv_lines().size(), 1u);
  EXPECT_EQ(argv_lines()[0], "--device mps-model --step 4MiB --hello-only");
  ASSERT_TRUE(fetch_child_hello(*model, "mps-model", 10, nullptr));
  EXPECT_EQ(argv_lines().size(), 1u) << "the probe's hello was kept for the model";
  for (const char* device : {"cpu", "cuda", "mps"}) {
    native_fill_child(fill, device);
    EXPECT_EQ(argv_lines().back(), "--device cpu --step 4MiB --hello-only") << device;
  }
  // A fill that cannot run the model is refused naming the command that was asked.
  const std::string no_model = script(t, "cpu-only", R"(case "$*" in *mps-model*) exit 2;; esac
echo '{"type":"hello","pid":1,"torch_version":"1.13.1","device":"cpu"}')");
  const std::string why = refusal([&] { native_fill_child(no_model, "mps-model"); });
  EXPECT_NE(why.find(no_model + " --device mps-model --hello-only"), std::string::npos) << why;
}

TEST(ChildSeam, FillFlagsAreTheProtocolsForEveryKind) {
  Scenario s = small_scenario();
  s.step_delay = 0.25;
  ResolvedSizes z = resolve_sizes(s, 1ull << 30);
  mpsmodel::ModelledMac m{48 * GiB, 3 * GiB, 2 * GiB, 0.5, 1 * GiB};
  const auto f = fill_flags(s, z, "ones", m);
  std::vector<std::string> want = {"--device", "mps-model", "--step", std::to_string(8u << 20), "--data", "ones",
                                         "--cap", std::to_string(32u << 20), "--step-delay", "0.25",
                                         "--recommended-max", std::to_string(2 * GiB), "--model-ram",
                                         std::to_string(3 * GiB), "--model-revision", "legacy"};
  EXPECT_EQ(fill_flags(s, z, "ones", m, "legacy"), want);
  want.back() = "current";
  EXPECT_EQ(f, want) << "the revision defaults to current";
  EXPECT_EQ(std::count(f.begin(), f.end(), "--model-unscaled-step"), 0) << "the step was not shrunk";
  s.device = "cpu";
  const auto cpu = fill_flags(s, z, "ones", std::nullopt, "legacy");
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), "--model-revision"), 0) << "no model flags without a model";
}

TEST(ChildSeam, AShrunkStepPassesTheUnscaledStepToTheModel) {
  // mps-watermark's 512 MiB step with min_steps 64 in a 2 GiB modelled RAM shrinks to 32 MiB;
  // the child is told the step as written so that each 32 MiB step keeps the 512 MiB step's heap tier.
  Scenario s = small_scenario();
  s.step = SizeExpr{"512MiB"};
  s.min_steps = 64;
  const ResolvedSizes z = resolve_sizes(s, 2 * GiB);
  ASSERT_TRUE(z.step_shrunk);
  EXPECT_EQ(z.step, 32 * MiB);
  EXPECT_EQ(z.unscaled_step, 512 * MiB);
  mpsmodel::ModelledMac m{48 * GiB, 2 * GiB, 1 * GiB, 0.5, 1 * GiB};
  const auto f = fill_flags(s, z, "random", m);
  const auto it = std::find(f.begin(), f.end(), "--model-unscaled-step");
  ASSERT_NE(it, f.end());
  ASSERT_NE(it + 1, f.end());
  EXPECT_EQ(*(it + 1), std::to_string(512 * MiB));
  EXPECT_EQ(f[3], std::to_string(32 * MiB)) << "--step stays the shrunk step";
}

TEST(ChildSeam, ThePythonChildIsRefusedForMpsModelBeforeAnyInterpreterRuns) {
  // The interpreter does not exist: the refusal must come from the device, before any probe.
  const std::string why = refusal([] { choose_fill_child(ChildChoice{"", "/nonexistent/python3", "mps-model", {}, nullptr}); });
  EXPECT_NE(why.find("mps-model is the C++ child's"), std::string::npos) << why;
}

TEST(ChildSeam, WmbenchPythonChildIsTheDefaultForPythonExceptForTheModel) {
  ::setenv(kPythonChildEnv, "/opt/py/bin/python", 1);
  ChildChoice cpu{"", "", "cpu", {}, nullptr};
  EXPECT_NE(apply_python_child_default(cpu).find(kPythonChildEnv), std::string::npos);
  EXPECT_EQ(cpu.python, "/opt/py/bin/python");
  ChildChoice given{"", "/usr/bin/python3", "cpu", {}, nullptr};
  EXPECT_EQ(apply_python_child_default(given), "") << "--python wins";
  EXPECT_EQ(given.python, "/usr/bin/python3");
  ChildChoice fill{"/x/wmbench-fill", "", "cpu", {}, nullptr};
  apply_python_child_default(fill);
  EXPECT_EQ(fill.python, "") << "--fill asks for the native child";
  ChildChoice model{"", "", "mps-model", {}, nullptr};
  EXPECT_NE(apply_python_child_default(model).find("mps-model"), std::string::npos);
  EXPECT_EQ(model.python, "") << "mps-model stays with the native child";
  ::setenv(kPythonChildEnv, "", 1);
  ChildChoice empty{"", "", "cpu", {}, nullptr};
  EXPECT_EQ(apply_python_child_default(empty), "");
  EXPECT_EQ(empty.python, "");
  ::unsetenv(kPythonChildEnv);
}

// chosen_child_kind says, without starting anything, the kind that choose_fill_child's child
// describes itself as (prepare() compares it with a resumed folder's before any child starts).
TEST(ChildSeam, TheChosenKindIsTheKindTheChildDescribes) {
  const std::string fill = script(tmpdir(), "wmbench-fill",
                                  R"(echo '{"type":"hello","pid":1,"torch_version":"1.13.1","device":"cpu"}')");
  const ChildChoice native{fill, "", "cpu", {}, nullptr}, command{"", "", "cpu", {wmbt::true_program()}, nullptr};
  for (const ChildChoice& c : {native, command})
    EXPECT_EQ(chosen_child_kind(c), choose_fill_child(c)->describe().value("kind", "?"));
  // The Python child's own kind, "python", is checked where a run records it (CompareChildren):
  // making one here would import torch.
  EXPECT_EQ(chosen_child_kind(ChildChoice{"", "/usr/bin/python3", "cpu", {}, nullptr}), "python");
  // The options' conflicts are refused by both, alike, and nothing is started for them.
  const ChildChoice both{fill, "/nonexistent/python3", "cpu", {}, nullptr};
  EXPECT_EQ(refusal([&] { chosen_child_kind(both); }), refusal([&] { choose_fill_child(both); }));
}

TEST(ChildSeam, FillAndPythonTogetherAreRefused) {
  RunnerOptions o;
  o.fill_path = wmbt::true_program();
  o.python = "/usr/bin/python3";
  EXPECT_NE(refusal([&] { choose_fill_child(o); }).find("not both"), std::string::npos);
}

TEST(PythonChild, AnInterpreterThatCannotRunIsRefused) {
  EXPECT_NE(refusal([] { probe_python("/nonexistent/python3", 5); }).find("cannot run it"), std::string::npos);
  EXPECT_NE(refusal([] { probe_python("wmbench-no-such-python", 5); }).find("no such program on PATH"),
            std::string::npos);
}

TEST(PythonChild, AProgramThatIsNotAPythonIsRefused) {
  const std::string t = tmpdir();
  EXPECT_NE(refusal([&] { probe_python(script(t, "py", "exit 1"), 5); }).find("does not run as a Python"),
            std::string::npos);
}

TEST(PythonChild, AnInterpreterWithoutTorchIsRefused) {
  // A real Python that cannot see torch: -S leaves site-packages (and dist-packages) out.
  const std::string t = tmpdir();
  const std::string py = script(t, "py", "exec /usr/bin/python3 -S \"$@\"");
  if (!run_short_command({"/usr/bin/python3", "-S", "-c", "pass"}, 10).ok()) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string why = refusal([&] { probe_python(py, 30); });
  EXPECT_NE(why.find("cannot import torch"), std::string::npos) << why;
  EXPECT_NE(why.find("Python 3."), std::string::npos) << why;
}

TEST(PythonChild, AHangingInterpreterIsStoppedInTime) {
  const std::string t = tmpdir();
  const std::string py = script(t, "py", "echo 3.11.2; exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  const std::string why = refusal([&] { probe_python(py, 0.5); });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(why.find("did not finish within 0.5 s"), std::string::npos) << why;
  EXPECT_LT(took, 5.0);
}

TEST(PythonChild, ATorchTooOldForMpsIsRefusedWithWhatWasFound) {
  const std::string t = tmpdir();
  // torch 1.13: torch.backends.mps exists, torch.mps does not.
  const std::string old = script(t, "old", "[ \"$1\" = -I ] && [ \"$2\" = -c ] || exit 9; echo 3.11.2; echo 1.13.0a0; echo mps 1 0; "
                                            "echo /usr/lib/python3/dist-packages/torch/__init__.py");
  const std::string why = refusal([&] { probe_python(old, "mps", 5); });
  EXPECT_NE(why.find("needs torch 2.0"), std::string::npos) << why;
  EXPECT_NE(why.find("found torch 1.13.0a0"), std::string::npos) << why;
  EXPECT_NE(why.find("/usr/lib/python3/dist-packages/torch/__init__.py"), std::string::npos) << why;
  EXPECT_NE(why.find("torch.mps missing"), std::string::npos) << why;
  EXPECT_EQ(probe_python(old, "cpu", 5).torch_version, "1.13.0a0") << "cpu takes it";
  // A 2.x whose build has no torch.mps (or a probe that said nothing about it) is refused too.
  const std::string nomps = script(t, "nomps", "echo 3.12.1; echo 2.5.0+cpu; echo mps 0 0; echo /x/torch/__init__.py");
  EXPECT_NE(refusal([&] { probe_python(nomps, "mps", 5); }).find("torch.backends.mps missing"), std::string::npos);
  const std::string ok = script(t, "ok", "echo 3.12.1; echo 2.5.1; echo mps 1 1; echo /x/torch/__init__.py");
  const PythonFacts f = probe_python(ok, "mps", 5);
  EXPECT_TRUE(f.has_backends_mps && f.has_torch_mps);
  EXPECT_EQ(f.torch_file, "/x/torch/__init__.py");
}

TEST(PythonChild, TheRealProbeSaysWhatTheSystemTorchHas) {
  if (!run_short_command({"/usr/bin/python3", "-c", "import torch"}, 60).ok()) GTEST_SKIP() << "no python3-torch";
  const PythonFacts f = probe_python("/usr/bin/python3", 60);
  EXPECT_FALSE(f.torch_version.empty());
  EXPECT_NE(f.torch_file.find("torch"), std::string::npos) << f.torch_file;
  // Whatever the release, the verdict for mps follows what was found.
  const bool new_enough = f.has_backends_mps && f.has_torch_mps && f.torch_version[0] >= '2';
  EXPECT_EQ(torch_too_old_for(f, "mps").empty(), new_enough) << torch_too_old_for(f, "mps");
}

TEST(PythonChild, AFakeInterpreterWithTorchGivesItsVersions) {
  const std::string t = tmpdir();
  const std::string py = script(t, "py", "[ \"$1\" = -I ] && [ \"$2\" = -c ] || exit 9; echo 3.12.1; echo 2.5.0");
  PythonFacts f = probe_python(py, 5);
  EXPECT_EQ(f.path, py);
  EXPECT_EQ(f.version, "3.12.1");
  EXPECT_EQ(f.torch_version, "2.5.0");
}

TEST(ShortCommand, ArgumentsReachTheProgramVerbatimAndNoShellSeesThem) {
  const std::string t = tmpdir();
  const std::string evil = "it's $(touch " + t + "/pwned) `touch " + t + "/pwned2`; touch " + t + "/pwned3";
  CommandOutput r = run_short_command({"/bin/echo", evil}, 5);
  ASSERT_TRUE(r.ok()) << r.failure();
  EXPECT_EQ(r.out, evil + "\n");
  EXPECT_NE(::access((t + "/pwned").c_str(), F_OK), 0);
  EXPECT_NE(::access((t + "/pwned2").c_str(), F_OK), 0);
  EXPECT_NE(::access((t + "/pwned3").c_str(), F_OK), 0);
}

TEST(ShortCommand, SaysHowACommandFailed) {
  EXPECT_EQ(run_short_command({"/bin/sh", "-c", "exit 3"}, 5).failure(), "exit 3");
  EXPECT_EQ(run_short_command({"/bin/sh", "-c", "kill -SEGV $$"}, 5).failure(), "killed by SIGSEGV");
  CommandOutput r = run_short_command({"/nonexistent/x"}, 5);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.failure().find("No such file"), std::string::npos) << r.failure();
}

}  // namespace test_child_seam
