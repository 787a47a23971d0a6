// The main job off a Mac (`wmbench run` with no SCENARIO and no --device, the scenario on mps):
// the same matrix on mps-model inside a memory sandbox where this machine allows one, otherwise
// a cap-limited cpu run, each said plainly in the options' notes. On a Mac it warns before the first
// fill and, on a terminal, waits a few seconds (job/mac_warning.h).
#pragma once

#include "runner/runner.h"

namespace wmb {

// cap_given: --cap was on the command line (the cpu fallback then keeps it). Throws ProbeError
// when free memory cannot be read for the cpu fallback.
void choose_main_job(RunnerOptions& o, bool cap_given);

}  // namespace wmb
