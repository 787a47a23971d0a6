#include "releases/env_cache.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/files.h"
#include "io/owned.h"
#include "io/safe_open.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "releases/releases.h"
#include "releases/torch_version.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "spawn/process.h"
#include "io/utf8.h"

namespace wmb::releases {
namespace fs = std::filesystem;
namespace {

constexpr uint64_t kNearlyFullBytes = uint64_t{8} << 20;  // less than this free after a failed step: the disk filled
constexpr const char* kReport = "wmbench-install-report.json";  // pip's --report of the install
[[maybe_unused]] constexpr const char* kCpuIndex = "https://download.pytorch.org/whl/cpu";  // PyTorch's CPU-only wheels

bool lexists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

void remove_tree(const std::string& p) {
  std::error_code ec;
  fs::remove_all(p, ec);  // a link inside is removed, never followed
}

// Takes the group's and others' write bits off every folder and file under `dir` (links are left
// as they are: never followed, and their own mode means nothing).
void owner_writes_only(const std::string& dir) {
  const auto fix = [](const std::string& p) {
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0 && !S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)))
      (void)::chmod(p.c_str(), st.st_mode & 07777 & ~(S_IWGRP | S_IWOTH));
  };
  fix(dir);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) fix(it->path().string());
}

}  // namespace
bool is_real_dir(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> IndexOptions::argv() const {
  std::vector<std::string> v;
  for (const auto& [flag, value] : args) {
    v.push_back(flag);
    if (!value.empty()) v.push_back(value);  // --no-index takes none
  }
  return v;
}

std::string IndexOptions::describe() const {
  if (args.empty()) return "pip's default index (PyPI, or PIP_INDEX_URL)";
  std::string s;
  for (const auto& [flag, value] : args) s += (s.empty() ? "" : " ") + flag + (value.empty() ? "" : " " + value);
  return s;
}

bool IndexOptions::local_only() const {
  bool no_index = false, links = false;
  for (const auto& [flag, value] : args) {
    if (flag == "--no-index") no_index = true;
    else if (flag == "--find-links" && value.find("://") == std::string::npos) links = true;
    else return false;  // an index URL, a --find-links URL: a source pip may download from
  }
  return no_index && links;
}

std::string checked_index_value(const std::string& flag, const std::string& value) {
  if (value.empty()) throw EnvError(flag + ": an empty value");
  if (value.size() >= 4096) throw EnvError(fmt::format("{}: a value of {} bytes (at most 4095)", flag, value.size()));
  if (value[0] == '-') throw EnvError(fmt::format("{} \"{}\": a value may not start with '-' (pip would read it as an option)", flag, value));
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7f) throw EnvError(fmt::format("{}: the value holds a control character", flag));
  if (flag == "--find-links" && value.find("://") == std::string::npos) {
    const std::string abs = absolute_for_child(value);
    if (!is_real_dir(abs) && !lexists(abs))
      throw EnvError(fmt::format("--find-links {}: no such folder (a local wheelhouse, or a URL)", value));
    return abs;
  }
  return value;
}

std::string default_cache_root() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/wmbench/envs";
  const char* home = std::getenv("HOME");
  if (home && *home == '/') return std::string(home) + "/.cache/wmbench/envs";
  throw EnvError("neither XDG_CACHE_HOME nor HOME is an absolute path: set XDG_CACHE_HOME to the folder for the cached "
                 "environments");
}

namespace {
// The cache's folders, from XDG_CACHE_HOME (or ~/.cache) down to envs/: made when missing (one
// level at a time, 0755), each then checked (io/owned.h): a link owned by another user is not
// followed, a folder another user owns or can write is refused.
void make_owned_cache(const std::string& root) {
  try {
    check_parent_links(root);
    const std::string wmbench_dir = root.substr(0, root.find_last_of('/'));
    const std::string home = wmbench_dir.substr(0, wmbench_dir.find_last_of('/'));
    if (!home.empty() && !lexists(home)) make_dirs(home);
    if (!home.empty()) check_owned_dir(home, "the cache's home folder (XDG_CACHE_HOME)");
    for (const std::string& d : {wmbench_dir, root}) {
      if (!lexists(d) && ::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST)
        throw FileError(fmt::format("cannot create {}: {}", d, std::strerror(errno)));
      check_owned_dir(d, "the environment cache's folder");
    }
  } catch (const FileError& e) {
    throw EnvError(fmt::format("the environment cache {}: {}; give this run a cache of its own with XDG_CACHE_HOME=DIR",
                               root, e.what()));
  }
}
}  // namespace

EnvCache::EnvCache(std::string root, BasePython base, IndexOptions index, std::string uv, std::ostream& out)
    : root_(std::move(root)), base_(std::move(base)), index_(std::move(index)), uv_(std::move(uv)), out_(out) {
  make_owned_cache(root_);
  use_cpu_wheels_without_gpu();
}

