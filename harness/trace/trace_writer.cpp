#include "trace/trace_writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "io/files.h"
#include "io/safe_open.h"

namespace wmb {

// Never through a link, never a FIFO or a device (io/safe_open.h).
TraceWriter::TraceWriter(const std::string& path, double sync_interval) : path_(path) {
  try {
    fd_ = open_user_file_for_write(path);
  } catch (const FileError& e) {
    throw FileError(std::string("trace: ") + e.what());
  }
  start_syncer(sync_interval);
}

TraceWriter::TraceWriter(int fd, std::string display, double sync_interval) : fd_(fd), path_(std::move(display)) {
  start_syncer(sync_interval);
}

TraceWriter::~TraceWriter() { close(); }

void TraceWriter::start_syncer(double interval) {
  if (fd_ < 0 || !(interval > 0)) return;
  // The thread is made with every signal blocked (a thread inherits its maker's mask), so Ctrl-C,
  // Ctrl-Z and SIGTERM keep going to the thread that handles them, as before there was a second.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    syncer_ = std::thread([this, interval] { sync_loop(interval); });
  } catch (const std::system_error&) {
    // No thread (a process at its limit): the lines are still written; close() syncs them once.
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void TraceWriter::sync_now() {
  if (!dirty_.exchange(false)) return;
#ifdef __APPLE__
  // macOS: fsync pushes the file's data out of the kernel's cache to the drive (what a panic
  // would lose); F_FULLFSYNC, which also flushes the drive's own cache against power loss, is not
  // needed for a panic and costs far more (fcntl(2) of macOS).
  const int rc = ::fsync(fd_);
#else
  const int rc = ::fdatasync(fd_);
#endif
  if (rc == 0) syncs_.fetch_add(1);
}

void TraceWriter::sync_loop(double interval) {
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(interval));
  std::unique_lock<std::mutex> lk(m_);
  while (!stop_) {
    cv_.wait_for(lk, period, [this] { return stop_; });
    if (stop_) break;
    lk.unlock();
    sync_now();
    lk.lock();
  }
}

void TraceWriter::line(const nlohmann::json& j) {
  if (fd_ < 0) return;
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  s.push_back('\n');
  ssize_t n;
  do {
    n = ::write(fd_, s.data(), s.size());
  } while (n < 0 && errno == EINTR);
  if (n > 0) dirty_.store(true);
  if (n != static_cast<ssize_t>(s.size()) && error_.empty())
    error_ = fmt::format("trace {}: {}", path_, n < 0 ? std::strerror(errno) : "short write");
}

void TraceWriter::close() {
  if (syncer_.joinable()) {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    syncer_.join();
  }
  if (fd_ >= 0) {
    sync_now();
    ::close(fd_);
  }
  fd_ = -1;
}

}  // namespace wmb
