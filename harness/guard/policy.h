// The guard's policy, one implementation for `wmbench run` and `wmbench guard`. Pure: it sees
// probe readings and a clock, never the system itself, so unit tests drive it with fakes.
//
// Before a run: wait until the free level >= wait_free (bounded by wait_free_timeout).
// During it: stop when swap has grown more than swap_budget since the start, or the free level
// stayed under kill_free for two checks in a row (near that limit the checks are near_interval
// apart), or the memory pressure crossed its limit (macOS: the kernel's level reached
// pressure_level; Linux: tasks stalled on memory for more than pressure_stall percent of the last
// second, PSI), or the compressor or wired memory grew past its budget since the first check
// (macOS), or the probe failed (fail safe). A signal whose reading the platform lacks (null) is
// not checked. Each verdict names its signal (common/guard_signals.h).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/guard_signals.h"
#include "probe/probe.h"
#include "scenario/scenario.h"

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
  // macOS kern.memorystatus_vm_pressure_level at which to stop: 2 warn, 4 critical, 0 off.
  int pressure_level = 4;
  // Linux PSI: stop when some task stalled on memory for more than this percent of the last
  // pressure_window seconds (the "some" total's growth, checked at every check); 0 = off.
  double pressure_stall = 0;
  double pressure_window = 1.0;       // seconds
  uint64_t compressor_budget = 0;     // bytes of compressor growth allowed (macOS); 0 = off
  uint64_t wired_budget = 0;          // bytes of wired growth allowed (macOS); 0 = off
};

// "critical" -> 4, "warn" -> 2, "off" -> 0; nullopt for another word.
std::optional<int> pressure_level_from_name(const std::string& name);
std::string pressure_level_name(int level);  // 4 -> "critical", 2 -> "warn", 0 -> "off"

// A scenario's guard signals (pressure, pressure_stall, compressor_budget, wired_budget) into
// `g`, the budgets resolved against `ram` (what %RAM refers to).
void apply_guard_signals(const GuardSettings& s, uint64_t ram, GuardConfig& g);

struct GuardVerdict {
  bool stop = false;
  std::string reason;  // human, e.g. "swap grew 2.05 GiB (budget 2.00 GiB)"
  std::string signal;  // one of guard_signals() (common/guard_signals.h) when stop
};

class GuardPolicy {
 public:
  GuardPolicy(const GuardConfig& cfg, uint64_t swap_at_start);
  // `now`: the clock reading of m (seconds; the pressure window is measured on it).
  GuardVerdict observe(const SystemMemory& m, double now = 0);
  GuardVerdict probe_failed(const std::string& why);
  uint64_t swap_at_start() const { return swap_start_; }

 private:
  GuardVerdict observe_pressure(const SystemMemory& m, double now);
  GuardVerdict observe_growth(const SystemMemory& m);
  GuardConfig cfg_;
  uint64_t swap_start_;
  int low_free_checks_ = 0;
  // PSI readings (clock, stall total in us) of the last pressure_window, oldest first.
  std::deque<std::pair<double, uint64_t>> stalls_;
  std::optional<uint64_t> compressor_start_, wired_start_;  // the first reading of each
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
