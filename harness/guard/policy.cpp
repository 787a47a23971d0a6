#include "guard/policy.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"

namespace wmb {

std::optional<int> pressure_level_from_name(const std::string& name) {
  if (name == "critical") return 4;
  if (name == "warn") return 2;
  if (name == "off") return 0;
  return std::nullopt;
}

std::string pressure_level_name(int level) { return level >= 4 ? "critical" : level >= 2 ? "warn" : "off"; }

void apply_guard_signals(const GuardSettings& s, uint64_t ram, GuardConfig& g) {
  g.pressure_level = pressure_level_from_name(s.pressure).value_or(4);
  g.pressure_stall = s.pressure_stall;
  g.compressor_budget = s.compressor_budget ? s.compressor_budget->resolve(ram) : 0;
  g.wired_budget = s.wired_budget ? s.wired_budget->resolve(ram) : 0;
}

namespace {

constexpr size_t kMaxStallReadings = 100000;  // a window of 1 s at 2 ms checks holds 500

// Growth of `now` over the first reading kept in `start` (taken here when unset); nullopt when
// the platform has no such reading.
std::optional<uint64_t> growth_since(const std::optional<uint64_t>& now, std::optional<uint64_t>& start) {
  if (!now) return std::nullopt;
  if (!start) start = now;
  return *now > *start ? *now - *start : 0;
}

// A reading's growth since its first past `budget` (0: off): a stop naming `what` and `signal`.
GuardVerdict over_budget(const std::optional<uint64_t>& now, std::optional<uint64_t>& start, uint64_t budget,
                         const char* what, const char* signal) {
  const auto grown = growth_since(now, start);
  if (budget == 0 || !grown || *grown <= budget) return {};
  return {true, fmt::format("{} grew {} since the start (budget {})", what, format_size(*grown), format_size(budget)), signal};
}

}  // namespace

GuardPolicy::GuardPolicy(const GuardConfig& cfg, uint64_t swap_at_start) : cfg_(cfg), swap_start_(swap_at_start) {}

GuardVerdict GuardPolicy::observe(const SystemMemory& m, double now) {
  const uint64_t growth = m.swap_used > swap_start_ ? m.swap_used - swap_start_ : 0;
  if (cfg_.swap_budget > 0 && growth > cfg_.swap_budget)
    return {true, fmt::format("swap grew {} since the start (budget {})", format_size(growth), format_size(cfg_.swap_budget)),
            "swap"};
  if (cfg_.kill_free > 0) {
    if (m.level < cfg_.kill_free) {
      if (++low_free_checks_ >= 2)
        return {true,
                fmt::format("free memory {:.1f} % stayed under {:.1f} % for {} checks in a row", m.level, cfg_.kill_free,
                            low_free_checks_),
                "free-floor"};
    } else {
      low_free_checks_ = 0;
    }
  }
  GuardVerdict v = observe_pressure(m, now);
  if (v.stop) return v;
  return observe_growth(m);
}

// macOS: the kernel's level; Linux: the PSI stall of the last window, from the `total` counter's
// growth (fresh at each read), so a crossing is seen at the first check after it.
GuardVerdict GuardPolicy::observe_pressure(const SystemMemory& m, double now) {
  if (cfg_.pressure_level > 0 && m.pressure && *m.pressure >= cfg_.pressure_level)
    return {true,
            fmt::format("the kernel's memory pressure level is {} ({}; the guard stops at {})",
                        pressure_level_name(*m.pressure), *m.pressure, pressure_level_name(cfg_.pressure_level)),
            "pressure"};
  if (!(cfg_.pressure_stall > 0) || !m.stall_us) return {};
  if (!stalls_.empty() && (*m.stall_us < stalls_.back().second || now < stalls_.back().first)) stalls_.clear();
  stalls_.emplace_back(now, *m.stall_us);
  // Keep the newest reading at or before the window's start as the reference.
  while (stalls_.size() > 1 && (stalls_[1].first <= now - cfg_.pressure_window || stalls_.size() > kMaxStallReadings))
    stalls_.pop_front();
  const auto& ref = stalls_.front();
  const double span = std::max(cfg_.pressure_window, now - ref.first);
  const double stalled_us = static_cast<double>(*m.stall_us - ref.second);
  const double limit_us = cfg_.pressure_stall / 100.0 * span * 1e6;
  if (stalled_us > limit_us)
    return {true,
            fmt::format("tasks stalled on memory for {:.0f} ms of the last {:.2f} s (PSI \"some\"; the guard stops past "
                        "{:g} %, {:.0f} ms)",
                        stalled_us / 1000, span, cfg_.pressure_stall, limit_us / 1000),
            "pressure"};
  return {};
}

GuardVerdict GuardPolicy::observe_growth(const SystemMemory& m) {
  // Both starts are taken at the first reading, whichever stops first.
  GuardVerdict comp = over_budget(m.compressor_bytes, compressor_start_, cfg_.compressor_budget, "compressed memory", "compressor");
  GuardVerdict wired = over_budget(m.wired_bytes, wired_start_, cfg_.wired_budget, "wired memory", "wired");
  return comp.stop ? comp : wired;
}

GuardVerdict GuardPolicy::probe_failed(const std::string& why) {
  return {true, fmt::format("the memory probe failed ({}); stopped to be safe", why), "probe"};
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
