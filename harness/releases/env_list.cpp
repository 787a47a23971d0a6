#include "releases/env_list.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "common/units.h"
#include "io/files.h"
#include "io/owned.h"
#include "io/terminal_text.h"
#include "io/text_table.h"
#include "releases/env_cache.h"
#include "io/utf8.h"

namespace wmb::releases {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxEntries = 2000000;             // files counted per env (a CUDA torch has ~20k)
constexpr size_t kMaxEnvs = 10000;

// Every regular file's size under `dir`, links counted as links (never followed), bounded.
uint64_t tree_bytes(const std::string& dir) {
  uint64_t total = 0;
  size_t seen = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (++seen > kMaxEntries) break;
    struct stat st;
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

// The key of a leftover (".tmp-KEY-PID" or ".old-KEY-PID"), else "".
std::string leftover_key(const std::string& name) {
  for (const char* p : {".tmp-", ".old-"})
    if (name.rfind(p, 0) == 0) {
      const size_t dash = name.rfind('-');
      if (dash > 5) return name.substr(5, dash - 5);
    }
  return "";
}

// The lock of `key`, opened without creating it or following a link; -1 when there is none.
int open_lock(const std::string& root, const std::string& key) {
  return ::open((root + "/" + key + ".lock").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
}

// True when a run holds the lock of `key` now (a try for it fails).
bool held_by_a_run(const std::string& root, const std::string& key) {
  const int fd = open_lock(root, key);
  if (fd < 0) return false;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // releases it when taken
  return !free;
}

std::string marker_text(const nlohmann::json& m, const char* k) {
  return m.contains(k) && m[k].is_string() ? escape_controls_line(std::string(utf8_prefix(m[k].get<std::string>(), 200))) : "";
}

void check_root(const std::string& root) {
  try {
    check_owned_dir(root, "the environments' cache");
  } catch (const FileError& e) {
    throw EnvError(e.what());
  }
}

}  // namespace

std::vector<CachedEnv> list_cached_envs(const std::string& root) {
  std::vector<CachedEnv> v;
  struct stat st;
  if (::lstat(root.c_str(), &st) != 0) return v;
  check_root(root);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (v.size() >= kMaxEnvs) break;
    const std::string name = e.path().filename().string();
    const std::string path = e.path().string();
    if (!is_real_dir(path)) continue;  // lock files; a link is never read
    CachedEnv c;
    c.name = name;
    c.shown = escape_controls_line(name);
    const std::string lk = leftover_key(name);
    c.leftover = !lk.empty();
    if (!c.leftover && name.rfind("torch-", 0) != 0) continue;  // not wmbench's
    c.in_use = held_by_a_run(root, c.leftover ? lk : name);
    c.bytes = tree_bytes(path);
    if (c.leftover) {
      c.problem = "left by a build that did not finish";
    } else {
      try {
        const nlohmann::json m = read_json_file(path + "/" + kEnvMarker, 64 << 20);
        if (!m.is_object()) throw std::runtime_error("not an object");
        c.request = marker_text(m, "request");
        c.torch_version = marker_text(m, "torch_version");
        c.variant = marker_text(m, "variant");
        c.installer = marker_text(m, "installer");
        c.python_version = marker_text(m, "python_version");
        c.made_utc = marker_text(m, "made_utc");
        if (marker_text(m, "key") != name) c.problem = fmt::format("its {} names another key", kEnvMarker);
      } catch (const std::exception&) {
        c.problem = fmt::format("no readable {}", kEnvMarker);
      }
      if (c.problem.empty() && ::stat((path + "/bin/python").c_str(), &st) != 0) c.problem = "its interpreter is gone";
    }
    v.push_back(std::move(c));
  }
  std::sort(v.begin(), v.end(), [](const CachedEnv& a, const CachedEnv& b) { return a.name < b.name; });
  return v;
}

std::string env_list_text(const std::string& root, const std::vector<CachedEnv>& envs) {
  if (envs.empty()) return fmt::format("No cached environments in {}\n", escape_controls_line(root));
  TextRows rows{{"environment", "release", "torch", "variant", "installer", "python", "made (UTC)", "size", "state"}};
  uint64_t total = 0;
  for (const auto& c : envs) {
    total += c.bytes;
    std::string state = c.in_use ? "in use by a run" : "";
    if (!c.problem.empty()) state += (state.empty() ? "" : "; ") + c.problem;
    if (state.empty()) state = "ok";
    auto dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
    rows.push_back({c.shown, dash(c.request), dash(c.torch_version), dash(c.variant), dash(c.installer), dash(c.python_version),
                    dash(c.made_utc), format_size(c.bytes), state});
  }
  return fmt::format("Cached environments in {}:\n{}{} environment(s), {} in all; `wmbench releases --prune [VERSION...]` "
                     "removes all but the versions named\n",
                     escape_controls_line(root), aligned_columns(rows, true), envs.size(), format_size(total));
}

size_t prune_envs(const std::string& root, const std::vector<std::string>& keep, std::ostream& out) {
  const std::vector<CachedEnv> envs = list_cached_envs(root);
  uint64_t freed = 0;
  size_t removed = 0, in_use = 0;
  for (const auto& c : envs) {
    const bool kept = !c.leftover && !keep.empty() &&
                      (std::find(keep.begin(), keep.end(), c.request) != keep.end() ||
                       std::find(keep.begin(), keep.end(), c.torch_version) != keep.end());
    if (kept) {
      out << fmt::format("  kept {} (torch {})\n", c.shown, c.torch_version.empty() ? "?" : c.torch_version);
      continue;
    }
    // Removed only under its lock, taken here: a run that holds it (using, making) keeps it.
    const std::string key = c.leftover ? leftover_key(c.name) : c.name;
    const int fd = open_lock(root, key);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      out << fmt::format("  kept {}: a run holds it now (lock {}.lock)\n", c.shown, escape_controls_line(key));
      ++in_use;
      continue;
    }
    std::error_code ec;
    fs::remove_all(root + "/" + c.name, ec);  // a link inside is removed, never followed
    if (fd >= 0) ::close(fd);
    if (ec) {
      out << fmt::format("  could not remove {}: {}\n", c.shown, ec.message());
      continue;
    }
    freed += c.bytes;
    ++removed;
    out << fmt::format("  removed {} (torch {}, {})\n", c.shown, c.torch_version.empty() ? "?" : c.torch_version,
                       format_size(c.bytes));
  }
  out << fmt::format("wmbench releases --prune: {} removed, {} freed{}\n", removed, format_size(freed),
                     in_use ? fmt::format(", {} kept in use", in_use) : "");
  return in_use;
}

}  // namespace wmb::releases
