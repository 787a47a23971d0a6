// The one system setting wmbench changes, behind an injected interface: the sysctl that is read
// and written. The kinds: the system's own (sysctl_macos.cpp: sysctlbyname; sysctl_linux.cpp: there
// is no iogpu sysctl off a Mac) and a stand-in program (sysctl_program.cpp) that the simulated Mac's
// tests name with WMBENCH_SYSCTL_STANDIN (scripts/ci/fake-macos/bin/sysctl keeps its value in a file).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace wmb::lever {

struct LeverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The variable that names a stand-in sysctl program (an absolute path): the simulated Mac's tests.
inline constexpr const char* kStandinEnv = "WMBENCH_SYSCTL_STANDIN";

class Sysctl {
 public:
  virtual ~Sysctl() = default;
  // In words, for messages and lever.json: "sysctlbyname" or "the stand-in /path (WMBENCH_SYSCTL_STANDIN)".
  virtual std::string where() const = 0;
  // The value of an integer sysctl (iogpu.wired_limit_mb: MiB). Throws LeverError.
  virtual uint64_t read(const std::string& name) = 0;
  // Sets it (root only). Throws LeverError naming the name, the value and why.
  virtual void write(const std::string& name, uint64_t value) = 0;
};

// The system's: sysctlbyname on a Mac; elsewhere one whose every call throws LeverError.
std::unique_ptr<Sysctl> system_sysctl();
// A program that takes `-n NAME` (prints the value) and `NAME=VALUE` (sets it), as macOS sysctl(8).
std::unique_ptr<Sysctl> program_sysctl(const std::string& path);
// $WMBENCH_SYSCTL_STANDIN when set (refused unless an absolute path to an executable regular
// file), else the system's. Throws LeverError.
std::unique_ptr<Sysctl> chosen_sysctl();
// Whether WMBENCH_SYSCTL_STANDIN is set (a simulated Mac: mps-model cells write it too).
bool standin_named();

// This boot, in words ("" when unknown): a value left set by a wmbench before a reboot was reset by
// the reboot and is not put back (kern.boottime on a Mac, /proc/sys/kernel/random/boot_id on Linux).
std::string boot_id();

}  // namespace wmb::lever