// On Linux, pip's default index (PyPI) gives CUDA wheels: torch and the nvidia-* wheels, ~2.8 GB per
// release. Where there is no NVIDIA GPU (no driver: /dev/nvidiactl, /proc/driver/nvidia) and
// nothing chose an index (no index option, no PIP_*/UV_* index variable, no index in pip.conf),
// PyTorch's CPU index is used instead (~200 MB), and said.
void EnvCache::use_cpu_wheels_without_gpu() {
#ifdef __linux__
  if (!index_.args.empty() || lexists("/dev/nvidiactl") || lexists("/proc/driver/nvidia")) return;
  for (const char* v : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "UV_INDEX_URL",
                        "UV_DEFAULT_INDEX", "UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_NO_INDEX", "UV_TORCH_BACKEND"})
    if (const char* val = std::getenv(v); val && *val) return;
  if (pip_config_.empty()) pip_config_ = pip_index_config();
  if (pip_config_ != std::vector<std::string>{"-"}) return;
  index_.args.emplace_back("--index-url", kCpuIndex);
  out_ << fmt::format("no NVIDIA GPU here and no index chosen: CPU wheels from {} (PyPI's Linux wheels are CUDA's, ~2.8 GB "
                      "per release); give --index-url to choose another\n",
                      kCpuIndex);
#endif
}

EnvCache& EnvCache::for_index(const IndexOptions& index) {
  if (index.args == index_.args) return *this;
  for (auto& s : siblings_)
    if (s->index_.args == index.args) return *s;
  siblings_.push_back(std::make_unique<EnvCache>(root_, base_, index, uv_, out_));
  siblings_.back()->set_lock_wait(lock_wait_s_);
  return *siblings_.back();
}

EnvCache::~EnvCache() {
  for (int fd : lock_fds_) ::close(fd);  // the locks go with the fds
}

namespace {
// FNV-1a, 64 bits: a short, stable name for an identity (not a defence: the identity itself is
// compared on every reuse).
std::string short_hash(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:08x}", static_cast<uint32_t>(h ^ (h >> 32)));
}

// The variables through which pip (PIP_*) and uv (UV_*) choose an index besides the command line:
// they change where torch comes from, so they are part of an env's identity.
std::vector<std::string> index_variables(const std::string& installer) {
  static const char* const kPip[] = {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_PRE"};
  static const char* const kUv[] = {"UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_DEFAULT_INDEX", "UV_FIND_LINKS",
                                    "UV_NO_INDEX", "UV_INDEX_STRATEGY", "UV_TORCH_BACKEND", "UV_PRERELEASE"};
  std::vector<std::string> v;
  auto add = [&](const char* n) {
    if (const char* val = std::getenv(n); val && *val) v.push_back(fmt::format("{}={}", n, std::string(utf8_prefix(val, 4096))));
  };
  for (const char* n : kPip) add(n);  // uv is given pip's as its own options (uv_index_args)
  if (installer == "uv")
    for (const char* n : kUv) add(n);
  return v;
}
}  // namespace

std::string EnvCache::installer() const { return uv_.empty() ? "pip" : "uv"; }

nlohmann::json EnvCache::identity() const {
  if (pip_config_.empty()) pip_config_ = pip_index_config();
  return {{"installer", installer()},
          {"index", index_.argv()},
          {"index_variables", index_variables(installer())},
          {"pip_config", pip_config_},
          {"python", base_.tag()},
          {"free_threaded", base_.free_threaded},
          {"machine", base_.machine}};
}

// torch-2.12-py3.11-x86_64-pip-1a2b3c4d: the request, the Python (3.13t when free-threaded), the
// machine, the installer, and a hash of where it installs from (identity()).
std::string EnvCache::key_for(const std::string& version) const {
  return fmt::format("torch-{}-py{}-{}-{}-{}", file_safe(version), base_.tag(), base_.machine, installer(),
                     short_hash(identity().dump()));
}

