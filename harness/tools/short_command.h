// A short helper command (python's version check, the matplotlib probe, a chart script) started
// through the no-shell spawner with an argv, bounded in time, its stdout kept (up to 64 KiB).
// No path or argument is ever seen by a shell.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spawn/process.h"

namespace wmb {

struct CommandOutput {
  bool started = false;
  std::string start_error;  // when !started
  bool timed_out = false;   // stopped after timeout_s
  int interrupted = 0;      // the parent got this signal; the command was stopped
  ExitStatus status;
  std::string out;          // stdout

  bool ok() const { return started && !timed_out && !interrupted && status.code && *status.code == 0; }
  std::string failure() const;  // "exit 1", "killed by SIGSEGV", "no answer within 60 s", ...
};

// stderr_path: "" = the parent's stderr, else a file ("/dev/null"). env: the command's whole
// environment; nullopt = the parent's. cwd: "" = the parent's working directory.
// stop_on_interrupt: true, a signal to wmbench (Ctrl-C) stops the command; false, the command runs
// to its end (or timeout_s) whatever wmbench got meanwhile (the sysctl that puts a value back
// after Ctrl-C, lever/sysctl_program.cpp).
CommandOutput run_short_command(const std::vector<std::string>& argv, double timeout_s,
                                const std::string& stderr_path = "/dev/null",
                                const std::optional<std::map<std::string, std::string>>& env = std::nullopt,
                                const std::string& cwd = "", bool stop_on_interrupt = true);

}  // namespace wmb
