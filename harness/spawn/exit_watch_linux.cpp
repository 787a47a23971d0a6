// ExitWatch on Linux: a pidfd. glibc 2.36 has no pidfd_open() wrapper everywhere, so the system
// call (man 2 pidfd_open: "glibc provides no wrapper for pidfd_open(), necessitating the use of
// syscall(2)"); ENOSYS on kernels before 5.3 (and EPERM under some seccomp filters): the fallback.
#include "spawn/exit_watch.h"

#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__) || defined(__riscv)
#define SYS_pidfd_open 434  // the same number in every architecture's table (include/uapi/asm-generic/unistd.h)
#endif
#endif

namespace wmb::detail {

int open_exit_fd(pid_t pid, const char** kind, bool* gone) {
  *gone = false;
#ifdef SYS_pidfd_open
  // A zombie still has its pid: pidfd_open works on it and the pidfd is readable at once.
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);  // the close-on-exec flag is set by the kernel
  if (fd >= 0) {
    *kind = "pidfd";
    return static_cast<int>(fd);
  }
#else
  (void)pid;
#endif
  *kind = "poll";
  return -1;
}

}  // namespace wmb::detail
