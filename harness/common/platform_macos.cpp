// macOS machine facts. Compiled and run only on macOS; NOT compiled or run by its author (no Mac
// was available): written from Apple's documented sysctl names (kern.osproductversion,
// machdep.cpu.brand_string, hw.memsize) and _NSGetExecutablePath (<mach-o/dyld.h>).
#include <mach-o/dyld.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/platform.h"

namespace wmb {
namespace {
std::string sysctl_string(const char* name) {
  size_t size = 0;
  if (::sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return "";
  std::vector<char> buf(size + 1, '\0');
  if (::sysctlbyname(name, buf.data(), &size, nullptr, 0) != 0) return "";
  return std::string(buf.data());
}
}  // namespace

MachineFacts machine_facts() {
  MachineFacts f;
  f.os = "macOS";
  f.os_version = sysctl_string("kern.osproductversion");
  f.chip = sysctl_string("machdep.cpu.brand_string");
  uint64_t mem = 0;
  size_t size = sizeof mem;
  if (::sysctlbyname("hw.memsize", &mem, &size, nullptr, 0) == 0 && size == sizeof mem) f.ram_bytes = mem;
  f.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  f.hostname = host;
  return f;
}

std::string self_exe_path() {
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::vector<char> buf(size + 1, '\0');
  if (_NSGetExecutablePath(buf.data(), &size) != 0) return "";
  char real[PATH_MAX];
  if (::realpath(buf.data(), real) == nullptr) return std::string(buf.data());
  return real;
}

}  // namespace wmb
