#include "guard/leftovers.h"

#include <dirent.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace wmb {
namespace {

struct ProcStat {
  pid_t ppid = 0, pgrp = 0, session = 0;
  char state = '?';
  std::string name;
};

#ifdef __linux__
// /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and ')'.
bool read_stat(pid_t pid, ProcStat& st) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  st.name = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 1));
  long ppid = 0, pgrp = 0, session = 0;
  if (!(rest >> st.state >> ppid >> pgrp >> session)) return false;
  st.ppid = static_cast<pid_t>(ppid);
  st.pgrp = static_cast<pid_t>(pgrp);
  st.session = static_cast<pid_t>(session);
  return true;
}

std::map<pid_t, ProcStat> all_processes() {
  std::map<pid_t, ProcStat> all;
  DIR* d = ::opendir("/proc");
  if (!d) return all;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    ProcStat st;
    if (read_stat(static_cast<pid_t>(pid), st)) all.emplace(static_cast<pid_t>(pid), st);
  }
  ::closedir(d);
  return all;
}
#endif

}  // namespace

bool adopt_orphans() {
#ifdef __linux__
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
#else
  return false;
#endif
}

std::vector<LeftProcess> find_leftovers(pid_t pgid) {
  std::vector<LeftProcess> left;
#ifdef __linux__
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }  // adopted orphans that ended already
  const pid_t self = ::getpid();
  const auto all = all_processes();
  // Seeds: the guard's children (adopted orphans: the command itself is reaped), the command's
  // process group, and sessions the command's processes made (sid = a member's pid).
  std::set<pid_t> found;
  for (const auto& [pid, st] : all)
    if (pid != self && st.state != 'Z' && (st.ppid == self || st.pgrp == pgid || st.session == pgid)) found.insert(pid);
  // Their descendants, to a fixed point.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, st] : all)
      if (!found.count(pid) && pid != self && st.state != 'Z' && (found.count(st.ppid) || found.count(st.session)))
        grew = found.insert(pid).second || grew;
  }
  for (pid_t p : found) left.push_back({p, all.at(p).name});
#else
  if (::kill(-pgid, 0) == 0) left.push_back({0, fmt::format("members of process group {}", pgid)});
#endif
  return left;
}

std::string process_name(pid_t pid) {
#ifdef __linux__
  ProcStat st;
  if (read_stat(pid, st)) return st.name;
#else
  (void)pid;
#endif
  return "?";
}

std::string describe(const std::vector<LeftProcess>& procs) {
  std::string s;
  for (const auto& p : procs) {
    if (!s.empty()) s += ", ";
    s += p.pid ? fmt::format("pid {} ({})", p.pid, p.name) : p.name;
  }
  return s;
}

}  // namespace wmb
