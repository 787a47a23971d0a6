#include "job/mac_warning.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "common/units.h"
#include "probe/probe.h"

namespace wmb {

MacFillFacts mac_fill_facts(const Scenario& s, uint64_t ram, const MacRuns& runs) {
  MacFillFacts f;
  f.ram = ram;
  f.cap = s.cap ? std::min(s.cap->resolve(ram), ram) : ram;
  f.swap_budget = s.guard.swap_budget.resolve(ram);
  f.cells = s.matrix.size() * static_cast<size_t>(std::max(1, s.repeats));
  if (runs.fills > 0) {
    f.cells = runs.fills;
    f.what = runs.what;
  }
  f.timeout_s = s.timeout;
  return f;
}

std::string mac_fill_warning(const MacFillFacts& f) {
  // The RAM could not be read (ram 0): no "up to 0 bytes of its 0 bytes", which reads as "nothing".
  if (f.ram == 0)
    return fmt::format(
        "wmbench: this fills REAL memory on this Mac, {} cell(s) one after another, each up to its cap; this Mac's RAM "
        "could not be read, so how much that is cannot be said. For at most {} a cell.\n"
        "wmbench: the guard stops a cell once swap has grown past the swap budget; PyTorch's own limit may stop it "
        "first. The Mac may be slow while a cell fills.\n"
        "wmbench: Ctrl-C stops it at any time (finished cells are kept; `wmbench run --resume DIR` runs the rest).\n",
        f.cells, format_duration(f.timeout_s));
  return fmt::format(
      "wmbench: this fills REAL memory on this Mac, {} cell(s) one after another{}: each fills up to {} of its {} "
      "of RAM (unified memory: the apps you have open share it), for at most {} a cell.\n"
      "wmbench: the guard stops a cell once swap has grown by {} (the swap budget); PyTorch's own limit may stop it "
      "first. The Mac may be slow while a cell fills.\n"
      "wmbench: Ctrl-C stops it at any time (finished cells are kept; `wmbench run --resume DIR` runs the rest).\n",
      f.cells, f.what.empty() ? "" : " (" + f.what + ")", format_size(f.cap), format_size(f.ram), format_duration(f.timeout_s), format_size(f.swap_budget));
}

double mac_warning_wait_s(bool stdin_is_tty, bool stderr_is_tty, const std::function<const char*(const char*)>& getenv,
                          double wait_s) {
  if (!stdin_is_tty || !stderr_is_tty) return 0;
  const auto set = [&](const char* name) {
    const char* v = getenv(name);
    return v && *v && std::string(v) != "0" && std::string(v) != "false";
  };
  if (set("CI") || set("WMBENCH_NO_WAIT")) return 0;
  return wait_s;
}

void warn_before_mac_fill(const Scenario& s, const MacRuns& runs) {
#ifdef __APPLE__
  if (s.device != "mps") return;
  uint64_t ram = 0;
  try {
    ram = make_platform_probe()->system().ram_total;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wmbench: cannot read this Mac's RAM for the warning (%s)\n", e.what());
  }
  std::fputs(mac_fill_warning(mac_fill_facts(s, ram, runs)).c_str(), stderr);
  const double wait = mac_warning_wait_s(::isatty(STDIN_FILENO) == 1, ::isatty(STDERR_FILENO) == 1,
                                         [](const char* n) { return std::getenv(n); });
  if (wait > 0) {
    std::fprintf(stderr, "wmbench: starting in %.0f s (Ctrl-C now to stop before anything runs)\n", wait);
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
#else
  (void)s;
  (void)runs;
#endif
}

}  // namespace wmb
