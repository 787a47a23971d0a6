#include "trace/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "io/files.h"
#include "io/safe_open.h"

namespace wmb {

// Never through a link, never a FIFO or a device (io/safe_open.h).
TraceWriter::TraceWriter(const std::string& path) : path_(path) {
  try {
    fd_ = open_user_file_for_write(path);
  } catch (const FileError& e) {
    throw FileError(std::string("trace: ") + e.what());
  }
}

TraceWriter::TraceWriter(int fd, std::string display) : fd_(fd), path_(std::move(display)) {}

TraceWriter::~TraceWriter() { close(); }

void TraceWriter::line(const nlohmann::json& j) {
  if (fd_ < 0) return;
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  s.push_back('\n');
  ssize_t n;
  do {
    n = ::write(fd_, s.data(), s.size());
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(s.size()) && error_.empty())
    error_ = fmt::format("trace {}: {}", path_, n < 0 ? std::strerror(errno) : "short write");
}

void TraceWriter::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace wmb
