#include "guard/guard_check.h"

#include <algorithm>

#include "guard/supervisor.h"

namespace wmb {

GuardCheck check_guard(GuardPolicy& policy, CheckPacer& pacer, MemoryProbe& probe, double now, SuperviseResult& r) {
  GuardCheck c;
  try {
    SystemMemory m = probe.check_reading();
    r.swap_after = m.swap_used;
    r.swap_peak = std::max(r.swap_peak, m.swap_used);
    c.verdict = policy.observe(m, now);
    c.next_in = pacer.next_in(now, m);
  } catch (const ProbeError& e) {
    if (r.probe_error.empty()) r.probe_error = e.what();
    c.verdict = policy.probe_failed(e.what());
  }
  return c;
}

}  // namespace wmb
