// run_matrix: the four stages in order (runner/stages.h says what each does and where it is).
#include "runner/runner.h"

#include <ostream>

#include "common/interrupt.h"
#include "common/units.h"
#include "runner/run_error.h"
#include "runner/stages.h"

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

int run_matrix(const RunnerOptions& opts, std::ostream& out, std::ostream& err) {
  install_interrupt_handlers();
  auto probe = make_platform_probe();
  try {
    // --resume: the folder is locked before anything of it is read (a second writer is refused).
    std::unique_ptr<HeldFolder> held = opts.resume_dir.empty() ? nullptr : hold_folder(opts.resume_dir, opts);
    const Plan plan = make_plan(opts, held.get(), &err);
    Prepared prep = prepare(opts, plan, *probe, std::move(held));
    say_start(opts, plan, prep, out);
    const SessionEnd end = run_all(opts, plan, prep, *probe, err);
    return finish(opts, prep, end, out, err);
  } catch (const RunRefused& e) {
    err << "wmbench run: " << e.what() << "\n";
    return e.exit_code;
  }
}

}  // namespace wmb
