#include "child/job_output.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace wmb {

void note_capped_log(const Folder& folder, const std::string& rel, uint64_t cap, std::vector<std::string>& warnings) {
  int fd = -1;
  try {
    fd = folder.open_for_write(rel, O_APPEND);
  } catch (const FileError&) {
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= cap) {
    const std::string note = fmt::format("\n[wmbench: this log was cut here, at {} bytes: the child wrote more to its stderr]\n", cap);
    const bool ok = ::write(fd, note.data(), note.size()) == static_cast<ssize_t>(note.size());
    warnings.push_back(fmt::format("the child's stderr log was cut at {} bytes (its bound){}", cap,
                                   ok ? "" : "; the note saying so could not be added to it"));
  }
  ::close(fd);
}

void BoundedLog::put(std::string_view data) {
  while (!data.empty() && fd_ >= 0 && !write_failed_) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      write_failed_ = true;
      break;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

void BoundedLog::write(std::string_view data) {
  const uint64_t room = total_ < head_limit_ ? head_limit_ - total_ : 0;
  total_ += data.size();
  const std::string_view head = data.substr(0, std::min<uint64_t>(room, data.size()));
  put(head);
  head_end_.append(head);
  if (head_end_.size() > 2 * kJobStderrTailBytes) head_end_.erase(0, head_end_.size() - kJobStderrTailBytes);
  data.remove_prefix(head.size());
  if (data.empty()) return;
  ring_.append(data);
  if (ring_.size() > 2 * tail_limit_) {  // amortised: cut back to the limit now and then
    const size_t cut = ring_.size() - tail_limit_;
    dropped_ += cut;
    ring_.erase(0, cut);
  }
}

void BoundedLog::finish() {
  if (ring_.size() > tail_limit_) {
    dropped_ += ring_.size() - tail_limit_;
    ring_.erase(0, ring_.size() - tail_limit_);
  }
  if (dropped_)
    put(fmt::format("\n[wmbench: {} bytes left out here; this log keeps the first {} and the last {} bytes]\n", dropped_,
                    head_limit_, tail_limit_));
  put(ring_);
}

std::string BoundedLog::tail(size_t n) const {
  std::string all = ring_.size() >= n || dropped_ ? ring_ : head_end_ + ring_;
  return all.size() > n ? all.substr(all.size() - n) : all;
}

PipeRelay::PipeRelay(int read_fd, BoundedLog& log) : fd_(read_fd), log_(log) {
  thread_ = std::thread([this] { loop(); });
}

PipeRelay::~PipeRelay() {
  stop();
  if (fd_ >= 0) ::close(fd_);
}

void PipeRelay::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void PipeRelay::loop() {
  char buf[65536];
  uint64_t after_stop = 0;  // bytes read since stop(): bounded, a daemon may write for ever
  for (;;) {
    struct pollfd p = {fd_, POLLIN, 0};
    const int pr = ::poll(&p, 1, 100);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      if (stopping_) return;  // nothing more now, and the job is gone
      continue;
    }
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;  // closed (every writer gone) or an error
    log_.write(std::string_view(buf, static_cast<size_t>(n)));
    if (stopping_ && (after_stop += static_cast<uint64_t>(n)) > kJobLogTailBytes) return;
  }
}

}  // namespace wmb
