// compare/comparable.h: folders of different devices, or whose model (version, revision, other
// allocations) or set-up (step, sandbox) differ, are "not comparable": what would be a REGRESSION
// is a note, nothing is claimed (exit 3), and a label only in BASE still regresses (exit 1).
// compare/cell_settings.h: a label whose settings differ between the folders is not comparable.
// In memory: compare_folders on crafted ResultFolders (the same function `wmbench compare` and
// `wmbench history` call).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/units.h"
#include "compare/comparable.h"
#include "compare/compare.h"
#include "readback/folder_device.h"
#include "mpsmodel/revision.h"

namespace test_comparable {  // one namespace per test file: the unity build compiles 8 files as one

using nlohmann::json;
using namespace wmb;
using namespace wmb::compare;

namespace {

json run_of(const std::string& label, const std::string& stopped_by, uint64_t held, uint64_t step = 32 * MiB) {
  return {{"index", 1},         {"label", label}, {"repeat", 1},          {"device", "mps-model"},
          {"stopped_by", stopped_by}, {"held_bytes", held}, {"step_bytes", step}, {"max_allowed_bytes", nullptr}};
}

ResultFolder folder(const std::string& path, const json& model, const std::vector<json>& runs,
                    const json& sandbox = nullptr) {
  ResultFolder f;
  f.path = path;
  f.machine = {{"device", "mps-model"}, {"torch_version", "1.13.0"}, {"chip", "x"}, {"model", model},
               {"sandbox", sandbox}};
  f.summary = {{"schema_version", 1}, {"scenario", "mps-watermark"}, {"device", "mps-model"}, {"runs", runs},
               {"not_run", json::array()}};
  return f;
}

const json kOlder = {{"recommended_max_bytes", 2 * GiB}};  // 2026-11-29: no version, no tier_scale
const json kHeap = {{"recommended_max_bytes", 2 * GiB}, {"revision", "current"}, {"tier_scale", 16.0},
                    {"other_bytes", 448 * KiB}};  // 2026-12-01: tier_scale, no version
json heap_with(const char* key, const json& v) {
  json m = kHeap;
  m[key] = v;
  return m;
}

}  // namespace

TEST(Comparable, ModelVersionChangeIsANoteNotARegression) {
  const auto b = folder("b", kOlder, {run_of("high-0.8-low-0.8", "pytorch", 1 * GiB), run_of("default", "guard", GiB)});
  const auto n = folder("n", kHeap, {run_of("high-0.8-low-0.8", "guard", 1 * GiB), run_of("default", "guard", GiB)});
  const Comparison c = compare_folders(b, n);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_TRUE(c.ok());
  ASSERT_FALSE(c.not_comparable.empty());
  bool noted = false;
  for (const auto& note : c.notes) noted |= note.rfind("not comparable: the model changed (model version older", 0) == 0;
  EXPECT_TRUE(noted) << format_text(c);
  EXPECT_EQ(c.rows[0].verdict, "not comparable: the model changed (stop reason changed)");
  EXPECT_FALSE(c.rows[0].regression);
  EXPECT_EQ(c.rows[1].verdict, "ok");
  EXPECT_NE(format_text(c).find("NOT COMPARABLE: no regression counted"), std::string::npos) << format_text(c);
  EXPECT_EQ(to_json(c)["not_comparable"].size(), c.not_comparable.size());
}

TEST(Comparable, SameModelStillRegresses) {
  // tier_scale without a version is the heap model (2), the same as a folder that writes 2.
  const auto b = folder("b", kHeap, {run_of("x", "pytorch", GiB)});
  const auto n = folder("n", heap_with("version", mpsmodel::kModelVersion), {run_of("x", "guard", GiB)});
  const Comparison c = compare_folders(b, n);
  EXPECT_TRUE(c.not_comparable.empty()) << c.notes.back();
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.rows[0].verdict, "REGRESSION: stop reason changed");
}

