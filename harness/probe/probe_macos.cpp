// The macOS memory probe ("macos-sysctl"). Compiled and run only on macOS (CMake builds
// *_macos.cpp on Apple only).
//
// NOT RUN BY ITS AUTHOR: it was written on Linux with no Mac at hand. It was compiled (not run)
// for aarch64-macos against the macOS 13 SDK headers that Zig 0.11 ships, and checked line by line
// against these headers (as in the macOS SDK and xnu):
//   - <sys/sysctl.h>: int sysctlbyname(const char*, void*, size_t*, void*, size_t);
//     struct xsw_usage { u_int64_t xsu_total, xsu_avail, xsu_used; u_int32_t xsu_pagesize;
//     boolean_t xsu_encrypted; }  (32 bytes)
//   - sysctl types (xnu): hw.memsize is a 64-bit quad; kern.memorystatus_level is SYSCTL_INT
//     (percent of memory available); kern.memorystatus_vm_pressure_level is CTLTYPE_INT
//     (1 normal, 2 warn, 4 critical).
//   - <libproc.h>: int proc_pid_rusage(int pid, int flavor, rusage_info_t *buffer);
//     0 on success, -1 with errno on failure; works on a live process or a zombie.
//     <sys/resource.h>: typedef void *rusage_info_t; struct rusage_info_v2 has uint64_t
//     ri_resident_size and ri_phys_footprint (the Memory column of Activity Monitor).
//   - <mach/mach_host.h>: kern_return_t host_statistics64(host_t, host_flavor_t, host_info64_t,
//     mach_msg_type_number_t*); <mach/host_info.h>: HOST_VM_INFO64, HOST_VM_INFO64_COUNT;
//     <mach/vm_statistics.h>: vm_statistics64 has uint64_t swapins, swapouts (pages).
//   - <mach/vm_statistics.h> (xnu osfmk/mach/vm_statistics.h), struct vm_statistics64:
//       natural_t wire_count;             /* # of pages wired down */
//       natural_t compressor_page_count;  /* # of pages used by the compressed pager to hold all the compressed data */
//     pages of the kernel's page size, <mach/vm_page_size.h> `vm_kernel_page_size` (16 KiB on
//     Apple silicon; not vm_page_size, the task's own, which differs under Rosetta).
//   - kern.memorystatus_vm_pressure_level (xnu bsd/kern/kern_memorystatus_notify.c):
//       uint32_t dispatch_level = convert_internal_pressure_level_to_dispatch_level(memorystatus_vm_pressure_level);
//       return SYSCTL_OUT(req, &dispatch_level, sizeof(dispatch_level));
//     a 4-byte dispatch level, NOTE_MEMORYSTATUS_PRESSURE_NORMAL 1, _WARN 2 (warning and urgent),
//     _CRITICAL 4 (<sys/event.h>); not the kernel's internal 0..4.
//   - <sys/resource.h> (xnu bsd/sys/resource.h), struct rusage_info_v4 (RUSAGE_INFO_V4):
//       uint64_t ri_phys_footprint;
//       uint64_t ri_lifetime_max_phys_footprint;
//     bytes, the second the kernel's own peak of phys_footprint over the process's life
//     (proc_pid_rusage on a zombie still answers: read before the child is reaped).
//   - mach_host_self() returns a send right that the caller owns: it is released with
//     mach_port_deallocate(mach_task_self(), port) after every sample so it does not leak.

#include "probe/probe.h"

