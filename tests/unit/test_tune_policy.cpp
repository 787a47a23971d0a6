// wmbench tune's search (tune/tune_policy.h) driven by fake outcomes: each edge answer, the
// bisection's bracket, --repeat, --tolerance, --low, and the validation of the policy.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/units.h"
#include "tune/tune_policy.h"

namespace test_tune_policy {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

// Runs the search to its end against `outcome(high, nth run of that high)`; returns the last step
// and fills `runs` with every run it asked for.
TuneStep search(const TunePolicy& p, const std::function<TuneRun(double high, int nth)>& outcome,
                std::vector<TuneRun>& runs) {
  for (int guard = 0; guard < 200; ++guard) {
    const TuneStep s = next_tune_step(p, runs);
    if (s.done) return s;
    EXPECT_GT(s.high, 0.0) << "0.0 switches the limit off: never a probe";
    EXPECT_LE(s.high, 2.0);
    int nth = 0;
    for (const auto& r : runs) nth += r.high == s.high;
    TuneRun r = outcome(s.high, nth + 1);
    r.high = s.high;
    r.low = s.low;
    runs.push_back(r);
  }
  ADD_FAILURE() << "the search did not end";
  return {};
}

TuneRun pytorch_run(int64_t swap = 0) { return {0, 0, "pytorch", swap}; }
TuneRun guard_run() { return {0, 0, "guard", 3 * static_cast<int64_t>(GiB)}; }

// Clean (a PyTorch error, no swap) up to `threshold`, the guard above it.
std::function<TuneRun(double, int)> threshold_at(double threshold) {
  return [threshold](double h, int) { return h <= threshold + 1e-9 ? pytorch_run() : guard_run(); };
}

size_t settings_count(const std::vector<TuneRun>& runs) { return tune_settings(TunePolicy{}, runs).size(); }

}  // namespace

TEST(TunePolicy, TheAnswerIsBracketedByItsOwnProbesWithinTheResolution) {
  for (double threshold : {0.52, 0.61, 0.8, 0.9, 0.95, 1.234, 1.5, 1.69}) {
    TunePolicy p;
    std::vector<TuneRun> runs;
    const TuneStep end = search(p, threshold_at(threshold), runs);
    ASSERT_EQ(end.outcome, TuneOutcome::Found) << threshold;
    ASSERT_TRUE(end.answer && end.lowest_unclean) << threshold;
    EXPECT_LE(*end.answer, threshold + 1e-9) << "the answer must be clean";
    EXPECT_GT(*end.lowest_unclean, threshold) << "the other side must be unclean";
    EXPECT_LE(*end.lowest_unclean - *end.answer, p.resolution + 1e-9) << threshold;
    // Both sides were really probed, with the outcome said.
    bool saw_answer = false, saw_unclean = false;
    for (const auto& r : runs) {
      saw_answer |= r.high == *end.answer && r.stopped_by == "pytorch";
      saw_unclean |= r.high == *end.lowest_unclean && r.stopped_by == "guard";
    }
    EXPECT_TRUE(saw_answer && saw_unclean) << threshold;
    EXPECT_LE(static_cast<int>(settings_count(runs)), max_tune_settings(p)) << threshold;
  }
}

TEST(TunePolicy, TheTopFirstThenTheBottom) {
  TunePolicy p;
  std::vector<TuneRun> runs;
  TuneStep s = next_tune_step(p, runs);
  ASSERT_FALSE(s.done);
  EXPECT_DOUBLE_EQ(s.high, 1.7);
  EXPECT_DOUBLE_EQ(s.low, 1.7) << "LOW = HIGH by default";
  runs.push_back({1.7, 1.7, "guard", 1 << 30});
  s = next_tune_step(p, runs);
  EXPECT_DOUBLE_EQ(s.high, 0.5);
  runs.push_back({0.5, 0.5, "pytorch", 0});
  s = next_tune_step(p, runs);
  EXPECT_DOUBLE_EQ(s.high, 1.1) << "the middle of 0.5 and 1.7";
}

TEST(TunePolicy, NothingToSetWhenTheTopIsAlreadyClean) {
  TunePolicy p;
  std::vector<TuneRun> runs;
  const TuneStep end = search(p, [](double, int) { return TuneRun{0, 0, "finished", 0}; }, runs);
  EXPECT_EQ(end.outcome, TuneOutcome::NothingToSet);
  EXPECT_FALSE(end.answer);
  EXPECT_EQ(runs.size(), 1u) << "one probe at the top says it";
}

TEST(TunePolicy, NoSafeSettingWhenEvenTheBottomSwaps) {
  TunePolicy p;
  std::vector<TuneRun> runs;
  // PyTorch stopped it, but swap grew past the tolerance: not clean (the 0.95 case).
  const TuneStep end = search(p, [](double, int) { return pytorch_run(55 * static_cast<int64_t>(MiB)); }, runs);
  EXPECT_EQ(end.outcome, TuneOutcome::NoSafeSetting);
  EXPECT_FALSE(end.answer);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_DOUBLE_EQ(runs[1].high, 0.5);
}

