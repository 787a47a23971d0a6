#include "proctree/proc_table.h"

#include <dirent.h>

#include <cstdlib>
#include <memory>
#include <sstream>

#include "io/kernel_file.h"

namespace wmb {

// /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and ')', so the
// fields after it are read from the last ')' (proc(5)). A process that exits while it is read is
// "no answer" (kernel_file.h says why this is not an ifstream).
bool read_proc_stat(pid_t pid, ProcStat& st) { return read_proc_stat_at("/proc/" + std::to_string(pid) + "/stat", st); }

bool read_proc_stat_at(const std::string& path, ProcStat& st) {
  const auto read = read_kernel_file(path, 64 << 10);
  if (!read) return false;
  const std::string& text = *read;
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
  const std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir("/proc"), &::closedir);
  if (!d) return all;
  while (const dirent* e = ::readdir(d.get())) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    ProcStat st;
    if (read_proc_stat(static_cast<pid_t>(pid), st)) all.emplace(static_cast<pid_t>(pid), st);
  }
  return all;
}

}  // namespace wmb