// The index settings of pip's own configuration files (pip.conf, PIP_CONFIG_FILE), as `pip config
// list` prints them ("global.index-url='https://...'"); {"-"} when it cannot be asked. From
// base_pip()'s one start where it could read them; else `pip config list` itself.
std::vector<std::string> EnvCache::pip_index_config() const {
  const BasePip& bp = base_pip();
  std::string text;
  if (bp.config_known) {
    for (const auto& line : bp.config) text += line + "\n";
  } else {
    const CommandOutput r = run_short_command(isolated_python_argv(base_.path, {"-m", "pip", "config", "list"}), 60,
                                              "/dev/null", isolated_python_env(current_environment()), kPythonCwd);
    if (!r.ok()) return {"-"};
    text = r.out;
  }
  std::vector<std::string> v;
  size_t start = 0;
  while (start < text.size() && v.size() < 64) {
    size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    for (const char* k : {"index-url", "extra-index-url", "find-links", "no-index", ".pre="})
      if (line.find(k) != std::string::npos) {
        v.push_back(std::string(utf8_prefix(line, 4096)));
        break;
      }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  if (v.empty()) v.push_back("-");
  return v;
}

// One start of the base python says what two said (`pip config list`, a third of a second of CPU,
// most of it pip's imports, and a version-and-runner ask): pip's version from its package alone; the file pip's --python runs, as pip 22.3+
// finds it (src/pip/_internal/build_env.py, get_runnable_pip: `source =
// pathlib.Path(pip_location).resolve().parent` ... `return os.fsdecode(source / "__pip-runner__.py")`,
// "" when that is not a folder: a zipped pip); and pip's configuration as `pip config list` reads
// and prints it (src/pip/_internal/commands/configuration.py: `self.configuration =
// Configuration(isolated=options.isolated_mode, load_only=load_only)`, `self.configuration.load()`,
// and list_values: `for key, value in sorted(self.configuration.items()): write_output("%s=%r", key,
// value)`). Where that command would read otherwise (an option of its own set in a file or PIP_*:
// isolated, user, global, site), or pip's internals differ or fail, the configuration is "unknown"
// and pip_index_config() asks `pip config list` itself.
const EnvCache::BasePip& EnvCache::base_pip() const {
  if (base_pip_.asked) return base_pip_;
  base_pip_.asked = true;
  constexpr const char* kAsk =
      "import os, pip\n"
      "print('pip ' + pip.__version__)\n"
      "d = os.path.dirname(os.path.realpath(pip.__file__))\n"
      "print(os.path.join(d, '__pip-runner__.py') if os.path.isdir(d) else '')\n"
      "try:\n"
      "    from pip._internal.configuration import Configuration\n"
      "    c = Configuration(isolated=False)\n"
      "    c.load()\n"
      "    items = sorted(c.items())\n"
      "    if {k.split('.', 1)[-1] for k, _ in items} & {'isolated', 'user', 'global', 'site'}:\n"
      "        raise ValueError('an option of pip config itself is set')\n"
      "    lines = ['%s=%r' % (k, v) for k, v in items]\n"
      "except Exception:\n"
      "    print('-- config unknown')\n"
      "else:\n"
      "    print('-- config')\n"
      "    for line in lines:\n"
      "        print(line)\n";
  const CommandOutput r = run_short_command(isolated_python_argv(base_.path, {"-c", kAsk}), 60, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  if (!r.ok()) return base_pip_;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < r.out.size() && lines.size() < 4096) {
    const size_t nl = r.out.find('\n', start);
    if (nl == std::string::npos) break;  // a cut last line says nothing
    std::string line = r.out.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = nl + 1;
  }
  if (lines.size() < 3 || std::sscanf(lines[0].c_str(), "pip %d.%d", &base_pip_.major, &base_pip_.minor) != 2) {
    base_pip_.major = base_pip_.minor = 0;
    return base_pip_;
  }
  const std::string& runner = lines[1];
  struct stat st {};
  // An absolute path to a plain file (not a link: realpath above resolved the folder), whole and short.
  if (runner.size() > 1 && runner.size() < 4096 && runner[0] == '/' && runner.find('\0') == std::string::npos &&
      ::lstat(runner.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    base_pip_.runner = runner;
  if (lines[2] == "-- config" && start == r.out.size()) {  // every line whole: a cut list is not taken
    base_pip_.config_known = true;
    base_pip_.config.assign(lines.begin() + 3, lines.end());
  }
  return base_pip_;
}

int EnvCache::lock_file(const std::string& key) {
  const std::string path = root_ + "/" + key + ".lock";
  try {
    return open_owned_file(path, O_RDWR | O_CREAT, false);
  } catch (const FileError& e) {
    throw EnvError(fmt::format("the lock of the cached environment {}: {}", key, e.what()));
  }
}

namespace {
std::string holder_of(int fd) {
  char buf[256] = {0};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return s.empty() ? "another wmbench" : s;
}

void say_holder(int fd, const std::string& what) {
  const std::string s = fmt::format("pid {}: wmbench releases, {}\n", ::getpid(), what);
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, s.data(), s.size(), 0);
}

// "" when `dir` is a complete env of `key` made for `identity`; else why not.
std::string why_incomplete(const std::string& dir, const std::string& key, const nlohmann::json& identity) {
  if (!is_real_dir(dir)) return "not a folder";
  nlohmann::json m;
  try {
    m = read_json_file(dir + "/" + kEnvMarker, 64 << 20);
  } catch (const std::exception&) {
    return fmt::format("no readable {}", kEnvMarker);
  }
  if (!m.is_object() || m.value("key", "") != key) return fmt::format("its {} names another key", kEnvMarker);
  if (!m.contains("identity") || m["identity"] != identity)
    return fmt::format("it was made by another installer, index or Python than this run's ({} says {})", kEnvMarker,
                       m.contains("identity") ? m["identity"].dump() : "nothing");
  struct stat st;
  if (!lexists(dir + "/bin/python")) return "it has no bin/python";
  if (::stat((dir + "/bin/python").c_str(), &st) != 0) {
    std::error_code ec;
    const auto target = fs::read_symlink(dir + "/bin/python", ec);
    return fmt::format("its interpreter {} is gone", ec ? dir + "/bin/python" : target.string());
  }
  return "";
}

// Leftovers of builds that died (kill -9, a power cut): removed while the exclusive lock is held,
// since only its holder builds that key.
void remove_leftovers(const std::string& root, const std::string& key) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(".tmp-" + key + "-", 0) == 0 || name.rfind(".old-" + key + "-", 0) == 0) remove_tree(e.path().string());
  }
}
}  // namespace

