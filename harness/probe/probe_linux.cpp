// Linux memory probe: /proc/meminfo (swap, MemAvailable), /proc/vmstat (pswpin/pswpout),
// /proc/PID/status (VmRSS + VmSwap of the child) and, for a child in a sandbox cgroup, the
// cgroup's own usage and swap (v2: memory.current / memory.swap.current; v1: memory.usage_in_bytes
// and "swap" in memory.stat, or memory.memsw.usage_in_bytes - memory.usage_in_bytes).

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "io/kernel_file.h"
#include "probe/probe.h"

namespace wmb {
namespace {

// The whole file into out (kernel_file.h: no exceptions; a process that exits while its file is
// read is false, as a file that is not there).
bool read_small(const std::string& path, std::string& out) {
  auto text = read_kernel_file(path);
  if (!text) return false;
  out = std::move(*text);
  return true;
}

// Value of "Key:   123 kB" lines (kB = 1024 bytes) in /proc files.
std::optional<uint64_t> kb_field(const std::string& text, const char* key) {
  const size_t klen = std::strlen(key);
  size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string::npos) {
    if ((pos == 0 || text[pos - 1] == '\n') && text.compare(pos + klen, 1, ":") == 0) {
      const char* p = text.c_str() + pos + klen + 1;
      char* end = nullptr;
      unsigned long long v = std::strtoull(p, &end, 10);
      if (end == p) return std::nullopt;
      return static_cast<uint64_t>(v) * 1024;
    }
    pos += klen;
  }
  return std::nullopt;
}

// Value of "key 123" lines (memory.stat, vmstat).
std::optional<uint64_t> space_field(const std::string& text, const char* key) {
  const size_t klen = std::strlen(key);
  size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string::npos) {
    if ((pos == 0 || text[pos - 1] == '\n') && text.compare(pos + klen, 1, " ") == 0) {
      return std::strtoull(text.c_str() + pos + klen + 1, nullptr, 10);
    }
    pos += klen;
  }
  return std::nullopt;
}

// The `total=` of the "some" line of a PSI file ("some avg10=0.00 avg60=0.00 avg300=0.00
// total=123\nfull ..."): microseconds (Documentation/accounting/psi.rst, "The total absolute
// stall time (in us) is tracked and exported as well").
std::optional<uint64_t> psi_some_total(const std::string& text) {
  if (text.rfind("some ", 0) != 0) return std::nullopt;
  const size_t eol = text.find('\n');
  const size_t pos = text.find(" total=");
  if (pos == std::string::npos || (eol != std::string::npos && pos > eol)) return std::nullopt;
  const char* p = text.c_str() + pos + 7;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(p, &end, 10);
  if (end == p) return std::nullopt;
  return static_cast<uint64_t>(v);
}

