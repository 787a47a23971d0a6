// compare/comparable.h: folders whose model (version, revision, other allocations) or set-up
// (step, sandbox) differ are "not comparable": what would be a REGRESSION is a note, the exit code
// is 0 (nothing regressed), and a label only in BASE still regresses. In memory: compare_folders
// on crafted ResultFolders (the same function `wmbench compare` and `wmbench history` call).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/units.h"
#include "compare/comparable.h"
#include "compare/compare.h"
#include "mpsmodel/revision.h"

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