ReadyEnv EnvCache::get(const std::string& version, bool refresh) {
  ReadyEnv env;
  env.key = key_for(version);
  env.dir = root_ + "/" + env.key;
  env.python = env.dir + "/bin/python";
  env.installer = installer();
  env.identity = identity();
  if (lexists(env.dir) && !is_real_dir(env.dir))
    throw EnvError(fmt::format("{} is not a folder wmbench made (a link or a file): remove it", env.dir));
  const int fd = lock_file(env.key);
  lock_fds_.push_back(fd);
  if (!lock_or_wait(fd, env)) {
    // Someone else uses it (shared): a complete env is used beside them, nothing is remade.
    const std::string why = refresh ? "" : why_incomplete(env.dir, env.key, identity());
    if (refresh || !why.empty())
      throw EnvError(fmt::format("the cached environment {} is in use by another wmbench (lock {}.lock), so it cannot be "
                                 "{} now{}; wait for that run to end, or give this run a cache of its own with "
                                 "XDG_CACHE_HOME=DIR",
                                 env.dir, env.dir, refresh ? "remade (--refresh)" : "made", why.empty() ? "" : " (" + why + ")"));
  } else {
    say_holder(fd, "making or checking " + env.key);
    remove_leftovers(root_, env.key);
    if (lexists(env.dir) && !refresh)
      if (const std::string why = why_incomplete(env.dir, env.key, identity()); !why.empty()) {
        out_ << fmt::format("  {}: not used as it is ({}): made again\n", env.dir, why);
        refresh = true;
      }
    if (refresh || !lexists(env.dir)) {
      env.torch = make(env.key, version, env.dir);
      env.made_now = true;
      try {
        const nlohmann::json m = read_json_file(env.dir + "/" + kEnvMarker, 64 << 20);
        if (m.contains("wheels") && m["wheels"].is_array()) env.wheels = m["wheels"];
      } catch (const std::exception&) {
      }
    }
    say_holder(fd, "using " + env.key);
    ::flock(fd, LOCK_SH);  // converted: others may use it now, nobody may remake it
  }
  if (!env.made_now) {
    // A cached env is run as this user (root, often): only when nobody else could have changed a file of it.
    try {
      check_owned_tree(env.dir, "the cached environment");
    } catch (const FileError& e) {
      throw EnvError(fmt::format("{}; remove it, or remake it with --refresh {}", e.what(), version));
    }
  }
  // A cached env's torch is asked again (a file of it may have changed since); one made now was
  // asked by make()'s check a moment ago.
  if (!env.made_now) env.torch = probe_torch(env.python);
  if (!env.made_now) say_newer(version, env.torch.torch_version, env.dir);
  if (!env.made_now) {
    try {
      const nlohmann::json m = read_json_file(env.dir + "/" + kEnvMarker, 64 << 20);
      env.installer = m.value("installer", env.installer);
      if (m.contains("wheels") && m["wheels"].is_array()) env.wheels = m["wheels"];
    } catch (const std::exception&) {
    }
  }
  return env;
}

namespace {
std::string without_local(const std::string& v) { return v.substr(0, v.find('+')); }

// "Available versions: 2.12.1, 2.12.0" of `pip index versions`: the versions listed.
std::vector<std::string> listed_versions(const std::string& out) {
  std::vector<std::string> v;
  const std::string marker = "Available versions:";
  const size_t at = out.find(marker);
  if (at == std::string::npos) return v;
  const size_t end = out.find('\n', at);
  std::string list = out.substr(at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size());
  size_t start = 0;
  while (start < list.size() && v.size() < 4096) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(" \r") + 1);
    if (version_problem(item).empty()) v.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}
}  // namespace

