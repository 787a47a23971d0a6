// Every process of the machine as /proc lists it (Linux): one scan, shared by the process tree of
// a job's footprint (process_tree_linux.cpp) and the search for what a command left running
// (leftovers.cpp). Built only on Linux (proc_table_linux.cpp); macOS has no /proc.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace wmb {

struct ProcStat {
  pid_t ppid = 0, pgrp = 0, session = 0;
  char state = '?';  // 'R', 'S', 'T' (stopped), 'Z' (zombie), ...
  std::string name;  // comm, as /proc/PID/stat gives it between its parentheses
};

// /proc/PID/stat of one process; false when it is gone or the line is not of the known shape.
bool read_proc_stat(pid_t pid, ProcStat& st);
// The same, from a path: /proc/self/fd/N of a stat file kept open lets a test read it after its
// process has gone (read() then fails with ESRCH, the race scan_processes meets).
bool read_proc_stat_at(const std::string& path, ProcStat& st);

// Every process in /proc that could be read, by pid.
std::map<pid_t, ProcStat> scan_processes();

}  // namespace wmb
