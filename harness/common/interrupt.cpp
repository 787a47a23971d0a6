#include "common/interrupt.h"

#include <poll.h>

#include "common/pipe.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <initializer_list>

namespace wmb {
namespace {
std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};
std::atomic<int> g_child_group{0};  // the watched child's process group (0 = none)
// The watched child's cgroup.procs file, read in the handlers: g_procs_at is the buffer that holds
// it (-1: none). A new path is written into the other buffer, then published, so a handler that is
// still reading the last one never sees it change under it.
char g_procs_paths[2][4096] = {"", ""};
std::atomic<int> g_procs_at{-1};
int g_procs_next = 0;  // the buffer the next path goes into (only the main thread sets paths)
// Time spent stopped by Ctrl-Z (CLOCK_MONOTONIC nanoseconds): the start of the current stop (0:
// not stopped) and the total of the stops that ended. clock_gettime is async-signal-safe.
std::atomic<long long> g_stop_began_ns{0};
std::atomic<long long> g_stopped_ns{0};

long long monotonic_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// sigaction(sig) with `handler`, an empty mask and `flags`. Async-signal-safe.
void set_handler(int sig, void (*handler)(int), int flags) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = flags;
  ::sigaction(sig, &sa, nullptr);
}

// `sig` to the watched child's process group, when there is one. Async-signal-safe.
void signal_child_group(int sig) {
  const int g = g_child_group.load();
  if (g > 0) ::kill(-g, sig);
}

// `sig` to every process in the watched child's cgroup but wmbench itself: those that left the
// child's process group (setsid: a daemon the job started) are there too. Async-signal-safe: open,
// read, kill, close (the kernel writes cgroup.procs: one decimal pid a line); not
// read_cgroup_procs (sandbox.h), which allocates.
void signal_child_cgroup(int sig) {
  const int at = g_procs_at.load();
  if (at < 0) return;
  const int fd = ::open(g_procs_paths[at], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const pid_t self = ::getpid();
  const auto send = [&](long pid) {
    if (pid > 0 && pid != self) ::kill(static_cast<pid_t>(pid), sig);
  };
  char buf[1024];
  long pid = 0;
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        if (pid >= 0) pid = pid < 100000000 ? pid * 10 + (buf[i] - '0') : -1;  // no pid is that long: not sent
      } else {
        send(pid);
        pid = 0;
      }
    }
  }
  send(pid);
  ::close(fd);
}

// Ctrl-Z: the child runs in its own process group, so the terminal's SIGTSTP never reaches it.
// wmbench stops it first, then itself; SIGCONT (fg/bg, kill -CONT) continues the child with
// wmbench. wmbench stops itself with SIGSTOP, not a re-raised SIGTSTP: the kernel discards a
// SIGTSTP whose default action would stop a process of an orphaned process group (signal(7),
// "orphaned process group"; wmbench started by a script whose shell is gone), and the child would
// then stay stopped while wmbench ran on without it.
void on_tstp(int) {
  const int saved = errno;
  g_stop_began_ns.store(monotonic_ns());
  signal_child_group(SIGSTOP);
  signal_child_cgroup(SIGSTOP);
  ::raise(SIGSTOP);
  errno = saved;
}

void on_cont(int) {
  const int saved = errno;
  const long long began = g_stop_began_ns.exchange(0);
  if (began > 0) g_stopped_ns.fetch_add(monotonic_ns() - began);
  signal_child_group(SIGCONT);
  signal_child_cgroup(SIGCONT);
  errno = saved;
}

void on_signal(int sig) {
  const int saved = errno;
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  if (g_pipe[1] >= 0) {
    char c = 1;
    (void)!::write(g_pipe[1], &c, 1);
  }
  errno = saved;
}
}  // namespace

void install_interrupt_handlers() {
  if (g_pipe[0] < 0) {
    if (make_pipe(g_pipe, /*nonblock=*/true) != 0) g_pipe[0] = g_pipe[1] = -1;
  }
  for (int s : {SIGINT, SIGTERM, SIGHUP}) set_handler(s, on_signal, 0);  // no SA_RESTART: blocking calls get EINTR
  ::signal(SIGPIPE, SIG_IGN);
  set_handler(SIGTSTP, on_tstp, 0);
  set_handler(SIGCONT, on_cont, SA_RESTART);
}

void set_watched_child_group(int pgid, const std::string& cgroup_procs) {
  g_procs_at.store(-1);
  g_child_group.store(pgid);
  if (pgid <= 0 || cgroup_procs.empty() || cgroup_procs.size() >= sizeof g_procs_paths[0]) return;
  std::memcpy(g_procs_paths[g_procs_next], cgroup_procs.c_str(), cgroup_procs.size() + 1);
  g_procs_at.store(g_procs_next);
  g_procs_next = 1 - g_procs_next;
}

double stopped_seconds() {
  // A stop not yet ended by on_cont counts too: after SIGCONT another thread of wmbench may run
  // (and read this) before the handler does. Read in this order, a handler running in between
  // counts a stop twice for a moment (a later timeout), never not at all.
  const long long began = g_stop_began_ns.load();
  long long total = g_stopped_ns.load();
  if (began > 0) total += monotonic_ns() - began;
  return static_cast<double>(total) / 1e9;
}

namespace {
void mask_tstp(int how) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTSTP);
  ::pthread_sigmask(how, &set, nullptr);
}
}  // namespace

CtrlZHold::CtrlZHold() : held_(true) { mask_tstp(SIG_BLOCK); }

void CtrlZHold::release() {
  if (!held_) return;
  held_ = false;
  mask_tstp(SIG_UNBLOCK);
}

int interrupt_signal() { return g_signal.load(); }
int interrupt_fd() { return g_pipe[0]; }

void InterruptibleSleeper::sleep(double seconds) {
  if (interrupt_signal()) return;
  struct pollfd p = {interrupt_fd(), POLLIN, 0};
  ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, static_cast<int>(seconds * 1000));
}

}  // namespace wmb