TEST(Comparable, RevisionOtherAllocationsStepAndSandboxEachMakeItNotComparable) {
  struct Case {
    ResultFolder b, n;
    std::string says;
  };
  const std::vector<json> p = {run_of("x", "pytorch", GiB)}, g = {run_of("x", "guard", GiB)};
  const std::vector<Case> cases = {
      {folder("b", kHeap, p), folder("n", heap_with("revision", "legacy"), g),
       "not comparable: the model changed (model revision current -> legacy)"},
      {folder("b", kHeap, p), folder("n", heap_with("other_bytes", 2 * GiB), g),
       "not comparable: the model changed (other allocations 448.00 KiB -> 2.00 GiB)"},
      {folder("b", kHeap, p), folder("n", kHeap, {run_of("x", "guard", GiB, 64 * MiB)}),
       "not comparable: the set-up changed (step 32.00 MiB -> 64.00 MiB)"},
      {folder("b", kHeap, p, json{{"ram_limit_bytes", 2 * GiB}}), folder("n", kHeap, g),
       "not comparable: the set-up changed (sandbox 2.00 GiB -> none)"},
  };
  for (const auto& c : cases) {
    const Comparison r = compare_folders(c.b, c.n);
    EXPECT_EQ(r.regressions, 0) << c.says;
    ASSERT_FALSE(r.notes.empty()) << c.says;
    EXPECT_EQ(r.notes.back(), c.says);
  }
}

TEST(Comparable, ALabelOnlyInBaseStillRegresses) {
  const auto b = folder("b", kOlder, {run_of("x", "guard", GiB), run_of("gone", "guard", GiB)});
  const auto n = folder("n", kHeap, {run_of("x", "pytorch", GiB)});
  const Comparison c = compare_folders(b, n);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.rows[1].verdict, "REGRESSION: only in base");
  EXPECT_FALSE(c.rows[0].regression);
}

TEST(Comparable, HostileModelValuesAreUnknownNotAnError) {
  EXPECT_EQ(model_version_text(json{{"version", "two"}}), "unknown (not a small whole number)");
  EXPECT_EQ(model_version_text(json{{"version", -1}}), "unknown (not a small whole number)");
  EXPECT_EQ(model_version_text(json{{"version", 1e300}}), "unknown (not a small whole number)");
  EXPECT_EQ(model_version_text(json{{"version", 99}}), "99 (not a version wmbench knows)");
  EXPECT_EQ(model_version_text(json()), "");
  const auto b = folder("b", json{{"revision", 7}, {"other_bytes", "many"}}, {run_of("x", "guard", GiB)});
  const auto n = folder("n", json{{"revision", 7}, {"other_bytes", -3}}, {run_of("x", "guard", GiB)});
  EXPECT_NO_THROW(compare_folders(b, n));
}

// ---- Issue 22, class H: folders of different devices, and labels whose settings differ ---------

namespace {

ResultFolder on_device(const std::string& path, const std::string& device, const std::vector<json>& runs) {
  ResultFolder f;
  f.path = path;
  f.machine = {{"device", device}, {"torch_version", "1.13.0"}, {"chip", "x"}, {"sandbox", nullptr}};
  json r = json::array();
  for (json run : runs) {
    run["device"] = device;
    r.push_back(run);
  }
  f.summary = {{"schema_version", 1}, {"scenario", "mps-watermark"}, {"device", device}, {"runs", r},
               {"not_run", json::array()}};
  return f;
}

json with_env(json run, const json& env) {
  run["env"] = env;
  return run;
}

}  // namespace

TEST(Comparable, FoldersOfDifferentDevicesAreNotComparableNeverARegression) {
  // cpu against mps-model (and mps against mps-model): what would be a REGRESSION (another stop
  // reason, other held memory) is a note; nothing is claimed either way (exit 3).
  for (const char* other : {"mps-model", "mps"}) {
    const auto b = on_device("b", "cpu", {run_of("high-0.8-low-0.8", "cap", GiB), run_of("default", "cap", GiB)});
    const auto n = on_device("n", other, {run_of("high-0.8-low-0.8", "pytorch", GiB / 2), run_of("default", "cap", GiB)});
    const Comparison c = compare_folders(b, n);
    EXPECT_EQ(c.regressions, 0) << other;
    EXPECT_FALSE(c.claims_no_regression());
    EXPECT_EQ(c.exit_code(), 3);
    ASSERT_FALSE(c.notes.empty());
    EXPECT_EQ(c.notes.back(), std::string("not comparable: the devices differ (device cpu -> ") + other + ")");
    EXPECT_EQ(c.rows[0].verdict, "not comparable: the devices differ (stop reason changed, held less (-50.0 %))");
    const std::string text = format_text(c);
    EXPECT_EQ(text.find("REGRESSION"), std::string::npos) << text;
    EXPECT_NE(text.find("NOT COMPARABLE: no regression counted"), std::string::npos) << text;
    EXPECT_EQ(to_json(c)["ok"], false);
    EXPECT_EQ(to_json(c)["exit_code"], 3);
  }
  // A label only in BASE still regresses across devices (exit 1): a setting did not run.
  const auto b = on_device("b", "cpu", {run_of("x", "cap", GiB), run_of("gone", "cap", GiB)});
  const auto n = on_device("n", "mps-model", {run_of("x", "guard", GiB)});
  EXPECT_EQ(compare_folders(b, n).exit_code(), 1);
}

