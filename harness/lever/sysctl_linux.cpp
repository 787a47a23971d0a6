// Off a Mac there is no iogpu.wired_limit_mb: the system's sysctl refuses every call (only the
// simulated Mac's stand-in, WMBENCH_SYSCTL_STANDIN, sets it here).
#include <fmt/format.h>

#include "io/kernel_file.h"
#include "lever/sysctl.h"

namespace wmb::lever {
namespace {

class NoSysctl final : public Sysctl {
 public:
  std::string where() const override { return "this system (not a Mac)"; }
  uint64_t read(const std::string& name) override { throw LeverError(fmt::format("{}: there is no {} off a Mac", where(), name)); }
  void write(const std::string& name, uint64_t) override {
    throw LeverError(fmt::format("{}: there is no {} off a Mac", where(), name));
  }
};

}  // namespace

std::unique_ptr<Sysctl> system_sysctl() { return std::make_unique<NoSysctl>(); }

std::string boot_id() {
  std::string s = read_kernel_file("/proc/sys/kernel/random/boot_id", 64).value_or("");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace wmb::lever
