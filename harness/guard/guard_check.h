// The guard check of supervise(): one system reading handed to the policy, and to the pacer for
// when the next check comes. A failed reading is a verdict too (the policy decides what a blind
// guard does).
#pragma once

#include "guard/pacer.h"
#include "guard/policy.h"
#include "probe/probe.h"

namespace wmb {

struct SuperviseResult;

struct GuardCheck {
  GuardVerdict verdict;
  double next_in = 0;  // seconds until the next check (CheckPacer)
};

// Also keeps the result's swap_after (the last reading while the child lived) and swap_peak.
// `now`: the clock reading of this check.
GuardCheck check_guard(GuardPolicy& policy, CheckPacer& pacer, MemoryProbe& probe, double now, SuperviseResult& result);

}  // namespace wmb
