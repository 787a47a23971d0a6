// `wmbench tune`'s search, as pure code: which HIGH ratio to probe next from the probes so far,
// and the answer when the search is over. No I/O: the tune loop (tune.cpp) runs each probe as an
// ordinary run (the run-one stage) and hands the results back here.
//
// A run is clean when it ended by PyTorch's own error (`pytorch`) or by finishing (`finished`,
// `cap`) with swap growth within the tolerance (kDefaultTuneTolerance). A setting is clean only
// when all its `repeat` runs are; one unclean run decides it.
//
// The search: the top of the bracket first (clean there: nothing to set), then the bottom
// (unclean there: no safe setting with the memory free now), then bisection between the highest
// clean and the lowest unclean setting until they are at most `resolution` apart. At most
// max_tune_settings() settings are probed (each `repeat` times).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wmb {

constexpr double kDefaultTuneBottom = 0.5;
constexpr double kDefaultTuneTop = 1.7;          // PyTorch's default HIGH (MPSAllocator.h)
constexpr double kDefaultTuneResolution = 0.05;
constexpr uint64_t kDefaultTuneTolerance = 32ull << 20;  // 32 MiB of swap growth counts as none

struct TunePolicy {
  double bottom = kDefaultTuneBottom, top = kDefaultTuneTop;
  double resolution = kDefaultTuneResolution;
  uint64_t tolerance = kDefaultTuneTolerance;
  int repeat = 1;
  double low_factor = 1.0;  // LOW = low_factor x HIGH (1: LOW = HIGH, the write-up's advice)
};

// Why `p` cannot be searched ("" when it can): 0 < bottom < top <= 2.0 (PyTorch refuses a HIGH
// above 2.0; 0.0 switches the limit off, so it is never a probe), 0 < resolution < top - bottom,
// 1 <= repeat <= 20, 0 < low_factor <= 1 (PyTorch refuses LOW > HIGH). The ratios are checked as
// the probes use them, after tune_round (issue 30: --bracket 0.0004,1 passed "above 0", then
// probed and recommended HIGH 0.0): the rounded bottom and top, and LOW at the rounded bottom
// (--low 0.0009 gives LOW 0.0 there), are each a setting tune_setting_problem accepts.
std::string tune_policy_problem(const TunePolicy& p);

// Why HIGH/LOW, as a probe or an answer would use them (rounded to 3 decimals), is not a setting
// tune may run or recommend ("" when it is): 0 < HIGH <= 2.0 and 0 < LOW <= HIGH. 0.0 switches
// PyTorch's limit off (MPSAllocator.mm: HIGH 0.0 is no limit; LOW 0.0 no low watermark), the
// opposite of what tune is for.
std::string tune_setting_problem(double high, double low);

// Most settings the search probes: 2 + ceil(log2((top - bottom) / resolution)).
int max_tune_settings(const TunePolicy& p);

// A ratio as the search uses it: rounded to 3 decimals.
double tune_round(double r);
// LOW for a HIGH under the policy's rule.
double tune_low(const TunePolicy& p, double high);
// "0.85" (at most 3 decimals, no trailing zeros).
std::string ratio_text(double r);

// One finished run of a probe (interrupted and not-started runs are not handed in).
struct TuneRun {
  double high = 0, low = 0;
  std::string stopped_by;
  int64_t swap_growth = 0;  // bytes: swap at the end of the run minus at its start
};
bool run_is_clean(const TunePolicy& p, const TuneRun& r);

// A setting's runs folded: clean only if every run is; `stopped_by`/`swap_growth` are its first
// unclean run's, else its last run's.
struct TuneSetting {
  double high = 0, low = 0;
  int runs = 0;
  bool clean = true;
  std::string stopped_by;
  int64_t swap_growth = 0;
};
// In order of first appearance.
std::vector<TuneSetting> tune_settings(const TunePolicy& p, const std::vector<TuneRun>& runs);

enum class TuneOutcome {
  Found,         // the highest clean setting, its unclean neighbour within `resolution`
  NothingToSet,  // the top of the bracket already ends cleanly
  NoSafeSetting, // even the bottom of the bracket does not end cleanly
  OutOfProbes,   // the bound on probes was reached first (the highest clean so far is said)
};
const char* tune_outcome_name(TuneOutcome o);

struct TuneStep {
  bool done = false;
  double high = 0, low = 0;   // the next probe (when !done)
  TuneOutcome outcome = TuneOutcome::Found;
  std::optional<double> answer;            // the HIGH to set (Found, OutOfProbes with a clean one)
  std::optional<double> lowest_unclean;    // the bracket's other side, when known
};

TuneStep next_tune_step(const TunePolicy& p, const std::vector<TuneRun>& runs);

}  // namespace wmb
