#include "io/safe_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "io/files.h"

namespace wmb {

void check_parent_links(const std::string& path) {
  const auto last = path.find_last_of('/');
  if (last == std::string::npos || last == 0) return;  // in the current folder, or in /
  const std::string parent = path.substr(0, last);
  size_t i = parent[0] == '/' ? 1 : 0;
  while (i <= parent.size()) {
    size_t next = parent.find('/', i);
    if (next == std::string::npos) next = parent.size();
    const std::string prefix = parent.substr(0, next);
    struct stat st {};
    if (!prefix.empty() && ::lstat(prefix.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 &&
        st.st_uid != ::geteuid())
      throw FileError(fmt::format("{}: {} on the way is a symbolic link owned by user {}; wmbench does not write "
                                  "through another user's link (give the real path)",
                                  path, prefix, st.st_uid));
    i = next + 1;
  }
}

int open_user_file_for_write(const std::string& path) {
  if (path.empty()) throw FileError("an empty file name was given");
  check_parent_links(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP)
      throw FileError(fmt::format("cannot write {}: it is a symbolic link; wmbench does not write through links "
                                  "(give the file itself)",
                                  path));
    if (e == ENXIO) throw FileError(fmt::format("cannot write {}: it is a FIFO or socket; give a regular file", path));
    throw FileError(fmt::format("cannot write {}: {}", path, std::strerror(e)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const unsigned mode = st.st_mode;
    ::close(fd);
    throw FileError(fmt::format("cannot write {}: it is {}; give a regular file", path, file_kind(mode)));
  }
#ifdef __linux__
  // /proc/self/mem and sysfs files are "regular" to fstat, but no trace belongs there.
  struct statfs sf {};
  if (::fstatfs(fd, &sf) == 0 && (sf.f_type == 0x9fa0 /* PROC_SUPER_MAGIC */ || sf.f_type == 0x62656572 /* SYSFS_MAGIC */)) {
    ::close(fd);
    throw FileError(fmt::format("cannot write {}: it is a file of /proc or /sys, not a regular file on disk", path));
  }
#endif
  if (::ftruncate(fd, 0) != 0) {
    const int e = errno;
    ::close(fd);
    throw FileError(fmt::format("cannot write {}: {}", path, std::strerror(e)));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace wmb