TEST(Comparable, TheSameLabelWithOtherSettingsIsNotComparableNeverNoRegression) {
  const json h08 = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}}, h07 = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.7"}};
  // Same numbers under one label with HIGH 0.8 and 0.7: before issue 22 "no regression".
  const auto b = folder("b", kHeap, {with_env(run_of("high", "pytorch", GiB), h08), run_of("default", "guard", GiB)});
  const auto n = folder("n", kHeap, {with_env(run_of("high", "pytorch", GiB), h07), run_of("default", "guard", GiB)});
  const Comparison c = compare_folders(b, n);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.settings_differ, 1);
  EXPECT_EQ(c.compared, 1);
  EXPECT_FALSE(c.claims_no_regression());
  EXPECT_EQ(c.exit_code(), 3);
  EXPECT_EQ(c.rows[0].verdict, "not comparable: the settings differ under one label (PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7)");
  EXPECT_EQ(c.rows[1].verdict, "ok");
  const std::string text = format_text(c);
  EXPECT_EQ(text.find("OK: no regression"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT COMPARABLE: no regression counted (1 of 2 settings not compared"), std::string::npos) << text;
  EXPECT_NE(format_markdown(c).find("### wmbench compare: mps-watermark (torch 1.13.0 -> 1.13.0): not comparable"),
            std::string::npos);
  EXPECT_EQ(to_json(c)["rows"][0]["settings_differ"][0], "PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7");

  // Different numbers under one label of other settings: the changes are notes, not a REGRESSION.
  const auto n2 = folder("n", kHeap, {with_env(run_of("high", "guard", 2 * GiB), h07), run_of("default", "guard", GiB)});
  const Comparison c2 = compare_folders(b, n2);
  EXPECT_EQ(c2.regressions, 0);
  EXPECT_FALSE(c2.rows[0].regression);
  EXPECT_EQ(c2.rows[0].notes.front(), "stop reason changed");
  // Alongside a real regression the exit is 1, and the row of other settings still is no regression.
  const auto n3 = folder("n", kHeap, {with_env(run_of("high", "guard", 2 * GiB), h07), run_of("default", "pytorch", GiB)});
  const Comparison c3 = compare_folders(b, n3);
  EXPECT_EQ(c3.regressions, 1);
  EXPECT_EQ(c3.exit_code(), 1);
  EXPECT_FALSE(c3.rows[0].regression);
  EXPECT_NE(format_text(c3).find("not comparable, the settings differ under one label: 1"), std::string::npos);
}

TEST(Comparable, EachSettingOfALabelIsCompared) {
  struct Case {
    const char* key;
    json base, now;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"env", json{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}},
       json{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.7"}},
       "PYTORCH_MPS_LOW_WATERMARK_RATIO unset -> 0.7"},
      {"memory_fraction", nullptr, 0.5, "memory_fraction none -> 0.5"},
      {"memory_fraction", 0.8, 0.7, "memory_fraction 0.8 -> 0.7"},
      {"program", "fill", "offload", "program fill -> offload"},
      {"data", "random", "zeros", "data random -> zeros"},
      // Not listed in the issue: the child saw a PYTORCH_* variable of wmbench's environment that
      // the cell did not set (child_environment keeps PYTORCH_* other than the MPS/CUDA limits).
      {"child_env", json::object(), json{{"PYTORCH_NO_CUDA_MEMORY_CACHING", "1"}},
       "the child saw PYTORCH_NO_CUDA_MEMORY_CACHING unset -> 1"},
  };
  for (const auto& k : cases) {
    json rb = run_of("x", "guard", GiB), rn = run_of("x", "guard", GiB);
    rb[k.key] = k.base;
    rn[k.key] = k.now;
    const Comparison c = compare_folders(folder("b", kHeap, {rb}), folder("n", kHeap, {rn}));
    EXPECT_EQ(c.rows[0].settings_differ, std::vector<std::string>{k.says}) << k.key;
    EXPECT_EQ(c.exit_code(), 3) << k.key;
  }
  // A child that died before its hello (child_env null) is no difference; neither is a missing
  // key read as run_from_json reads it (program fill, data random, env {}).
  json rb = run_of("x", "guard", GiB), rn = run_of("x", "guard", GiB);
  rb["child_env"] = nullptr;
  rn["child_env"] = json{{"PYTORCH_X", "1"}};
  rn["program"] = "fill";
  rn["data"] = "random";
  rn["env"] = json::object();
  const Comparison same = compare_folders(folder("b", kHeap, {rb}), folder("n", kHeap, {rn}));
  EXPECT_TRUE(same.rows[0].settings_differ.empty()) << same.rows[0].verdict;
  EXPECT_EQ(same.exit_code(), 0);
  // A command program's job is its argv (scenario.json "command").
  ResultFolder cb = folder("b", kHeap, {rb}), cn = folder("n", kHeap, {rb});
  cb.summary["runs"][0]["program"] = cn.summary["runs"][0]["program"] = "command";
  cb.scenario = {{"command", {"python3", "train.py"}}};
  cn.scenario = {{"command", {"python3", "infer.py"}}};
  EXPECT_EQ(compare_folders(cb, cn).rows[0].settings_differ,
            std::vector<std::string>{"command python3 train.py -> python3 infer.py"});
}

TEST(Comparable, TheSameLabelWithAnotherStepIsNotComparableWhenTheFolderStepsAgree) {
  // Not listed in the issue: same label, same env, another step. The folders' sets of steps are
  // the same ({32, 64} MiB), so the set-up check (steps_of) sees no change; the rows do.
  const auto b = folder("b", kHeap, {run_of("x", "guard", GiB, 32 * MiB), run_of("y", "guard", GiB, 64 * MiB)});
  const auto n = folder("n", kHeap, {run_of("x", "guard", GiB, 64 * MiB), run_of("y", "guard", GiB, 32 * MiB)});
  const Comparison c = compare_folders(b, n);
  EXPECT_TRUE(c.not_comparable.empty());
  EXPECT_EQ(c.settings_differ, 2);
  EXPECT_EQ(c.compared, 0);
  EXPECT_EQ(c.exit_code(), 3);
  EXPECT_EQ(c.rows[0].verdict, "not comparable: the settings differ under one label (step 32.00 MiB -> 64.00 MiB)");
  // The repeats of one side that disagree among themselves are said too.
  auto r2 = run_of("x", "guard", GiB, 32 * MiB);
  r2["repeat"] = 2;
  r2["env"] = json{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.7"}};
  const auto b2 = folder("b", kHeap, {run_of("x", "guard", GiB, 32 * MiB), r2});
  const auto n2 = folder("n", kHeap, {run_of("x", "guard", GiB, 32 * MiB)});
  EXPECT_EQ(compare_folders(b2, n2).rows[0].settings_differ,
            std::vector<std::string>{"the repeats in base differ: PYTORCH_MPS_HIGH_WATERMARK_RATIO unset -> 0.7"});
}

TEST(Comparable, AFolderWhoseFilesDisagreeOnItsDeviceIsRefusedNamingBoth) {
  auto b = on_device("b", "cpu", {run_of("x", "cap", GiB)});
  b.summary["device"] = "mps";  // summary.json says mps, machine.json and the run record cpu
  const auto n = on_device("n", "cpu", {run_of("x", "cap", GiB)});
  try {
    compare_folders(b, n);
    ADD_FAILURE() << "not refused";
  } catch (const CompareError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("b: its files disagree on the device it measured: machine.json says \"cpu\", summary.json "
                     "\"device\" says \"mps\""),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("`wmbench report b` rebuilds it"), std::string::npos) << m;
  }
  // A run record that says another device than machine.json: no summary-only fix is offered.
  auto r = on_device("r", "cpu", {run_of("x", "cap", GiB)});
  r.summary["runs"][0]["device"] = "mps";
  try {
    folder_device(r);
    ADD_FAILURE() << "not refused";
  } catch (const CompareError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json \"runs\"[0] (\"x\") says \"mps\""), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("wmbench report"), std::string::npos) << e.what();
  }
  EXPECT_EQ(folder_device(n), "cpu");
}

}  // namespace test_comparable
