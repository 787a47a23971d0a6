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
    SystemMemory m = check_reading();
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
    // A zombie has no VmRSS: report zero rather than failing.
    p.footprint = p.rss.value_or(0) + p.swap.value_or(0);
    if (!cgroup_dir.empty()) {
      if (auto cur = number_file(cgroup_dir + "/memory.current")) {  // v2
        p.cgroup_usage = cur;
        p.cgroup_swap = number_file(cgroup_dir + "/memory.swap.current");
      } else if (auto use = number_file(cgroup_dir + "/memory.usage_in_bytes")) {  // v1
        p.cgroup_usage = use;
        if (read_small(cgroup_dir + "/memory.stat", buf_)) p.cgroup_swap = space_field(buf_, "swap");
      }
    }
    return p;
  }

  std::string name() const override { return "linux-procfs"; }

 private:
  std::string buf_;
};

}  // namespace

std::unique_ptr<MemoryProbe> make_platform_probe() { return std::make_unique<LinuxProbe>(); }

}  // namespace wmb
