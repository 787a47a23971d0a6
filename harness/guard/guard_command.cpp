#include "guard/guard_command.h"

#include <cstdlib>
#include <memory>

#include <signal.h>
#include <ostream>

#include <fmt/format.h>

#include "io/files.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "proctree/leftovers.h"
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

// Without --ram-limit: a cgroup without a limit, only to know (and stop) every process of the
// command, however it left its process group. Linux as root (or a delegated cgroup); nullptr
// elsewhere, or when WMBENCH_GUARD_NO_CGROUP=1 (then the leftovers are found and stopped by
// stop_leftovers).
std::unique_ptr<Sandbox> make_tracking_cgroup() {
  const char* off = std::getenv("WMBENCH_GUARD_NO_CGROUP");
  if (off && *off && std::string(off) != "0") return nullptr;
  if (sandbox_support(false).kind.empty()) return nullptr;
  try {
    return std::make_unique<Sandbox>(0, "guard");
  } catch (const SandboxError&) {
    return nullptr;  // not root: the leftovers are looked for after the command instead
  }
}

std::string how_stopped(const SuperviseResult& r, double grace) {
  return r.killed ? fmt::format("it ignored SIGTERM for the {:g} s grace: SIGKILL was needed", grace)
                  : "SIGTERM was enough";
}

// What the guard says and returns once the command is gone.
int guard_exit(const GuardCommandOptions& o, const SuperviseResult& r, std::ostream& err) {
  switch (r.stopper) {
    case Stopper::Guard:
      err << fmt::format("wmbench guard: stopped the command: {} (child gone {:.0f} ms after the decision; {})\n", r.reason,
                         r.stop_latency * 1000, how_stopped(r, o.grace));
      return kGuardStopped;
    case Stopper::Interrupted:
      if (!o.quiet) err << "wmbench guard: " << r.reason << "; stopped the command (" << how_stopped(r, o.grace) << ")\n";
      return 128 + r.interrupt_signal;
    default:
      return r.status.shell_status();
  }
}

// The command is gone: whatever it left running is stopped (in its cgroup, else each pid found)
// and named (proctree/leftovers.h).
void handle_leftovers(const GuardCommandOptions& o, Sandbox* cgroup, pid_t pgid, std::ostream& err) {
  const std::string said = stop_what_is_left(cgroup, pgid, o.grace);
  if (!said.empty()) err << "wmbench guard: " << said << "\n";
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
  InterruptibleSleeper sleeper;  // a signal ends the free-memory wait at once

  // Said before a wait that may last minutes (the command has not started yet).
  if (o.guard.wait_free > 0)
    err << fmt::format("wmbench guard: waiting until {:.1f} % of memory is free before starting the command (at most {})\n",
                       o.guard.wait_free, format_duration(o.guard.wait_free_timeout));
  WaitOutcome w = wait_for_free(*probe, clock, sleeper, o.guard.wait_free, o.guard.wait_free_timeout);
  if (int sig = interrupt_signal()) return 128 + sig;
  if (!w.ok) {
    err << "wmbench guard: no room to start: " << w.why << "\n";
    return kGuardNoRoom;
  }
  std::unique_ptr<Sandbox> sandbox;
  if (o.ram_limit && !(sandbox = make_guard_sandbox(*o.ram_limit, err))) return kGuardBadInput;
  if (!sandbox) sandbox = make_tracking_cgroup();
  adopt_orphans();  // orphans of the command become the guard's children, to be found after it
  std::unique_ptr<TraceWriter> trace;
  if (!o.trace_path.empty()) {
    try {
      trace = std::make_unique<TraceWriter>(o.trace_path);
    } catch (const FileError& e) {
      err << "wmbench guard: " << e.what() << "\n";
      return kGuardBadInput;
    }
  }
  uint64_t swap_before = 0, ram = 0;
  try {
    const SystemMemory m = probe->system();
    swap_before = m.swap_used;
    ram = m.ram_total;
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
  CtrlZHold ctrl_z;  // a Ctrl-Z before the command's group is watched waits for it (common/interrupt.h)
  try {
    child = spawn_child(so);
  } catch (const SpawnError& e) {
    err << "wmbench guard: " << e.what() << "\n";
    return kGuardCannotStart;
  }
  if (trace)
    trace->line({{"type", "start"}, {"utc", utc_now_iso()}, {"interval", o.sample_interval}, {"pid", child.pid},
                 {"command", o.command}, {"swap_budget_bytes", o.guard.swap_budget}, {"pressure", o.signals.pressure},
                 {"pressure_stall", o.signals.pressure_stall}});
  SuperviseOptions sup = supervise_options(o, sandbox.get(), trace.get());
  apply_guard_signals(o.signals, ram, sup.guard);
  if (sandbox)
    sup.signal_others = [&sandbox](int sig) { sandbox->signal_all(sig); };
  // Ctrl-Z stops the command (its group and its cgroup) with the guard (common/interrupt.h).
  set_watched_child_group(child.pid, so.cgroup_procs);
  ctrl_z.release();
  SuperviseResult r = supervise(child, sup, *probe, clock, swap_before);
  set_watched_child_group(0);
  if (trace && r.stopper == Stopper::None) trace->line({{"type", "end"}});
  int code = guard_exit(o, r, err);
  // A trace that could not be written is a trace that was asked for and is missing: said, and
  // the exit is not 0 (it was, with every write to /proc/self/mem failing).
  if (trace && !trace->error().empty()) {
    err << "wmbench guard: " << trace->error() << "; the trace is incomplete\n";
    if (code == 0) code = 1;
  }
  handle_leftovers(o, sandbox.get(), child.pid, err);
  if (sandbox) sandbox->remove();
  return code;
}

}  // namespace wmb
