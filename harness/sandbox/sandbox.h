// Linux memory sandbox (--ram-limit SIZE): the child runs in a fresh memory cgroup limited to
// SIZE, so past SIZE it swaps, as a Mac does past its RAM. cgroup v2 (memory.max) or v1
// (memory.limit_in_bytes). Needs root (or a delegated cgroup) and some swap; without them
// `check()` says plainly what is missing. The cgroup is removed when the Sandbox is destroyed.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/types.h>

namespace wmb {

struct SandboxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SandboxSupport {
  bool ok = false;
  std::string why_not;     // what is missing, in words
  std::string kind;        // "cgroup-v2" | "cgroup-v1"
  std::string parent_dir;  // where sandboxes are made
};

// Can a sandbox be made here? (cgroup with memory controller, writable, and swap present.)
SandboxSupport sandbox_support(bool need_swap = true);

// What stop_all() found and did.
struct CgroupStop {
  std::vector<pid_t> pids;   // the processes that were in the cgroup
  bool killed = false;       // some outlived SIGTERM by the grace and got SIGKILL
  bool emptied = true;       // the cgroup was empty at the end
};

// The pids a cgroup's cgroup.procs lists now; none when it cannot be read (kernel_file.h).
std::vector<pid_t> read_cgroup_procs(const std::string& cgroup_dir);

class Sandbox {
 public:
  // Makes <parent>/wmbench-<pid>-<n> limited to `limit` bytes (0: no limit, a cgroup only to
  // know every process of a command, e.g. `wmbench guard`). Throws SandboxError.
  Sandbox(uint64_t limit, const std::string& name_hint);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  const std::string& dir() const { return dir_; }
  std::string procs_file() const { return dir_ + "/cgroup.procs"; }
  const std::string& kind() const { return kind_; }
  uint64_t limit() const { return limit_; }
  // Peak usage the kernel recorded (v1 memory.max_usage_in_bytes, v2 memory.peak), if any.
  std::optional<uint64_t> peak_usage() const;
  // The processes in the cgroup now (cgroup.procs), however they left the process group or
  // session they were started in (setsid, double fork).
  std::vector<pid_t> procs() const;
  // Sends sig to every process in procs() (Ctrl-Z, fg, a stop): one that exits meanwhile is skipped.
  void signal_all(int sig) const;
  // SIGTERM to every process in the cgroup, SIGKILL to those left after `grace` seconds, then
  // waits (a few seconds at most) until it is empty.
  CgroupStop stop_all(double grace);
  // Removes the cgroup (kills stragglers first). Idempotent; returns an error text or "".
  std::string remove();

 private:
  std::string dir_, kind_;
  uint64_t limit_;
};

}  // namespace wmb
