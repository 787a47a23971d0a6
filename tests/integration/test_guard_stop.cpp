// The real kill path of the guard, with real children and real signals: the stop waits for the
// child's end on an ExitWatch (a pidfd on Linux, kqueue EVFILT_PROC on macOS; spawn/exit_watch.h),
// not a sleep-poll, and keeps the SIGTERM -> SIGKILL deadline. How fast it is lives in the
// benchmarks (GuardReaction, BENCHMARKS.md); these tests bound nothing tighter than the grace.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>

#include "common/clock.h"
#include "guard/supervisor.h"
#include "spawn/exit_watch.h"
#include "spawn/process.h"

namespace test_guard_stop {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

double now_s() { return SteadyClock().now(); }

Child start(const std::vector<std::string>& argv, bool pipe = false) {
  SpawnOptions so;
  so.argv = argv;
  so.env = current_environment();
  so.capture_stdout = pipe;
  return spawn_child(so);
}

// A shell that ignores SIGTERM and says so on stdout once it does; read that line before the stop.
Child stubborn() {
  Child c = start({"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, true);
  char buf[16];
  struct pollfd p = {c.stdout_fd, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 10000), 1) << "the shell did not say ready";
  EXPECT_GT(::read(c.stdout_fd, buf, sizeof buf), 0);
  return c;
}

bool pid_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

class CrossedProbe : public MemoryProbe {  // swap already past any budget
 public:
  SystemMemory system() override {
    SystemMemory m;
    m.ram_total = 8ull << 30;
    m.level = 50;
    m.swap_total = 8ull << 30;
    m.swap_used = 4ull << 30;
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return ProcessMemory{}; }
  std::string name() const override { return "crossed"; }
};

}  // namespace

TEST(StopExitWatch, UsesThePlatformsEventSource) {
  Child c = start({"/bin/sleep", "30"});
  {
    ExitWatch w(c.pid);
#ifdef __linux__
    struct utsname u;
    ASSERT_EQ(::uname(&u), 0);
    int major = 0, minor = 0;
    std::sscanf(u.release, "%d.%d", &major, &minor);
    if (major > 5 || (major == 5 && minor >= 3)) {
      EXPECT_STREQ(w.kind(), "pidfd") << "kernel " << u.release << " has pidfd_open (5.3+)";
      EXPECT_GE(w.fd(), 0);
    }
#elif defined(__APPLE__)
    EXPECT_STREQ(w.kind(), "kqueue");
#endif
    EXPECT_FALSE(w.wait(0.05)) << "the child is alive";
    EXPECT_FALSE(w.ended());
    ::kill(c.pid, SIGKILL);
    EXPECT_TRUE(w.wait(10)) << "woken by the child's end";
    int st = 0;
    // Also on macOS, where NOTE_EXIT can precede the zombie: wait() says ended only once waitid
    // sees it (issue 42).
    EXPECT_EQ(::waitpid(c.pid, &st, WNOHANG), c.pid) << "ended means reapable at once";
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  }
}

TEST(StopExitWatch, AChildThatAlreadyEndedIsSeenAsEnded) {
  Child c = start({"/bin/sh", "-c", "exit 3"});
  // Wait for the zombie without reaping it.
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(c.pid), &info, WEXITED | WNOWAIT), 0);
  ExitWatch w(c.pid);
  EXPECT_TRUE(w.wait(0));
  EXPECT_EQ(reap(c.pid).code, 3);
}

TEST(StopProcessGroup, AChildThatEndsOnSigtermIsReapedWithoutTheGrace) {
  Child c = start({"/bin/sleep", "30"});
  bool killed = true;
  const double t = now_s();
  const ExitStatus st = stop_process_group(c.pid, 20, &killed);
  EXPECT_FALSE(killed);
  EXPECT_EQ(st.signal, SIGTERM);
  EXPECT_LT(now_s() - t, 10.0) << "the stop waited for the 20 s grace instead of the child's end";
  EXPECT_FALSE(pid_exists(c.pid)) << "reaped";
}