TEST(TunePolicy, ToleranceDecidesWhetherPyTorchsErrorWithSwapIsClean) {
  TunePolicy p;
  EXPECT_EQ(p.tolerance, 32 * MiB) << "the documented default";
  const TuneRun r{0.95, 0.95, "pytorch", 55 * static_cast<int64_t>(MiB)};
  EXPECT_FALSE(run_is_clean(p, r));
  p.tolerance = 64 * MiB;
  EXPECT_TRUE(run_is_clean(p, r));
  EXPECT_FALSE(run_is_clean(p, {0.9, 0.9, "guard", 0})) << "the guard is never clean";
  EXPECT_FALSE(run_is_clean(p, {0.9, 0.9, "config", 0}));
  EXPECT_FALSE(run_is_clean(p, {0.9, 0.9, "exited", 0}));
  EXPECT_FALSE(run_is_clean(p, {0.9, 0.9, "crash", 0}));
  EXPECT_TRUE(run_is_clean(p, {0.9, 0.9, "finished", -5 * static_cast<int64_t>(MiB)})) << "swap that shrank is none";
}

TEST(TunePolicy, RepeatCountsASettingCleanOnlyIfEveryRunIs) {
  TunePolicy p;
  p.repeat = 3;
  std::vector<TuneRun> runs;
  // 0.8 and below clean; 1.1 is clean twice and swaps on its third run.
  const TuneStep end = search(p, [](double h, int nth) {
    if (h <= 0.8) return pytorch_run();
    if (std::abs(h - 1.1) < 1e-9 && nth < 3) return pytorch_run();
    return guard_run();
  }, runs);
  ASSERT_EQ(end.outcome, TuneOutcome::Found);
  EXPECT_LT(*end.answer, 1.1) << "1.1 failed one of its 3 runs";
  int at_11 = 0, at_top = 0;
  for (const auto& r : runs) {
    at_11 += std::abs(r.high - 1.1) < 1e-9;
    at_top += r.high == 1.7;
  }
  EXPECT_EQ(at_11, 3);
  EXPECT_EQ(at_top, 1) << "one unclean run decides: no repeats of an unclean setting";
  for (const auto& s : tune_settings(p, runs))
    if (s.clean) EXPECT_EQ(s.runs, 3) << s.high;
}

TEST(TunePolicy, LowRule) {
  TunePolicy p;
  p.low_factor = 0.8;
  const TuneStep s = next_tune_step(p, {});
  EXPECT_DOUBLE_EQ(s.high, 1.7);
  EXPECT_DOUBLE_EQ(s.low, 1.36);
}

TEST(TunePolicy, ProbesAreBoundedAndSaid) {
  TunePolicy p;
  EXPECT_EQ(max_tune_settings(p), 7) << "2 + ceil(log2(1.2 / 0.05))";
  p.resolution = 0.01;
  std::vector<TuneRun> runs;
  const TuneStep end = search(p, threshold_at(0.777), runs);
  EXPECT_EQ(end.outcome, TuneOutcome::Found);
  EXPECT_LE(static_cast<int>(settings_count(runs)), max_tune_settings(p));
}

TEST(TunePolicy, BadPoliciesAreNamed) {
  auto why = [](TunePolicy p) { return tune_policy_problem(p); };
  TunePolicy ok;
  EXPECT_EQ(why(ok), "");
  TunePolicy p = ok;
  p.resolution = 0;
  EXPECT_NE(why(p).find("--resolution 0 must be above 0"), std::string::npos) << why(p);
  p.resolution = -0.1;
  EXPECT_NE(why(p).find("must be above 0"), std::string::npos);
  p.resolution = 1.2;
  EXPECT_NE(why(p).find("smaller than the bracket"), std::string::npos) << why(p);
  p = ok;
  p.top = 2.5;
  EXPECT_NE(why(p).find("2.5 is above 2"), std::string::npos) << why(p);
  p = ok;
  p.bottom = 0.0;
  EXPECT_NE(why(p).find("0.0 switches PyTorch's limit off"), std::string::npos) << why(p);
  p = ok;
  p.bottom = 1.8;
  EXPECT_NE(why(p).find("from a lower to a higher"), std::string::npos) << why(p);
  p = ok;
  p.repeat = 0;
  EXPECT_NE(why(p).find("--repeat 0"), std::string::npos);
  p = ok;
  p.low_factor = 1.5;
  EXPECT_NE(why(p).find("--low 1.5"), std::string::npos);
  p = ok;
  p.top = std::nan("");
  EXPECT_NE(why(p), "") << "NaN is never a bracket";
  p = ok;
  p.tolerance = uint64_t{1} << 63;  // a hostile tune.json: negative once compared as int64
  EXPECT_NE(why(p).find("above 2^62"), std::string::npos) << why(p);
  p.tolerance = uint64_t{1} << 62;
  EXPECT_EQ(why(p), "");
}

TEST(TunePolicy, RatioText) {
  EXPECT_EQ(ratio_text(0.9), "0.9");
  EXPECT_EQ(ratio_text(0.875), "0.875");
  EXPECT_EQ(ratio_text(1.0), "1.0");
  EXPECT_EQ(ratio_text(0.91250001), "0.913");
}

}  // namespace test_tune_policy
