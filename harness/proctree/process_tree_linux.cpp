// process_tree() on Linux: cgroup.procs, else /proc/PID/stat (ppid, pgrp) of every process.
#include <set>

#include "proctree/proc_table.h"
#include "proctree/tree_probe.h"
#include "sandbox/sandbox.h"

namespace wmb {

std::vector<pid_t> process_tree(pid_t root, const std::string& cgroup_dir) {
  std::vector<pid_t> out = {root};
  if (!cgroup_dir.empty()) {
    for (pid_t p : read_cgroup_procs(cgroup_dir))
      if (p != root) out.push_back(p);
    if (out.size() > 1) return out;
  }
  const auto all = scan_processes();
  std::set<pid_t> in_tree = {root};
  for (const auto& [pid, st] : all)
    if (st.pgrp == root) in_tree.insert(pid);
  // Descendants: repeat until no process is added (a tree is at most as deep as it is wide).
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, st] : all)
      if (!in_tree.count(pid) && in_tree.count(st.ppid)) grew = in_tree.insert(pid).second || grew;
  }
  for (pid_t p : in_tree)
    if (p != root) out.push_back(p);
  return out;
}

}  // namespace wmb