TEST(StopProcessGroup, AChildThatIgnoresSigtermIsKilledAtTheDeadlineNotBefore) {
  Child c = stubborn();
  bool killed = false;
  const double t = now_s();
  const ExitStatus st = stop_process_group(c.pid, 0.5, &killed);
  const double took = now_s() - t;
  EXPECT_TRUE(killed);
  EXPECT_EQ(st.signal, SIGKILL);
  EXPECT_GE(took, 0.5) << "SIGKILL before the grace was over";
  EXPECT_LT(took, 10.0);
  EXPECT_FALSE(pid_exists(c.pid));
  ::close(c.stdout_fd);
}

TEST(StopProcessGroup, TheOldSleepPollStillStops) {  // kept for the side-by-side benchmark
  Child c = start({"/bin/sleep", "30"});
  bool killed = true;
  const ExitStatus st = stop_process_group(c.pid, 20, &killed, {}, 0.005);
  EXPECT_FALSE(killed);
  EXPECT_EQ(st.signal, SIGTERM);
}

TEST(SupervisorStop, TheGuardKillsAChildThatIgnoresSigtermAfterTheGrace) {
  Child c = stubborn();
  CrossedProbe probe;
  SteadyClock clock;
  SuperviseOptions o;
  o.guard.swap_budget = 1ull << 30;
  o.grace = 0.3;
  const SuperviseResult r = supervise(c, o, probe, clock, 0);
  EXPECT_EQ(r.stopper, Stopper::Guard);
  EXPECT_TRUE(r.killed) << "SIGKILL after the grace";
  EXPECT_EQ(r.status.signal, SIGKILL);
  EXPECT_GE(r.stop_latency, 0.3);
  EXPECT_FALSE(pid_exists(c.pid));
}

TEST(SupervisorStop, AChildWithoutAPipeThatEndsByItselfIsReaped) {
  // No stdout pipe (`wmbench guard`'s case): the loop is woken by the child's end, not a 5 ms poll.
  Child c = start({"/bin/sh", "-c", "sleep 0.2; exit 4"});
  CrossedProbe probe;
  SteadyClock clock;
  SuperviseOptions o;
  o.guard_enabled = false;
  const SuperviseResult r = supervise(c, o, probe, clock, 0);
  EXPECT_EQ(r.stopper, Stopper::None);
  EXPECT_EQ(r.status.code, 4);
  EXPECT_FALSE(pid_exists(c.pid));
}

TEST(SupervisorStop, AChildsLineWakesTheCheckAtOnce) {
  // The check interval is 20 s, so only the check the child's line wakes (a fill step's
  // announcement) can see the crossing before the child's own end at 30 s.
  class AfterLineProbe : public MemoryProbe {
   public:
    std::atomic<bool> crossed{false};
    SystemMemory system() override {
      SystemMemory m = CrossedProbe().system();
      if (!crossed) m.swap_used = 0;
      return m;
    }
    ProcessMemory process(pid_t, const std::string&) override { return ProcessMemory{}; }
    std::string name() const override { return "after-line"; }
  } probe;
  Child c = start({"/bin/sh", "-c", "sleep 0.3; echo '{\"type\":\"step\"}'; exec sleep 30"}, true);
  SteadyClock clock;
  SuperviseOptions o;
  o.guard.swap_budget = 1ull << 30;
  o.guard.check_interval = 20;
  o.on_line = [&](std::string_view, bool, double) { probe.crossed = true; };
  const SuperviseResult r = supervise(c, o, probe, clock, 0);
  EXPECT_EQ(r.stopper, Stopper::Guard) << r.reason;
  EXPECT_LT(r.duration, 10.0) << "the line did not wake the check: it waited for the 20 s interval";
  ::close(c.stdout_fd);
}

}  // namespace test_guard_stop
