// wmbench guard [--wait-free PCT] [--swap-budget SIZE] [--kill-free PCT] [--interval S]
//               [--trace FILE] [--ram-limit SIZE] -- CMD ARGS...
// Exit codes, as users of such guards know them: 3 the guard stopped the command, 4 no room to
// start it, 127 it could not be started, 128+N when the guard itself got signal N (it stops the
// command first), otherwise the command's own status (128+N if a signal ended it).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/files.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "guard/supervisor.h"
#include "sandbox/sandbox.h"

namespace wmb::cli {
namespace {

constexpr int kGuardStopped = 3;
constexpr int kNoRoom = 4;
constexpr int kCannotStart = 127;

struct GuardArgs {
  double wait_free = 0, kill_free = 0;
  std::string swap_budget = "2GiB", interval = "0.5s", check = "100ms", trace, ram_limit, wait_timeout = "5m", grace = "5s";
  std::vector<std::string> cmd;
  bool quiet = false;
};

int guard_command(const GuardArgs& a) {
  GuardConfig cfg;
  double interval = 0.5;
  std::optional<uint64_t> ram_limit;
  try {
    cfg.swap_budget = parse_size(a.swap_budget, /*allow_zero=*/true);
    interval = parse_duration(a.interval);
    cfg.check_interval = parse_duration(a.check);
    cfg.wait_free_timeout = parse_duration(a.wait_timeout);
    if (!a.ram_limit.empty()) ram_limit = parse_size(a.ram_limit);
  } catch (const UnitError& e) {
    std::cerr << "wmbench guard: " << e.what() << "\n";
    return kExitUsage;
  }
  cfg.wait_free = a.wait_free;
  cfg.kill_free = a.kill_free;
  double grace = 5;
  try {
    grace = parse_duration(a.grace);
  } catch (const UnitError& e) {
    std::cerr << "wmbench guard: " << e.what() << "\n";
    return kExitUsage;
  }
  if (a.cmd.empty()) {
    std::cerr << "wmbench guard: no command given; usage: wmbench guard [options] -- CMD ARGS...\n";
    return kExitUsage;
  }
  install_interrupt_handlers();
  auto probe = make_platform_probe();
  SteadyClock clock;
  RealSleeper sleeper;

  WaitOutcome w = wait_for_free(*probe, clock, sleeper, cfg.wait_free, cfg.wait_free_timeout);
  if (int sig = interrupt_signal()) return 128 + sig;
  if (!w.ok) {
    std::cerr << "wmbench guard: no room to start: " << w.why << "\n";
    return kNoRoom;
  }
  std::unique_ptr<Sandbox> sandbox;
  if (ram_limit) {
    SandboxSupport sup = sandbox_support(true);
    if (!sup.ok) {
      std::cerr << "wmbench guard: --ram-limit: " << sup.why_not << "\n";
      return kExitUsage;
    }
    try {
      sandbox = std::make_unique<Sandbox>(*ram_limit, "guard");
    } catch (const SandboxError& e) {
      std::cerr << "wmbench guard: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  std::unique_ptr<TraceWriter> trace;
  if (!a.trace.empty()) {
    try {
      trace = std::make_unique<TraceWriter>(a.trace);
    } catch (const FileError& e) {
      std::cerr << "wmbench guard: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  uint64_t swap_before = 0;
  try {
    swap_before = probe->system().swap_used;
  } catch (const ProbeError& e) {
    std::cerr << "wmbench guard: the memory probe failed: " << e.what() << "\n";
    return kNoRoom;
  }
  SpawnOptions so;
  so.argv = a.cmd;
  so.env = current_environment();
  so.stdin_null = false;
  if (sandbox) so.cgroup_procs = sandbox->procs_file();
  Child child;
  try {
    child = spawn_child(so);
  } catch (const SpawnError& e) {
    std::cerr << "wmbench guard: " << e.what() << "\n";
    return kCannotStart;
  }
  if (trace)
    trace->line({{"type", "start"}, {"utc", utc_now_iso()}, {"interval", interval}, {"pid", child.pid},
                 {"command", a.cmd}, {"swap_budget_bytes", cfg.swap_budget}});
  SuperviseOptions sup;
  sup.guard = cfg;
  sup.sample_interval = interval;
  sup.grace = grace;
  sup.cgroup_dir = sandbox ? sandbox->dir() : "";
  sup.trace = trace.get();
  SuperviseResult r = supervise(child, sup, *probe, clock, swap_before);
  if (trace && r.stopper == Stopper::None) trace->line({{"type", "end"}});
  if (sandbox) sandbox->remove();
  switch (r.stopper) {
    case Stopper::Guard:
      std::cerr << fmt::format("wmbench guard: stopped the command: {} (child gone {:.0f} ms after the decision)\n",
                               r.reason, r.stop_latency * 1000);
      return kGuardStopped;
    case Stopper::Interrupted:
      if (!a.quiet) std::cerr << "wmbench guard: " << r.reason << "; stopped the command\n";
      return 128 + r.interrupt_signal;
    default:
      return r.status.shell_status();
  }
}

Registrar reg{Command{20, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<GuardArgs>();
  auto* c = app.add_subcommand("guard", "Run any command under the swap guard (exit 3 when the guard stopped it)");
  c->add_option("--wait-free", a->wait_free, "Wait until this percent of memory is free before starting")->check(CLI::Range(0.0, 100.0));
  c->add_option("--wait-timeout", a->wait_timeout, "Give up waiting for free memory after this long (exit 4)");
  c->add_option("--swap-budget", a->swap_budget, "Stop the command when swap grew more than this since the start")->capture_default_str();
  c->add_option("--kill-free", a->kill_free, "Stop the command when free memory stays under this percent for two checks")->check(CLI::Range(0.0, 100.0));
  c->add_option("--interval", a->interval, "Trace sample interval")->capture_default_str();
  c->add_option("--check-interval", a->check, "Guard check interval")->capture_default_str();
  c->add_option("--grace", a->grace, "SIGTERM -> SIGKILL grace")->capture_default_str();
  c->add_option("--trace", a->trace, "Write a JSONL memory trace here");
  c->add_option("--ram-limit", a->ram_limit, "Linux: run the command in a memory cgroup of this size (needs root and swap)");
  c->add_flag("-q,--quiet", a->quiet, "Fewer messages");
  c->add_option("command", a->cmd, "The command and its arguments, after --")->required();
  c->callback([a, &exit_code] { exit_code = guard_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
