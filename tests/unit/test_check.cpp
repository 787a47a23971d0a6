// `wmbench check`: every committed result folder passes; a tampered copy names each problem.
#include <gtest/gtest.h>
#include "../scratch_dir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "io/files.h"
#include "common/units.h"
#include "check/check.h"
#include "results/report.h"

namespace test_check {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;
namespace fs = std::filesystem;

namespace {

std::string all(const CheckResult& r) {
  std::string s;
  for (const auto& p : r.problems) s += p + "\n";
  return s;
}

std::string copy_of(const std::string& src) {
  const std::string d = wmbt_scratch::new_dir("check") + "/f";
  fs::copy(src, d, fs::copy_options::recursive);
  return d;
}

const std::string kFolder = std::string(WMBENCH_SOURCE_DIR) + "/results/2026-11-29-mps-watermark";

// What check says of a copy of `folder` whose JSON file `file` was changed by `change` (the copy is
// removed after).
std::string problems_after(const std::string& folder, const std::string& file,
                           const std::function<void(nlohmann::json&)>& change) {
  const std::string d = copy_of(folder);
  Folder f(d);
  auto j = f.read_json(file);
  change(j);
  f.write_json(file, j);
  const std::string p = all(check_result_folder(d));
  fs::remove_all(fs::path(d).parent_path());
  return p;
}

}  // namespace

TEST(Check, EveryCommittedFolderPasses) {
  int folders = 0;
  for (const auto& e : fs::directory_iterator(std::string(WMBENCH_SOURCE_DIR) + "/results")) {
    if (!e.is_directory()) continue;
    const CheckResult r = check_result_folder(e.path().string());
    EXPECT_FALSE(r.unreadable) << e.path();
    EXPECT_TRUE(r.problems.empty()) << e.path() << ":\n" << all(r);
    EXPECT_GT(r.runs, 0u) << e.path();
    ++folders;
  }
  EXPECT_GE(folders, 6);
}

// The chart tests' synthetic folders (tests/data/example-results, made by make_examples.py, not by
// wmbench): one gives a cell its own "repeats", which no wmbench scenario can say; check names it.
TEST(Check, TheSyntheticExampleWithPerCellRepeatsIsNamed) {
  EXPECT_TRUE(check_result_folder(std::string(WMBENCH_TEST_DATA) + "/example-results/2026-10-13-mps-watermark").problems.empty());
  const CheckResult r = check_result_folder(std::string(WMBENCH_TEST_DATA) + "/example-results/2026-11-01-mps-watermark");
  ASSERT_EQ(r.problems.size(), 1u) << all(r);
  EXPECT_NE(r.problems[0].find("key \"matrix[3].repeats\": unknown key"), std::string::npos) << all(r);
}

TEST(Check, ImplausibleNumbersAndInconsistentFilesAreEachNamed) {
  const std::string d = copy_of(kFolder);
  Folder f(d);
  // held > cap and not a multiple of the step; swap peak below swap before; a date that is not one.
  auto run = f.read_json("runs/01-default.json");
  run["cap_bytes"] = 1 * GiB;
  run["held_bytes"] = 2 * GiB + 5;
  run["swap_peak_bytes"] = 0;
  run["swap_before_bytes"] = 1 * MiB;
  run["ended_utc"] = "yesterday";
  f.write_json("runs/01-default.json", run);
  // max allowed that is not HIGH x recommended max.
  auto p = f.read_json("runs/04-high-0.8-low-0.8.json");
  p["max_allowed_bytes"] = 3 * GiB;
  f.write_json("runs/04-high-0.8-low-0.8.json", p);
  // A second record of a cell, under another name.
  auto dup = f.read_json("runs/02-high-0.0.json");
  dup["index"] = 9;
  f.write_json("runs/09-high-0.0.json", dup);
  const CheckResult r = check_result_folder(d);
  const std::string s = all(r);
  EXPECT_TRUE(s.find("held_bytes 2147483653 exceeds cap_bytes 1073741824") != std::string::npos) << s;
  EXPECT_TRUE(s.find("is not a multiple of step_bytes") != std::string::npos) << s;
  EXPECT_TRUE(s.find("swap_peak_bytes 0 is below swap_before_bytes") != std::string::npos) << s;
  EXPECT_TRUE(s.find("ended_utc \"yesterday\"") != std::string::npos) << s;
  EXPECT_TRUE(s.find("max_allowed_bytes 3221225472 is not HIGH 0.8 x recommended max") != std::string::npos) << s;
  // Issue 22: a cell with two records is refused naming every copy, and neither is trusted.
  EXPECT_TRUE(s.find("2 run files hold the same cell \"high-0.0\" repeat 1") != std::string::npos) << s;
  EXPECT_TRUE(s.find("runs/02-high-0.0.json, ") != std::string::npos && s.find("runs/09-high-0.0.json") != std::string::npos) << s;
  EXPECT_TRUE(s.find("summary.json: run 01-default: \"held_bytes\"") != std::string::npos) << s;
  EXPECT_TRUE(s.find("summary.json: holds run 02-high-0.0 (repeat 1), which has no file in runs/") != std::string::npos) << s;
  EXPECT_TRUE(s.find("results.csv: has 6 data rows; runs/ holds 5") != std::string::npos) << s;
}

TEST(Check, LinksFifosLeftoversAndForeignMachinesAreProblems) {
  const std::string d = copy_of(kFolder);
  ::unlink((d + "/summary.json").c_str());
  ASSERT_EQ(::symlink("/etc/shadow", (d + "/summary.json").c_str()), 0);
  ::mkfifo((d + "/runs/07-x.trace.jsonl").c_str(), 0644);
  std::ofstream(d + "/runs/01-default.json.tmp.123.0") << "{";
  std::ofstream(d + "/machine.json") << R"({"device": "mps-model", "ram_bytes": "lots"})";
  const CheckResult r = check_result_folder(d);
  const std::string s = all(r);
  EXPECT_FALSE(r.unreadable);
  EXPECT_TRUE(s.find("summary.json: a symbolic link") != std::string::npos) << s;
  EXPECT_TRUE(s.find("07-x.trace.jsonl: it is a FIFO") != std::string::npos) << s;
  EXPECT_TRUE(s.find("a half-written file") != std::string::npos) << s;
  EXPECT_TRUE(s.find("machine.json: key \"ram_bytes\": value \"lots\"") != std::string::npos) << s;
}

TEST(Check, NotAFolderIsUnreadable) {
  EXPECT_TRUE(check_result_folder("/nonexistent/folder").unreadable);
  EXPECT_TRUE(check_result_folder("").unreadable);
  EXPECT_TRUE(check_result_folder(wmbt_scratch::new_dir("check")).unreadable);
  EXPECT_FALSE(parse_utc("2026-02-30T00:00:00Z"));
  EXPECT_TRUE(parse_utc("2026-11-29T19:16:55Z"));
}

// Issue 22, class H: a folder whose files disagree on its device would become a series of its own
// in `history` (summary.json's device) without a word. check names both files and both values.
TEST(Check, FilesThatDisagreeOnTheDeviceAreNamedWithBothValues) {
  std::string p = problems_after(kFolder, "summary.json", [](nlohmann::json& j) { j["device"] = "mps"; });
  EXPECT_NE(p.find("summary.json: device \"mps\" but machine.json says \"mps-model\"; compare and history refuse the "
                   "folder until its files agree (`wmbench report DIR` rebuilds summary.json"),
            std::string::npos)
      << p;
  p = problems_after(kFolder, "runs/01-default.json", [](nlohmann::json& j) { j["device"] = "cpu"; });
  EXPECT_NE(p.find("runs/01-default.json: device \"cpu\" but machine.json says \"mps-model\"; compare and history "
                   "refuse the folder"),
            std::string::npos)
      << p;
  p = problems_after(kFolder, "scenario.json", [](nlohmann::json& j) { j["device"] = "cpu"; });
  EXPECT_NE(p.find("scenario.json: device \"cpu\" but machine.json says \"mps-model\""), std::string::npos) << p;
  // A cpu folder whose summary.json says mps (the case of issue 22; compare and history refuse it:
  // test_history.cpp).
  const std::string d = copy_of(std::string(WMBENCH_SOURCE_DIR) + "/results/2026-11-29-offload-footprint-h200-cpu");
  Folder f(d);
  auto s = f.read_json("summary.json");
  s["device"] = "mps";
  f.write_json("summary.json", s);
  const CheckResult r = check_result_folder(d);
  ASSERT_EQ(r.problems.size(), 1u) << all(r);
  EXPECT_EQ(r.problems[0], f.display("summary.json") + ": device \"mps\" but machine.json says \"cpu\"; compare and "
                           "history refuse the folder until its files agree (`wmbench report DIR` rebuilds summary.json "
                           "from machine.json and runs/)");
  fs::remove_all(fs::path(d).parent_path());
}

// A record that ran other settings than its cell's under the cell's label: compare would match it
// by label with another folder's cell of that name (compare/cell_settings.h).
TEST(Check, ARecordOfOtherSettingsThanItsCellIsNamed) {
  const std::string p = problems_after(kFolder, "runs/02-high-0.0.json",
                                       [](nlohmann::json& j) { j["env"]["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = "0.7"; });
  EXPECT_NE(p.find("runs/02-high-0.0.json: env {\"PYTORCH_MPS_HIGH_WATERMARK_RATIO\": \"0.7\"} but scenario.json's cell "
                   "\"high-0.0\" sets {\"PYTORCH_MPS_HIGH_WATERMARK_RATIO\": \"0.0\"}"),
            std::string::npos)
      << p;
}

// Text meant for a terminal at any depth of machine.json (issue 22): a nested string (the model's
// revision, the sandbox's kind) or a key with an escape sequence is named by its path, escaped;
// a flood of them is named ten times and counted.
TEST(Check, ControlCharactersAnywhereInMachineJsonAreNamedByTheirPath) {
  const std::string osc = "\x1b]52;c;SGVsbG8=\x07";
  std::string p = problems_after(kFolder, "machine.json", [&](nlohmann::json& j) {
    ASSERT_TRUE(j["model"].is_object());
    j["model"]["revision"] = "current" + osc;
    j["notes"] = nlohmann::json::array({"fine", "x\x1b[2J"});
    j["sandbox"]["kind" + osc] = "cgroup-v2";  // portable: a machine.json value, nothing is opened
  });
  EXPECT_NE(p.find("value of \"model.revision\" holds control characters (escape sequences): current\\u001b]52;c;"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("value of \"notes[1]\" holds control characters"), std::string::npos) << p;
  EXPECT_NE(p.find("key \"sandbox.kind\\u001b]52;c;SGVsbG8=\\u0007\" holds control characters"), std::string::npos) << p;
  EXPECT_EQ(p.find('\x1b'), std::string::npos) << "a raw escape in check's own words";

  p = problems_after(kFolder, "machine.json", [&](nlohmann::json& j) {
    for (int i = 0; i < 50; ++i) j["extra"]["k" + std::to_string(i)] = osc;
  });
  size_t named = 0;
  for (size_t at = 0; (at = p.find("holds control characters", at)) != std::string::npos; ++at) ++named;
  EXPECT_EQ(named, 10u) << p;
  EXPECT_NE(p.find("and 40 more keys or values with control characters"), std::string::npos) << p;
}

}  // namespace test_check
