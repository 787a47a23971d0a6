// The Mac's own sysctl: sysctlbyname. Compiled only on Apple platforms.
//
// NOT RUN ON A MAC: written on Linux from the SDK's and xnu's headers, cross-compiled
// (scripts/cross-macos.sh), never run. What fixes each result's unit:
//   - <sys/sysctl.h> (xnu bsd/sys/sysctl.h): `int sysctlbyname(const char *, void *, size_t *,
//     void *, size_t);` with a null oldp it stores the value's length IN BYTES in *oldlenp; 0 on
//     success, -1 with errno.
//   - iogpu.wired_limit_mb is not xnu's: the IOGPUFamily kext (closed source) registers it. Its
//     unit is MiB, as its name says and every public reader takes it (antirez/ds4 reads it as an
//     int and multiplies by 1024*1024; "a 4-byte sysctl lands in the low bytes on arm64" in another
//     reader): so its length is asked first, and 4 (int) or 8 bytes are taken, anything else refused.
//   - kern.boottime (xnu bsd/kern/kern_sysctl.c): `SYSCTL_PROC(_kern, KERN_BOOTTIME, boottime,
//     CTLTYPE_STRUCT | CTLFLAG_KERN | CTLFLAG_RD | CTLFLAG_LOCKED, 0, 0, sysctl_boottime,
//     "S,timeval", "");` a struct timeval, tv_sec in seconds since the epoch.
#include <sys/sysctl.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "lever/sysctl.h"

namespace wmb::lever {
namespace {

std::string errno_text(int e) { return fmt::format("{} (errno {})", std::strerror(e), e); }

size_t value_length(const std::string& name) {
  size_t len = 0;
  if (sysctlbyname(name.c_str(), nullptr, &len, nullptr, 0) != 0)
    throw LeverError(fmt::format("sysctlbyname(\"{}\"): {}", name, errno_text(errno)));
  if (len != sizeof(int32_t) && len != sizeof(int64_t))
    throw LeverError(fmt::format("sysctlbyname(\"{}\"): its value is {} bytes; expected 4 or 8 (an integer)", name, len));
  return len;
}

class MacSysctl final : public Sysctl {
 public:
  std::string where() const override { return "sysctlbyname"; }

  uint64_t read(const std::string& name) override {
    size_t len = value_length(name);
    int64_t v64 = 0;
    int32_t v32 = 0;
    void* p = len == sizeof(v32) ? static_cast<void*>(&v32) : static_cast<void*>(&v64);
    if (sysctlbyname(name.c_str(), p, &len, nullptr, 0) != 0)
      throw LeverError(fmt::format("sysctlbyname(\"{}\"): {}", name, errno_text(errno)));
    const int64_t v = len == sizeof(v32) ? v32 : v64;
    if (v < 0) throw LeverError(fmt::format("sysctlbyname(\"{}\") read {}; expected 0 or more MiB", name, v));
    return static_cast<uint64_t>(v);
  }

  void write(const std::string& name, uint64_t value) override {
    const size_t len = value_length(name);
    if (len == sizeof(int32_t) && value > INT32_MAX)
      throw LeverError(fmt::format("{}={}: more than the 4-byte sysctl holds", name, value));
    int32_t v32 = static_cast<int32_t>(value);
    int64_t v64 = static_cast<int64_t>(value);
    void* p = len == sizeof(v32) ? static_cast<void*>(&v32) : static_cast<void*>(&v64);
    if (sysctlbyname(name.c_str(), nullptr, nullptr, p, len) != 0)
      throw LeverError(fmt::format("sysctlbyname(\"{}\", {}): {}{}", name, value, errno_text(errno),
                                   errno == EPERM ? "; setting it needs root" : ""));
  }
};

}  // namespace

std::unique_ptr<Sysctl> system_sysctl() { return std::make_unique<MacSysctl>(); }

std::string boot_id() {
  struct timeval tv {};
  size_t len = sizeof(tv);
  if (sysctlbyname("kern.boottime", &tv, &len, nullptr, 0) != 0 || len != sizeof(tv)) return "";
  return fmt::format("kern.boottime {}", static_cast<long long>(tv.tv_sec));
}

}  // namespace wmb::lever
