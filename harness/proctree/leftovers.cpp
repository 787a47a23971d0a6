#include "proctree/leftovers.h"

#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "proctree/proc_table.h"
#include "sandbox/sandbox.h"

namespace wmb {
namespace {

using SteadyTime = std::chrono::steady_clock;

// How long SIGKILLed leftovers get to be gone before they are called unkillable (in the kernel).
constexpr double kKillWait = 5.0;
// Between two searches of /proc while waiting (each reads every /proc/PID/stat).
constexpr auto kPollStep = std::chrono::milliseconds(20);

SteadyTime::time_point after(double seconds) {
  return SteadyTime::now() + std::chrono::duration_cast<SteadyTime::duration>(std::chrono::duration<double>(seconds));
}

// Names newly found processes (a fork during the stop included) in `r`; `seen` holds their pids.
void add_new(LeftoverStop& r, std::set<pid_t>& seen, const std::vector<LeftProcess>& now) {
  for (const auto& p : now)
    if (seen.insert(p.pid).second) r.procs.push_back(p);
}

// Sends `sig` to each found process (pid 0: macOS's "members of the group", signalled as one).
void signal_each(const std::vector<LeftProcess>& procs, pid_t pgid, int sig) {
  for (const auto& p : procs) {
    ::kill(p.pid ? p.pid : -pgid, sig);
    if (sig == SIGTERM) ::kill(p.pid ? p.pid : -pgid, SIGCONT);  // a stopped one would never see SIGTERM
  }
}

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
  const auto all = scan_processes();
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

LeftoverStop stop_leftovers(pid_t pgid, double grace) {
  LeftoverStop r;
  std::set<pid_t> seen;
  std::vector<LeftProcess> now = find_leftovers(pgid);
  add_new(r, seen, now);
  if (now.empty()) return r;
  signal_each(now, pgid, SIGTERM);
  for (const auto soft = after(grace); SteadyTime::now() < soft;) {
    std::this_thread::sleep_for(kPollStep);
    now = find_leftovers(pgid);
    if (now.empty()) return r;
    std::vector<LeftProcess> fresh;
    for (const auto& p : now)
      if (!seen.count(p.pid)) fresh.push_back(p);
    add_new(r, seen, fresh);
    signal_each(fresh, pgid, SIGTERM);  // forked meanwhile: its own grace is what is left of it
  }
  for (const auto hard = after(kKillWait); !(now = find_leftovers(pgid)).empty() && SteadyTime::now() < hard;) {
    r.killed = true;
    add_new(r, seen, now);
    signal_each(now, pgid, SIGKILL);
    std::this_thread::sleep_for(kPollStep);
  }
  r.emptied = now.empty();
  return r;
}

std::string stop_what_is_left(Sandbox* cgroup, pid_t pgid, double grace) {
  std::vector<LeftProcess> procs;
  bool killed = false, emptied = true;
  if (cgroup) {
    for (pid_t p : cgroup->procs()) procs.push_back({p, process_name(p)});  // named before they are stopped
    const CgroupStop st = cgroup->stop_all(grace);
    if (st.pids.empty()) return "";
    // One that joined between the naming and the stop is counted by stop_all's list.
    for (pid_t p : st.pids) {
      bool named = false;
      for (const auto& q : procs) named = named || q.pid == p;
      if (!named) procs.push_back({p, "?"});
    }
    killed = st.killed;
    emptied = st.emptied;
  } else {
    LeftoverStop st = stop_leftovers(pgid, grace);
    if (st.procs.empty()) return "";
    procs = std::move(st.procs);
    killed = st.killed;
    emptied = st.emptied;
  }
  const bool counted = procs.empty() || procs.front().pid != 0;  // macOS: the group, pids unknown
  return fmt::format("the command left {} running{}: {}; stopped them ({}){}",
                     counted ? fmt::format("{} process(es)", procs.size()) : std::string("processes"),
                     cgroup ? " in its cgroup" : "", describe(procs),
                     killed ? fmt::format("SIGKILL was needed after the {:g} s grace", grace) : "SIGTERM was enough",
                     emptied ? "" : "; some are still there (unkillable, in the kernel)");
}

std::string process_name(pid_t pid) {
#ifdef __linux__
  ProcStat st;
  if (read_proc_stat(pid, st)) return st.name;
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
