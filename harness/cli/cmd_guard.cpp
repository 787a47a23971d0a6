// wmbench guard [--wait-free PCT] [--swap-budget SIZE] [--kill-free PCT] [--pressure LEVEL]
//               [--pressure-stall PCT] [--compressor-budget SIZE] [--wired-budget SIZE] [--interval S]
//               [--trace FILE] [--ram-limit SIZE] -- CMD ARGS...
// Exit codes, as users of such guards know them: 3 the guard stopped the command, 4 no room to
// start it, 127 it could not be started, 128+N when the guard itself got signal N (it stops the
// command first), otherwise the command's own status (128+N if a signal ended it).
#include <iostream>

#include "cli/command.h"
#include "job/run_setup.h"
#include "common/units.h"
#include "guard/guard_command.h"
#include "common/limits.h"

namespace wmb::cli {
namespace {

struct GuardArgs {
  double wait_free = 0, kill_free = 0;
  std::string swap_budget = "2GiB", interval = "0.5s", check = "10ms", trace, ram_limit, wait_timeout = "5m", grace = "5s";
  std::vector<std::string> cmd;
  GuardSignalFlags signals;
  bool quiet = false;
};

int guard_command(const GuardArgs& a) {
  GuardCommandOptions o;
  try {
    // The same bounds as a scenario's guard and `wmbench run` (common/limits.h): a zero
    // swap budget is refused by both, NaN is no percent, an interval has a floor.
    o.guard.swap_budget = parse_size(a.swap_budget);
    o.sample_interval = check_interval(parse_duration(a.interval), "--interval");
    o.guard.check_interval = check_interval(parse_duration(a.check), "--check-interval");
    o.guard.wait_free = check_percent(a.wait_free, "--wait-free");
    o.guard.kill_free = check_percent(a.kill_free, "--kill-free");
    o.guard.wait_free_timeout = parse_duration(a.wait_timeout);
    if (!a.ram_limit.empty()) o.ram_limit = parse_size(a.ram_limit);
    o.grace = parse_duration(a.grace);
    apply_guard_signal_flags(a.signals, o.signals);
  } catch (const UnitError& e) {
    std::cerr << "wmbench guard: " << e.what() << "\n";
    return kExitUsage;
  }
  if (a.cmd.empty()) {
    std::cerr << "wmbench guard: no command given; usage: wmbench guard [options] -- CMD ARGS...\n";
    return kExitUsage;
  }
  o.command = a.cmd;
  o.trace_path = a.trace;
  o.quiet = a.quiet;
  return run_guarded(o, std::cerr);
}

Registrar reg_guard{Command{20, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<GuardArgs>();
  auto* c = app.add_subcommand("guard", "Run any command under the swap guard (exit 3 when the guard stopped it)");
  c->add_option("--wait-free", a->wait_free, "Wait until this percent of memory is free before starting")->check(CLI::Range(0.0, 100.0));
  c->add_option("--wait-timeout", a->wait_timeout, "Give up waiting for free memory after this long (exit 4)");
  c->add_option("--swap-budget", a->swap_budget, "Stop the command when swap grew more than this since the start")->capture_default_str();
  c->add_option("--kill-free", a->kill_free, "Stop the command when free memory stays under this percent for two checks")->check(CLI::Range(0.0, 100.0));
  add_guard_signal_flags(c, a->signals);
  c->add_option("--interval", a->interval, "Trace sample interval")->capture_default_str();
  c->add_option("--check-interval", a->check, "Longest time between two guard checks (shorter near the limits, and at once after each line of the command)")->capture_default_str();
  c->add_option("--grace", a->grace, "SIGTERM -> SIGKILL grace")->capture_default_str();
  c->add_option("--trace", a->trace, "Write a JSONL memory trace here");
  c->add_option("--ram-limit", a->ram_limit, "Linux: run the command in a memory cgroup of this size (needs root and swap)");
  c->add_flag("-q,--quiet", a->quiet, "Fewer messages");
  // The command's own arguments may be empty ("" is a real argument of many programs).
  allow_empty(c->add_option("command", a->cmd, "The command and its arguments, after --"))->required();
  c->callback([a, &exit_code] { exit_code = guard_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
