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
  // A COUNT of pids, not bytes (xnu libsyscall/wrappers/libproc/libproc.c, proc_listpgrppids:
  //   "return numpids / sizeof(int);" over proc_listpids' byte count; 0 on failure, where
  //   proc_listpids turns __proc_info's -1 into "return 0;"). The buffer size passed is in bytes.
  const int count = proc_listpgrppids(root, buf.data(), static_cast<int>(buf.size() * sizeof(pid_t)));
  if (count <= 0) return out;
  const size_t n = std::min(buf.size(), static_cast<size_t>(count));
  for (size_t i = 0; i < n; ++i)
    if (buf[i] > 0 && buf[i] != root) out.push_back(buf[i]);
  return out;
}

}  // namespace wmb
