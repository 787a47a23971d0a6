// The footprint of a whole process tree, for a job that is not wmbench's own child (`wmbench run
// --command`, `wmbench tune --command`): a shell script that starts python, a launcher that forks
// workers. TreeProbe wraps the platform probe: process(root) is the sum over the root and every
// process of its tree (process_tree()), the rest (system memory, the cgroup's own counters) is
// the inner probe's.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "probe/probe.h"

namespace wmb {

// The processes of `root`'s tree, `root` first: Linux: the members of `cgroup_dir`'s cgroup.procs
// when given (every process of the job, however it left its group), else the descendants of root
// by /proc/PID/stat's ppid and the members of root's process group. macOS: root's process group
// (proc_listpgrppids; a child that left the group with setsid is not counted there).
std::vector<pid_t> process_tree(pid_t root, const std::string& cgroup_dir);

class TreeProbe final : public MemoryProbe {
 public:
  explicit TreeProbe(MemoryProbe& inner) : inner_(inner) {}
  SystemMemory system() override { return inner_.system(); }
  SystemMemory check_reading() override { return inner_.check_reading(); }
  // The root's reading (it throws as the inner probe does), with footprint, rss and swap summed
  // over the tree; a member that ended between the listing and its reading counts nothing.
  ProcessMemory process(pid_t pid, const std::string& cgroup_dir) override;
  std::string name() const override { return inner_.name() + "+tree"; }

 private:
  MemoryProbe& inner_;
};

}  // namespace wmb
