#include "guard/guard_check.h"

#include <algorithm>

#include "guard/supervisor.h"

namespace wmb {

GuardVerdict check_guard(GuardPolicy& policy, MemoryProbe& probe, SuperviseResult& r) {
  try {
    SystemMemory m = probe.system();
    r.swap_after = m.swap_used;
    r.swap_peak = std::max(r.swap_peak, m.swap_used);
    return policy.observe(m);
  } catch (const ProbeError& e) {
    if (r.probe_error.empty()) r.probe_error = e.what();
    return policy.probe_failed(e.what());
  }
}

}  // namespace wmb
