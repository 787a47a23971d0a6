// The signals a guard stop names (a run record's "guard_signal", the trace's stop event
// "signal"): one list for the writer (guard/policy.cpp) and every reader (the run record's
// schema, report, compare, history, explain), so that no reader refuses what the guard wrote.
// Folders written before issue 41 have no "guard_signal": a guard stop of theirs was the swap
// budget or the free-memory floor, and reads as "" (not known).
#pragma once

#include <string>
#include <vector>

namespace wmb {

inline const std::vector<std::string>& guard_signals() {
  // swap: swap growth past the budget; free-floor: free memory under kill_free; pressure: the
  // kernel's pressure level (macOS) or the PSI stall share (Linux); compressor / wired: their
  // growth past a budget (macOS); probe: the probe failed (stopped to be safe).
  static const std::vector<std::string> k = {"swap", "free-floor", "pressure", "compressor", "wired", "probe"};
  return k;
}

// How each reads in a sentence ("stopped by the guard on ...").
inline std::string guard_signal_words(const std::string& s) {
  if (s == "swap") return "swap growth";
  if (s == "free-floor") return "the free-memory floor";
  if (s == "pressure") return "memory pressure";
  if (s == "compressor") return "compressor growth";
  if (s == "wired") return "wired-memory growth";
  if (s == "probe") return "a failed memory probe";
  return s;
}

// What the kernel left to say it ended a run (a run record's "kernel_event", stopped_by "kernel"):
// oom-kill (Linux cgroup memory.events / memory.oom_control), jetsam (a macOS JetsamEvent report
// naming the child), panic (a .panic report newer than the run's last trace sample).
inline const std::vector<std::string>& kernel_events() {
  static const std::vector<std::string> k = {"oom-kill", "jetsam", "panic"};
  return k;
}

}  // namespace wmb
