// The tests' one door to what differs between Linux and macOS (issue 28): the process table (a
// process's state, parent, group, address space), the `true` program, a job that leaves a process
// behind, and the skip of a test that needs Linux. Every helper here has a macOS answer, or the
// test that needs it skips with the reason.
//
// A test file names /proc, /sys, /bin/true, setsid, cgroups or RLIMIT_AS only through this file and
// proc_util.h, or inside a test that skips off Linux first (WMBT_LINUX_ONLY, WMBT_SKIP_IF with a
// helper's reason, `#ifndef __linux__ GTEST_SKIP()`), or in code compiled only on Linux
// (`#ifdef __linux__`): scripts/lint-tests-portable.py, run by .ci/run, fails CI otherwise. A
// simulated Mac runs on a Linux kernel, so it cannot see such a test fail; the lint can.
//
// macOS answers are from <libproc.h> and <sys/proc_info.h> of the macOS SDK (proc_listallpids,
// proc_pidinfo with PROC_PIDTBSDINFO and PROC_PIDTASKINFO; xnu bsd/sys/proc_info.h); they are
// compiled for aarch64-macos by scripts/cross-macos.sh and have not run on a Mac.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if defined(__APPLE__)
#include <libproc.h>
#include <sys/proc_info.h>
#endif

namespace wmbt {

#if defined(__linux__)
constexpr bool kLinux = true;
#else
constexpr bool kLinux = false;
#endif
#if defined(__APPLE__)
constexpr bool kApple = true;
#else
constexpr bool kApple = false;
#endif

// Skips the test off Linux, saying why it needs Linux: WMBT_LINUX_ONLY("reads /proc/PID/comm");
#define WMBT_LINUX_ONLY(why) \
  if (!::wmbt::kLinux) GTEST_SKIP() << "needs Linux: " << why
// Skips the test when REASON (a helper's "why this cannot run here", "" when it can) is not empty:
// WMBT_SKIP_IF(address_space_limit_unusable());
#define WMBT_SKIP_IF(reason)                                           \
  if (const std::string wmbt_skip_why_ = (reason); !wmbt_skip_why_.empty()) \
  GTEST_SKIP() << wmbt_skip_why_

// One process as the process table says: its state letter ('R', 'S', 'T' stopped, 'Z' zombie, as
// Linux's /proc/PID/stat writes it; macOS's pbi_status mapped to the same letters), parent and group.
struct ProcStat {
  pid_t pid = 0;
  char state = 0;
  pid_t ppid = 0, pgrp = 0;
};

// The file's text, "" when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// PID's entry; false when there is none (gone, or not ours to see).
inline bool proc_stat_of(pid_t pid, ProcStat& ps) {
  ps = ProcStat{};
  ps.pid = pid;
#if defined(__linux__)
  const std::string s = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close = s.rfind(')');  // the name may hold spaces and ')'
  if (close == std::string::npos || close + 2 >= s.size()) return false;
  std::istringstream rest(s.substr(close + 2));
  int ppid = 0, pgrp = 0;
  rest >> ps.state >> ppid >> pgrp;
  ps.ppid = ppid;
  ps.pgrp = pgrp;
  return ps.state != 0;
#elif defined(__APPLE__)
  struct proc_bsdinfo bi {};
  if (::proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) != static_cast<int>(sizeof bi)) return false;
  switch (bi.pbi_status) {  // xnu bsd/sys/proc.h: SIDL 1, SRUN 2, SSLEEP 3, SSTOP 4, SZOMB 5
    case 2: ps.state = 'R'; break;
    case 4: ps.state = 'T'; break;
    case 5: ps.state = 'Z'; break;
    default: ps.state = 'S'; break;
  }
  ps.ppid = static_cast<pid_t>(bi.pbi_ppid);
  ps.pgrp = static_cast<pid_t>(bi.pbi_pgid);
  return true;
#else
  return false;
#endif
}

// Every pid in the process table now (one may end while it is read).
inline std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
#if defined(__linux__)
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      const pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
      if (p > 0) pids.push_back(p);
    }
    ::closedir(d);
  }
