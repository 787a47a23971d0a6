#include "job/main_job.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"
#include "probe/probe.h"
#include "job/mac_warning.h"
#include "sandbox/sandbox.h"

namespace wmb {

void choose_main_job(RunnerOptions& o, bool cap_given, const MacRuns& runs, bool warn_now) {
#ifdef __APPLE__
  (void)cap_given;
  if (warn_now) warn_before_mac_fill(o.scenario, runs);  // job/mac_warning.h: fills up to N GiB of M GiB, Ctrl-C to stop
#else
  (void)runs;
  (void)warn_now;
  Scenario& s = o.scenario;
  if (s.device != "mps") return;
  SandboxSupport sup = sandbox_support(true);
  if (sup.ok) {
    s.device = "mps-model";
    if (!o.ram_limit) o.ram_limit = 2ull << 30;
    o.notes.push_back(fmt::format(
        "No Mac here: this runs the watermark matrix on mps-model, a MODEL of the MPS allocator's limits on real "
        "CPU memory, inside a {} memory sandbox (Linux {}) that stands for the memory a Mac has free. "
        "It is not a measurement of a Mac.",
        format_size(*o.ram_limit), sup.kind));
    return;
  }
  s.device = "cpu";
  const uint64_t free_now = make_platform_probe()->system().available();
  const uint64_t cap = std::max<uint64_t>(free_now / 10, 64ull << 20);
  if (!cap_given) s.cap = SizeExpr{std::to_string(cap)};
  o.notes.push_back(fmt::format(
      "No Mac and no sandbox here ({}). Running the matrix on cpu with a cap of {} (10 % of the {} free now), "
      "so every run stops by `cap`: this shows the harness working, not the watermark behaviour. "
      "For the Mac-like table run as root with swap (`sudo scripts/swapfile.sh on 4096`).",
      sup.why_not, format_size(cap_given ? s.cap->resolve(free_now) : cap), format_size(free_now)));
#endif
}

}  // namespace wmb
