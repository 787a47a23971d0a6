#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "scenario/scenario.h"

namespace test_scenario {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

std::string error_of(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> w;
  try {
    parse_scenario(text, "s.json", warnings ? *warnings : w);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

const char* kGood = R"({
  "name": "t", "device": "cpu", "step": "8MiB", "cap": "64MiB", "timeout": "30s", "repeats": 2,
  "guard": {"swap_budget": "100MiB", "kill_free": 5},
  "matrix": [{"label": "a", "env": {"X": "1"}}, {"label": "b"}]
})";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

}  // namespace

TEST(Scenario, LoadsAGoodOne) {
  std::vector<std::string> w;
  Scenario s = parse_scenario(kGood, "s.json", w);
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.device, "cpu");
  EXPECT_EQ(s.step.resolve(0), 8 * MiB);
  EXPECT_EQ(s.repeats, 2);
  EXPECT_DOUBLE_EQ(s.timeout, 30);
  EXPECT_EQ(s.guard.swap_budget.resolve(0), 100 * MiB);
  ASSERT_EQ(s.matrix.size(), 2u);
  EXPECT_EQ(s.matrix[0].env.at("X"), "1");
  EXPECT_TRUE(w.empty());
}

TEST(Scenario, ShippedWatermarkScenarioIsTheWriteUps) {
  std::vector<std::string> w;
  Scenario s = load_scenario(std::string(WMBENCH_SOURCE_DIR) + "/scenarios/mps-watermark.json", w);
  ASSERT_EQ(s.matrix.size(), 6u);
  EXPECT_TRUE(s.matrix[0].env.empty());
  EXPECT_EQ(s.matrix[1].env.at("PYTORCH_MPS_HIGH_WATERMARK_RATIO"), "0.0");
  EXPECT_EQ(s.matrix[2].env.at("PYTORCH_MPS_LOW_WATERMARK_RATIO"), "1.0");
  EXPECT_EQ(s.matrix[5].env.size(), 1u);
  EXPECT_EQ(s.step.resolve(48 * GiB), 512 * MiB);
  EXPECT_EQ(s.data, "random");
  // "0.8 alone": LOW's default 1.4 exceeds HIGH: a warning, not an error.
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("high-0.8-alone"), std::string::npos);
  EXPECT_NE(w[0].find("invalid low watermark ratio 1.4"), std::string::npos) << w[0];
}

TEST(Scenario, EachErrorNamesFileKeyValueAndWhatIsAllowed) {
  struct Case {
    std::string text, must1, must2;
  };
  std::vector<Case> cases = {
      {with("\"device\": \"cpu\"", "\"device\": \"tpu\""), "key \"device\"", "allowed: mps, cuda, cpu, mps-model"},
      {with("\"step\": \"8MiB\"", "\"step\": 8"), "key \"step\"", "expected a size string"},
      {with("\"step\": \"8MiB\"", "\"step\": \"8 parsecs\""), "key \"step\"", "unknown unit"},
      {with("\"step\": \"8MiB\"", "\"step\": \"0MiB\""), "key \"step\"", "zero"},
      {with("\"step\": \"8MiB\"", "\"step\": \"-8MiB\""), "key \"step\"", "negative"},
      {with("\"step\": \"8MiB\"", "\"step\": \"99999999999TiB\""), "key \"step\"", "too large"},
      {with("\"repeats\": 2", "\"repeats\": \"2\""), "key \"repeats\"", "whole number"},
      {with("\"repeats\": 2", "\"repeats\": 0"), "key \"repeats\"", "outside 1..1000"},
      {with("\"repeats\": 2", "\"repeat\": 2"), "unknown key (did you mean \"repeats\"?)", "allowed keys"},
      {with("\"kill_free\": 5", "\"kill_fre\": 5"), "key \"guard.kill_fre\"", "did you mean \"kill_free\""},
      {with("\"kill_free\": 5", "\"kill_free\": 150"), "key \"guard.kill_free\"", "0..100"},
      {with("\"timeout\": \"30s\"", "\"timeout\": \"soon\""), "key \"timeout\"", "duration"},
      {with("{\"label\": \"b\"}", "{\"label\": \"a\"}"), "key \"matrix[1].label\"", "duplicate"},
      {with("{\"label\": \"b\"}", "{\"label\": \"../etc\"}"), "key \"matrix[1].label\"", "path separator"},
      {with("{\"label\": \"b\"}", "{\"label\": \"..\"}"), "key \"matrix[1].label\"", "\"..\""},
      {with("{\"label\": \"b\"}", "{\"label\": \"a\\u0001b\"}"), "key \"matrix[1].label\"", "control character"},
      {with("{\"label\": \"b\"}", "{\"label\": \"\"}"), "key \"matrix[1].label\"", "empty"},
      {with("\"X\": \"1\"", "\"X\": 1"), "key \"matrix[0].env.X\"", "strings, passed verbatim"},
      {with("[{\"label\": \"a\", \"env\": {\"X\": \"1\"}}, {\"label\": \"b\"}]", "[]"), "key \"matrix\"", "empty"},
      {with("\"device\": \"cpu\",", ""), "key \"device\"", "required"},
      {with("\"cap\": \"64MiB\"", "\"cap\": \"64MiB\",,"), "s.json:2:", "malformed JSON"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find("s.json"), std::string::npos) << e;
    EXPECT_NE(e.find(c.must1), std::string::npos) << "error: " << e << "\nwanted: " << c.must1;
    EXPECT_NE(e.find(c.must2), std::string::npos) << "error: " << e << "\nwanted: " << c.must2;
  }
}