#elif defined(__APPLE__)
  const int n = ::proc_listallpids(nullptr, 0);  // how many there are now
  if (n > 0) {
    pids.resize(static_cast<size_t>(n) + 64);  // room for those started meanwhile
    const int got = ::proc_listallpids(pids.data(), static_cast<int>(pids.size() * sizeof(pid_t)));
    pids.resize(got > 0 ? static_cast<size_t>(got) : 0);
  }
#endif
  return pids;
}

// The address space PID has mapped (Linux VmSize, macOS pti_virtual_size), 0 when unknown.
inline uint64_t address_space_of(pid_t pid) {
#if defined(__linux__)
  std::istringstream status(read_text("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;  // "VmSize:  123 kB"
  return 0;
#elif defined(__APPLE__)
  struct proc_taskinfo ti {};
  if (::proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &ti, sizeof ti) != static_cast<int>(sizeof ti)) return 0;
  return ti.pti_virtual_size;
#else
  (void)pid;
  return 0;
#endif
}

// The first NAME on PATH that is an executable file, or "" (programs are found, not assumed).
inline std::string program_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string cand = dir + "/" + name;
    struct stat st;
    if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return "";
}

// Limits this (forked) process's address space to BYTES (RLIMIT_AS); false when refused. Only
// for a test that has skipped where address_space_limit_unusable() (proc_util.h) says why: macOS
// rejects or ignores the limit.
inline bool limit_address_space(uint64_t bytes) {
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(bytes);
  return ::setrlimit(RLIMIT_AS, &rl) == 0;
}

// A folder that cannot be made, even as root: Linux's /proc takes no new entries; macOS's
// /System is on the sealed, read-only system volume.
inline std::string uncreatable_folder() {
  return kLinux ? "/proc/wmbench-cannot-write" : "/System/wmbench-cannot-write";
}

// A path that is a kernel file, not a regular one, to refuse as a trace (Linux /proc/self/mem;
// macOS /dev/null, a character device).
inline std::string kernel_file_path() { return kLinux ? "/proc/self/mem" : "/dev/null"; }

// The `true` program: /bin/true on Debian, /usr/bin/true on macOS (which has no /bin/true).
inline std::string true_program() {
  static const std::string t = [] {
    const std::string p = program_on_path("true");
    return p.empty() ? std::string("/usr/bin/true") : p;
  }();
  return t;
}

// "" when DIR's file system takes a file name that is not UTF-8, else why not. APFS (every Mac)
// refuses one with EILSEQ ("Illegal byte sequence"); Linux file systems take any bytes but '/'
// and NUL. Tried for real in DIR, so the answer is this file system's, not this OS's guess.
inline std::string non_utf8_names_unusable(const std::string& dir) {
  const std::string probe = dir + "/wmbt-\xff\xfe-probe";  // portable: the probe itself
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
  }
  return "this file system refuses file names that are not UTF-8 (" + std::string(std::strerror(errno)) +
         "; APFS does: \"Illegal byte sequence\")";
}

// A line of sh that leaves `sleep 300` running, detached from the job's stdio, after the job ends.
// On Linux it leaves the job's process group and session (setsid(1)), which only the cgroup or the
// subreaper still find; macOS has no setsid(1), and its leftover check sees only the job's process
// group (harness/proctree/leftovers.h; a job that calls setsid escapes it there: docs/MACOS.md), so
// there it is a background job of the group.
inline std::string leave_a_sleeper_line() {
  return kLinux ? "setsid sleep 300 >/dev/null 2>&1 </dev/null &"
                : "sleep 300 >/dev/null 2>&1 </dev/null &";
}

// How wmbench counts N processes a command left (harness/proctree/leftovers.cpp): Linux names each;
// macOS knows only that the process group still has members.
inline std::string left_running_words(size_t n) {
  return kLinux ? "left " + std::to_string(n) + " process(es) running" : std::string("left processes running");
}

}  // namespace wmbt
