// `wmbench run` at the seam and the finish: machine.json says which child ran; --python refuses
// an interpreter it cannot use before any folder exists; the Python child gets the same flags
// as wmbench-fill; the charts start python without a shell, so an --out path with a quote and
// $(...) runs nothing, and a failed chart is said as a failure.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "cli_util.h"

namespace test_run_child_and_charts {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

const std::string kBin = WMBENCH_BIN;
const std::string kFill = WMBENCH_FILL_BIN;
const char* const kSmall = R"({"name": "small", "device": "cpu", "step": "4MiB", "cap": "8MiB", "timeout": "60s",
  "matrix": [{"label": "a"}]})";
// The same run on the model, for the tests of what the parent does after any child (the charts).
const char* const kSmallModel = R"({"name": "small", "device": "mps-model", "step": "4MiB", "cap": "8MiB", "timeout": "60s",
  "matrix": [{"label": "a"}]})";

std::string executable(const std::string& path, const std::string& text) {
  write(path, text);
  ::chmod(path.c_str(), 0755);
  return path;
}

// The python with torch that CMake found (tests/CMakeLists.txt: the set-up's venv on a Mac,
// Debian's /usr/bin/python3 here), or "".
const std::string kTorchPython = WMBENCH_TORCH_PYTHON;
// Any Python 3 to run without its site-packages (-S: no torch): the one with torch, else python3 on PATH.
std::string any_python() { return kTorchPython.empty() ? find_on_path("python3") : kTorchPython; }

