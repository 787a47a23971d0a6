// What a guarded command left running after it ended, found without a cgroup (no root): the
// guard makes itself the "child subreaper" of its descendants (Linux prctl PR_SET_CHILD_SUBREAPER),
// so a process whose parent exited, a `setsid` daemon or a background job included, becomes the
// guard's child instead of init's; after the command is gone every child of the guard, every
// member of the command's process group or session, and their descendants, is a leftover.
// macOS has no subreaper: there only the command's process group is checked (its pids unknown).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace wmb {

struct LeftProcess {
  pid_t pid;
  std::string name;  // /proc/PID/comm
};

// Makes this process the subreaper of its descendants (Linux; elsewhere a no-op). Returns false
// when the kernel refused.
bool adopt_orphans();

// The processes the command (leader `pgid`, reaped already) left running. Reaps the zombies of
// adopted orphans first. On macOS: one entry with pid 0 when the group still has members.
std::vector<LeftProcess> find_leftovers(pid_t pgid);

// /proc/PID/comm ("?" where unknown, e.g. macOS).
std::string process_name(pid_t pid);

// "pid 1234 (sleep), pid 1240 (python3)"
std::string describe(const std::vector<LeftProcess>& procs);

}  // namespace wmb
