#include "proctree/tree_probe.h"

namespace wmb {

ProcessMemory TreeProbe::process(pid_t pid, const std::string& cgroup_dir) {
  ProcessMemory total = inner_.process(pid, cgroup_dir);
  for (pid_t p : process_tree(pid, cgroup_dir)) {
    if (p == pid) continue;
    try {
      const ProcessMemory m = inner_.process(p, "");
      total.footprint += m.footprint;
      if (m.rss) total.rss = total.rss.value_or(0) + *m.rss;
      if (m.swap) total.swap = total.swap.value_or(0) + *m.swap;
    } catch (const ProbeError&) {
      // it ended between the listing and the reading
    }
  }
  return total;
}

}  // namespace wmb