#include <libproc.h>
#include <mach/mach.h>
#include <mach/mach_error.h>
#include <mach/vm_page_size.h>
#include <sys/resource.h>
#include <sys/sysctl.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace wmb {
namespace {

[[noreturn]] void fail_errno(const std::string& call, int err) {
  throw ProbeError(call + " failed: " + std::strerror(err) + " (errno " + std::to_string(err) + ")");
}

// Reads a fixed-size sysctl value. The size the kernel reports must equal sizeof(T); anything else
// means the value has another type than the one this code was written for.
template <typename T>
void read_sysctl(const char* name, T* out) {
  size_t size = sizeof(T);
  if (sysctlbyname(name, out, &size, nullptr, 0) != 0) {
    fail_errno(std::string("sysctlbyname(\"") + name + "\")", errno);
  }
  if (size != sizeof(T)) {
    throw ProbeError(std::string("sysctlbyname(\"") + name + "\") returned " + std::to_string(size) +
                     " bytes, expected " + std::to_string(sizeof(T)));
  }
}

class MacProbe final : public MemoryProbe {
 public:
  SystemMemory system() override {
    SystemMemory m;

    uint64_t memsize = 0;
    read_sysctl("hw.memsize", &memsize);
    m.ram_total = memsize;

    struct xsw_usage swap;
    std::memset(&swap, 0, sizeof(swap));
    read_sysctl("vm.swapusage", &swap);
    m.swap_total = static_cast<uint64_t>(swap.xsu_total);
    m.swap_used = static_cast<uint64_t>(swap.xsu_used);

    int level = 0;
    read_sysctl("kern.memorystatus_level", &level);
    m.level = static_cast<double>(level);

    uint32_t pressure = 0;  // uint32_t dispatch_level (above)
    read_sysctl("kern.memorystatus_vm_pressure_level", &pressure);
    m.pressure = static_cast<int>(pressure);

    vm_statistics64_data_t vmstat;
    std::memset(&vmstat, 0, sizeof(vmstat));
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    mach_port_t host = mach_host_self();
    if (host == MACH_PORT_NULL) {
      throw ProbeError("mach_host_self() returned MACH_PORT_NULL");
    }
    kern_return_t kr = host_statistics64(host, HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&vmstat), &count);
    kern_return_t dealloc = mach_port_deallocate(mach_task_self(), host);
    if (kr != KERN_SUCCESS) {
      throw ProbeError(std::string("host_statistics64(HOST_VM_INFO64) failed: ") + mach_error_string(kr) +
                       " (kern_return_t " + std::to_string(kr) + ")");
    }
    if (dealloc != KERN_SUCCESS) {
      throw ProbeError(std::string("mach_port_deallocate(host port) failed: ") + mach_error_string(dealloc) +
                       " (kern_return_t " + std::to_string(dealloc) + ")");
    }
    // The kernel writes back how many integers it filled. A kernel that fills only the first
    // revision of the struct (without the swapper counters) leaves swapins/swapouts unknown.
    if (count == HOST_VM_INFO64_COUNT) {
      m.swapins = static_cast<uint64_t>(vmstat.swapins);
      m.swapouts = static_cast<uint64_t>(vmstat.swapouts);
      // compressor_page_count and wire_count are pages of vm_kernel_page_size (above).
      const uint64_t page = static_cast<uint64_t>(vm_kernel_page_size);
      m.compressor_bytes = static_cast<uint64_t>(vmstat.compressor_page_count) * page;
    }
    // wire_count is in the first revision of the struct.
    m.wired_bytes = static_cast<uint64_t>(vmstat.wire_count) * static_cast<uint64_t>(vm_kernel_page_size);
    return m;
  }

  ProcessMemory process(pid_t pid, const std::string& /*cgroup_dir*/) override {
    struct rusage_info_v4 ri;
    std::memset(&ri, 0, sizeof(ri));
    if (proc_pid_rusage(static_cast<int>(pid), RUSAGE_INFO_V4, reinterpret_cast<rusage_info_t*>(&ri)) != 0) {
      fail_errno("proc_pid_rusage(" + std::to_string(pid) + ", RUSAGE_INFO_V4)", errno);
    }
    ProcessMemory p;
    p.footprint = static_cast<uint64_t>(ri.ri_phys_footprint);
    p.rss = static_cast<uint64_t>(ri.ri_resident_size);
    p.kernel_peak = static_cast<uint64_t>(ri.ri_lifetime_max_phys_footprint);  // bytes (above)
    // No cgroups on macOS; per-process swap is not reported by proc_pid_rusage.
    return p;
  }

  std::string name() const override { return "macos-sysctl"; }
};

}  // namespace

std::unique_ptr<MemoryProbe> make_platform_probe() { return std::make_unique<MacProbe>(); }

}  // namespace wmb
