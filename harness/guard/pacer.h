// When the guard checks next: the adaptive check interval. Pure: it sees the readings and the
// clock times they were taken at, never the system, so unit tests drive it with fakes
// (tests/unit/test_guard_pacer.cpp).
//
// For each limit in force (the swap budget; kill_free, as bytes of RAM) the headroom is what is
// left before it, and the rate is the faster of the rate seen between the last two readings and
// GuardConfig::assumed_rate. The next check comes after half the time that rate needs to eat the
// headroom (so at least two checks land before the limit could be reached), clamped to
// [near_interval, check_interval]: slow while far, every few ms near a limit. The supervisor adds
// a check at once when the child writes (a fill step: supervisor.cpp), so a step of 512 MiB that
// lands between two slow checks is seen when it is announced, not at the next tick.
#pragma once

#include <cstdint>

#include "guard/policy.h"
#include "probe/probe.h"

namespace wmb {

class CheckPacer {
 public:
  CheckPacer(const GuardConfig& cfg, uint64_t swap_at_start);
  // Seconds from t (the clock reading when m was taken) until the next check.
  double next_in(double t, const SystemMemory& m);
  // The first check of a run: right away when adaptive (the headroom is not known yet).
  double first_in() const;
  // The rate (bytes/s) the last next_in() assumed toward the nearest limit, for the benchmarks.
  double last_rate() const { return last_rate_; }

 private:
  double interval_for(uint64_t headroom, double seen_rate);
  GuardConfig cfg_;
  uint64_t swap_start_;
  bool have_last_ = false;
  double last_t_ = 0;
  uint64_t last_swap_ = 0;
  double last_free_ = 0;  // bytes
  double last_rate_ = 0;
};

}  // namespace wmb
