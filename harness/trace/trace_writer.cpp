#include "trace/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/files.h"

namespace wmb {

TraceWriter::TraceWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw FileError(fmt::format("cannot write trace {}: {}", path, std::strerror(errno)));
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
