#include "guard/pacer.h"

#include <algorithm>
#include <cmath>

namespace wmb {

namespace {
constexpr double kChecksBeforeTheLimit = 2;  // at the assumed rate, checks land at least this often in the headroom
}

CheckPacer::CheckPacer(const GuardConfig& cfg, uint64_t swap_at_start) : cfg_(cfg), swap_start_(swap_at_start) {}

double CheckPacer::first_in() const { return cfg_.adaptive ? 0.0 : cfg_.check_interval; }

double CheckPacer::interval_for(uint64_t headroom, double seen_rate) {
  const double rate = std::max(static_cast<double>(cfg_.assumed_rate), std::max(0.0, seen_rate));
  last_rate_ = std::max(last_rate_, rate);
  if (rate <= 0) return cfg_.check_interval;
  return static_cast<double>(headroom) / rate / kChecksBeforeTheLimit;
}

double CheckPacer::next_in(double t, const SystemMemory& m) {
  const double far = cfg_.check_interval;
  const double near = std::min(cfg_.near_interval, far);
  const double dt = have_last_ ? t - last_t_ : 0;
  const double free_bytes = m.level / 100.0 * static_cast<double>(m.ram_total);
  double next = far;
  last_rate_ = 0;
  if (cfg_.adaptive) {
    if (cfg_.swap_budget > 0) {
      const uint64_t growth = m.swap_used > swap_start_ ? m.swap_used - swap_start_ : 0;
      const uint64_t headroom = growth < cfg_.swap_budget ? cfg_.swap_budget - growth : 0;
      double seen = 0;
      if (dt > 0 && m.swap_used > last_swap_) seen = static_cast<double>(m.swap_used - last_swap_) / dt;
      next = std::min(next, interval_for(headroom, seen));
    }
    if (cfg_.kill_free > 0 && m.ram_total > 0) {
      const double limit = cfg_.kill_free / 100.0 * static_cast<double>(m.ram_total);
      const double headroom = std::max(0.0, free_bytes - limit);
      double seen = 0;
      if (dt > 0 && free_bytes < last_free_) seen = (last_free_ - free_bytes) / dt;
      next = std::min(next, interval_for(static_cast<uint64_t>(headroom), seen));
    }
    if (!(next >= near)) next = near;  // also a NaN
    next = std::min(next, far);
  }
  have_last_ = true;
  last_t_ = t;
  last_swap_ = m.swap_used;
  last_free_ = free_bytes;
  return next;
}

}  // namespace wmb
