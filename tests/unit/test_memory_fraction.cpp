// The memory-fraction API in the model (mpsmodel/memory_fraction.h, watermark.h validate,
// heap_allocator set_memory_fraction), the scenario key "memory_fraction" and its warnings.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/units.h"
#include "errparse/error_parser.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/memory_fraction.h"
#include "mpsmodel/predict.h"
#include "mpsmodel/revision.h"
#include "scenario/scenario.h"

namespace test_memory_fraction {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;
using namespace wmb::mpsmodel;

namespace {

WatermarkConfig cfg(std::map<std::string, std::string> env, std::optional<double> f) {
  WatermarkConfig c = read_watermark_config_from_map(env);
  c.memory_fraction = f;
  return c;
}

std::string error_of(std::map<std::string, std::string> env, double f) {
  MpsAllocatorModel m(read_watermark_config_from_map(env), 4 * GiB);
  try {
    m.set_memory_fraction(f);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> warnings_of(const std::string& cell_json, const std::string& device = "mps-model") {
  std::vector<std::string> w;
  parse_scenario(R"({"name": "f", "device": ")" + device + R"(", "matrix": [)" + cell_json + "]}", "f.json", w);
  return w;
}

}  // namespace

TEST(MemoryFraction, PythonFloatReprAsPythonPrintsIt) {
  // Each expectation printed by python3 (repr(v) == f"{v}").
  const std::vector<std::pair<double, std::string>> cases = {
      {2.5, "2.5"},     {-0.1, "-0.1"},       {3.0, "3.0"},
      {1e20, "1e+20"},  {1e-5, "1e-05"},      {2.0000001, "2.0000001"},
      {1e16, "1e+16"},  {1e15, "1000000000000000.0"}, {123456789012345680.0, "1.2345678901234568e+17"},
      {0.1 + 0.2, "0.30000000000000004"}, {-2.0, "-2.0"}, {1e-4, "0.0001"}, {5e-324, "5e-324"}};
  for (const auto& [v, text] : cases) EXPECT_EQ(python_float_repr(v), text);
}

TEST(MemoryFraction, MaxAllowedIsFTimesRecommendedToTheByte) {
  const uint64_t rec = 38654705664ull + 12345;  // not a round number
  for (double f : {0.8, 0.5, 1.0, 1.7, 2.0, 0.123456789}) {
    const Limits l = compute_limits(cfg({}, f), rec);
    EXPECT_EQ(l.max_allowed, static_cast<uint64_t>(f * static_cast<double>(rec))) << f;
    EXPECT_EQ(l.low_limit, static_cast<uint64_t>(1.4 * static_cast<double>(rec))) << "LOW stays the default";
  }
  EXPECT_FALSE(compute_limits(cfg({}, 0.0), rec).limited()) << "0.0: no limit, as setHighWatermarkRatio(0.0)";
  // The variables' HIGH 0.0 lets LOW up to 2.0 at the start; the fraction then sets the limit.
  EXPECT_EQ(compute_limits(cfg({{kHighEnv, "0.0"}}, 0.5), rec).max_allowed,
            static_cast<uint64_t>(0.5 * static_cast<double>(rec)));
}

TEST(MemoryFraction, HighOnlyNoLowCheckButTheVariablesStillChecked) {
  EXPECT_EQ(validate(cfg({}, 0.8)), std::nullopt) << "F = 0.8 with LOW at its 1.4 default runs";
  EXPECT_EQ(validate(cfg({{kHighEnv, "0.8"}}, std::nullopt)).value_or(""), "invalid low watermark ratio 1.4");
  // The allocator starts inside the call, so a bad variable is still refused, with its own text.
  EXPECT_EQ(error_of({{kHighEnv, "0.8"}}, 0.8), "invalid low watermark ratio 1.4");
  EXPECT_EQ(error_of({{kHighEnv, "-0.1"}}, 0.8), "invalid high watermark ratio -0.1");
  EXPECT_EQ(error_of({}, 0.8), "");
}

TEST(MemoryFraction, OutOfRangeIsTheValueErrorFirst) {
  EXPECT_EQ(error_of({}, 2.5), "Invalid fraction value: 2.5. Allowed range: 0~2");
  EXPECT_EQ(error_of({}, -0.1), "Invalid fraction value: -0.1. Allowed range: 0~2");
  EXPECT_EQ(error_of({}, 3.0), "Invalid fraction value: 3.0. Allowed range: 0~2");
  // torch/mps/__init__.py checks the fraction before the allocator starts: before the variables.
  EXPECT_EQ(error_of({{kHighEnv, "-1"}}, 2.5), "Invalid fraction value: 2.5. Allowed range: 0~2");
  EXPECT_EQ(error_of({}, 2.0), "") << "2 is inside 0~2";
  // NaN passes Python's `f < 0 or f > 2` and fails setHighWatermarkRatio's TORCH_CHECK.
  EXPECT_EQ(error_of({}, std::nan("")), "invalid high watermark ratio nan");
  EXPECT_EQ(python_cuda_fraction_error(1.5).value_or(""), "Invalid fraction value: 1.5. Allowed range: 0~1");
  EXPECT_EQ(parse_error("ValueError: Invalid fraction value: 2.5. Allowed range: 0~2").kind,
            ErrorKind::InvalidMemoryFraction);
  EXPECT_EQ(parse_error("invalid fraction:1.5. Please set within (0, 1).").kind, ErrorKind::InvalidMemoryFraction);
}

TEST(MemoryFraction, FillStopsAtFTimesRecommended) {
  // 512 MiB steps (one heap each): the fill stops when the driver count would pass 0.8 x rec.
  const uint64_t rec = 10 * GiB;
  FillPlan plan;
  WatermarkConfig c = cfg({}, 0.8);
  const FillSimulation s = simulate_fill(c, rec, plan, 64 * GiB);
  EXPECT_EQ(s.stopped_by, "pytorch");
  EXPECT_EQ(s.steps, 15u);  // 15 x 512 MiB + 448 KiB + 512 MiB > 8 GiB
  ASSERT_TRUE(s.message);
  EXPECT_NE(s.message->find("max allowed: 8.00 GiB"), std::string::npos) << *s.message;
  const FillSimulation env_alone = simulate_fill(cfg({{kHighEnv, "0.8"}}, std::nullopt), rec, plan, 64 * GiB);
  EXPECT_EQ(env_alone.stopped_by, "config");
  EXPECT_EQ(env_alone.steps, 0u);
}

TEST(MemoryFraction, ScenarioKeyIsANumberAndRoundTrips) {
  std::vector<std::string> w;
  const Scenario s =
      parse_scenario(R"({"name": "f", "device": "mps", "matrix": [{"label": "a", "memory_fraction": 0.8}]})", "f.json", w);
  ASSERT_TRUE(s.matrix[0].memory_fraction);
  EXPECT_EQ(*s.matrix[0].memory_fraction, 0.8);
  EXPECT_TRUE(w.empty()) << w[0];
  const Scenario t = parse_scenario(to_json(s).dump(), "scenario.json", w);
  EXPECT_EQ(t.matrix[0].memory_fraction, s.matrix[0].memory_fraction);
  try {
    parse_scenario(R"({"name": "f", "device": "mps", "matrix": [{"label": "a", "memory_fraction": "0.8"}]})", "f.json", w);
    FAIL() << "a string was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("key \"matrix[0].memory_fraction\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected a number"), std::string::npos) << e.what();
  }
}

TEST(MemoryFraction, WarningsQuoteThePyTorchErrorOfTheFraction) {
  auto w = warnings_of(R"({"label": "a", "memory_fraction": 2.5})");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("(\"Invalid fraction value: 2.5. Allowed range: 0~2\")"), std::string::npos) << w[0];
  EXPECT_TRUE(warnings_of(R"({"label": "a", "memory_fraction": 0.8})").empty());
  // The variables are still checked when the allocator starts inside the call.
  w = warnings_of(R"({"label": "a", "memory_fraction": 0.8, "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8"}})");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("(\"invalid low watermark ratio 1.4\")"), std::string::npos) << w[0];
  // CUDA: 0..1 of the device's memory.
  w = warnings_of(R"({"label": "a", "memory_fraction": 1.5})", "cuda");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("Allowed range: 0~1"), std::string::npos) << w[0];
  EXPECT_TRUE(warnings_of(R"({"label": "a", "memory_fraction": 0.5})", "cuda").empty());
}

}  // namespace test_memory_fraction
