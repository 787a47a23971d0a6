#include "io/owned.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "io/files.h"

namespace wmb {

std::string why_not_owned(const struct stat& st) {
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) return fmt::format("owned by user {}", st.st_uid);
  if (S_ISLNK(st.st_mode)) return "";  // a link's own mode means nothing
  const bool sticky_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
  if ((st.st_mode & S_IWOTH) && !sticky_dir) return "writable by every user";
  if ((st.st_mode & S_IWGRP) && !sticky_dir && st.st_gid != 0 && st.st_gid != ::getegid())
    return fmt::format("writable by group {}", st.st_gid);
  return "";
}

void check_owned_dir(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw FileError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  if (S_ISLNK(st.st_mode)) {
    if (const std::string why = why_not_owned(st); !why.empty())
      throw FileError(fmt::format("{} {} is a symbolic link {}; wmbench follows only root's or its own user's links "
                                  "(remove it, or give the real folder)",
                                  what, path, why));
    if (::stat(path.c_str(), &st) != 0) throw FileError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) throw FileError(fmt::format("{} {} is {}, not a folder", what, path, file_kind(st.st_mode)));
  if (const std::string why = why_not_owned(st); !why.empty())
    throw FileError(fmt::format("{} {} is {}; wmbench trusts only folders that root or its own user owns and nobody "
                                "else can write (chown/chmod go-w it, or remove it)",
                                what, path, why));
}

void check_owned_tree(const std::string& dir, const std::string& what, size_t max_entries) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) throw FileError(fmt::format("{} {}: {}", what, dir, std::strerror(errno)));
  if (!S_ISDIR(st.st_mode)) throw FileError(fmt::format("{} {} is {}, not a folder", what, dir, file_kind(st.st_mode)));
  auto refuse = [&](const std::string& p, const std::string& why) {
    throw FileError(fmt::format("{} {}: {} is {}; wmbench runs nothing that another user could have changed", what, dir,
                                p, why));
  };
  if (const std::string why = why_not_owned(st); !why.empty()) refuse(dir, why);
  std::error_code ec;
  size_t n = 0;
  // directory_options::none: a link to a folder is listed, never entered.
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string p = it->path().string();
    if (++n > max_entries) throw FileError(fmt::format("{} {}: more than {} entries", what, dir, max_entries));
    if (::lstat(p.c_str(), &st) != 0) throw FileError(fmt::format("{} {}: {}: {}", what, dir, p, std::strerror(errno)));
    if (const std::string why = why_not_owned(st); !why.empty()) refuse(p, why);
  }
  if (ec) throw FileError(fmt::format("{} {}: cannot read it whole: {}", what, dir, ec.message()));
}

int open_owned_file(const std::string& path, int flags, bool truncate) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) throw FileError(fmt::format("{} is a symbolic link; wmbench does not open links there (remove it)", path));
    throw FileError(fmt::format("cannot open {}: {}", path, std::strerror(e)));
  }
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0)
    why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "it is " + file_kind(st.st_mode);
  else if (st.st_nlink != 1)
    why = fmt::format("it has {} hard links (another name for another file)", st.st_nlink);
  else
    why = why_not_owned(st);
  if (why.empty() && truncate && ::ftruncate(fd, 0) != 0) why = std::strerror(errno);
  if (!why.empty()) {
    ::close(fd);
    throw FileError(fmt::format("{}: {}; wmbench does not write a file it did not make (remove it)", path, why));
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

}  // namespace wmb