// The torch versions the index lists for the base Python (pip's `index versions`: one page of the
// index, no download, bounded in time), newest first; empty with `why` set when it could not be asked.
std::vector<std::string> EnvCache::index_versions(const std::string& version, std::string& why) const {
  const bool pre = version.find_first_of("abcdr") != std::string::npos;  // a dev, aN, bN or rcN request
  if (const auto it = listed_.find(pre); it != listed_.end()) {  // asked already in this run, of the same index
    why = it->second.second;
    return it->second.first;
  }
  std::vector<std::string> a = {"-m", "pip", "index", "versions", "torch", "--disable-pip-version-check", "--retries", "0",
                                "--timeout", "10"};
  if (pre) a.push_back("--pre");
  const auto idx = index_.argv();
  a.insert(a.end(), idx.begin(), idx.end());
  const CommandOutput r = run_short_command(isolated_python_argv(base_.path, a), 30, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  std::vector<std::string> listed = listed_versions(r.out);
  if (listed.empty()) why = r.ok() ? "no versions listed" : r.failure();
  listed_[pre] = {listed, why};
  return listed;
}

namespace {
// The newest of `listed` that the request takes ("" when none).
std::string newest_match(const std::string& version, const std::vector<std::string>& listed) {
  std::string newest;
  for (const auto& v : listed)
    if (version_matches(version, v) && (newest.empty() || compare_versions(without_local(v), without_local(newest)) > 0))
      newest = v;
  return newest;
}
}  // namespace

// A cached "2.12" is the newest 2.12.x of the day it was made: whether the index has a newer
// matching release now, asked where it is cheap (index_versions) and said plainly; a failure to
// ask is said too, never taken for "no".
void EnvCache::say_newer(const std::string& version, const std::string& have, const std::string& dir) {
  if (installer() != "pip") {
    out_ << fmt::format("  release {}: whether the index has a newer match than torch {} was not asked (uv has no "
                        "`index versions`); --refresh {} takes the newest\n",
                        version, have, version);
    return;
  }
  std::string why;
  const std::vector<std::string> listed = index_versions(version, why);
  if (listed.empty()) {
    out_ << fmt::format("  release {}: could not ask {} whether it has a newer torch than {} ({})\n", version,
                        index_.describe(), have, why);
    return;
  }
  const std::string newest = newest_match(version, listed);
  if (!newest.empty() && compare_versions(without_local(newest), without_local(have)) > 0)
    out_ << fmt::format("  release {}: NEWER RELEASE: {} now has torch {}; the cached environment {} has {} (made "
                        "earlier); this run uses {}; --refresh {} takes {}\n",
                        version, index_.describe(), newest, dir, have, have, version, newest);
}

std::string EnvCache::version_on_index(const std::string& version) const {
  std::string why;
  const std::vector<std::string> listed = index_versions(version, why);
  if (listed.empty())
    throw EnvError(fmt::format("release {}: could not ask {} which torch it has for {} (pip index versions, run by {}: {}); "
                               "give --with-envs to make the environment instead",
                               version, index_.describe(), base_.words(), base_.path, why));
  const std::string newest = newest_match(version, listed);
  if (newest.empty()) {
    std::string some;
    for (size_t i = 0; i < listed.size() && i < 12; ++i) some += (i ? ", " : "") + listed[i];
    throw EnvError(fmt::format("release {}: {} has no torch {} for {} (it lists {}{})", version, index_.describe(), version,
                               base_.words(), some, listed.size() > 12 ? ", ..." : ""));
  }
  return newest;
}

// True with the lock exclusive (nobody else holds it), false with it shared (others use the env).
// While another run makes the env (exclusive), this one waits, bounded by lock_wait_s_ and
// interruptible, then looks again: the maker may have made it, or failed and left it to be made.
bool EnvCache::lock_or_wait(int fd, const ReadyEnv& env) {
  const auto start = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (::flock(fd, LOCK_SH | LOCK_NB) == 0) return false;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited >= lock_wait_s_)
      throw EnvError(fmt::format("the cached environment {} is being made by {} (lock {}.lock); waited {}, the most "
                                 "--lock-wait allows; wait for that run to end, or give this run a cache of its own with "
                                 "XDG_CACHE_HOME=DIR",
                                 env.dir, holder_of(fd), env.dir, format_duration(waited)));
    if (!said) {
      out_ << fmt::format("  {} is being made by {}: waiting for it (at most {}, --lock-wait)\n", env.dir, holder_of(fd),
                          format_duration(lock_wait_s_));
      out_.flush();
      said = true;
    }
    if (const int sig = interrupt_signal())
      throw EnvError(fmt::format("interrupted by {} while waiting for {}", signal_name(sig), env.dir), 128 + sig);
    struct pollfd p = {interrupt_fd(), POLLIN, 0};
    ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, 200);
  }
}

