#include "guard/proc_table.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace wmb {

// /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and ')', so the
// fields after it are read from the last ')' (proc(5)).
bool read_proc_stat(pid_t pid, ProcStat& st) {
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

std::map<pid_t, ProcStat> scan_processes() {
  std::map<pid_t, ProcStat> all;
  DIR* d = ::opendir("/proc");
  if (!d) return all;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    ProcStat st;
    if (read_proc_stat(static_cast<pid_t>(pid), st)) all.emplace(static_cast<pid_t>(pid), st);
  }
  ::closedir(d);
  return all;
}

}  // namespace wmb
