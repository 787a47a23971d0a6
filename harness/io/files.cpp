#include "io/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "io/json_input.h"

namespace wmb {
namespace {

std::string dir_of(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string base_of(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::string why(int err) {
  if (err == ELOOP) return "it is a symbolic link (wmbench does not follow links here)";
  return std::strerror(err);
}

// Reads all of fd (a regular file, checked) up to max_bytes; closes fd.
std::string read_fd(int fd, const std::string& display, size_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw FileError(fmt::format("cannot read {}: {}", display, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(fmt::format("cannot read {}: it is {}, not a regular file", display, file_kind(st.st_mode)));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw FileError(fmt::format("cannot read {}: it is {} bytes; wmbench reads at most {} bytes here", display,
                                static_cast<uint64_t>(st.st_size), max_bytes));
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw FileError(fmt::format("cannot read {}: {}", display, std::strerror(err)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) {  // it grew while we read
      ::close(fd);
      throw FileError(fmt::format("cannot read {}: more than {} bytes", display, max_bytes));
    }
  }
  ::close(fd);
  return out;
}

std::atomic<unsigned> g_tmp_counter{0};

// The atomic write inside the folder `dfd`: name is one component.
void write_atomic_at(int dfd, const std::string& name, const std::string& display, const std::string& content) {
  struct stat st {};
  if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
    throw FileError(fmt::format("refusing to write {}: it is {} (someone put it there; remove it to go on)", display,
                                file_kind(st.st_mode)));
  const std::string tmp = fmt::format("{}.tmp.{}.{}", name, ::getpid(), g_tmp_counter++);
  int fd = ::openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw FileError(fmt::format("cannot write {}: {}", display, why(errno)));
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlinkat(dfd, tmp.c_str(), 0);
      throw FileError(fmt::format("cannot write {}: {}", display, std::strerror(err)));
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    throw FileError(fmt::format("cannot write {}: {}", display, std::strerror(err)));
  }
  if (::renameat(dfd, tmp.c_str(), dfd, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    throw FileError(fmt::format("cannot write {}: {}", display, std::strerror(err)));
  }
  ::fsync(dfd);
}

std::string dump_safe(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string file_kind(unsigned mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

void write_file_atomic(const std::string& path, const std::string& content) {
  if (path.empty()) throw FileError("cannot write a file with an empty name");
  int dfd = ::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) throw FileError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  try {
    write_atomic_at(dfd, base_of(path), path, content);
  } catch (...) {
    ::close(dfd);
    throw;
  }
  ::close(dfd);
}

void write_json_atomic(const std::string& path, const nlohmann::json& j) { write_file_atomic(path, dump_safe(j)); }

std::string read_file(const std::string& path, size_t max_bytes, bool follow_link) {
  if (path.empty()) throw FileError("cannot read a file with an empty name");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_link ? 0 : O_NOFOLLOW));
  if (fd < 0) throw FileError(fmt::format("cannot read {}: {}", path, why(errno)));
  return read_fd(fd, path, max_bytes);
}

nlohmann::json read_json_file(const std::string& path, size_t max_bytes) {
  return parse_json_text(read_file(path, max_bytes, /*follow_link=*/false), path, max_bytes);
}

std::pair<size_t, size_t> line_col(std::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < text.size() && i + 1 < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

void make_dirs(const std::string& path) {
  if (path.empty()) throw FileError("cannot create a folder with an empty name");
  std::string cur;
  size_t i = 0;
  while (i <= path.size()) {
    size_t next = path.find('/', i);
    if (next == std::string::npos) next = path.size();
    cur = path.substr(0, next);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw FileError(fmt::format("cannot create folder {}: {}", cur, std::strerror(errno)));
    i = next + 1;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw FileError(fmt::format("cannot create folder {}: a file of that name is in the way", path));
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string utc_today() { return utc_now_iso().substr(0, 10); }

// ---- Folder ----

Folder::Folder(const std::string& path) : path_(path) {
  if (path.empty()) throw FileError("a folder with an empty name (an unset variable?) was given");
  fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    int err = errno;
    if (err == ENOTDIR) throw FileError(fmt::format("{}: not a folder", path));
    throw FileError(fmt::format("{}: not a folder that can be opened ({})", path, std::strerror(err)));
  }
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
}

Folder::~Folder() {
  if (fd_ >= 0) ::close(fd_);
}

Folder::Folder(Folder&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }

std::pair<int, std::string> Folder::parent_of(const std::string& rel) const {
  if (rel.empty() || rel.front() == '/')
    throw FileError(fmt::format("{}: \"{}\" is not a path inside the folder", path_, rel));
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= rel.size()) {
    size_t next = rel.find('/', i);
    if (next == std::string::npos) next = rel.size();
    std::string c = rel.substr(i, next - i);
    if (c.empty() || c == "." || c == ".." || c.find('\0') != std::string::npos)
      throw FileError(fmt::format("{}: \"{}\" is not a path inside the folder (empty, \".\" or \"..\" part)", path_, rel));
    parts.push_back(c);
    i = next + 1;
  }
  int cur = fd_;
  std::string walked;
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    walked += (walked.empty() ? "" : "/") + parts[k];
    int next = ::openat(cur, parts[k].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    if (cur != fd_) ::close(cur);
    if (next < 0) {
      if (err == ENOTDIR || err == ELOOP)
        throw FileError(fmt::format("{}: it is a symbolic link or not a folder (wmbench does not follow links here)",
                                    display(walked)));
      throw FileError(fmt::format("{}: {}", display(walked), std::strerror(err)));
    }
    cur = next;
  }
  return {cur, parts.back()};
}

std::optional<Folder::Entry> Folder::stat(const std::string& rel) const {
  auto [dfd, name] = parent_of(rel);
  struct stat st {};
  int rc = ::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  int err = errno;
  if (dfd != fd_) ::close(dfd);
  if (rc != 0) {
    if (err == ENOENT) return std::nullopt;
    throw FileError(fmt::format("{}: {}", display(rel), std::strerror(err)));
  }
  return Entry{name, static_cast<unsigned>(st.st_mode)};
}

std::vector<Folder::Entry> Folder::list(const std::string& rel) const {
  int dfd;
  if (rel.empty()) {
    dfd = ::dup(fd_);
  } else {
    auto [pfd, name] = parent_of(rel);
    dfd = ::openat(pfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    if (pfd != fd_) ::close(pfd);
    if (dfd < 0) {
      if (err == ENOTDIR || err == ELOOP)
        throw FileError(fmt::format("{}: it is a symbolic link or not a folder", display(rel)));
      throw FileError(fmt::format("cannot list {}: {}", display(rel), std::strerror(err)));
    }
  }
  if (dfd < 0) throw FileError(fmt::format("cannot list {}: {}", path_, std::strerror(errno)));
  DIR* d = ::fdopendir(dfd);
  if (!d) {
    int err = errno;
    ::close(dfd);
    throw FileError(fmt::format("cannot list {}: {}", rel.empty() ? path_ : display(rel), std::strerror(err)));
  }
  std::vector<Entry> out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    out.push_back({n, static_cast<unsigned>(st.st_mode)});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

std::string Folder::read(const std::string& rel, size_t max_bytes) const {
  auto [dfd, name] = parent_of(rel);
  int fd = ::openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int err = errno;
  if (dfd != fd_) ::close(dfd);
  if (fd < 0) throw FileError(fmt::format("cannot read {}: {}", display(rel), why(err)));
  return read_fd(fd, display(rel), max_bytes);
}

std::string Folder::read_tail(const std::string& rel, size_t max_bytes) const {
  auto [dfd, name] = parent_of(rel);
  int fd = ::openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (dfd != fd_) ::close(dfd);
  if (fd < 0) return "";
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return "";
  }
  const off_t start = st.st_size > static_cast<off_t>(max_bytes) ? st.st_size - static_cast<off_t>(max_bytes) : 0;
  std::string out(static_cast<size_t>(st.st_size - start), '\0');
  ssize_t n = ::pread(fd, out.data(), out.size(), start);
  ::close(fd);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

nlohmann::json Folder::read_json(const std::string& rel, size_t max_bytes) const {
  return parse_json_text(read(rel, max_bytes), display(rel), max_bytes);
}

void Folder::write_atomic(const std::string& rel, const std::string& content) const {
  auto [dfd, name] = parent_of(rel);
  try {
    write_atomic_at(dfd, name, display(rel), content);
  } catch (...) {
    if (dfd != fd_) ::close(dfd);
    throw;
  }
  if (dfd != fd_) ::close(dfd);
}

void Folder::write_json(const std::string& rel, const nlohmann::json& j) const { write_atomic(rel, dump_safe(j)); }

int Folder::open_for_write(const std::string& rel, int extra_flags) const {
  auto [dfd, name] = parent_of(rel);
  int fd = ::openat(dfd, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | extra_flags, 0644);
  int err = errno;
  if (dfd != fd_) ::close(dfd);
  if (fd < 0) throw FileError(fmt::format("cannot write {}: {}", display(rel), why(err)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(fmt::format("refusing to write {}: it is {}", display(rel), file_kind(st.st_mode)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

void Folder::make_dir(const std::string& rel) const {
  auto [dfd, name] = parent_of(rel);
  int rc = ::mkdirat(dfd, name.c_str(), 0755);
  int err = errno;
  struct stat st {};
  bool is_dir = ::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
  if (dfd != fd_) ::close(dfd);
  if (rc != 0 && !(err == EEXIST && is_dir))
    throw FileError(fmt::format("cannot create folder {}: {}", display(rel),
                                err == EEXIST ? "something that is not a folder is in the way" : std::strerror(err)));
}

}  // namespace wmb
