// run_matrix: the four stages in order (runner/stages.h says what each does and where it is).
#include "runner/runner.h"

#include <ostream>

#include "common/interrupt.h"
#include "common/units.h"
#include "common/run_error.h"
#include "runner/stages.h"

namespace wmb {

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
