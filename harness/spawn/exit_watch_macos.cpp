// ExitWatch on macOS: a kqueue with EVFILT_PROC / NOTE_EXIT (man 2 kqueue). Compiled by
// scripts/cross-macos.sh for aarch64-macos; it has NOT run on a Mac.
// Registering NOTE_EXIT for a child that has already exited fails with ESRCH: libuv met the same
// ("process,bsd: handle kevent NOTE_EXIT failure", libuv PR #3451: "The kernel may return ESRCH if
// the child has already exited here"), so ESRCH means gone. NOTE_EXIT itself can come before the
// child is reapable (xnu bsd/kern/kern_exit.c proc_exit(): proc_knote(p, NOTE_EXIT | ...) precedes
// "p->p_stat = SZOMB;"), so ExitWatch::wait (exit_watch.cpp) confirms with waitid before "ended".
#include "spawn/exit_watch.h"

#include <sys/event.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

namespace wmb::detail {

int open_exit_fd(pid_t pid, const char** kind, bool* gone) {
  *gone = false;
  *kind = "poll";
  const int kq = ::kqueue();
  if (kq < 0) return -1;
  struct kevent ev;
  EV_SET(&ev, static_cast<uintptr_t>(pid), EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, nullptr);
  if (::kevent(kq, &ev, 1, nullptr, 0, nullptr) != 0) {
    const int e = errno;
    ::close(kq);
    if (e == ESRCH) {
      *gone = true;
      *kind = "kqueue";
    }
    return -1;
  }
  *kind = "kqueue";
  return kq;  // kqueue fds are not inherited across fork (kqueue(2)), so no CLOEXEC is needed for the child
}

}  // namespace wmb::detail