void EnvCache::run_step(const std::vector<std::string>& argv, const std::string& log, const std::string& tmp,
                        const std::string& what, const std::string& step) {
  SpawnOptions so;
  so.argv = argv;
  so.env = isolated_python_env(current_environment());
  so.cwd = kPythonCwd;
  // The log in the cache: never through a planted link or hard link, emptied only once checked.
  int log_fd = -1;
  try {
    log_fd = open_owned_file(log, O_WRONLY | O_CREAT, true);
  } catch (const FileError& e) {
    remove_tree(tmp);
    throw EnvError(fmt::format("{}: the install log: {}", step, e.what()));
  }
  so.stderr_fd = log_fd;  // stdout stays the terminal's: pip's progress while a wheel downloads
  Child c;
  try {
    c = spawn_child(so);
  } catch (const SpawnError& e) {
    ::close(log_fd);
    remove_tree(tmp);
    throw EnvError(fmt::format("{}: cannot start {}: {}", step, argv[0], e.what()));
  }
  ::close(log_fd);
  std::optional<ExitStatus> st;
  while (!(st = try_reap(c.pid))) {
    if (const int sig = interrupt_signal()) {
      stop_process_group(c.pid, 2.0);
      remove_tree(tmp);
      ::unlink(log.c_str());
      throw EnvError(fmt::format("{}: interrupted by {}; the half-made environment was removed, nothing was cached",
                                 step, signal_name(sig)),
                     128 + sig);
    }
    struct pollfd p = {interrupt_fd(), POLLIN, 0};
    ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, 100);
  }
  if (st->code && *st->code == 0) return;
  std::string text;
  try {
    text = read_file(log, 1 << 20, false);
  } catch (const std::exception&) {
  }
  // A full disk does not always say so (venv's ensurepip only says it failed): what is left is asked
  // before the half-made env is removed.
  struct statvfs vfs;
  const bool full = ::statvfs(root_.c_str(), &vfs) == 0 &&
                    static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize < kNearlyFullBytes;
  remove_tree(tmp);
  const std::string why = explain_install_failure(text.size() > 65536 ? text.substr(text.size() - 65536) : text, what,
                                                  index_.describe(), step, full, base_.words());
  throw EnvError(fmt::format("{} ({}; its whole output: {}); the half-made environment was removed, nothing was cached",
                             why, st->code ? fmt::format("exit {}", *st->code) : "killed by " + signal_name(st->signal.value_or(0)),
                             log));
}

std::string EnvCache::base_pip_runner() const {
  const BasePip& bp = base_pip();  // asked once per cache
  if (!(bp.major > 22 || (bp.major == 22 && bp.minor >= 3))) return "";  // no pip, or one older than --python
  return bp.runner.empty() ? "--python" : bp.runner;
}

namespace {
// The import check: the torch the new env imports is the one asked for (else the env is removed).
TorchFacts checked_torch(const std::string& py, const std::string& version, const std::string& what, const std::string& tmp) {
  TorchFacts t;
  try {
    t = probe_torch(py);
  } catch (const EnvError& e) {
    remove_tree(tmp);
    throw EnvError(fmt::format("the new environment for {} does not import torch: {}; it was removed, nothing was cached",
                               what, e.what()),
                   e.exit_code);
  }
  if (!version_matches(version, t.torch_version)) {
    remove_tree(tmp);
    throw EnvError(fmt::format("the new environment for {} imports torch {} ({}); it was removed, nothing was cached",
                               what, t.torch_version, t.torch_file));
  }
  return t;
}

// The env's marker (wmbench-env.json): what was asked, how it was made, and the torch it imports.
nlohmann::json env_marker(const std::string& key, const std::string& version, const std::string& req, const std::string& installer,
                          const BasePython& base, const IndexOptions& index, const TorchFacts& t, const nlohmann::json& identity) {
  return {{"key", key},
          {"identity", identity},
          {"variant", t.variant()},
          {"torch_cuda", t.cuda},
          {"request", version},
          {"requirement", req},
          {"installer", installer},
          {"base_python", base.path},
          {"python_version", t.python_version},
          {"machine", base.machine},
          {"index", index.argv()},
          {"torch_version", t.torch_version},
          {"torch_git_version", t.git_version},
          {"torch_file", t.torch_file},
          {"made_utc", utc_now_iso()}};
}

// Writes the marker inside the new env (last, before the rename); a failure removes the env.
void write_marker(const std::string& tmp, const nlohmann::json& marker, const std::string& what) {
  try {
    write_json_atomic(tmp + "/" + kEnvMarker, marker);
  } catch (const FileError& e) {
    remove_tree(tmp);
    throw EnvError(fmt::format("the new environment for {}: {}; it was removed, nothing was cached", what, e.what()));
  }
}

// Renames the new env to final_dir, the old one (if any) moved aside first and then removed.
void move_into_place(const std::string& root, const std::string& key, const std::string& tmp, const std::string& final_dir) {
  const std::string old = fmt::format("{}/.old-{}-{}", root, key, ::getpid());
  if (lexists(final_dir) && ::rename(final_dir.c_str(), old.c_str()) != 0) {
    remove_tree(tmp);
    throw EnvError(fmt::format("cannot move the old {} aside: {}", final_dir, std::strerror(errno)));
  }
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0) {
    const int e = errno;
    remove_tree(tmp);
    throw EnvError(fmt::format("cannot move the new environment into {}: {}", final_dir, std::strerror(e)));
  }
  remove_tree(old);
}
}  // namespace

