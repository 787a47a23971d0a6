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
#include "publish/html.h"

namespace wmb::publish {

using nlohmann::json;

namespace {

constexpr size_t kMaxManifestBytes = size_t{16} << 20;
// What every page publish writes holds (publish/layout.cpp's footer).
constexpr const char* kPageMark = "<footer>Made by <code>wmbench publish</code>";

bool ends_with_html(const std::string& rel) { return rel.size() > 5 && rel.compare(rel.size() - 5, 5, ".html") == 0; }

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
  if (auto it = m.find("hashes"); it != m.end() && it->is_object())
    for (auto& [k, v] : it->items())
      if (v.is_string() && safe_rel(k)) old_hashes_[k] = v.get<std::string>();
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

bool SiteWriter::ours(const std::string& rel, const std::string& content, bool to_replace) const {
  const bool site_path = rel == "index.html" || rel.rfind("folders/", 0) == 0 || rel.rfind("scenarios/", 0) == 0;
  if (!site_path) return false;
  if (ends_with_html(rel) && content.find(kPageMark) != std::string::npos) return true;  // a page of publish's
  const auto h = old_hashes_.find(rel);
  if (h != old_hashes_.end()) return h->second == content_hash(content);
  // To be replaced by this publish's own file of that name: also one a manifest of a site made
  // before the hashes listed inside folders/ or scenarios/. Never removed on a list alone.
  return to_replace && rel != "index.html" && old_files_.count(rel) > 0;
}

void SiteWriter::refuse_foreign(const std::string& rel) const {
  const auto e = folder_.stat(rel);
  if (!e || !S_ISREG(e->mode)) return;  // a link or not a file: the write refuses it, naming it (exit 1)
  if (!ours(rel, folder_.read(rel, kMaxReadBytes), true))
    throw FileError(fmt::format("{}: a file wmbench publish did not write is there; it is never replaced (move it "
                                "away, or publish into a folder of its own)",
                                folder_.display(rel)));
}

bool SiteWriter::put(const std::string& rel, const std::string& content) {
  if (!safe_rel(rel)) throw FileError(fmt::format("{}: \"{}\" is not a path inside the site", out(), rel));
  make_parents(rel);
  files_.insert(rel);
  hashes_[rel] = content_hash(content);
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
    refuse_foreign(rel);
  }
  folder_.write_atomic(rel, content);  // refuses a link or a non-regular file in the way
  ++written_;
  return true;
}

bool SiteWriter::keep(const std::string& rel) {
  if (!safe_rel(rel)) return false;
  const auto e = folder_.stat(rel);
  if (!e || !S_ISREG(e->mode)) return false;
  std::string content;
  try {
    content = folder_.read(rel, kMaxReadBytes);
  } catch (const FileError&) {
    return false;
  }
  if (!ours(rel, content, true)) return false;  // drawn again, and put() says whose it is
  files_.insert(rel);
  hashes_[rel] = content_hash(content);
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
    std::string content;
    try {  // a link on the way, not a regular file, too large to be ours, not readable: left
      const auto e = folder_.stat(f);
      if (!e || !S_ISREG(e->mode)) continue;
      content = folder_.read(f, kMaxReadBytes);
    } catch (const FileError&) {
      continue;
    }
    if (!ours(f, content, false)) continue;  // the manifest names it, but it is not wmbench's: left
    unlink_regular(folder_.fd(), f);
    ++removed;
  }
  json m = {{"wmbench_site", 1}, {"files", json::array()}, {"hashes", json::object()}, {"charts", json::object()}};
  for (const auto& f : files_) m["files"].push_back(f);
  for (const auto& [k, v] : hashes_)
    if (files_.count(k)) m["hashes"][k] = v;
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
