// macOS machine facts. Compiled and run only on macOS; NOT run by its author (no Mac was
// available); compiled and linked for aarch64-macos by scripts/cross-macos.sh. Written from the
// SDK's <sys/sysctl.h> (sysctlbyname), <unistd.h> (sysconf, _SC_PAGESIZE), <mach-o/dyld.h>
// (_NSGetExecutablePath) and these sysctl names:
//   kern.osproductversion  string, "15.5" (the marketing version; xnu kern_sysctl.c)
//   kern.osversion         string, the build, "24F74" (xnu kern_sysctl.c)
//   hw.model               string, "Mac15,8"; "VirtualMac2,1" in a VM
//   machdep.cpu.brand_string string, "Apple M3 Max"
//   hw.memsize             64-bit integer, bytes of RAM
//   iogpu.wired_limit_mb   integer from the IOGPU kernel extension (not in xnu, not documented by
//                          Apple): the GPU wired-memory limit in MB, 0 = the system's default;
//                          users raise it with `sudo sysctl iogpu.wired_limit_mb=N` (resets at
//                          boot); public tools report that Metal's recommended working set
//                          follows it, and that macOS 13 and older had debug.iogpu.wired_limit
//                          instead (then this reads null).
#include <errno.h>
#include <mach-o/dyld.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "host/metal_device.h"
#include "host/platform.h"

namespace wmb {
namespace {
std::string sysctl_string(const char* name) {
  size_t size = 0;
  if (::sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return "";
  std::vector<char> buf(size + 1, '\0');
  if (::sysctlbyname(name, buf.data(), &size, nullptr, 0) != 0) return "";
  return std::string(buf.data());
}

// An integer sysctl of 4 or 8 bytes (the width of iogpu.wired_limit_mb is not documented).
std::optional<int64_t> sysctl_integer(const char* name, std::string* why) {
  unsigned char buf[8] = {0};
  size_t size = sizeof buf;
  if (::sysctlbyname(name, buf, &size, nullptr, 0) != 0) {
    *why = std::string(name) + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (size == sizeof(int32_t)) {
    int32_t v;
    std::memcpy(&v, buf, sizeof v);
    return v;
  }
  if (size == sizeof(int64_t)) {
    int64_t v;
    std::memcpy(&v, buf, sizeof v);
    return v;
  }
  *why = std::string(name) + ": " + std::to_string(size) + " bytes, expected 4 or 8";
  return std::nullopt;
}

void add_note(std::string& notes, const std::string& n) { notes += (notes.empty() ? "" : "; ") + n; }

MacFacts mac_facts() {
  MacFacts m;
  m.product_version = sysctl_string("kern.osproductversion");
  m.build_version = sysctl_string("kern.osversion");
  m.hw_model = sysctl_string("hw.model");
  if (m.product_version.empty()) add_note(m.notes, "kern.osproductversion unreadable");
  if (m.build_version.empty()) add_note(m.notes, "kern.osversion unreadable");
  if (m.hw_model.empty()) add_note(m.notes, "hw.model unreadable");
  std::string why;
  m.metal_device = metal_default_device_name(&why);
  if (!why.empty()) add_note(m.notes, "Metal device: " + why);  // none, or one MPS would not use
  m.metal_device_virtual = metal_device_is_virtual(m.metal_device);
  why.clear();
  m.iogpu_wired_limit_mb = sysctl_integer("iogpu.wired_limit_mb", &why);
  if (!m.iogpu_wired_limit_mb) add_note(m.notes, why);
  return m;
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
  const long page = ::sysconf(_SC_PAGESIZE);  // 16384 on Apple silicon (hw.pagesize says the same)
  f.page_size_bytes = page > 0 ? static_cast<uint64_t>(page) : 0;
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  f.hostname = host;
  f.mac = mac_facts();
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