// uv is not pip: it reads neither pip.conf nor PIP_*, takes the first index that has a package
// (--index-strategy first-index), and has no --report. What pip would have used is passed as its
// equivalent and said: the index options as given; with none, pip's configured index (PIP_INDEX_URL,
// PIP_EXTRA_INDEX_URL, pip.conf's index-url/extra-index-url) as --index-url/--extra-index-url; with
// an extra index, --index-strategy unsafe-best-match (pip's rule: the best version of any index).
std::vector<std::string> EnvCache::uv_index_args() const {
  std::vector<std::string> v = index_.argv();
  if (index_.args.empty()) {
    auto from = [&](const std::string& flag, const std::string& value) {
      if (!value.empty() && value[0] != '-') v.insert(v.end(), {flag, value});
    };
    const char* env_index = std::getenv("PIP_INDEX_URL");
    const char* env_extra = std::getenv("PIP_EXTRA_INDEX_URL");
    from("--index-url", env_index ? env_index : "");
    from("--extra-index-url", env_extra ? env_extra : "");
    for (const auto& line : pip_config_.empty() ? pip_index_config() : pip_config_) {
      // global.index-url='https://...'
      const size_t eq = line.find("='");
      if (eq == std::string::npos || line.size() < eq + 3) continue;
      const std::string key = line.substr(0, eq), value = line.substr(eq + 2, line.size() - eq - 3);
      const std::string name = key.substr(key.find('.') == std::string::npos ? 0 : key.find('.') + 1);
      if (name == "index-url" && !env_index) from("--index-url", value);
      if (name == "extra-index-url" && !env_extra) from("--extra-index-url", value);
    }
    if (!v.empty())
      out_ << fmt::format("  uv reads neither pip.conf nor PIP_*: passing pip's configured index to it: {}\n",
                          fmt::format("{}", fmt::join(v, " ")));
  }
  if (std::find(v.begin(), v.end(), "--extra-index-url") != v.end() && !std::getenv("UV_INDEX_STRATEGY")) {
    v.insert(v.end(), {"--index-strategy", "unsafe-best-match"});
    out_ << "  uv: --index-strategy unsafe-best-match, pip's rule for several indexes (the best version of any)\n";
  }
  return v;
}

namespace {
// The wheels of pip's dry-run report and their sizes: a local file's size, else the index's
// Content-Length (one HEAD request each, bounded); prints "COUNT BYTES UNKNOWN" and one line per wheel.
constexpr const char* kSizes =
    "import json, os, sys, urllib.parse, urllib.request\n"
    "r = json.load(open(sys.argv[1]))\n"
    "total, unknown, lines = 0, 0, []\n"
    "for item in r.get('install', []):\n"
    "    url = (item.get('download_info') or {}).get('url', '')\n"
    "    n = None\n"
    "    try:\n"
    "        u = urllib.parse.urlparse(url)\n"
    "        if u.scheme == 'file':\n"
    "            n = os.path.getsize(urllib.parse.unquote(u.path))\n"
    "        elif u.scheme in ('http', 'https'):\n"
    "            with urllib.request.urlopen(urllib.request.Request(url, method='HEAD'), timeout=10) as h:\n"
    "                n = int(h.headers.get('Content-Length'))\n"
    "    except Exception:\n"
    "        n = None\n"
    "    if n is None: unknown += 1\n"
    "    else: total += n\n"
    "    lines.append('%s %s' % (n if n is not None else '?', url.rsplit('/', 1)[-1][:200]))\n"
    "print(len(lines), total, unknown)\n"
    "print('\\n'.join(lines))\n";
}  // namespace

