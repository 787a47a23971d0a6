#include "doctor/live.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

#include "proctree/leftovers.h"
#include "proctree/tree_probe.h"
#include "spawn/exit_watch.h"
#include "spawn/process.h"

namespace wmb::doctor {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A child in its own process group, stopped and reaped when this goes out of scope.
class Owned {
 public:
  explicit Owned(const std::vector<std::string>& argv, bool capture = false) {
    SpawnOptions o;
    o.argv = argv;
    o.env = current_environment();
    o.stderr_path = "/dev/null";
    o.capture_stdout = capture;
    const Child c = spawn_child(o);
    pid_ = c.pid;
    out_ = c.stdout_fd;
  }
  ~Owned() {
    if (out_ >= 0) ::close(out_);
    if (pid_ > 0) stop_process_group(pid_, 2.0);
  }
  // The pids the shell printed, one a line, up to n of them within `seconds`.
  std::vector<pid_t> printed_pids(size_t n, double seconds) {
    std::vector<pid_t> pids;
    std::string buf;
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (pids.size() < n && Clock::now() < deadline && out_ >= 0) {
      struct pollfd p = {out_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char chunk[256];
      const ssize_t got = ::read(out_, chunk, sizeof chunk);
      if (got <= 0) break;
      buf.append(chunk, static_cast<size_t>(got));
      for (size_t nl; (nl = buf.find('\n')) != std::string::npos && buf.size() < 4096; buf.erase(0, nl + 1)) {
        const long v = std::strtol(buf.substr(0, nl).c_str(), nullptr, 10);
        if (v > 0 && v < 1L << 30) pids.push_back(static_cast<pid_t>(v));
      }
    }
    return pids;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  pid_t pid() const { return pid_; }
  pid_t release() {
    const pid_t p = pid_;
    pid_ = -1;
    return p;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

// sh and two background sleeps: one process group of three (a shell without job control keeps
// its background jobs in its own group, POSIX "Shell Command Language", 2.9.3 Lists). The shell
// prints each sleep's pid ($!), so the members are known apart from any process table.
std::vector<std::string> group_of_three() {
  return {"/bin/sh", "-c", "sleep 30 & echo $!; sleep 30 & echo $!; wait"};
}

// Waits up to `seconds` until process_tree lists `n` members (the sleeps need a moment to start).
std::vector<pid_t> listed_members(pid_t leader, size_t n, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  std::vector<pid_t> got = process_tree(leader, "");
  while (got.size() < n && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    got = process_tree(leader, "");
  }
  return got;
}

std::string status_text(const ExitStatus& st) {
  if (st.signal) return "ended by " + signal_name(*st.signal);
  return "exited " + std::to_string(st.code.value_or(-1));
}

}  // namespace

Check footprint_of_self(MemoryProbe& probe, const LiveNames& names) {
  try {
    return judge_footprint(names.footprint_call, "itself", probe.process(::getpid(), "").footprint, "");
  } catch (const std::exception& e) {
    return judge_footprint(names.footprint_call, "itself", std::nullopt, e.what());
  }
}

Check footprint_of_child(MemoryProbe& probe, const LiveNames& names) {
  try {
    Owned child({"sleep", "30"});
    return judge_footprint(names.footprint_call, "a child", probe.process(child.pid(), "").footprint, "");
  } catch (const std::exception& e) {
    return judge_footprint(names.footprint_call, "a child", std::nullopt, e.what());
  }
}

Check group_listing(const LiveNames& names) {
  try {
    Owned group(group_of_three(), true);
    std::vector<pid_t> made = {group.pid()};
    for (pid_t p : group.printed_pids(2, 3.0)) made.push_back(p);
    const std::vector<pid_t> listed = listed_members(group.pid(), made.size(), 3.0);
    return judge_group_listing(names.listing_call, made, listed);
  } catch (const std::exception& e) {
    Check c = judge_group_listing(names.listing_call, {}, {});
    c.seen = std::string("could not start the group: ") + e.what();
    c.verdict = Verdict::fail;
    return c;
  }
}

Check group_stopped_whole() {
  try {
    Owned group(group_of_three(), true);  // its pids on our pipe, not on the user's terminal
    const size_t members = 1 + group.printed_pids(2, 3.0).size();
    const pid_t leader = group.release();
    const ExitStatus st = stop_process_group(leader, 5.0);
    // What is left, as wmbench looks for it after a job (zombies of the sleeps excepted: they are
    // reaped by us as subreaper on Linux, by launchd on macOS).
    std::vector<pid_t> left;
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    do {
      left.clear();
      for (const auto& p : find_leftovers(leader)) left.push_back(p.pid);
      if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (!left.empty() && Clock::now() < deadline);
    if (!left.empty()) stop_leftovers(leader, 1.0);
    return judge_group_stop(members, left, status_text(st));
  } catch (const std::exception& e) {
    return judge_group_stop(0, {}, std::string("could not start: ") + e.what());
  }
}

Check exit_watch_then_reap(const LiveNames& names) {
  ExitWatchReading r;
  try {
    Owned child({"sleep", "30"});
    {
      ExitWatch w(child.pid());
      r.kind = w.kind();
      ::kill(child.pid(), SIGKILL);
      r.woke = w.wait(5.0);
    }
    // NOTE_EXIT may come before the child is reapable (xnu bsd/kern/kern_exit.c posts it in
    // proc_exit before the zombie is made): a short wait for the reap is allowed, 1 s at most.
    const auto woke_at = Clock::now();
    while (ms_since(woke_at) < 1000) {
      if (try_reap(child.pid())) {
        r.reaped = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    r.reap_wait_ms = ms_since(woke_at);
    if (r.reaped) child.release();
  } catch (const std::exception& e) {
    r.kind = std::string("could not start a child: ") + e.what();
  }
  return judge_exit_watch(names.exit_kind, r, names.poll_why);
}

}  // namespace wmb::doctor
