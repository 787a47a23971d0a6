// The guard check of supervise(): one system reading handed to the policy. A failed reading is a
// verdict too (the policy decides what a blind guard does).
#pragma once

#include "guard/policy.h"
#include "probe/probe.h"

namespace wmb {

struct SuperviseResult;

// Also keeps the result's swap_after (the last reading while the child lived) and swap_peak.
GuardVerdict check_guard(GuardPolicy& policy, MemoryProbe& probe, SuperviseResult& result);

}  // namespace wmb
