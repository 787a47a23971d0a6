#include "io/kernel_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace wmb {

std::optional<std::string> read_kernel_file(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[8192];
  int error = 0;  // errno of the failure, kept across close() for the caller's message
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;
    else if (out.size() + static_cast<size_t>(n) > max_bytes) error = EFBIG;
    if (n <= 0 || error) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (error) {
    out = std::string();  // freed before errno is set, so nothing can change it after
    errno = error;
    return std::nullopt;
  }
  return out;
}

}  // namespace wmb
