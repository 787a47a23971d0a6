// The guard's policy, one implementation for `wmbench run` and `wmbench guard`. Pure: it sees
// probe readings and a clock, never the system itself, so unit tests drive it with fakes.
//
// Before a run: wait until the free level >= wait_free (bounded by wait_free_timeout).
// During it: stop when swap has grown more than swap_budget since the start, or the free level
// stayed under kill_free for two checks in a row (near that limit the checks are near_interval
// apart), or the probe failed (fail safe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/clock.h"
#include "probe/probe.h"

namespace wmb {

struct GuardConfig {
  uint64_t swap_budget = 2ull << 30;  // bytes of swap growth allowed; 0 = no swap budget
  double kill_free = 0;               // percent; 0 = off
  double wait_free = 0;               // percent; 0 = do not wait
  double wait_free_timeout = 300;     // seconds
  // When the next check comes (guard/pacer.h): at most check_interval apart while swap growth and
  // free memory are far from their limits, down to near_interval close to one; at once after a
  // line of the child (its fill steps: supervisor.cpp).
  double check_interval = 0.01;       // seconds: the longest time between two checks
  double near_interval = 0.002;       // seconds: the shortest (capped at check_interval)
  uint64_t assumed_rate = 4ull << 30; // bytes/s memory is assumed able to move at, at least
  bool adaptive = true;               // false: every check_interval, whatever the headroom (the old policy)
};

struct GuardVerdict {
  bool stop = false;
  std::string reason;  // human, e.g. "swap grew 2.05 GiB (budget 2.00 GiB)"
};

class GuardPolicy {
 public:
  GuardPolicy(const GuardConfig& cfg, uint64_t swap_at_start);
  GuardVerdict observe(const SystemMemory& m);
  GuardVerdict probe_failed(const std::string& why);
  uint64_t swap_at_start() const { return swap_start_; }

 private:
  GuardConfig cfg_;
  uint64_t swap_start_;
  int low_free_checks_ = 0;
};

struct WaitOutcome {
  bool ok = false;
  double waited = 0;   // seconds
  double level = 0;    // last level seen
  std::string why;     // when !ok
};

// Polls every `poll` seconds until level >= wait_free or the timeout passes.
WaitOutcome wait_for_free(MemoryProbe& probe, Clock& clock, Sleeper& sleeper, double wait_free,
                          double timeout, double poll = 1.0);

}  // namespace wmb
