#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "io/kernel_file.h"
#include "common/units.h"
#include "sandbox/sandbox.h"

namespace wmb {
namespace {

// A kernel file, or "" when it cannot be read (kernel_file.h). Up to 64 MiB: /proc/self/mounts of a
// host with thousands of mounts, or the cgroup.procs of a job that forked as many pids as Linux
// allows (pid_max 4194304: 8 bytes each, 32 MiB), is read whole, never taken for an empty file.
std::string slurp(const std::string& path) { return read_kernel_file(path, size_t{64} << 20).value_or(""); }

bool write_text(const std::string& path, const std::string& text, std::string* err = nullptr) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    if (err) *err = std::strerror(errno);
    return false;
  }
  bool ok = std::fputs(text.c_str(), f) >= 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok && err) *err = std::strerror(errno);
  return ok;
}

// This process's cgroup path in the hierarchy whose /proc/self/cgroup line matches.
std::string own_cgroup(bool v2) {
  std::istringstream in(slurp("/proc/self/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    // "4:memory:/a/b" (v1) or "0::/a/b" (v2)
    auto c1 = line.find(':');
    auto c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    std::string ctrls = line.substr(c1 + 1, c2 - c1 - 1);
    std::string path = line.substr(c2 + 1);
    if (v2 && ctrls.empty()) return path;
    if (!v2 && (ctrls == "memory" || ctrls.find("memory,") != std::string::npos ||
                ctrls.find(",memory") != std::string::npos))
      return path;
  }
  return "";
}

// Mount point of cgroup2, or of the v1 memory controller.
std::string mount_point(bool v2) {
  std::istringstream in(slurp("/proc/self/mounts"));
  std::string dev, mnt, type, opts;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    ls >> dev >> mnt >> type >> opts;
    if (v2 && type == "cgroup2") return mnt;
    if (!v2 && type == "cgroup" && ("," + opts + ",").find(",memory,") != std::string::npos) return mnt;
  }
  return "";
}

bool writable_dir(const std::string& d) { return ::access(d.c_str(), W_OK) == 0; }

uint64_t swap_total() {
  std::istringstream in(slurp("/proc/meminfo"));
  std::string key;
  uint64_t v = 0;
  std::string unit;
  while (in >> key >> v) {
    std::getline(in, unit);
    if (key == "SwapTotal:") return v * 1024;
  }
  return 0;
}

int g_counter = 0;

}  // namespace

SandboxSupport sandbox_support(bool need_swap) {
  SandboxSupport s;
  // v2 with the memory controller available to children of our cgroup.
  std::string m2 = mount_point(true);
  if (!m2.empty()) {
    std::string base = m2 + own_cgroup(true);
    std::string ctrls = slurp(base + "/cgroup.controllers");
    if (ctrls.find("memory") != std::string::npos) {
      if (!writable_dir(base)) {
        s.why_not = fmt::format("cgroup v2 at {} is not writable (run as root or in a delegated cgroup)", base);
      } else {
        s.kind = "cgroup-v2";
        s.parent_dir = base;
      }
    }
  }
  if (s.kind.empty()) {
    std::string m1 = mount_point(false);
    if (!m1.empty()) {
      std::string base = m1 + own_cgroup(false);
      if (!writable_dir(base)) base = m1;
      if (writable_dir(base)) {
        s.kind = "cgroup-v1";
        s.parent_dir = base;
      } else {
        s.why_not = fmt::format("the memory cgroup at {} is not writable: run as root", base);
      }
    } else if (s.why_not.empty()) {
      s.why_not = "no memory cgroup controller is mounted (neither cgroup v2 with memory nor v1 memory)";
    }
  }
  if (s.kind.empty()) return s;
  if (need_swap && swap_total() == 0) {
    s.why_not = "no swap is active, so a sandboxed run cannot slide into swap as a Mac does; "
                "make some with `sudo scripts/swapfile.sh on 4096`";
    return s;
  }
  s.ok = true;
  return s;
}

Sandbox::Sandbox(uint64_t limit, const std::string& name_hint) : limit_(limit) {
  SandboxSupport s = sandbox_support(false);
  if (s.kind.empty()) throw SandboxError(fmt::format("--ram-limit: cannot make a memory sandbox: {}", s.why_not));
  kind_ = s.kind;
  dir_ = fmt::format("{}/wmbench-{}-{}-{}", s.parent_dir, ::getpid(), ++g_counter, name_hint);
  if (::mkdir(dir_.c_str(), 0755) != 0)
    throw SandboxError(fmt::format("--ram-limit: cannot make cgroup {}: {}", dir_, std::strerror(errno)));
  if (limit == 0) return;  // no limit: the cgroup only holds the processes
  std::string err;
  const std::string limit_file = kind_ == "cgroup-v2" ? dir_ + "/memory.max" : dir_ + "/memory.limit_in_bytes";
  if (!write_text(limit_file, std::to_string(limit), &err)) {
    std::string why = fmt::format("--ram-limit: cannot set {} to {}: {}", limit_file, limit, err);
    remove();
    throw SandboxError(why);
  }
  if (kind_ == "cgroup-v2") write_text(dir_ + "/memory.swap.max", "max");
  // Never let the kernel OOM-kill inside the sandbox while swap is left: that is the point.
}

Sandbox::~Sandbox() { remove(); }

std::optional<uint64_t> Sandbox::peak_usage() const {
  std::string s = slurp(dir_ + (kind_ == "cgroup-v2" ? "/memory.peak" : "/memory.max_usage_in_bytes"));
  if (s.empty()) return std::nullopt;
  return std::strtoull(s.c_str(), nullptr, 10);
}

std::vector<pid_t> read_cgroup_procs(const std::string& cgroup_dir) {
  std::vector<pid_t> v;
  std::istringstream in(slurp(cgroup_dir + "/cgroup.procs"));
  long p = 0;
  while (in >> p)
    if (p > 0) v.push_back(static_cast<pid_t>(p));
  return v;
}

std::vector<pid_t> Sandbox::procs() const { return dir_.empty() ? std::vector<pid_t>{} : read_cgroup_procs(dir_); }

void Sandbox::signal_all(int sig) const {
  for (pid_t p : procs()) ::kill(p, sig);
}

CgroupStop Sandbox::stop_all(double grace) {
  CgroupStop r;
  r.pids = procs();
  if (r.pids.empty()) return r;
  for (pid_t p : r.pids) ::kill(p, SIGTERM);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace);
  while (!procs().empty() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Processes that came in meanwhile (a fork before the SIGTERM landed) are in procs() too.
  const auto left = procs();
  if (!left.empty()) {
    r.killed = true;
    for (pid_t p : left) ::kill(p, SIGKILL);
    const auto hard = Clock::now() + std::chrono::seconds(5);
    while (!procs().empty() && Clock::now() < hard) {
      signal_all(SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  r.emptied = procs().empty();
  return r;
}

std::string Sandbox::remove() {
  if (dir_.empty()) return "";
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(dir_.c_str()) == 0 || errno == ENOENT) {
      dir_.clear();
      return "";
    }
    if (errno != EBUSY) break;
    // Stragglers: kill whatever is left in it, then retry.
    signal_all(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string err = fmt::format("cannot remove cgroup {}: {}", dir_, std::strerror(errno));
  return err;
}

}  // namespace wmb
