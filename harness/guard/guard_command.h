// `wmbench guard -- CMD ARGS...`: run any command under the swap guard. The command file
// (cli/cmd_guard.cpp) only turns flags into these options and returns the exit code.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "guard/policy.h"

namespace wmb {


struct GuardCommandOptions {
  GuardConfig guard;
  // The signals besides swap (pressure, PSI stall, compressor, wired), resolved against this
  // machine's RAM when the command starts (apply_guard_signals).
  GuardSettings signals;
  double sample_interval = 0.5;
  double grace = 5;
  std::optional<uint64_t> ram_limit;  // Linux memory cgroup around the command
  std::string trace_path;             // "" = no trace
  std::vector<std::string> command;   // argv, not empty
  bool quiet = false;
};

// Waits for room, starts the command (no shell, own process group), watches it, says on `err`
// why it stopped it. Returns the exit code above.
int run_guarded(const GuardCommandOptions& opts, std::ostream& err);

}  // namespace wmb
