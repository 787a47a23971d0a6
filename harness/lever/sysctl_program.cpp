// A stand-in sysctl program (the simulated Mac's scripts/ci/fake-macos/bin/sysctl): started
// without a shell (tools/short_command.h, told to run to its end whatever signal wmbench got: the
// value must be put back after Ctrl-C), `PATH -n NAME` to read, `PATH NAME=VALUE` to set.
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "common/units.h"
#include "io/utf8.h"
#include "lever/sysctl.h"
#include "spawn/process.h"
#include "tools/short_command.h"

namespace wmb::lever {
namespace {

constexpr double kTimeoutS = 10;

struct Ran {
  std::string out;
  std::string failure;  // "" when it exited 0
};

// Runs argv to its end (at most kTimeoutS), whatever signal wmbench got meanwhile; its stdout kept.
Ran run_to_end(const std::vector<std::string>& argv) {
  const CommandOutput c = run_short_command(argv, kTimeoutS, "/dev/null", std::nullopt, "", /*stop_on_interrupt=*/false);
  Ran r;
  r.out = c.out;
  if (!c.ok()) r.failure = c.timed_out ? fmt::format("no answer within {:g} s", kTimeoutS) : c.failure();
  return r;
}

class ProgramSysctl final : public Sysctl {
 public:
  explicit ProgramSysctl(std::string path) : path_(std::move(path)) {}
  std::string where() const override { return fmt::format("the stand-in {} ({})", path_, kStandinEnv); }

  uint64_t read(const std::string& name) override {
    const Ran o = run_to_end({path_, "-n", name});
    if (!o.failure.empty()) throw LeverError(fmt::format("{}: reading {} failed: {}", where(), name, o.failure));
    std::string t = o.out;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    const auto v = parse_number(t);
    if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string::npos || !v)
      throw LeverError(fmt::format("{}: {} read as \"{}\"; expected a whole number", where(), name, utf8_sanitize(t, 64)));
    return std::stoull(t);
  }

  void write(const std::string& name, uint64_t value) override {
    const Ran o = run_to_end({path_, fmt::format("{}={}", name, value)});
    if (!o.failure.empty()) throw LeverError(fmt::format("{}: setting {}={} failed: {}", where(), name, value, o.failure));
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Sysctl> program_sysctl(const std::string& path) { return std::make_unique<ProgramSysctl>(path); }

bool standin_named() {
  const char* p = std::getenv(kStandinEnv);
  return p && *p;
}

std::unique_ptr<Sysctl> chosen_sysctl() {
  if (!standin_named()) return system_sysctl();
  const std::string p = std::getenv(kStandinEnv);
  struct stat st {};
  if (p.front() != '/' || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(p.c_str(), X_OK) != 0)
    throw LeverError(fmt::format("{}=\"{}\": not an absolute path to an executable regular file", kStandinEnv,
                                 utf8_sanitize(p, 200)));
  return program_sysctl(p);
}

}  // namespace wmb::lever