// Before a download: what pip would fetch and how large (pip's `install --dry-run --report`, then
// each wheel's size), said, so that a 2.8 GB CUDA wheel set is never a surprise. A failure to ask
// is said and the install goes on (the install itself then says what is wrong).
void EnvCache::say_download_size(const std::vector<std::string>& pip_argv, const std::string& tmp, const std::string& what) {
  // Local wheels only (a wheelhouse for a machine off the network): pip downloads nothing, and its
  // resolve to say so would cost two Python starts and a resolve (1.3 s of CPU) per environment.
  if (index_.local_only()) {
    out_ << fmt::format("  to download for {}: nothing (--no-index: only the local --find-links folders)\n", what);
    out_.flush();
    return;
  }
  const std::string report = tmp + "/wmbench-dry-run.json";
  std::vector<std::string> a = pip_argv;
  a.insert(a.end(), {"--dry-run", "--quiet", "--report", report});
  const CommandOutput r = run_short_command(a, 300, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  if (!r.ok() || !lexists(report)) {
    out_ << fmt::format("  the download size of {} could not be asked first (pip --dry-run: {})\n", what, r.failure());
    return;
  }
  const CommandOutput z = run_short_command(isolated_python_argv(base_.path, {"-c", kSizes, report}), 120, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  ::unlink(report.c_str());
  unsigned long long count = 0, total = 0, unknown = 0;
  if (!z.ok() || std::sscanf(z.out.c_str(), "%llu %llu %llu", &count, &total, &unknown) != 3) {
    out_ << fmt::format("  the download size of {} could not be read ({})\n", what, z.failure());
    return;
  }
  out_ << fmt::format("  to download for {}: {} wheel(s), {}{}\n", what, count, format_size(total),
                      unknown ? fmt::format(" and {} of unknown size", unknown) : "");
  out_.flush();
}

TorchFacts EnvCache::make(const std::string& key, const std::string& version, const std::string& final_dir) {
  const std::string tmp = fmt::format("{}/.tmp-{}-{}", root_, key, ::getpid());
  const std::string log = fmt::format("{}/{}.install.log", root_, key);
  const std::string req = pip_requirement(version);
  const std::string what = "torch " + version + " (" + req + ")";
  out_ << fmt::format("  making the environment {} for {} with {} from {} ...\n", final_dir, req,
                      uv_.empty() ? base_.path + " -m venv + pip" : "uv " + uv_, index_.describe());
  out_.flush();
  remove_tree(tmp);
  const std::string py = tmp + "/bin/python";
  if (uv_.empty()) {
    std::vector<std::string> pip = {"install", "--disable-pip-version-check", "--no-input", req};
    const auto idx = index_.argv();
    pip.insert(pip.end(), idx.begin(), idx.end());
    const std::string runner = base_pip_runner();
    if (!runner.empty()) {
      // The base interpreter's own pip installs into the env (pip 22.3+: --python): the env needs
      // no pip of its own, which saves ensurepip's copy of pip (seconds, ~20 MB) per env.
      run_step(isolated_python_argv(base_.path, {"-m", "venv", "--without-pip", tmp}), log, tmp, what,
               fmt::format("{} -m venv", base_.path));
      // What `pip --python PY` runs (src/pip/_internal/cli/main_parser.py: `pip_cmd = [interpreter,
      // get_runnable_pip()]`, `pip_cmd.extend(args)`, `subprocess.run(pip_cmd)`), run here directly:
      // the same pip in the env's python, without first starting the base python to start it (half
      // a second of CPU per pip call). Only a pip without that file is asked through --python.
      std::vector<std::string> argv =
          runner == "--python" ? isolated_python_argv(base_.path, {"-m", "pip", "--python", py}) : isolated_python_argv(py, {runner});
      argv.insert(argv.end(), pip.begin(), pip.end());
      say_download_size(argv, tmp, what);
      // What was installed, each wheel's file and sha256 (pip 22.2+'s report), kept in the marker.
      argv.insert(argv.end(), {"--report", tmp + "/" + kReport});
      run_step(argv, log, tmp, what, "pip install " + req);
    } else {
      run_step(isolated_python_argv(base_.path, {"-m", "venv", tmp}), log, tmp, what, fmt::format("{} -m venv", base_.path));
      pip.insert(pip.begin(), {"-m", "pip"});
      run_step(isolated_python_argv(py, pip), log, tmp, what, "pip install " + req);
    }
  } else {
    run_step({uv_, "venv", "--python", base_.path, tmp}, log, tmp, what, "uv venv");
    std::vector<std::string> pip = {uv_, "pip", "install", "--python", py, req};
    const auto idx = uv_index_args();
    pip.insert(pip.end(), idx.begin(), idx.end());
    run_step(pip, log, tmp, what, "uv pip install " + req);
  }
  // Nothing of it writable by others, before anything of it runs: uv makes the env's own `.lock`
  // writable by every user (seen with uv 0.11.15), as a umask of 0 would make every file; a cached
  // env holding such a file is refused on reuse (check_owned_tree), so it would never be used again.
  owner_writes_only(tmp);
  // The import check: the torch it imports is the one asked for.
  const TorchFacts t = checked_torch(py, version, what, tmp);
  nlohmann::json marker = env_marker(key, version, req, installer(), base_, index_, t, identity());
  marker["wheels"] = nullptr;  // unknown: uv gives no report, nor pip before 22.3 here
  if (lexists(tmp + "/" + kReport)) {
    try {
      marker["wheels"] = wheels_from_report(read_json_file(tmp + "/" + kReport, 64 << 20));
    } catch (const std::exception& e) {
      out_ << fmt::format("  warning: pip's install report of {} could not be read ({}): its wheels are not recorded\n", what,
                          e.what());
    }
  }
  write_marker(tmp, marker, what);
  if (const int sig = interrupt_signal()) {
    remove_tree(tmp);
    throw EnvError(fmt::format("interrupted by {} before {} was cached; it was removed", signal_name(sig), what), 128 + sig);
  }
  move_into_place(root_, key, tmp, final_dir);
  ::unlink(log.c_str());
  out_ << fmt::format("  made {}: torch {} (Python {})\n", final_dir, t.torch_version, t.python_version);
  // The env moved whole (a venv finds its prefix from bin/python's place): the paths the check saw
  // under tmp are the same files under final_dir.
  TorchFacts moved = t;
  for (std::string* p : {&moved.python, &moved.torch_file, &moved.dist_location})
    if (p->compare(0, tmp.size(), tmp) == 0 && (p->size() == tmp.size() || (*p)[tmp.size()] == '/'))
      *p = final_dir + p->substr(tmp.size());
  return moved;
}

}  // namespace wmb::releases
