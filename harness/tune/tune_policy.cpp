#include "tune/tune_policy.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mpsmodel/watermark.h"

namespace wmb {

std::string tune_policy_problem(const TunePolicy& p) {
  const double hi = mpsmodel::kHighUpperBound;  // PyTorch's high_watermark_upper_bound (watermark.h)
  if (!(p.bottom > 0))
    return fmt::format("the bracket's bottom {} must be above 0.0: 0.0 switches PyTorch's limit off (never a probe)", p.bottom);
  if (!(p.top <= hi))
    return fmt::format("the bracket's top {} is above {}, the highest HIGH PyTorch accepts (\"invalid high watermark ratio\")", p.top, hi);
  if (!(p.bottom < p.top)) return fmt::format("the bracket {},{} must go from a lower to a higher ratio", p.bottom, p.top);
  if (!(p.resolution > 0)) return fmt::format("--resolution {} must be above 0", p.resolution);
  if (!(p.resolution < p.top - p.bottom))
    return fmt::format("--resolution {} must be smaller than the bracket {},{} (width {})", p.resolution, p.bottom, p.top,
                       ratio_text(p.top - p.bottom));
  if (p.resolution < 0.001) return fmt::format("--resolution {} is below 0.001, the step ratios are rounded to", p.resolution);
  if (p.repeat < 1 || p.repeat > 20) return fmt::format("--repeat {} must be from 1 to 20", p.repeat);
  // A stored size is at most 2^62 (json_input.h): a hostile tune.json's 2^63 would turn negative
  // in the swap comparison (int64) and make every probe unclean.
  if (p.tolerance > (uint64_t{1} << 62))
    return fmt::format("the tolerance {} bytes is above 2^62 bytes, the largest size a folder holds", p.tolerance);
  if (!(p.low_factor > 0 && p.low_factor <= 1))
    return fmt::format("--low {} must be above 0 and at most 1 (LOW = factor x HIGH; PyTorch refuses LOW above HIGH)", p.low_factor);
  // As the probes use them: rounded to 3 decimals.
  const double bottom = tune_round(p.bottom), top = tune_round(p.top);
  if (const std::string why = tune_setting_problem(bottom, tune_low(p, bottom)); !why.empty())
    return fmt::format("the bracket's bottom {} with --low {}: {}", p.bottom, p.low_factor, why);
  if (const std::string why = tune_setting_problem(top, tune_low(p, top)); !why.empty())
    return fmt::format("the bracket's top {} with --low {}: {}", p.top, p.low_factor, why);
  if (!(bottom < top))
    return fmt::format("the bracket {},{} is one setting once rounded to 3 decimals ({}); give a wider bracket", p.bottom, p.top,
                       ratio_text(bottom));
  return "";
}

std::string tune_setting_problem(double high, double low) {
  const double h = tune_round(high), l = tune_round(low);
  const double hi = mpsmodel::kHighUpperBound;
  if (!(h > 0))
    return fmt::format("HIGH {} is {} to the 3 decimals tune uses; 0.0 switches PyTorch's limit off, so it is never a "
                       "probe or an answer (give ratios of at least 0.001)",
                       high, ratio_text(h));
  if (!(h <= hi)) return fmt::format("HIGH {} is above {}, the highest HIGH PyTorch accepts", ratio_text(h), hi);
  if (!(l > 0))
    return fmt::format("LOW {} is {} to the 3 decimals tune uses; LOW 0.0 switches PyTorch's low watermark off, so it is "
                       "never a probe or an answer (a larger --low factor, or a higher bracket)",
                       low, ratio_text(l));
  if (!(l <= h)) return fmt::format("LOW {} is above HIGH {} (PyTorch refuses LOW above HIGH)", ratio_text(l), ratio_text(h));
  return "";
}

int max_tune_settings(const TunePolicy& p) {
  return 2 + static_cast<int>(std::ceil(std::log2((p.top - p.bottom) / p.resolution) - 1e-9));
}

double tune_round(double r) { return std::round(r * 1000.0) / 1000.0; }

double tune_low(const TunePolicy& p, double high) { return tune_round(p.low_factor * high); }

std::string ratio_text(double r) {
  std::string s = fmt::format("{:.3f}", tune_round(r));
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

bool run_is_clean(const TunePolicy& p, const TuneRun& r) {
  const bool ended_well = r.stopped_by == "pytorch" || r.stopped_by == "finished" || r.stopped_by == "cap";
  return ended_well && r.swap_growth <= static_cast<int64_t>(p.tolerance);
}

std::vector<TuneSetting> tune_settings(const TunePolicy& p, const std::vector<TuneRun>& runs) {
  std::vector<TuneSetting> out;
  for (const auto& r : runs) {
    const double h = tune_round(r.high);
    auto it = std::find_if(out.begin(), out.end(), [&](const TuneSetting& s) { return s.high == h; });
    if (it == out.end()) {
      out.push_back({h, tune_round(r.low), 0, true, "", 0});
      it = out.end() - 1;
    }
    const bool clean = run_is_clean(p, r);
    ++it->runs;
    if (it->clean) {  // the first unclean run is the one that is said
      it->stopped_by = r.stopped_by;
      it->swap_growth = r.swap_growth;
    }
    it->clean = it->clean && clean;
  }
  return out;
}

const char* tune_outcome_name(TuneOutcome o) {
  switch (o) {
    case TuneOutcome::Found: return "found";
    case TuneOutcome::NothingToSet: return "nothing_to_set";
    case TuneOutcome::NoSafeSetting: return "no_safe_setting";
    case TuneOutcome::OutOfProbes: return "out_of_probes";
  }
  return "found";
}

namespace {

TuneStep probe(const TunePolicy& p, double high) {
  TuneStep s;
  s.high = tune_round(high);
  s.low = tune_low(p, s.high);
  return s;
}

TuneStep done(TuneOutcome o, std::optional<double> answer, std::optional<double> unclean) {
  TuneStep s;
  s.done = true;
  s.outcome = o;
  s.answer = answer;
  s.lowest_unclean = unclean;
  return s;
}

}  // namespace

TuneStep next_tune_step(const TunePolicy& p, const std::vector<TuneRun>& runs) {
  const auto settings = tune_settings(p, runs);
  // A setting clean so far with fewer than `repeat` runs is run again first.
  for (const auto& s : settings)
    if (s.clean && s.runs < p.repeat) return probe(p, s.high);
  auto find = [&](double h) -> const TuneSetting* {
    for (const auto& s : settings)
      if (s.high == tune_round(h)) return &s;
    return nullptr;
  };
  const TuneSetting* top = find(p.top);
  if (!top) return probe(p, p.top);
  if (top->clean) return done(TuneOutcome::NothingToSet, std::nullopt, std::nullopt);
  const TuneSetting* bottom = find(p.bottom);
  if (!bottom) return probe(p, p.bottom);
  if (!bottom->clean) return done(TuneOutcome::NoSafeSetting, std::nullopt, bottom->high);
  // The lowest unclean setting, and the highest clean one below it.
  double hi = top->high;
  for (const auto& s : settings)
    if (!s.clean && s.high < hi) hi = s.high;
  double lo = bottom->high;
  for (const auto& s : settings)
    if (s.clean && s.high > lo && s.high < hi) lo = s.high;
  if (hi - lo <= p.resolution + 1e-9) return done(TuneOutcome::Found, lo, hi);
  if (static_cast<int>(settings.size()) >= max_tune_settings(p)) return done(TuneOutcome::OutOfProbes, lo, hi);
  double mid = tune_round((lo + hi) / 2);
  if (mid <= lo || mid >= hi) return done(TuneOutcome::Found, lo, hi);  // nothing between at 3 decimals
  return probe(p, mid);
}

}  // namespace wmb