TEST(Scenario, MissingFileIsAClearError) {
  std::vector<std::string> w;
  try {
    load_scenario("/nonexistent/x.json", w);
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos);
  }
}

TEST(Scenario, NonNumericRatioWarnsThatPyTorchReadsZero) {
  std::vector<std::string> w;
  std::string t = with("\"X\": \"1\"", "\"PYTORCH_MPS_HIGH_WATERMARK_RATIO\": \"abc\"");
  EXPECT_EQ(error_of(t, &w), "");
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w[0].find("strtod as 0"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("no upper limit"), std::string::npos) << w[0];
}

TEST(Scenario, LowAboveHighWarnsUnlessHighIsZero) {
  std::vector<std::string> w;
  Cell c{"x", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.5"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.9"}}, "", std::nullopt, std::nullopt};
  check_cell_env(c, "x", w);
  ASSERT_EQ(w.size(), 1u);
  w.clear();
  Cell z{"z", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "1.9"}}, "", std::nullopt, std::nullopt};
  check_cell_env(z, "z", w);
  EXPECT_TRUE(w.empty());
  Cell d{"d", {}, "", std::nullopt, std::nullopt};
  check_cell_env(d, "d", w);
  EXPECT_TRUE(w.empty()) << "default 1.7/1.4 is fine";
}

TEST(Scenario, WarningsFollowPyTorchsCheckOrderHighFirst) {
  // MPSAllocator.mm init_allocator: setHighWatermarkRatio (0..2) before setLowWatermarkRatio.
  struct Case {
    std::map<std::string, std::string> env;
    std::string quoted;
  };
  const std::vector<Case> cases = {
      {{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "-0.1"}}, "invalid high watermark ratio -0.1"},
      {{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "2.5"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "3"}},
       "invalid high watermark ratio 2.5"},
      {{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "nan"}}, "invalid high watermark ratio nan"},
      {{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}}, "invalid low watermark ratio 1.4"},
      {{{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "2.5"}},
       "invalid low watermark ratio 2.5"},
      {{{"PYTORCH_MPS_LOW_WATERMARK_RATIO", "-1"}}, "invalid low watermark ratio -1"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> w;
    check_cell_env(Cell{"x", c.env, "", std::nullopt, std::nullopt}, "x", w);
    ASSERT_EQ(w.size(), 1u) << c.quoted;
    EXPECT_NE(w[0].find("(\"" + c.quoted + "\")"), std::string::npos) << w[0];
  }
  std::vector<std::string> w;
  check_cell_env(Cell{"ok", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "2.0"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "2.0"}}, "", std::nullopt, std::nullopt},
                 "ok", w);
  EXPECT_TRUE(w.empty()) << "2.0 is inside both bounds";
}

