// Waiting for a child's end without sleep-polling. One concern: a descriptor that becomes
// readable when the process has ended (then waitpid() reaps it at once), so the supervisor's
// poll() and the stop's wait wake the moment the child is gone, not at the next poll tick.
//
//   Linux: a pidfd (pidfd_open(2), Linux 5.3+): "When the process that it refers to terminates,
//          these interfaces [poll(2), select(2), epoll(7)] indicate the file descriptor as
//          readable" (man 2 pidfd_open, NOTES). exit_watch_linux.cpp.
//   macOS: a kqueue with EVFILT_PROC / NOTE_EXIT on the pid (kqueue(2), EVFILT_PROC: "NOTE_EXIT
//          The process has exited"); a kqueue descriptor is itself pollable (xnu
//          bsd/kern/kern_event.c, kqueue's EVFILT_READ filter). exit_watch_macos.cpp — compiled by
//          scripts/cross-macos.sh, NOT run on a Mac.
//   Neither available (a kernel before 5.3: ENOSYS; a seccomp filter; out of descriptors): fd()
//          is -1 and wait() falls back to waitid(WNOWAIT) every 1 ms, which is what the stop did
//          before (a sleep-poll); kind() says "poll" so a caller can tell.
#pragma once

#include <sys/types.h>

namespace wmb {

class ExitWatch {
 public:
  // pid must be the caller's child, not yet reaped (so the pid cannot be reused meanwhile).
  explicit ExitWatch(pid_t pid);
  ~ExitWatch();
  ExitWatch(const ExitWatch&) = delete;
  ExitWatch& operator=(const ExitWatch&) = delete;

  // Readable (POLLIN) once the process has ended; -1: none on this system (fallback).
  int fd() const { return fd_; }
  const char* kind() const { return kind_; }  // "pidfd" | "kqueue" | "poll"
  // True when the process has ended and is reapable without blocking (waitid WEXITED|WNOWAIT saw
  // it: on macOS NOTE_EXIT can fire before the zombie exists, see exit_watch.cpp); false when
  // `seconds` passed first. Does not reap.
  bool wait(double seconds);
  // Without waiting.
  bool ended();

 private:
  pid_t pid_;
  int fd_ = -1;
  bool gone_at_open_ = false;  // macOS: EVFILT_PROC on an already exited child is ESRCH
  const char* kind_ = "poll";
};

namespace detail {
// The platform part (exit_watch_linux.cpp / exit_watch_macos.cpp): a descriptor readable at the
// end of pid, or -1 (fallback). *gone: the process had already ended (macOS: ESRCH).
int open_exit_fd(pid_t pid, const char** kind, bool* gone);
}  // namespace detail

}  // namespace wmb