std::optional<uint64_t> number_file(const std::string& path) {
  std::string s;
  if (!read_small(path, s) || s.empty()) return std::nullopt;
  if (s.rfind("max", 0) == 0) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

class LinuxProbe : public MemoryProbe {
 public:
  SystemMemory system() override {
    SystemMemory m = meminfo_reading();
    read_stall(m);
    if (read_small("/proc/vmstat", buf_)) {
      m.swapins = space_field(buf_, "pswpin");
      m.swapouts = space_field(buf_, "pswpout");
    }
    return m;
  }
  // /proc/meminfo alone: /proc/vmstat costs twice as much again (about 70 us against 30 us here,
  // the kernel sums every counter of every CPU for it) and a check does not need it. Not
  // sysinfo(2), though it reads the same swap counters in the kernel: in a container /proc/meminfo
  // may be another's view (LXCFS), and the check must compare with the reading at the start.
  SystemMemory check_reading() override {
    SystemMemory m = meminfo_reading();
    if (pressure_in_checks_) read_stall(m);
    return m;
  }
  void want_pressure_in_checks(bool on) override { pressure_in_checks_ = on; }

  // The whole machine's PSI: a cgroup v1 sandbox has no memory.pressure of its own, and the
  // stall of the sandbox's tasks is in the system's counter too. A kernel without PSI (psi=0)
  // leaves it unknown: the pressure signal is then not read (the trace shows null).
  void read_stall(SystemMemory& m) {
    if (read_small("/proc/pressure/memory", buf_)) m.stall_us = psi_some_total(buf_);
  }

  SystemMemory meminfo_reading() {
    if (!read_small("/proc/meminfo", buf_))
      throw ProbeError(fmt::format("cannot read /proc/meminfo: {}", std::strerror(errno)));
    auto total = kb_field(buf_, "MemTotal");
    auto avail = kb_field(buf_, "MemAvailable");
    auto st = kb_field(buf_, "SwapTotal");
    auto sf = kb_field(buf_, "SwapFree");
    if (!total || !avail || !st || !sf || *total == 0)
      throw ProbeError("/proc/meminfo lacks MemTotal, MemAvailable, SwapTotal or SwapFree");
    SystemMemory m;
    m.ram_total = *total;
    m.swap_total = *st;
    m.swap_used = *st >= *sf ? *st - *sf : 0;
    m.level = 100.0 * static_cast<double>(*avail) / static_cast<double>(*total);
    return m;
  }

  ProcessMemory process(pid_t pid, const std::string& cgroup_dir) override {
    ProcessMemory p;
    if (!read_small(fmt::format("/proc/{}/status", pid), buf_))
      throw ProbeError(fmt::format("cannot read /proc/{}/status: {}", pid, std::strerror(errno)));
    p.rss = kb_field(buf_, "VmRSS");
    p.swap = kb_field(buf_, "VmSwap");
    const auto hwm = kb_field(buf_, "VmHWM");  // the child's resident peak (proc(5): "Peak resident set size")
    // A zombie has no VmRSS: report zero rather than failing.
    p.footprint = p.rss.value_or(0) + p.swap.value_or(0);
    if (!cgroup_dir.empty()) {
      if (auto cur = number_file(cgroup_dir + "/memory.current")) {  // v2
        p.cgroup_usage = cur;
        p.cgroup_swap = number_file(cgroup_dir + "/memory.swap.current");
        // cgroup-v2.rst: memory.peak "the max memory usage recorded for the cgroup and its
        // descendants", memory.swap.peak "the max swap usage recorded": bytes. Their sum is at
        // least the peak of memory + swap at any one time.
        const auto mp = number_file(cgroup_dir + "/memory.peak");
        if (mp) p.kernel_peak = *mp + number_file(cgroup_dir + "/memory.swap.peak").value_or(0);
      } else if (auto use = number_file(cgroup_dir + "/memory.usage_in_bytes")) {  // v1
        p.cgroup_usage = use;
        if (read_small(cgroup_dir + "/memory.stat", buf_)) p.cgroup_swap = space_field(buf_, "swap");
        // cgroup-v1/memory.rst: "memory.memsw.max_usage_in_bytes # show max memory+Swap usage
        // recorded" (bytes); without swap accounting, "memory.max_usage_in_bytes".
        p.kernel_peak = number_file(cgroup_dir + "/memory.memsw.max_usage_in_bytes");
        if (!p.kernel_peak) p.kernel_peak = number_file(cgroup_dir + "/memory.max_usage_in_bytes");
      }
    }
    if (!p.kernel_peak) p.kernel_peak = hwm;
    return p;
  }

  std::optional<uint64_t> oom_kills(const std::string& cgroup_dir) override {
    if (cgroup_dir.empty()) return std::nullopt;
    std::string text;
    // v2 memory.events: "oom_kill The number of processes belonging to this cgroup killed by any
    // kind of OOM killer"; v1 memory.oom_control has the same "oom_kill N" line (Linux 4.13+).
    if (read_small(cgroup_dir + "/memory.events", text) || read_small(cgroup_dir + "/memory.oom_control", text))
      return space_field(text, "oom_kill");
    return std::nullopt;
  }

  std::string name() const override { return "linux-procfs"; }

 private:
  std::string buf_;
  bool pressure_in_checks_ = false;
};

}  // namespace

std::unique_ptr<MemoryProbe> make_platform_probe() { return std::make_unique<LinuxProbe>(); }

}  // namespace wmb
