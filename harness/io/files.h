// File helpers: atomic writes (a reader sees the old file or the whole new one, never half),
// reading whole files with a size bound, and Folder: files opened only inside one folder, never
// through a symbolic link (a result folder that someone else made or changed may hold planted links).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb {

struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes to a fresh PATH.tmp.<pid>.<n> (O_EXCL|O_NOFOLLOW: a planted file or link there is never
// written through), fsyncs, renames over PATH, fsyncs the folder. Refuses when PATH is a symbolic
// link or not a regular file. Throws FileError naming the path and the system's reason (e.g. "No
// space left on device"); PATH is then untouched. JSON with ill-formed UTF-8 in a string is
// written with U+FFFD in its place (a dump never throws).
void write_file_atomic(const std::string& path, const std::string& content);
void write_json_atomic(const std::string& path, const nlohmann::json& j);

// An optional value as JSON, null when it is absent (the trace's samples, the exports of history
// and compare). One copy: file-local copies of it clashed when the sources are compiled in
// batches (CMake's unity build, CMakeLists.txt's WMBENCH_UNITY).
template <typename T>
nlohmann::json json_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Default bound of read_file: far above any file wmbench reads whole.
constexpr size_t kMaxReadBytes = size_t{64} << 20;

// Reads a regular file (a FIFO, a device or a folder is refused, without blocking on it) of at
// most max_bytes bytes. The last component is not followed when it is a symbolic link unless
// follow_link (a file the user names on the command line may be a link; a folder's files may not).
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadBytes, bool follow_link = true);
// Through the bounded loader (json_input.h): nesting, duplicate keys, UTF-8. A result folder's
// file: the last component is never followed when it is a link. Throws FileError.
nlohmann::json read_json_file(const std::string& path, size_t max_bytes = size_t{32} << 20);

// The file kind of an lstat mode, for messages: "a symbolic link", "a FIFO", "a folder", ...
std::string file_kind(unsigned mode);

// One folder, opened once; every path below it is relative, walked component by component with
// O_NOFOLLOW ("..", "." and absolute paths are refused), so nothing read or written escapes it.
class Folder {
 public:
  // Opens `path` (which may itself be a link: the user named it). Throws FileError.
  explicit Folder(const std::string& path);
  ~Folder();
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  Folder(Folder&& o) noexcept;

  const std::string& path() const { return path_; }
  std::string display(const std::string& rel) const { return path_ + "/" + rel; }
  int fd() const { return fd_; }

  struct Entry {
    std::string name;
    unsigned mode = 0;  // lstat's st_mode: S_ISREG, S_ISLNK, S_ISDIR, S_ISFIFO, ...
  };
  // lstat of rel; nullopt when it does not exist. Throws FileError when a folder on the way is a link.
  std::optional<Entry> stat(const std::string& rel) const;
  bool exists(const std::string& rel) const { return stat(rel).has_value(); }
  // The entries of the sub-folder rel ("" = this folder), sorted by name, without "." and "..".
  std::vector<Entry> list(const std::string& rel) const;

  // A regular file only (a link, a FIFO, a folder are refused, naming what it is).
  std::string read(const std::string& rel, size_t max_bytes = kMaxReadBytes) const;
  nlohmann::json read_json(const std::string& rel, size_t max_bytes = size_t{32} << 20) const;
  // The last max_bytes of a regular file (e.g. a child's stderr log for classify); "" when absent.
  std::string read_tail(const std::string& rel, size_t max_bytes) const;
  // Atomic as write_file_atomic; refuses to replace a link or anything but a regular file.
  void write_atomic(const std::string& rel, const std::string& content) const;
  void write_json(const std::string& rel, const nlohmann::json& j) const;
  // Opens rel for reading and writing (O_RDWR|O_CREAT|O_NOFOLLOW, plus `extra_flags` such as O_TRUNC or O_APPEND),
  // for trace and log files; refuses links and non-regular files. Returns the fd (caller closes).
  int open_for_write(const std::string& rel, int extra_flags) const;
  void make_dir(const std::string& rel) const;  // mkdir of one level (EEXIST fine if a real folder)

 private:
  // The fd of the folder holding rel's last component, and that component. Caller closes the fd
  // when it is not fd_.
  std::pair<int, std::string> parent_of(const std::string& rel) const;
  int fd_ = -1;
  std::string path_;
};

// 1-based line and column of a byte offset (nlohmann's parse_error::byte) in `text`.
std::pair<size_t, size_t> line_col(std::string_view text, size_t offset);

void make_dirs(const std::string& path);                        // mkdir -p; throws FileError
bool path_exists(const std::string& path);

// Current UTC time as "2026-10-13T10:00:00Z" and the date part "2026-10-13".
std::string utc_now_iso();
std::string utc_today();

}  // namespace wmb
