#include "scenario/device_here.h"

#include <fmt/format.h>

#include "common/run_error.h"

namespace wmb {

void refuse_device_not_here(const Scenario& sc, const std::string& source) {
#ifdef __APPLE__
  (void)sc;
  (void)source;
#else
  if (sc.device != "mps") return;
  throw RunRefused(fmt::format(
      "{}device mps is available only on macOS (Apple silicon) and this is not a Mac; nothing was run. Run the "
      "MPS model here instead: `--device mps-model` (the MPS allocator's limits modelled on CPU memory), or run this "
      "scenario on a Mac",
      source.empty() ? "" : source + ": "));
#endif
}

}  // namespace wmb
