// The sizes of one run (step, cap, swap budget, offload), resolved against the RAM it sees: what the
// runner plans with and the fill child is given (child/child_spec.h fill_flags).
#pragma once

#include <cstdint>
#include <optional>

#include "scenario/scenario.h"

namespace wmb {

struct ResolvedSizes {
  uint64_t ram = 0;          // what %RAM refers to
  uint64_t step = 0;
  uint64_t unscaled_step = 0;  // the step as the scenario writes it, before the min_steps shrink
  std::optional<uint64_t> cap;
  uint64_t swap_budget = 0;
  std::optional<uint64_t> offload_size;
  bool step_shrunk = false;
};
ResolvedSizes resolve_sizes(const Scenario& s, uint64_t ram);

}  // namespace wmb
