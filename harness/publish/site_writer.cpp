#include "publish/site_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "io/safe_open.h"

namespace wmb::publish {

using nlohmann::json;

namespace {

constexpr size_t kMaxManifestBytes = size_t{16} << 20;

// Opens the folder holding REL's last component inside `root`, never through a link (as Folder
// does); returns its fd (the caller closes it unless it is `root`) and the last component.
std::pair<int, std::string> parent_fd(int root, const std::string& rel) {
  int cur = root;
  size_t i = 0;
  while (true) {
    const size_t next = rel.find('/', i);
    if (next == std::string::npos) return {cur, rel.substr(i)};
    const std::string part = rel.substr(i, next - i);
    const int fd = ::openat(cur, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cur != root) ::close(cur);
    if (fd < 0) return {-1, ""};
    cur = fd;
    i = next + 1;
  }
}

bool safe_rel(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.size() > 1024) return false;
  size_t i = 0;
  while (i <= rel.size()) {
    size_t next = rel.find('/', i);
    if (next == std::string::npos) next = rel.size();
    const std::string c = rel.substr(i, next - i);
    if (c.empty() || c == "." || c == ".." || c.find('\0') != std::string::npos) return false;
    i = next + 1;
  }
  return true;
}

// Removes REL (a regular file only; a link or anything else is left) inside root.
void unlink_regular(int root, const std::string& rel) {
  auto [dfd, name] = parent_fd(root, rel);
  if (dfd < 0) return;
  struct stat st {};
  if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) ::unlinkat(dfd, name.c_str(), 0);
  if (dfd != root) ::close(dfd);
}

// Removes the folder REL and what is in it (folders and files; links are unlinked, never followed).
void remove_tree_at(int dirfd, const std::string& name) {
  const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    if (DIR* d = ::fdopendir(fd)) {
      std::vector<std::pair<std::string, bool>> entries;
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        struct stat st {};
        if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) entries.emplace_back(n, S_ISDIR(st.st_mode));
      }
      for (const auto& [n, is_dir] : entries) {
        if (is_dir) remove_tree_at(::dirfd(d), n);
        else ::unlinkat(::dirfd(d), n.c_str(), 0);
      }
      ::closedir(d);
    } else {
      ::close(fd);
    }
  }
  ::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

}  // namespace

Folder open_site_folder(const std::string& out) {
  if (out.empty()) throw FileError("--out: an empty folder name");
  check_parent_links(out + "/x");
  make_dirs(out);
  return Folder(out);
}

SiteWriter::SiteWriter(const std::string& out) : folder_(open_site_folder(out)) {
  json m;
  try {
    if (folder_.exists(kManifestName)) m = folder_.read_json(kManifestName, kMaxManifestBytes);
  } catch (const std::exception&) {
    m = json();  // not ours, or damaged: compare every file by content instead
  }
  if (!m.is_object()) return;
  if (auto it = m.find("files"); it != m.end() && it->is_array())
    for (const auto& f : *it)
      if (f.is_string() && safe_rel(f.get<std::string>())) old_files_.insert(f.get<std::string>());
  if (auto it = m.find("charts"); it != m.end() && it->is_object())
    for (auto& [k, v] : it->items())
      if (v.is_string() && safe_rel(k)) old_charts_[k] = v.get<std::string>();
}

void SiteWriter::make_parents(const std::string& rel) {
  size_t i = 0;
  while ((i = rel.find('/', i)) != std::string::npos) {
    folder_.make_dir(rel.substr(0, i));
    ++i;
  }
}

bool SiteWriter::put(const std::string& rel, const std::string& content) {
  if (!safe_rel(rel)) throw FileError(fmt::format("{}: \"{}\" is not a path inside the site", out(), rel));
  make_parents(rel);
  files_.insert(rel);
  if (const auto e = folder_.stat(rel); e && S_ISREG(e->mode)) {
    struct stat st {};
    bool same_size = false;
    {
      auto [dfd, name] = parent_fd(folder_.fd(), rel);
      if (dfd >= 0) {
        same_size = ::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    static_cast<uint64_t>(st.st_size) == content.size();
        if (dfd != folder_.fd()) ::close(dfd);
      }
    }
    if (same_size && folder_.read(rel, content.size() + 1) == content) {
      ++unchanged_;
      return false;
    }
  }
  folder_.write_atomic(rel, content);  // refuses a link or a non-regular file in the way
  ++written_;
  return true;
}

bool SiteWriter::keep(const std::string& rel) {
  if (!safe_rel(rel)) return false;
  const auto e = folder_.stat(rel);
  if (!e || !S_ISREG(e->mode)) return false;
  files_.insert(rel);
  ++unchanged_;
  return true;
}

std::string SiteWriter::chart_key(const std::string& rel) const {
  auto it = old_charts_.find(rel);
  return it == old_charts_.end() ? "" : it->second;
}

std::string SiteWriter::make_scratch() {
  const std::string name = fmt::format(".wmbench-scratch-{}", ::getpid());
  remove_tree_at(folder_.fd(), name);
  folder_.make_dir(name);
  scratch_ = name;
  return name;
}

void SiteWriter::remove_scratch() {
  if (scratch_) remove_tree_at(folder_.fd(), *scratch_);
  scratch_.reset();
}

int SiteWriter::finish() {
  remove_scratch();
  int removed = 0;
  for (const auto& f : old_files_) {
    if (files_.count(f)) continue;
    unlink_regular(folder_.fd(), f);
    ++removed;
  }
  json m = {{"wmbench_site", 1}, {"files", json::array()}, {"charts", json::object()}};
  for (const auto& f : files_) m["files"].push_back(f);
  for (const auto& [k, v] : new_charts_)
    if (files_.count(k)) m["charts"][k] = v;
  const std::string text = m.dump(1) + "\n";
  bool same = false;
  try {
    same = folder_.exists(kManifestName) && folder_.read(kManifestName, kMaxManifestBytes) == text;
  } catch (const FileError&) {
  }
  if (!same) folder_.write_atomic(kManifestName, text);
  return removed;
}

}  // namespace wmb::publish