TEST(Scenario, RoundTripsThroughScenarioJson) {
  std::vector<std::string> w;
  Scenario s = parse_scenario(kGood, "s.json", w);
  Scenario t = parse_scenario(to_json(s).dump(), "scenario.json", w);
  EXPECT_EQ(t.name, s.name);
  EXPECT_EQ(t.matrix.size(), s.matrix.size());
  EXPECT_DOUBLE_EQ(t.timeout, s.timeout);
  EXPECT_EQ(t.guard.swap_budget.text, s.guard.swap_budget.text);
}

// Found by tests/fuzz/fuzz_scenario: an out-of-range number escaped as a JSON exception, and an
// infinite timeout made a scenario.json that could not be read back.
TEST(Scenario, FuzzFindingsStayFixed) {
  std::vector<std::string> w;
  EXPECT_THROW(parse_scenario("{\"timeout\": 1e400}", "x.json", w), ScenarioError);
  EXPECT_THROW(parse_scenario(R"({"name":"a","device":"cpu","timeout":"1e308h","matrix":[{"label":"a"}]})", "x.json", w),
               ScenarioError);
  EXPECT_THROW(parse_scenario(R"({"name":"a","device":"cpu","timeout":1e300,"matrix":[{"label":"a"}]})", "x.json", w),
               ScenarioError);
}

// Issue 41: the guard block's signals, their defaults, their errors, and scenario.json's round trip.
TEST(Scenario, GuardSignalsHaveSafeDefaultsAndRoundTrip) {
  std::vector<std::string> w;
  Scenario d = parse_scenario(kGood, "s.json", w);
  EXPECT_EQ(d.guard.pressure, "critical");
  EXPECT_EQ(d.guard.pressure_stall, 0);
  ASSERT_TRUE(d.guard.compressor_budget && d.guard.wired_budget);
  EXPECT_EQ(d.guard.compressor_budget->text, "25%RAM");
  Scenario s = parse_scenario(with(R"("kill_free": 5})", R"("kill_free": 5, "pressure": "warn", "pressure_stall": 20,
                                   "compressor_budget": "off", "wired_budget": "3GiB"})"),
                              "s.json", w);
  EXPECT_EQ(s.guard.pressure, "warn");
  EXPECT_EQ(s.guard.pressure_stall, 20);
  EXPECT_FALSE(s.guard.compressor_budget.has_value());
  ASSERT_TRUE(s.guard.wired_budget.has_value());
  EXPECT_EQ(s.guard.wired_budget->text, "3GiB");
  Scenario t = parse_scenario(to_json(s).dump(), "scenario.json", w);
  EXPECT_EQ(t.guard.pressure, "warn");
  EXPECT_EQ(t.guard.pressure_stall, 20);
  EXPECT_FALSE(t.guard.compressor_budget.has_value());
  EXPECT_EQ(t.guard.wired_budget->text, "3GiB");
}

TEST(Scenario, GuardSignalErrorsNameKeyValueAndWhatIsAllowed) {
  const std::string e1 = error_of(with(R"("kill_free": 5})", R"("kill_free": 5, "pressure": "urgent"})"));
  EXPECT_NE(e1.find("guard.pressure"), std::string::npos) << e1;
  EXPECT_NE(e1.find("critical, warn, off"), std::string::npos) << e1;
  const std::string e2 = error_of(with(R"("kill_free": 5})", R"("kill_free": 5, "pressure_stall": 101})"));
  EXPECT_NE(e2.find("guard.pressure_stall"), std::string::npos) << e2;
  const std::string e3 = error_of(with(R"("kill_free": 5})", R"("kill_free": 5, "wired_budget": 7})"));
  EXPECT_NE(e3.find("guard.wired_budget"), std::string::npos) << e3;
}

}  // namespace test_scenario
