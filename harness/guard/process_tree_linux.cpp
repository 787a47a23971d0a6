// process_tree() on Linux: cgroup.procs, else /proc/PID/stat (ppid, pgrp) of every process.
#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "guard/tree_probe.h"

namespace wmb {
namespace {

struct Parent {
  pid_t ppid = 0, pgrp = 0;
};

// /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and ')'.
bool read_parent(pid_t pid, Parent& out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 1));
  char state = 0;
  long ppid = 0, pgrp = 0;
  if (!(rest >> state >> ppid >> pgrp)) return false;
  out.ppid = static_cast<pid_t>(ppid);
  out.pgrp = static_cast<pid_t>(pgrp);
  return true;
}

std::vector<pid_t> cgroup_members(const std::string& cgroup_dir) {
  std::vector<pid_t> out;
  std::ifstream in(cgroup_dir + "/cgroup.procs");
  long p = 0;
  while (in >> p)
    if (p > 0) out.push_back(static_cast<pid_t>(p));
  return out;
}

}  // namespace

std::vector<pid_t> process_tree(pid_t root, const std::string& cgroup_dir) {
  std::vector<pid_t> out = {root};
  if (!cgroup_dir.empty()) {
    for (pid_t p : cgroup_members(cgroup_dir))
      if (p != root) out.push_back(p);
    if (out.size() > 1) return out;
  }
  std::map<pid_t, Parent> all;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end) continue;
      Parent st;
      if (read_parent(static_cast<pid_t>(pid), st)) all.emplace(static_cast<pid_t>(pid), st);
    }
    ::closedir(d);
  }
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
