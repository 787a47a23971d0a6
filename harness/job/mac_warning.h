// What the main job says on a Mac before its first cell (issue 28): it fills real unified memory,
// so the user is told how much, of how much, what stops it, and how to stop it, and on a terminal
// has a few seconds to do so. The text and the wait decision are plain functions of what they are
// given (RAM, cap, budget, isatty, the environment), so they are unit-tested off a Mac.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "scenario/scenario.h"

namespace wmb {

struct MacFillFacts {
  uint64_t ram = 0;          // this Mac's physical RAM
  uint64_t cap = 0;          // the most one cell fills (the scenario's cap resolved against ram)
  uint64_t swap_budget = 0;  // the guard stops a cell once swap grew by this
  size_t cells = 0;          // fills one after another: cells x repeats, or the command's own count
  std::string what;          // how the command counts them ("" for one matrix)
  double timeout_s = 0;      // per cell
};

// How many fills a command runs of the scenario (issue 42): `wmbench run` one matrix (fills 0:
// cells x repeats); `releases` the matrix once per release; `tune` one cell per probed setting, up
// to its bound (tune/tune_policy.h max_tune_settings).
struct MacRuns {
  size_t fills = 0;
  std::string what;  // "the matrix once for each of 3 releases"
};

// The facts of scenario `s` on a Mac with `ram` bytes of RAM.
MacFillFacts mac_fill_facts(const Scenario& s, uint64_t ram, const MacRuns& runs = {});

// The warning, several lines, each ending in '\n': "wmbench: this fills real memory on this Mac:
// up to 45.6 GiB of its 48.0 GiB ...", the guard's swap budget, and "Ctrl-C stops it".
std::string mac_fill_warning(const MacFillFacts& f);

// Seconds to wait after the warning: `wait_s` when a person can read it and stop it (stdin and
// stderr are terminals), 0 on a pipe or a file, under CI (CI set and not "false"/"0") or with
// WMBENCH_NO_WAIT set. `getenv` is injected (std::getenv in wmbench).
double mac_warning_wait_s(bool stdin_is_tty, bool stderr_is_tty, const std::function<const char*(const char*)>& getenv,
                          double wait_s = 10);

// On a Mac, for a main job on mps: prints the warning to stderr and, on a terminal, waits
// (Ctrl-C then ends wmbench before anything started). Elsewhere, or another device, does nothing.
void warn_before_mac_fill(const Scenario& s, const MacRuns& runs = {});

}  // namespace wmb
