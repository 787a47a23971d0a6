// The child a run gets, from the runner's options: child/child_spec.h's ChildChoice filled in.
#include "child/child_spec.h"
#include "common/run_error.h"
#include "runner/runner.h"

namespace wmb {

void apply_python_child_default(RunnerOptions& o) {
  if (o.scenario.program == "command") return;  // the job is the child
  ChildChoice c{o.fill_path, o.python, o.scenario.device, {}, nullptr};
  const std::string note = apply_python_child_default(c);
  o.python = c.python;
  if (!note.empty()) o.notes.push_back(note);
}

namespace {
ChildChoice choice_of(const RunnerOptions& opts) {
  ChildChoice c{opts.fill_path, opts.python, opts.scenario.device, {}, opts.python_facts};
  if (opts.scenario.program == "command") {
    c.command = opts.scenario.command;
    if (c.command.empty()) throw RunRefused("program \"command\" without a command: give \"command\": [argv...] or -- CMD ARGS");
  }
  return c;
}
}  // namespace

std::unique_ptr<FillChild> choose_fill_child(const RunnerOptions& opts) { return choose_fill_child(choice_of(opts)); }
std::string chosen_child_kind(const RunnerOptions& opts) { return chosen_child_kind(choice_of(opts)); }

}  // namespace wmb
