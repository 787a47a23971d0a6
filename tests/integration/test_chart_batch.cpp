// Issue 44: the charts of a whole `wmbench publish` (every folder's table, traces and tune chart,
// every scenario's history) are drawn in one python (plots/batch.py, matplotlib imported once),
// not one python per chart; a run's finish draws its two charts in one python too. Checked with a
// WMBENCH_PYTHON that logs each start and then runs the real python with matplotlib.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_util.h"

namespace test_chart_batch {  // one namespace per test file: the unity build compiles 8 files as one

namespace fs = std::filesystem;
using wmbt::has;

namespace {

// Each line of the log: one start of the python, its arguments.
std::vector<std::string> starts(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(wmbt::file_exists(log) ? wmbt::slurp(log) : "");
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string logging_python(const std::string& dir, const std::string& real, const std::string& log) {
  return wmbt::script(dir, "py", "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n");
}

size_t count_with(const std::vector<std::string>& lines, const std::string& part) {
  size_t n = 0;
  for (const auto& l : lines) n += has(l, part);
  return n;
}

}  // namespace

TEST(ChartBatch, PublishDrawsEveryChartOfItsFoldersInOnePython) {
  const std::string real = wmbt::real_python_with_matplotlib();
  if (real.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  wmbt::Tmp t;
  const std::string results = std::string(WMBENCH_SOURCE_DIR) + "/results/";
  const std::vector<std::string> names = {"2026-12-01-tune-check", "2026-11-29-mps-watermark", "2026-12-01-mps-watermark"};
  fs::create_directories(t.path + "/in");
  for (const auto& n : names) fs::copy(results + n, t.path + "/in/" + n, fs::copy_options::recursive);
  const std::string log = t.path + "/starts.log";
  wmbt::RunOpts o;
  o.set_env["WMBENCH_PYTHON"] = logging_python(t.path, real, log);
  const auto r = wmbt::wmbench({"publish", t.path + "/in", "--out", t.path + "/site"}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = starts(log);
  // One probe (importlib's finder: tools/locate.cpp), then plots/batch.py only: one python for up to 8 charts,
  // else one per core (at most 4), never one per chart.
  const size_t batches = count_with(lines, "batch.py");
  EXPECT_GE(batches, 1u) << wmbt::slurp(log);
  EXPECT_LE(batches, 2u) << "a python per chart: " << wmbt::slurp(log);
  EXPECT_EQ(lines.size(), batches + 1) << "a chart script started on its own: " << wmbt::slurp(log);
  // 3 folders x (table, traces) + the history of each scenario's device (mps-watermark on
  // mps-model, tune-check's): at least 8 charts, in at most 2 pythons.
  EXPECT_TRUE(has(r.out, "8 charts drawn") || has(r.out, "9 charts drawn")) << r.out;
  size_t svgs = 0;
  for (const auto& e : fs::recursive_directory_iterator(t.path + "/site"))
    svgs += e.is_regular_file() && e.path().extension() == ".svg";
  EXPECT_GE(svgs, 7u) << r.out;
  for (const auto& e : fs::directory_iterator(t.path + "/site/folders"))
    for (const char* chart : {"table.svg", "traces.svg"})
      EXPECT_TRUE(wmbt::file_exists(e.path().string() + "/" + chart)) << e.path() << " " << chart << "\n" << r.err;
  // A second publish draws nothing again (no input changed): no python for charts at all.
  fs::remove(log);
  const auto r2 = wmbt::wmbench({"publish", t.path + "/in", "--out", t.path + "/site"}, o);
  ASSERT_EQ(r2.status, 0) << r2.out << r2.err;
  EXPECT_TRUE(has(r2.out, "0 charts drawn")) << r2.out;
  EXPECT_EQ(count_with(starts(log), "batch.py"), 0u) << wmbt::slurp(log);
}

TEST(ChartBatch, ARunsTwoChartsAreOnePython) {
  const std::string real = wmbt::real_python_with_matplotlib();
  if (real.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  wmbt::Tmp t;
  const std::string log = t.path + "/starts.log";
  wmbt::RunOpts o;
  o.set_env["WMBENCH_PYTHON"] = logging_python(t.path, real, log);
  const std::string sc = wmbt::scenario(t.path, "one", R"({"name": "one", "device": "mps-model", "step": "4MiB", "cap": "8MiB",
      "timeout": "60s", "matrix": [{"label": "a"}]})");
  const auto r = wmbt::wmbench({"run", sc, "--out", t.path + "/out"}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "Charts: ")) << r.out << r.err;
  const auto lines = starts(log);
  // The probe, then one python whose command line holds both charts.
  ASSERT_EQ(lines.size(), 2u) << wmbt::slurp(log);
  EXPECT_TRUE(has(lines[1], "batch.py") && has(lines[1], "table.py") && has(lines[1], "traces.py")) << lines[1];
}

}  // namespace test_chart_batch