// A stand-in for wmbench_fill.py (the Python child is another worker's file): speaks the
// protocol, fills nothing, and writes the arguments it got to stderr (the run's stderr.log).
const char* const kFakePyfill = R"(import json, sys
print(json.dumps(sys.argv[1:]), file=sys.stderr)
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
step, cap = int(a["--step"]), int(a["--cap"])
print(json.dumps({"type": "hello", "pid": 1, "torch_version": "fake", "device": a["--device"], "env": {}}), flush=True)
held = 0
while held < cap:
    held += step
    print(json.dumps({"type": "step", "index": held // step, "held_bytes": held}), flush=True)
print(json.dumps({"type": "done", "reason": "cap", "held_bytes": held}), flush=True)
)";

}  // namespace

TEST(RunChild, MachineJsonSaysTheNativeChildRan) {
  const std::string t = tmpdir();
  write(t + "/s.json", kSmall);
  auto r = wmbench({"run", t + "/s.json", "--out", t + "/o", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto m = read_json(only_result_dir(t + "/o") + "/machine.json");
  EXPECT_EQ(m["child"], (nlohmann::json{{"kind", "native"}, {"program", kFill}, {"python", nullptr}})) << m.dump();
  EXPECT_EQ(m["fill"], kFill);
}

TEST(RunChild, PythonThatCannotBeUsedIsRefusedBeforeAnyFolder) {
  const std::string t = tmpdir();
  write(t + "/s.json", kSmall);
  const std::string py = any_python();
  ASSERT_FALSE(py.empty()) << "no python3 on PATH";
  const std::string no_torch = executable(t + "/py-no-torch", "#!/bin/sh\nexec '" + py + "' -S \"$@\"\n");
  struct Case {
    std::vector<std::string> extra;
    std::string must;
  };
  const std::vector<Case> cases = {
      {{"--python", t + "/nonexistent-python"}, "cannot run it"},
      {{"--python", executable(t + "/not-python", "#!/bin/sh\nexit 1\n")}, "does not run as a Python interpreter"},
      {{"--python", no_torch}, "cannot import torch"},
      {{"--python", "/usr/bin/python3", "--fill", kFill}, "not both"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run", t + "/s.json", "--out", t + "/o", "--no-plots"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    auto r = wmbench(args);
    EXPECT_EQ(r.status, 2) << c.extra[1] << "\n" << r.err;
    EXPECT_NE(r.err.find(c.must), std::string::npos) << "wanted: " << c.must << "\ngot: " << r.err;
  }
  EXPECT_FALSE(file_exists(t + "/o")) << "nothing was written";
}

TEST(RunChild, ThePythonChildGetsTheSameFlagsAndMachineJsonNamesIt) {
  if (kTorchPython.empty()) GTEST_SKIP() << "no python3 with torch was found at configure time (WMBENCH_TORCH_PYTHON)";
  const std::string t = tmpdir();
  write(t + "/s.json", kSmall);
  write(t + "/wmbench_fill.py", kFakePyfill);
  RunOpts o;
  o.set_env["WMBENCH_PYFILL"] = t + "/wmbench_fill.py";
  auto r = wmbench({"run", t + "/s.json", "--out", t + "/o", "--no-plots", "--python", kTorchPython}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t + "/o");
  auto m = read_json(dir + "/machine.json");
  EXPECT_EQ(m["child"]["kind"], "python") << m.dump();
  EXPECT_EQ(m["child"]["program"], t + "/wmbench_fill.py");
  EXPECT_EQ(m["child"]["python"]["path"], kTorchPython);
  EXPECT_EQ(m["child"]["python"]["version"].get<std::string>().substr(0, 2), "3.");
  auto run = read_json(dir + "/runs/01-a.json");
  EXPECT_EQ(run["stopped_by"], "cap") << run.dump();
  EXPECT_EQ(run["held_bytes"], 8u << 20);
  // The flags wmbench-fill would get, verbatim.
  const auto argv = nlohmann::json::parse(slurp(dir + "/runs/01-a.stderr.log"));
  EXPECT_EQ(argv, (nlohmann::json{"--device", "cpu", "--step", std::to_string(4u << 20), "--data", "random", "--cap",
                                  std::to_string(8u << 20)}));
}

TEST(RunCharts, AnOutPathWithAQuoteAndACommandRunsNothing) {
  const std::string t = tmpdir();
  write(t + "/s.json", kSmallModel);
  // One folder name (no '/') with an even number of quotes, so that the old `sh -c "'py' 'script' 'DIR'"`
  // parsed it and ran all three commands (checked on the code before this test: pwned, pwned2 and
  // pwned3 appeared in the working folder t).
  const std::string out = t + "/it's $(touch pwned) `touch pwned2`; touch pwned3; 'x";
  ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
  RunOpts o;
  o.cwd = t;
  auto r = wmbench({"run", t + "/s.json", "--out", out}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(file_exists(t + "/pwned")) << r.out;
  EXPECT_FALSE(file_exists(t + "/pwned2")) << r.out;
  EXPECT_FALSE(file_exists(t + "/pwned3")) << r.out;
  const std::string dir = only_result_dir(out);
  ASSERT_FALSE(dir.empty());
  if (r.out.find("no python3 with matplotlib") != std::string::npos) GTEST_SKIP() << "no matplotlib: no chart drawn";
  // python got the path as one argument and drew into that very folder.
  EXPECT_NE(r.out.find("Charts: " + dir + "/plots/table.png"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(file_exists(dir + "/plots/table.png")) << r.err;
  EXPECT_TRUE(file_exists(dir + "/plots/traces.png")) << r.err;
}

TEST(RunCharts, AFailedChartIsAFailureLineNotChartsDone) {
  const std::string t = tmpdir();
  write(t + "/s.json", kSmallModel);
  // Passes the matplotlib probe (-c ...), fails every chart script.
  RunOpts o;
  o.set_env["WMBENCH_PYTHON"] = executable(t + "/py", "#!/bin/sh\n[ \"$1\" = -I ] && [ \"$2\" = -c ] && exit 0\nexit 3\n");
  auto r = wmbench({"run", t + "/s.json", "--out", t + "/o"}, o);
  EXPECT_EQ(r.status, 0) << "the results are complete" << r.err;
  EXPECT_NE(r.err.find("chart table.py failed (exit 3)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chart traces.py failed (exit 3)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Charts:"), std::string::npos) << r.out;
}

namespace {
std::vector<std::string> mixed_history_folders() {
  const std::string base = std::string(WMBENCH_SOURCE_DIR) + "/tests/data/history/mixed/";
  return {base + "2026-11-06-compression-trap", base + "2026-11-07-mps-watermark-model"};
}
}  // namespace

// `wmbench history --plot` finds its python as `run` does, starts it without a shell, and keeps
// stdout for the JSON (the chart paths go to stderr).
TEST(HistoryPlot, DrawsEachSeriesChartWithoutAShellAndKeepsStdoutJson) {
  const std::string t = tmpdir();
  const std::string out = t + "/it's $(touch pwned); 'x";
  std::vector<std::string> args = {"history", "--json", "--plot", "--plot-out", out};
  for (const auto& d : mixed_history_folders()) args.push_back(d);
  RunOpts o;
  o.cwd = t;
  auto r = wmbench(args, o);
  if (r.err.find("no python3 with matplotlib") != std::string::npos) GTEST_SKIP() << "no matplotlib: " << r.err;
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(file_exists(t + "/pwned"));
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  for (const char* chart : {"history-compression-trap-mps", "history-mps-watermark-mps-model"}) {
    EXPECT_TRUE(file_exists(out + "/" + chart + ".png")) << chart << "\n" << r.err;
    EXPECT_TRUE(file_exists(out + "/" + chart + ".svg")) << chart << "\n" << r.err;
    EXPECT_NE(r.err.find(chart), std::string::npos) << r.err;
  }
}

// A chart that fails is exit 3 (not 1, which says "regressed"), and the tables are printed anyway.
TEST(HistoryPlot, AFailedChartIsExit3AndTheTablesStillPrint) {
  const std::string t = tmpdir();
  RunOpts o;
  o.set_env["WMBENCH_PYTHON"] = executable(t + "/py", "#!/bin/sh\n[ \"$1\" = -I ] && [ \"$2\" = -c ] && exit 0\nexit 4\n");
  std::vector<std::string> args = {"history", "--plot", "--plot-out", t + "/charts"};
  for (const auto& d : mixed_history_folders()) args.push_back(d);
  auto r = wmbench(args, o);
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("compression-trap"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("history.py ... failed (exit 4)"), std::string::npos) << r.err;
}

}  // namespace test_run_child_and_charts
