// tune_runs_of: a tune folder's records as the search policy's input. Its own file so that
// `wmbench check` (check/check_tune.cpp) and the fuzz targets link it without the tune driver.
#include <cmath>
#include <cstdlib>

#include "mpsmodel/watermark.h"
#include "results/report.h"
#include "tune/tune.h"

namespace wmb {
namespace {


std::optional<double> env_ratio(const RunRecord& r, const char* key) {
  const auto it = r.env.find(key);
  if (it == r.env.end()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  // "nan", "inf" (a hostile folder's records): no setting of this search (NaN == NaN is false, and
  // each would be a setting of its own, using up the probes).
  if (end == it->second.c_str() || *end || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool finished_run(const RunRecord& r) { return r.stopped_by != "interrupted" && r.stopped_by != "not_started"; }

int64_t swap_growth(const RunRecord& r) {
  return static_cast<int64_t>(r.swap_after_bytes) - static_cast<int64_t>(r.swap_before_bytes);
}

}  // namespace

// The folder's runs as the policy's input, and tune.json's probes (every run, in order).
std::vector<TuneRun> tune_runs_of(const Report& rep, const TunePolicy& p, std::vector<nlohmann::json>& probes) {
  std::vector<TuneRun> runs;
  probes.clear();
  for (const auto& r : rep.runs) {
    const auto high = env_ratio(r, mpsmodel::kHighEnv);
    if (!high) continue;  // not a probe of this search
    const double low = env_ratio(r, mpsmodel::kLowEnv).value_or(*high);
    // A record whose ratios, as the search uses them, are no setting it may run (HIGH 0.0: no
    // limit), or lie outside the bracket, is not a probe of this search: a hostile or edited
    // folder's record never becomes the answer (tune_setting_problem).
    if (!tune_setting_problem(*high, low).empty() || tune_round(*high) < tune_round(p.bottom) ||
        tune_round(*high) > tune_round(p.top))
      continue;
    TuneRun t{*high, low, r.stopped_by, swap_growth(r)};
    const bool counted = finished_run(r);
    const nlohmann::json peak = r.peak_footprint_bytes ? nlohmann::json(*r.peak_footprint_bytes) : nlohmann::json(nullptr);
    probes.push_back({{"run", r.index},
                      {"label", r.label},
                      {"high", tune_round(*high)},
                      {"low", tune_round(low)},
                      {"stopped_by", r.stopped_by},
                      {"detail", r.detail},
                      {"guard_signal", r.guard_signal.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.guard_signal)},
                      {"swap_growth_bytes", t.swap_growth},
                      {"held_bytes", r.held_bytes},
                      {"peak_footprint_bytes", peak},
                      {"max_allowed_bytes", r.max_allowed_bytes ? nlohmann::json(*r.max_allowed_bytes) : nlohmann::json(nullptr)},
                      {"clean", counted && run_is_clean(p, t)},
                      {"counted", counted}});
    if (counted) runs.push_back(t);
  }
  return runs;
}

}  // namespace wmb
