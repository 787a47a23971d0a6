#include "guard/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace wmb {

LineReader::LineReader(int fd, size_t max_line) : fd_(fd), split_(max_line) {
  if (fd_ >= 0) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

void LineReader::read(bool final_read, const Sink& on_line) {
  if (fd_ < 0) return;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n <= 0) {
      ::close(fd_);
      fd_ = -1;
      split_.finish(on_line);
      break;
    }
    split_.feed(buf, static_cast<size_t>(n), on_line);
    if (!final_read) break;  // one chunk per wake-up keeps the checks on time
  }
}

}  // namespace wmb
