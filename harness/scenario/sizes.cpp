#include "scenario/sizes.h"

#include "common/units.h"

namespace wmb {

ResolvedSizes resolve_sizes(const Scenario& s, uint64_t ram) {
  ResolvedSizes z;
  z.ram = ram;
  z.step = s.step.resolve(ram);
  z.unscaled_step = z.step;
  if (s.min_steps > 0 && z.step > ram / static_cast<uint64_t>(s.min_steps)) {
    // Shrink to the largest power-of-two MiB that still gives min_steps steps across RAM.
    uint64_t limit = ram / static_cast<uint64_t>(s.min_steps);
    uint64_t p = MiB;
    while (p * 2 <= limit) p *= 2;
    z.step = p;
    z.step_shrunk = true;
  }
  z.step -= z.step % 4;
  if (z.step < 4) z.step = 4;
  if (s.cap) z.cap = s.cap->resolve(ram);
  z.swap_budget = s.guard.swap_budget.resolve(ram);
  if (s.offload_size) z.offload_size = s.offload_size->resolve(ram);
  return z;
}

}  // namespace wmb
