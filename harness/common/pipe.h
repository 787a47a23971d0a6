// pipe2() is Linux-only; macOS has pipe() + fcntl(). One helper for both.
#pragma once

#include <fcntl.h>
#include <unistd.h>

namespace wmb {

// A pipe whose ends are close-on-exec (and non-blocking when asked). Returns 0 or -1 (errno set).
inline int make_pipe(int fds[2], bool nonblock = false) {
#if defined(__linux__)
  return ::pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
#else
  if (::pipe(fds) != 0) return -1;
  for (int i = 0; i < 2; ++i) {
    ::fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    if (nonblock) ::fcntl(fds[i], F_SETFL, ::fcntl(fds[i], F_GETFL) | O_NONBLOCK);
  }
  return 0;
#endif
}

}  // namespace wmb
