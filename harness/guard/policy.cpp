#include "guard/policy.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb {

GuardPolicy::GuardPolicy(const GuardConfig& cfg, uint64_t swap_at_start) : cfg_(cfg), swap_start_(swap_at_start) {}

GuardVerdict GuardPolicy::observe(const SystemMemory& m) {
  const uint64_t growth = m.swap_used > swap_start_ ? m.swap_used - swap_start_ : 0;
  if (cfg_.swap_budget > 0 && growth > cfg_.swap_budget)
    return {true, fmt::format("swap grew {} since the start (budget {})", format_size(growth), format_size(cfg_.swap_budget))};
  if (cfg_.kill_free > 0) {
    if (m.level < cfg_.kill_free) {
      if (++low_free_checks_ >= 2)
        return {true, fmt::format("free memory {:.1f} % stayed under {:.1f} % for {} checks in a row", m.level,
                                  cfg_.kill_free, low_free_checks_)};
    } else {
      low_free_checks_ = 0;
    }
  }
  return {};
}

GuardVerdict GuardPolicy::probe_failed(const std::string& why) {
  return {true, fmt::format("the memory probe failed ({}); stopped to be safe", why)};
}

WaitOutcome wait_for_free(MemoryProbe& probe, Clock& clock, Sleeper& sleeper, double wait_free, double timeout,
                          double poll) {
  WaitOutcome out;
  const double start = clock.now();
  while (true) {
    try {
      out.level = probe.system().level;
    } catch (const ProbeError& e) {
      out.why = fmt::format("the memory probe failed while waiting for free memory: {}", e.what());
      out.waited = clock.now() - start;
      return out;
    }
    out.waited = clock.now() - start;
    if (wait_free <= 0 || out.level >= wait_free) {
      out.ok = true;
      return out;
    }
    if (out.waited >= timeout) {
      out.why = fmt::format("free memory stayed at {:.1f} %, under the {:.1f} % asked for, for {}", out.level,
                            wait_free, format_duration(out.waited));
      return out;
    }
    sleeper.sleep(std::min(poll, timeout - out.waited));
    if (sleeper.interrupted()) {  // SIGINT/SIGTERM/SIGHUP: the caller exits 128+N now, not after the timeout
      out.why = "interrupted while waiting for free memory";
      out.waited = clock.now() - start;
      return out;
    }
  }
}

}  // namespace wmb
