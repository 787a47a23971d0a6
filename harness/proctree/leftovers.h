// What a guarded command (or a `run --command` job) left running after it ended, and stopping
// it, so that a run ends with no process of its cell left (issue 22, class E):
// - in a cgroup (Linux as root): every member of the cgroup, however it left its group;
// - without one: the guard makes itself the "child subreaper" of its descendants (Linux prctl
//   PR_SET_CHILD_SUBREAPER), so a process whose parent exited, a `setsid` daemon or a background
//   job included, becomes the guard's child instead of init's; after the command is gone every
//   child of the guard, every member of the command's process group or session, and their
//   descendants, is a leftover. Each is named, then stopped (SIGTERM, SIGKILL after the grace).
// macOS has no subreaper: there only the command's process group is checked (its pids unknown).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace wmb {

class Sandbox;

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

struct LeftoverStop {
  std::vector<LeftProcess> procs;  // every process found, named before it was stopped
  bool killed = false;             // some outlived SIGTERM by the grace and got SIGKILL
  bool emptied = true;             // none was found any more at the end
};

// find_leftovers(pgid), then each found is stopped: SIGTERM (and SIGCONT, for one that is
// stopped), SIGKILL to what is still found after `grace`. The search is repeated while it waits,
// so a process forked meanwhile is named and stopped too, and a pid is only signalled while the
// search still finds it.
LeftoverStop stop_leftovers(pid_t pgid, double grace);

// The command (leader `pgid`) is gone: what it left is stopped, in `cgroup` when there is one,
// else by stop_leftovers. Returns the sentence that names them and says how they were stopped,
// "" when nothing was left: "the command left 1 process(es) running: pid 12 (sleep); stopped
// them (SIGTERM was enough)". The guard and the runner (child/job_watch.cpp) both say it.
std::string stop_what_is_left(Sandbox* cgroup, pid_t pgid, double grace);

// /proc/PID/comm ("?" where unknown, e.g. macOS).
std::string process_name(pid_t pid);

// "pid 1234 (sleep), pid 1240 (python3)"
std::string describe(const std::vector<LeftProcess>& procs);

}  // namespace wmb
