#include "guard/guard_command.h"

#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "common/files.h"
#include "common/interrupt.h"
#include "guard/supervisor.h"
#include "sandbox/sandbox.h"

namespace wmb {
namespace {

// The sandbox around the command, when asked for; nullptr and a message when it cannot be made.
std::unique_ptr<Sandbox> make_guard_sandbox(uint64_t ram_limit, std::ostream& err) {
  SandboxSupport sup = sandbox_support(true);
  if (!sup.ok) {
    err << "wmbench guard: --ram-limit: " << sup.why_not << "\n";
    return nullptr;
  }
  try {
    return std::make_unique<Sandbox>(ram_limit, "guard");
  } catch (const SandboxError& e) {
    err << "wmbench guard: " << e.what() << "\n";
    return nullptr;
  }
}

// What the guard says and returns once the command is gone.
int guard_exit(const GuardCommandOptions& o, const SuperviseResult& r, std::ostream& err) {
  switch (r.stopper) {
    case Stopper::Guard:
      err << fmt::format("wmbench guard: stopped the command: {} (child gone {:.0f} ms after the decision)\n", r.reason,
                         r.stop_latency * 1000);
      return kGuardStopped;
    case Stopper::Interrupted:
      if (!o.quiet) err << "wmbench guard: " << r.reason << "; stopped the command\n";
      return 128 + r.interrupt_signal;
    default:
      return r.status.shell_status();
  }
}

SuperviseOptions supervise_options(const GuardCommandOptions& o, const Sandbox* sandbox, TraceWriter* trace) {
  SuperviseOptions sup;
  sup.guard = o.guard;
  sup.sample_interval = o.sample_interval;
  sup.grace = o.grace;
  sup.cgroup_dir = sandbox ? sandbox->dir() : "";
  sup.trace = trace;
  return sup;
}

}  // namespace

int run_guarded(const GuardCommandOptions& o, std::ostream& err) {
  install_interrupt_handlers();
  auto probe = make_platform_probe();
  SteadyClock clock;
  RealSleeper sleeper;

  WaitOutcome w = wait_for_free(*probe, clock, sleeper, o.guard.wait_free, o.guard.wait_free_timeout);
  if (int sig = interrupt_signal()) return 128 + sig;
  if (!w.ok) {
    err << "wmbench guard: no room to start: " << w.why << "\n";
    return kGuardNoRoom;
  }
  std::unique_ptr<Sandbox> sandbox;
  if (o.ram_limit && !(sandbox = make_guard_sandbox(*o.ram_limit, err))) return kGuardBadInput;
  std::unique_ptr<TraceWriter> trace;
  if (!o.trace_path.empty()) {
    try {
      trace = std::make_unique<TraceWriter>(o.trace_path);
    } catch (const FileError& e) {
      err << "wmbench guard: " << e.what() << "\n";
      return kGuardBadInput;
    }
  }
  uint64_t swap_before = 0;
  try {
    swap_before = probe->system().swap_used;
  } catch (const ProbeError& e) {
    err << "wmbench guard: the memory probe failed: " << e.what() << "\n";
    return kGuardNoRoom;
  }
  SpawnOptions so;
  so.argv = o.command;
  so.env = current_environment();
  so.stdin_null = false;
  if (sandbox) so.cgroup_procs = sandbox->procs_file();
  Child child;
  try {
    child = spawn_child(so);
  } catch (const SpawnError& e) {
    err << "wmbench guard: " << e.what() << "\n";
    return kGuardCannotStart;
  }
  if (trace)
    trace->line({{"type", "start"}, {"utc", utc_now_iso()}, {"interval", o.sample_interval}, {"pid", child.pid},
                 {"command", o.command}, {"swap_budget_bytes", o.guard.swap_budget}});
  SuperviseResult r = supervise(child, supervise_options(o, sandbox.get(), trace.get()), *probe, clock, swap_before);
  if (trace && r.stopper == Stopper::None) trace->line({{"type", "end"}});
  if (sandbox) sandbox->remove();
  return guard_exit(o, r, err);
}

}  // namespace wmb
