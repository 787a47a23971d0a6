// Hostile input, round three (issue 30), the pure halves: the ratios tune really uses (A), one
// bound for memory_fraction and one list of child kinds (B), the text a folder gives shown as
// advice (D). End to end: tests/integration/test_hostile_round3.cpp.
#include <gtest/gtest.h>

#include "common/limits.h"
#include "io/terminal_text.h"
#include "results/report.h"
#include "results/summary_stream.h"
#include "tune/tune.h"
#include "tune/tune_policy.h"
#include "unit_util.h"

namespace test_hostile_round3 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;
using namespace wmbt_unit;

// ---- A --------------------------------------------------------------------------------------

TEST(Hostile3Tune, RatiosAreCheckedAsTheProbesUseThemAfterRounding) {
  TunePolicy p;
  p.bottom = 0.0004;  // the issue's case: "above 0", but 0.0 to 3 decimals
  p.top = 1.0;
  EXPECT_TRUE(has(tune_policy_problem(p), "0.0 to the 3 decimals")) << tune_policy_problem(p);
  p.bottom = 0.0005;  // rounds to 0.001: a setting
  EXPECT_EQ(tune_policy_problem(p), "");
  TunePolicy q;
  q.low_factor = 0.0009;  // unlisted: LOW at the bottom 0.5 is 0.00045 -> 0.0
  EXPECT_TRUE(has(tune_policy_problem(q), "LOW")) << tune_policy_problem(q);
  EXPECT_NE(tune_setting_problem(0.0, 0.0), "");
  EXPECT_NE(tune_setting_problem(0.8, 0.0004), "");
  EXPECT_NE(tune_setting_problem(2.0006, 1.0), "");
  EXPECT_EQ(tune_setting_problem(0.001, 0.001), "");
  EXPECT_EQ(tune_setting_problem(2.0004, 2.0), "") << "2.0004 is 2.0 as used";
}

TEST(Hostile3Tune, UnlistedARecordAtHighZeroIsNoProbeOfTheSearchSoNeverItsAnswer) {
  TunePolicy p;
  Report rep;
  auto r0 = sample_run(1, "t01-high-0.0-low-0.0");
  r0.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0004"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.0004"}};
  auto r1 = sample_run(2, "t02-high-1.7-low-1.7");
  r1.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.7"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "1.7"}};
  r1.stopped_by = "guard";
  rep.runs = {r0, r1};
  std::vector<nlohmann::json> probes;
  const auto runs = tune_runs_of(rep, p, probes);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].high, 1.7);
  EXPECT_EQ(probes.size(), 1u);
  TuneSummary s;
  s.policy = p;
  TuneStep end;
  end.done = true;
  end.answer = 0.0;
  s.end = end;
  EXPECT_EQ(tune_export_line(s), "") << "never an export line that switches the limit off";
}

// ---- D --------------------------------------------------------------------------------------

TEST(Hostile3Text, BidirectionalControlsAreEscapedAsControlCharactersAre) {
  EXPECT_EQ(escape_controls("run \xe2\x80\xae" "hs.x"), "run \\u202e" "hs.x");  // the issue's U+202E
  // Every other one (unlisted): U+202A..U+202D, U+2066..U+2069, U+200E/F, U+061C.
  for (const char* seq : {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x81\xa6", "\xe2\x81\xa7",
                          "\xe2\x81\xa8", "\xe2\x81\xa9", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xd8\x9c"}) {
    const std::string out = escape_controls_line(std::string("a") + seq + "b");
    EXPECT_EQ(out.find(seq), std::string::npos) << out;
    EXPECT_TRUE(has(out, "\\u")) << out;
  }
  // Their neighbours are text: U+2010 (hyphen), U+202F (narrow no-break space), U+0627, "é".
  for (const char* ok : {"\xe2\x80\x90", "\xe2\x80\xaf", "\xd8\xa7", "\xc3\xa9", "\xe2\x82\xac"})
    EXPECT_EQ(escape_controls(ok), ok);
  EXPECT_EQ(escape_controls("\xe2\x80"), "\xe2\x80") << "an incomplete sequence at the end is kept";
}

// ---- C: summary.json as a stream --------------------------------------------------------------

TEST(Hostile3Summary, RunsComeOneByOneUnknownKeysAreNamedNotBuilt) {
  std::vector<std::string> labels;
  const auto head = stream_summary_json(
      R"({"schema_version": 1, "scenario": "two", "pad": [{"a": 1}, {"a": 1}], "runs": [{"label": "a"}, {"label": "b"}],
          "machine": {"os": "Linux"}, "not_run": []})",
      "s.json", [&](nlohmann::json&& r, size_t) { labels.push_back(r["label"]); });
  EXPECT_EQ(labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(head.unknown, std::vector<std::string>{"pad"});
  EXPECT_FALSE(head.head.contains("pad"));
  EXPECT_TRUE(head.has_runs);
  EXPECT_EQ(head.head["scenario"], "two");
  EXPECT_EQ(head.head["machine"]["os"], "Linux");
}

