// macOS has no memory cgroups: --ram-limit is a Linux feature. Compiled only on Apple platforms.
#include "sandbox/sandbox.h"

namespace wmb {

SandboxSupport sandbox_support(bool) {
  SandboxSupport s;
  s.why_not = "--ram-limit needs Linux memory cgroups; on a Mac run without it (the real RAM is the limit)";
  return s;
}

Sandbox::Sandbox(uint64_t limit, const std::string&) : limit_(limit) {
  throw SandboxError("--ram-limit: " + sandbox_support(false).why_not);
}
Sandbox::~Sandbox() = default;
std::optional<uint64_t> Sandbox::peak_usage() const { return std::nullopt; }
std::vector<pid_t> read_cgroup_procs(const std::string&) { return {}; }
std::vector<pid_t> Sandbox::procs() const { return {}; }
void Sandbox::signal_all(int) const {}
CgroupStop Sandbox::stop_all(double) { return {}; }
std::string Sandbox::remove() { return ""; }

}  // namespace wmb
