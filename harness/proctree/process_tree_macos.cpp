// process_tree() on macOS: the members of root's process group (libproc proc_listpgrppids; the
// job runs as the leader of its own group, spawn/process.h).
#include <libproc.h>

#include <algorithm>
#include <vector>

#include "proctree/tree_probe.h"

namespace wmb {

std::vector<pid_t> process_tree(pid_t root, const std::string& /*cgroup_dir: Linux only*/) {
  std::vector<pid_t> out = {root};
  std::vector<pid_t> buf(4096);
  const int bytes = proc_listpgrppids(root, buf.data(), static_cast<int>(buf.size() * sizeof(pid_t)));
  if (bytes <= 0) return out;
  const size_t n = std::min(buf.size(), static_cast<size_t>(bytes) / sizeof(pid_t));
  for (size_t i = 0; i < n; ++i)
    if (buf[i] > 0 && buf[i] != root) out.push_back(buf[i]);
  return out;
}

}  // namespace wmb
