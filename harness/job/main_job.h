// The main job off a Mac (`wmbench run` with no SCENARIO and no --device, the scenario on mps):
// the same matrix on mps-model inside a memory sandbox where this machine allows one, otherwise
// a cap-limited cpu run, each said plainly in the options' notes. On a Mac it warns before the first
// fill and, on a terminal, waits a few seconds (job/mac_warning.h).
#pragma once

#include "job/mac_warning.h"

#include "runner/runner.h"

namespace wmb {

// cap_given: --cap was on the command line (the cpu fallback then keeps it). Throws ProbeError
// when free memory cannot be read for the cpu fallback. `runs`: how many fills the command runs
// of the scenario, for the warning on a Mac (releases, tune; job/mac_warning.h). warn_now false: the
// caller warns later itself (releases: after its environments are made, just before the first fill,
// so the seconds to stop it are not spent before minutes of downloads).
void choose_main_job(RunnerOptions& o, bool cap_given, const MacRuns& runs = {}, bool warn_now = true);

}  // namespace wmb
