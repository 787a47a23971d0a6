#include "spawn/exit_watch.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <thread>

namespace wmb {

ExitWatch::ExitWatch(pid_t pid) : pid_(pid) { fd_ = detail::open_exit_fd(pid, &kind_, &gone_at_open_); }

ExitWatch::~ExitWatch() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
// Has pid ended? waitid with WNOWAIT leaves it a zombie for the caller's waitpid.
bool ended_nowait(pid_t pid) {
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return errno == ECHILD;  // already reaped (or not ours): nothing to wait for
  return info.si_pid == pid;
}
}  // namespace

bool ExitWatch::ended() { return wait(0); }

bool ExitWatch::wait(double seconds) {
  if (gone_at_open_) return true;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, seconds)));
  if (fd_ < 0) {  // fallback: the 1 ms sleep-poll
    while (true) {
      if (ended_nowait(pid_)) return true;
      if (clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  while (true) {
    const auto left = std::chrono::duration<double, std::milli>(deadline - clock::now()).count();
    // Rounded up: a wait never ends before its deadline (a 0.4 ms rest is a 1 ms poll).
    const int ms = left <= 0 ? 0 : static_cast<int>(std::min(std::ceil(left), 2.0e9));
    struct pollfd p = {fd_, POLLIN, 0};
    const int pr = ::poll(&p, 1, ms);
    if (pr > 0) {
      // A pidfd is readable once the child is a zombie. A kqueue's NOTE_EXIT may come first:
      // xnu bsd/kern/kern_exit.c proc_exit() posts "knote_hint = NOTE_EXIT | (p->p_xstat &
      // 0xffff); proc_knote(p, knote_hint);" before "p->p_stat = SZOMB;". So "ended" is said only
      // once waitid sees it (reapable); until then a 1 ms rest, never a spin (the fd stays readable).
      if (ended_nowait(pid_)) return true;
      if (clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (pr == 0 && ms == 0) return false;
    if (pr < 0 && errno != EINTR) return ended_nowait(pid_);
    if (pr == 0 && clock::now() >= deadline) return false;
  }
}

}  // namespace wmb