TEST(Hostile3Summary, WhatTheDomReaderRefusesTheStreamRefuses) {
  auto err = [](const std::string& text) {
    return error_of([&] { stream_summary_json(text, "s.json", [](nlohmann::json&&, size_t) {}); });
  };
  EXPECT_TRUE(has(err(R"({"runs": [{"label": "a", "label": "b"}]})"), "duplicate key")) << err(R"({"runs": [{"label": "a", "label": "b"}]})");
  EXPECT_TRUE(has(err(R"({"runs": [], "runs": []})"), "duplicate key"));
  EXPECT_TRUE(has(err(R"({"runs": [{"x": 0.5e-400}]})"), "underflow"));
  EXPECT_TRUE(has(err(R"({"runs": [{"x": 1e400}]})"), "malformed JSON"));
  EXPECT_TRUE(has(err(R"({"runs": [)"), "s.json:1:"));
  EXPECT_TRUE(has(err(R"([1, 2])"), "not a JSON object"));
  EXPECT_TRUE(has(err(R"({"runs": 3})"), "must be a list"));
  std::string deep = R"({"runs": [)" + std::string(100, '[') + std::string(100, ']') + "]}";
  EXPECT_TRUE(has(err(deep), "nested deeper")) << err(deep);
  std::string many = R"({"runs": [)";
  for (size_t i = 0; i <= kMaxPlannedRuns; ++i) many += i ? ",{}" : "{}";
  many += "]}";
  EXPECT_TRUE(has(err(many), "more than 10000 runs")) << err(many);
  std::string big = R"({"machine": [)";
  for (size_t i = 0; i <= kMaxSummaryElementValues; ++i) big += i ? ",1" : "1";
  big += "]}";
  EXPECT_TRUE(has(err(big), "more than")) << err(big).substr(0, 200);
}

// ---- E --------------------------------------------------------------------------------------

TEST(Hostile3TuneText, InASandboxTheAnswerQuotesTheSandboxNotTheMachinesFreeMemory) {
  TuneSummary s;
  s.free_bytes_at_start = 20 * GiB;
  s.sandbox_bytes = 6 * GiB;
  TuneStep end;
  end.done = true;
  end.outcome = TuneOutcome::Found;
  end.answer = 0.8;
  end.lowest_unclean = 0.85;
  s.end = end;
  const std::string said = tune_answer_text(s);
  EXPECT_TRUE(has(said, "With the 6.00 GiB sandbox the runs saw")) << said;
  EXPECT_FALSE(has(said, "With 20.00 GiB free")) << said;
  s.sandbox_bytes.reset();
  EXPECT_TRUE(has(tune_answer_text(s), "With 20.00 GiB free at the start")) << tune_answer_text(s);
}

TEST(Hostile3TuneText, UnlistedNoSafeSettingByTheGuardKeepsTheMemoryAdvice) {
  TuneSummary s;
  s.free_bytes_at_start = 20 * GiB;
  TuneStep end;
  end.done = true;
  end.outcome = TuneOutcome::NoSafeSetting;
  s.end = end;
  s.probes = {{{"run", 2}, {"high", 0.5}, {"stopped_by", "guard"}, {"detail", "swap grew 2.01 GiB > budget 2.00 GiB"},
               {"clean", false}, {"counted", true}, {"swap_growth_bytes", 2 * int64_t(GiB)}}};
  const std::string said = tune_answer_text(s);
  EXPECT_TRUE(has(said, "stopped by the guard: swap grew")) << said;
  EXPECT_TRUE(has(said, "close apps")) << said;
  s.probes[0]["stopped_by"] = "crash";
  EXPECT_TRUE(has(tune_answer_text(s), "not for memory")) << tune_answer_text(s);
}

}  // namespace test_hostile_round3
