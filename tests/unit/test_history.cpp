// wmbench history: series over the committed folders (results/*/), over the crafted series of
// tests/data/history/ (a release that changes a stop reason, held memory drifting past the
// tolerance, several Macs, mixed scenarios and devices), the exit codes and the output formats,
// all through run_history, the function the CLI calls.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "../scratch_dir.h"
#include <nlohmann/json.hpp>

#include "history/history.h"

namespace test_history {  // one namespace per test file: the unity build compiles 8 files as one

namespace fs = std::filesystem;
using nlohmann::json;
using namespace wmb::history;

namespace {

const std::string kData = std::string(WMBENCH_TEST_DATA) + "/history";
const std::string kResults = std::string(WMBENCH_SOURCE_DIR) + "/results";

std::vector<std::string> folders_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct Result {
  int rc;
  std::string out, err;
};

Result run(std::vector<std::string> dirs, OutputFormat format = OutputFormat::text, const std::string& by = "date",
           const std::string& tolerance = "5", const std::string& scenario = "") {
  HistoryOptions o;
  o.dirs = std::move(dirs);
  o.format = format;
  o.by = by;
  o.tolerance = tolerance;
  o.scenario = scenario;
  std::ostringstream out, err;
  const int rc = run_history(o, out, err);
  return {rc, out.str(), err.str()};
}

json run_json(std::vector<std::string> dirs, const std::string& by = "date", const std::string& tolerance = "5",
              const std::string& scenario = "", int expect_rc = -1) {
  auto r = run(std::move(dirs), OutputFormat::json, by, tolerance, scenario);
  if (expect_rc >= 0) EXPECT_EQ(r.rc, expect_rc) << r.err;
  return json::parse(r.out);
}

const json* find_setting(const json& series, const std::string& label) {
  for (const auto& s : series["settings"])
    if (s["label"] == label) return &s;
  return nullptr;
}

}  // namespace

TEST(History, CommittedFoldersEveryOneShownInItsSeries) {
  const auto dirs = folders_under(kResults);
  ASSERT_GE(dirs.size(), 6u);
  auto r = run(dirs);
  ASSERT_NE(r.rc, 2) << r.err;
  for (const auto& d : dirs) EXPECT_NE(r.out.find(d), std::string::npos) << d << " missing from\n" << r.out;
  const json h = run_json(dirs);
  // What each folder says of itself, read here directly: its scenario's name, its device, and its
  // child (machine.json "child.kind"; a folder without the key was made by the native child).
  std::map<std::string, size_t> expected;
  std::map<std::string, std::string> child_of;
  for (const auto& d : dirs) {
    std::ifstream ms(d + "/machine.json"), ss(d + "/scenario.json");
    const json m = json::parse(ms), sc = json::parse(ss);
    ++expected[sc["name"].get<std::string>() + "/" + m["device"].get<std::string>()];
    child_of[std::filesystem::path(d).lexically_normal().string()] =
        m.contains("child") && m["child"].is_object() ? m["child"]["kind"].get<std::string>() : "native";
  }
  std::map<std::string, size_t> sizes;
  size_t total = 0;
  for (const auto& s : h["series"]) {
    sizes[s["scenario"].get<std::string>() + "/" + s["device"].get<std::string>()] = s["folders"].size();
    total += s["folders"].size();
    for (const auto& f : s["folders"]) {
      EXPECT_EQ(f["scenario"], s["scenario"]);
      EXPECT_EQ(f["device"], s["device"]);  // devices never mixed
      const std::string path = std::filesystem::path(f["folder"].get<std::string>()).lexically_normal().string();
      if (child_of.count(path)) {
        EXPECT_EQ(f["child"], child_of[path]) << path;
      } else {
        ADD_FAILURE() << "history names a folder it was not given: " << path;
      }
    }
  }
  EXPECT_EQ(total, dirs.size());
  EXPECT_EQ(sizes, expected);
  // The committed series include at least: the model's watermark table, the CUDA fraction on the
  // H200 with both children, and the offload footprint on cpu and cuda.
  EXPECT_GE(sizes["mps-watermark/mps-model"], 3u);
  EXPECT_GE(sizes["cuda-fraction/cuda"], 1u);
  EXPECT_GE(sizes["offload-footprint/cpu"], 1u);
  EXPECT_GE(sizes["offload-footprint/cuda"], 1u);
  // As many scenarios as the folders name (each new committed scenario, e.g. a tune folder's, adds one).
  std::set<std::string> scenarios;
  for (const auto& [key, n] : expected) scenarios.insert(key.substr(0, key.find('/')));
  EXPECT_NE(r.out.find(std::to_string(scenarios.size()) + " scenarios; --scenario NAME shows one"), std::string::npos) << r.out;
  // On cuda the device total is not called "recommended max".
  for (const auto& s : h["series"]) {
    if (s["device"] != "cuda") continue;
    EXPECT_TRUE(s["folders"][0].contains("device_memory_bytes"));
    EXPECT_FALSE(s["folders"][0].contains("recommended_max_bytes"));
  }
}

TEST(History, CommittedWatermarkSeriesNamesTheSetupThatDiffers) {
  // The folders of 2026-11-29: the sandboxed model run and the torch pair (later folders of the
  // series, such as the regenerated sandbox run of 2026-12-01, would be the newest instead).
  std::vector<std::string> dirs;
  for (const auto& d : folders_under(kResults))
    if (std::filesystem::path(d).filename().string().rfind("2026-11-29-", 0) == 0) dirs.push_back(d);
  auto r = run(dirs, OutputFormat::text, "date", "5", "mps-watermark");
  ASSERT_NE(r.rc, 2) << r.err;
  EXPECT_NE(r.out.find("skipped: " + kResults + "/2026-11-29-cuda-fraction-h200"), std::string::npos) << r.out;
  // By date: the sandboxed run (guard) comes first, then the torch 2.11 pair (cap): the stop
  // reason changed because the set-up did (a 2 GiB sandbox, then none): not comparable, a note
  // and no regression (compare/comparable.h); the setup note says the rest (another cap).
  EXPECT_EQ(r.out.find("! REGRESSION"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not comparable: the set-up changed (sandbox 2.00 GiB -> none)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("setup differs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sandbox 2 GiB"), std::string::npos) << r.out;
  // The newest (the 1.13 pair) against the 2.11 pair: the same, as the README says.
  EXPECT_NE(r.out.find("newest (#3) vs #2: no regression."), std::string::npos) << r.out;
  EXPECT_EQ(r.rc, 0);
}

TEST(History, CommittedFoldersShowNoRegressionCausedByAModelChange) {
  // `wmbench history results/*/`: the 2026-11-29 watermark folders predate the heap model (no
  // model version, no tier_scale), the 2026-12-01 one is the heap model: not comparable, exit 0.
  const auto dirs = folders_under(kResults);
  auto r = run(dirs);
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not comparable: the model changed (model version older (before the heap model"),
            std::string::npos)
      << r.out;
}

TEST(History, ReleaseThatChangesAStopReasonIsARegressionOfTheNewest) {
  // Given newest first: the date order puts 2.8.0, 2.9.0, 2.10.0.
  auto dirs = folders_under(kData + "/release");
  std::reverse(dirs.begin(), dirs.end());
  const json h = run_json(dirs, "date", "5", "", 1);
  ASSERT_EQ(h["series"].size(), 1u);
  const json& s = h["series"][0];
  ASSERT_EQ(s["folders"].size(), 3u);
  EXPECT_EQ(s["folders"][0]["torch_version"], "2.8.0");
  EXPECT_EQ(s["folders"][2]["torch_version"], "2.10.0");
  EXPECT_EQ(s["folders"][0]["os"], "macOS 15.5 (24F74), Mac16,5");
  EXPECT_TRUE(s["newest_regressed"].get<bool>());
  const json* row = find_setting(s, "high-1.0-low-1.0");
  ASSERT_NE(row, nullptr);
  EXPECT_FALSE((*row)["cells"][1]["vs_previous"]["regression"].get<bool>());  // 2.8 -> 2.9: same
  EXPECT_TRUE((*row)["cells"][2]["vs_previous"]["regression"].get<bool>());
  EXPECT_NE((*row)["cells"][2]["vs_previous"]["verdict"].get<std::string>().find("stop reason changed"),
            std::string::npos);
  // The same verdict `compare` gives for the pair.
  EXPECT_EQ(s["steps"][1]["regressions"], 1);
  const json* def = find_setting(s, "default");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ((*def)["cells"][2]["vs_previous"]["verdict"], "ok");
  // Markdown: the regression in bold, the verdict at the end.
  auto md = run(dirs, OutputFormat::markdown);
  EXPECT_EQ(md.rc, 1);
  EXPECT_NE(md.out.find("### mps-watermark on `mps`: 3 folders"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("**REGRESSION: stop reason changed"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("**REGRESSION: the newest folder regressed against the one before it in: mps-watermark on mps.**"),
            std::string::npos)
      << md.out;
}

TEST(History, HeldMemoryDriftingPastTheTolerance) {
  const auto dirs = folders_under(kData + "/drift");
  const json h = run_json(dirs, "torch", "5", "", 1);
  const json& s = h["series"][0];
  const json* def = find_setting(s, "default");
  ASSERT_NE(def, nullptr);
  EXPECT_FALSE((*def)["cells"][1]["vs_previous"]["regression"].get<bool>());  // +4.0 %: within 5 %
  EXPECT_TRUE((*def)["cells"][2]["vs_previous"]["regression"].get<bool>());   // +5.8 %: beyond
  EXPECT_NE((*def)["cells"][2]["vs_previous"]["verdict"].get<std::string>().find("held more (+5.8 %)"),
            std::string::npos)
      << (*def)["cells"][2].dump();
  EXPECT_EQ(s["folders"][0]["child"], "python");
  // A wider tolerance: no regression, exit 0; a narrower one catches the first step too.
  EXPECT_EQ(run(dirs, OutputFormat::text, "torch", "6").rc, 0);
  const json narrow = run_json(dirs, "torch", "3", "", 1);
  EXPECT_TRUE((*find_setting(narrow["series"][0], "default"))["cells"][1]["vs_previous"]["regression"].get<bool>());
}

TEST(History, ByMachineOrdersByRam) {
  const json h = run_json(folders_under(kData + "/macs"), "machine");
  const json& f = h["series"][0]["folders"];
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]["chip"], "Apple M4");
  EXPECT_EQ(f[1]["chip"], "Apple M4 Pro");
  EXPECT_EQ(f[2]["chip"], "Apple M4 Max");
  EXPECT_LT(f[0]["ram_bytes"].get<uint64_t>(), f[1]["ram_bytes"].get<uint64_t>());
}

TEST(History, MixedScenariosAndDevicesAreSeparateSeriesOrSkipped) {
  std::vector<std::string> dirs = folders_under(kData + "/release");
  for (const auto& d : folders_under(kData + "/mixed")) dirs.push_back(d);
  const json h = run_json(dirs);
  ASSERT_EQ(h["series"].size(), 3u);  // mps-watermark/mps, compression-trap/mps, mps-watermark/mps-model
  std::set<std::string> keys;
  for (const auto& s : h["series"]) keys.insert(s["scenario"].get<std::string>() + "/" + s["device"].get<std::string>());
  EXPECT_TRUE(keys.count("mps-watermark/mps"));
  EXPECT_TRUE(keys.count("mps-watermark/mps-model"));
  EXPECT_TRUE(keys.count("compression-trap/mps"));
  const json only = run_json(dirs, "date", "5", "mps-watermark");
  ASSERT_EQ(only["skipped"].size(), 1u);
  EXPECT_EQ(only["skipped"][0]["scenario"], "compression-trap");
  EXPECT_EQ(only["series"].size(), 2u);  // mps and mps-model stay apart
  auto text = run(dirs, OutputFormat::text, "date", "5", "mps-watermark");
  EXPECT_NE(text.out.find("skipped: " + kData + "/mixed/2026-11-06-compression-trap (scenario \"compression-trap\""),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("MODEL of a 64 GiB Mac on Apple M4 Max"), std::string::npos) << text.out;
}

TEST(History, BadInputIsExit2NamingTheFolder) {
  const std::string good = folders_under(kData + "/release")[0];
  auto missing = run({good, kData + "/no-such-folder"});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("no-such-folder"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());

  const fs::path tmp = fs::temp_directory_path() / ("wmbench-history-test-" + std::to_string(::getpid()));
  fs::create_directories(tmp / "broken");
  { std::ofstream(tmp / "broken" / "summary.json") << "{\"scenario\": \"x\", \"runs\": ["; }
  auto broken = run({good, (tmp / "broken").string()});
  EXPECT_EQ(broken.rc, 2);
  EXPECT_NE(broken.err.find((tmp / "broken" / "summary.json").string()), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("malformed JSON"), std::string::npos) << broken.err;

  fs::create_directories(tmp / "badchild");
  fs::copy(good, tmp / "badchild", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  {
    json m = json::parse(std::ifstream(tmp / "badchild" / "machine.json"));
    m["child"] = {{"kind", "rust"}};
    std::ofstream(tmp / "badchild" / "machine.json") << m.dump();
  }
  auto badchild = run({(tmp / "badchild").string()});
  EXPECT_EQ(badchild.rc, 2);
  EXPECT_NE(badchild.err.find("\"child\".\"kind\" must be \"native\", \"python\" or \"command\""), std::string::npos) << badchild.err;

  EXPECT_EQ(run({good, good + "/"}).rc, 2);  // the same folder twice
  // `results/*` names results/README.md too: a plain file is said and skipped, alone it is exit 2.
  const std::string readme = std::string(WMBENCH_SOURCE_DIR) + "/results/README.md";
  auto with_file = run({good, readme});
  EXPECT_EQ(with_file.rc, 0) << with_file.err;
  EXPECT_NE(with_file.err.find("skipped " + readme + ": a file, not a result folder"), std::string::npos);
  EXPECT_EQ(run({readme}).rc, 2);
  EXPECT_EQ(run({good}, OutputFormat::text, "size").rc, 2);
  EXPECT_EQ(run({good}, OutputFormat::text, "date", "-1").rc, 2);
  EXPECT_EQ(run({}).rc, 2);
  fs::remove_all(tmp);
}

TEST(History, OneFolderIsASeriesWithNothingToCompare) {
  auto r = run({folders_under(kData + "/release")[0]});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("one folder: nothing to compare yet."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(first)"), std::string::npos) << r.out;
}

// ---- Issue 22, class H -------------------------------------------------------------------------

TEST(History, ALabelThatRanOtherSettingsIsSaidNeverCountedAsNoRegression) {
  // tests/data/history/settings: the scenario was edited between the folders and kept its labels.
  const auto dirs = folders_under(kData + "/settings");
  ASSERT_EQ(dirs.size(), 2u);
  auto r = run(dirs);
  EXPECT_EQ(r.rc, 0) << r.err;  // nothing regressed; history's 0 (compare's would be 3)
  EXPECT_NE(r.out.find("not comparable: the settings differ under one label (PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> "
                       "0.7; PYTORCH_MPS_LOW_WATERMARK_RATIO 0.8 -> 0.7)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not comparable: the settings differ under one label (memory_fraction none -> 0.5)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("newest (#2) vs #1: not comparable: 2 of 4 settings ran other settings under the same label, "
                       "no regression counted."),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("vs #1: no regression."), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not comparable with the one before it, so no regression claimed, in: mps-watermark on mps."),
            std::string::npos)
      << r.out;
  const json h = run_json(dirs, "date", "5", "", 0);
  EXPECT_TRUE(h["series"][0]["newest_not_comparable"].get<bool>());
  EXPECT_EQ(h["series"][0]["steps"][0]["exit_code"], 3);
  EXPECT_EQ(h["series"][0]["steps"][0]["settings_differ"], 2);
  const json* row = find_setting(h["series"][0], "high-0.8-low-0.8");
  ASSERT_NE(row, nullptr);
  EXPECT_FALSE((*row)["cells"][1]["vs_previous"]["regression"].get<bool>());
  // The same pair through `wmbench compare`: exit 3, not 0 ("no regression") and not 1.
  wmb::compare::CompareOptions o;
  o.base_dir = dirs[0];
  o.new_dir = dirs[1];
  std::ostringstream out, err;
  EXPECT_EQ(wmb::compare::run_compare(o, out, err), 3) << out.str() << err.str();
}

TEST(History, AFolderWhoseSummarySaysMpsWhileMachineJsonSaysCpuIsRefusedNamingBoth) {
  // tests/data/history/device: summary.json "device" mps, machine.json and the run records cpu.
  // Before issue 22 it became a series "mps-watermark on mps" of its own, without a word.
  const std::string bad = kData + "/device/2026-11-12-mps-watermark-summary-says-mps";
  std::vector<std::string> dirs = folders_under(kData + "/release");
  dirs.push_back(bad);
  auto r = run(dirs);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(bad + ": its files disagree on the device it measured: machine.json says \"cpu\", summary.json "
                             "\"device\" says \"mps\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("`wmbench report " + bad + "` rebuilds it from machine.json and runs/"), std::string::npos) << r.err;

  // A committed folder with run records, copied: a run record (and the summary with it) says cpu
  // while machine.json says mps-model. The record is named, and no summary-only fix is offered.
  const fs::path tmp = wmbt_scratch::new_dir("history-device");
  const fs::path d = tmp / "f";
  fs::copy(kResults + "/2026-11-29-mps-watermark", d, fs::copy_options::recursive);
  for (const std::string file : {"runs/01-default.json", "summary.json"}) {
    json j = json::parse(std::ifstream(d / file));
    if (file == "summary.json") j["runs"][0]["device"] = "cpu";
    else j["device"] = "cpu";
    std::ofstream(d / file) << j.dump(2);
  }
  auto r2 = run({d.string()});
  EXPECT_EQ(r2.rc, 2);
  EXPECT_NE(r2.err.find("machine.json says \"mps-model\""), std::string::npos) << r2.err;
  EXPECT_NE(r2.err.find("runs/01-default.json says \"cpu\""), std::string::npos) << r2.err;
  EXPECT_EQ(r2.err.find("wmbench report"), std::string::npos) << r2.err;
  fs::remove_all(tmp);
}

TEST(History, FoldersOfDifferentDevicesAreSeparateSeriesAndCompareCallsThemNotComparable) {
  // The committed offload footprint on the H200, cpu and cuda: two series in history; compare of
  // the pair is not comparable (exit 3), never a REGRESSION.
  const std::string cpu = kResults + "/2026-11-29-offload-footprint-h200-cpu",
                    cuda = kResults + "/2026-11-29-offload-footprint-h200-cuda";
  const json h = run_json({cpu, cuda}, "date", "5", "", 0);
  ASSERT_EQ(h["series"].size(), 2u);
  EXPECT_NE(h["series"][0]["device"], h["series"][1]["device"]);
  wmb::compare::CompareOptions o;
  o.base_dir = cpu;
  o.new_dir = cuda;
  std::ostringstream out, err;
  EXPECT_EQ(wmb::compare::run_compare(o, out, err), 3) << out.str() << err.str();
  EXPECT_NE(out.str().find("note: not comparable: the devices differ (device cpu -> cuda)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("REGRESSION"), std::string::npos) << out.str();
}

}  // namespace test_history
