#include "results/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "io/utf8.h"

namespace wmb {

FolderLock::FolderLock(const Folder& folder, const std::string& command) {
  fd_ = folder.open_for_write(kLockFileName, 0);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string note;
    char buf[1024];
    ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
    if (n > 0) note.assign(buf, static_cast<size_t>(n));
    ::close(fd_);
    fd_ = -1;
    while (!note.empty() && (note.back() == '\n' || note.back() == '\0')) note.pop_back();
    if (err == EWOULDBLOCK)
      throw FolderBusy(fmt::format("{} is in use by another wmbench ({}); wait until it ends, or stop it",
                                   folder.path(), note.empty() ? "it left no note" : utf8_sanitize(note, 300)));
    throw FileError(fmt::format("cannot lock {}: {}", folder.display(kLockFileName), std::strerror(err)));
  }
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  const std::string mine =
      fmt::format("pid {} on {}: {}, since {}\n", ::getpid(), host, utf8_sanitize(command, 200), utc_now_iso());
  if (::ftruncate(fd_, 0) == 0) {
    ssize_t w = ::pwrite(fd_, mine.data(), mine.size(), 0);
    (void)w;
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) {
    // No stale note; the file itself stays (removing it would race). A failure leaves only an old
    // note in the lock file, which the next holder overwrites: nothing to report from a destructor.
    if (::ftruncate(fd_, 0) != 0) {
    }
    ::close(fd_);
  }
}

}  // namespace wmb
