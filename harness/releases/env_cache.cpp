#include "releases/env_cache.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/files.h"
#include "common/interrupt.h"
#include "releases/torch_version.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "spawn/process.h"

namespace wmb::releases {
namespace fs = std::filesystem;
namespace {

constexpr uint64_t kNearlyFullBytes = uint64_t{8} << 20;  // less than this free after a failed step: the disk filled
constexpr const char* kMarker = "wmbench-env.json";  // written last, inside the env, before the rename

bool is_real_dir(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool lexists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

void remove_tree(const std::string& p) {
  std::error_code ec;
  fs::remove_all(p, ec);  // a link inside is removed, never followed
}

}  // namespace
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

EnvCache::EnvCache(std::string root, BasePython base, IndexOptions index, std::string uv, std::ostream& out)
    : root_(std::move(root)), base_(std::move(base)), index_(std::move(index)), uv_(std::move(uv)), out_(out) {
  try {
    make_dirs(root_);
  } catch (const FileError& e) {
    throw EnvError(fmt::format("the environment cache {}: {}", root_, e.what()));
  }
  if (!is_real_dir(root_))
    throw EnvError(fmt::format("the environment cache {} is not a folder (a link or a file is not followed)", root_));
}

EnvCache::~EnvCache() {
  for (int fd : lock_fds_) ::close(fd);  // the locks go with the fds
}

std::string EnvCache::key_for(const std::string& version) const {
  return fmt::format("torch-{}-py{}-{}", file_safe(version), base_.version_xy, base_.machine);
}

int EnvCache::lock_file(const std::string& key) {
  const std::string path = root_ + "/" + key + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw EnvError(fmt::format("cannot open the lock {}: {}", path, std::strerror(errno)));
  return fd;
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

bool env_complete(const std::string& dir, const std::string& key) {
  if (!is_real_dir(dir)) return false;
  try {
    const nlohmann::json m = read_json_file(dir + "/" + kMarker, 1 << 20);
    return m.is_object() && m.value("key", "") == key && lexists(dir + "/bin/python");
  } catch (const std::exception&) {
    return false;
  }
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
  env.installer = uv_.empty() ? "pip" : "uv";
  if (lexists(env.dir) && !is_real_dir(env.dir))
    throw EnvError(fmt::format("{} is not a folder wmbench made (a link or a file): remove it", env.dir));
  const int fd = lock_file(env.key);
  lock_fds_.push_back(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    // Someone holds it: a user (shared) of a complete env, or its maker (exclusive).
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0)
      throw EnvError(fmt::format("the cached environment {} is being made by {} (lock {}.lock); wait for that run to "
                                 "end, or give this run a cache of its own with XDG_CACHE_HOME=DIR",
                                 env.dir, holder_of(fd), env.dir));
    if (refresh || !env_complete(env.dir, env.key))
      throw EnvError(fmt::format("the cached environment {} is in use by another wmbench (lock {}.lock), so it cannot be "
                                 "{} now; wait for that run to end, or give this run a cache of its own with "
                                 "XDG_CACHE_HOME=DIR",
                                 env.dir, env.dir, refresh ? "remade (--refresh)" : "made"));
  } else {
    say_holder(fd, "making or checking " + env.key);
    remove_leftovers(root_, env.key);
    if (lexists(env.dir) && !env_complete(env.dir, env.key)) {
      out_ << fmt::format("  {}: not a complete environment (no {}): made again\n", env.dir, kMarker);
      refresh = true;
    }
    if (refresh || !lexists(env.dir)) {
      make(env.key, version, env.dir);
      env.made_now = true;
    }
    say_holder(fd, "using " + env.key);
    ::flock(fd, LOCK_SH);  // converted: others may use it now, nobody may remake it
  }
  env.torch = probe_torch(env.python);
  if (!env.made_now) {
    try {
      const nlohmann::json m = read_json_file(env.dir + "/" + kMarker, 1 << 20);
      env.installer = m.value("installer", env.installer);
    } catch (const std::exception&) {
    }
  }
  return env;
}

void EnvCache::run_step(const std::vector<std::string>& argv, const std::string& log, const std::string& tmp,
                        const std::string& what, const std::string& step) {
  SpawnOptions so;
  so.argv = argv;
  so.env = isolated_python_env(current_environment());
  so.stderr_path = log;  // stdout stays the terminal's: pip's progress while a wheel downloads
  so.cwd = kPythonCwd;
  Child c;
  try {
    c = spawn_child(so);
  } catch (const SpawnError& e) {
    remove_tree(tmp);
    throw EnvError(fmt::format("{}: cannot start {}: {}", step, argv[0], e.what()));
  }
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
    text = read_file(log, 1 << 20);
  } catch (const std::exception&) {
  }
  // A full disk does not always say so (venv's ensurepip only says it failed): what is left is asked
  // before the half-made env is removed.
  struct statvfs vfs;
  const bool full = ::statvfs(root_.c_str(), &vfs) == 0 &&
                    static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize < kNearlyFullBytes;
  remove_tree(tmp);
  const std::string why = explain_install_failure(text.size() > 65536 ? text.substr(text.size() - 65536) : text, what,
                                                  index_.describe(), step, full);
  throw EnvError(fmt::format("{} ({}; its whole output: {}); the half-made environment was removed, nothing was cached",
                             why, st->code ? fmt::format("exit {}", *st->code) : "killed by " + signal_name(st->signal.value_or(0)),
                             log));
}

bool EnvCache::base_pip_takes_python() {
  if (base_pip_checked_) return base_pip_python_;
  base_pip_checked_ = true;
  const CommandOutput r = run_short_command(isolated_python_argv(base_.path, {"-m", "pip", "--version"}), 60, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  // "pip 23.0.1 from /usr/lib/python3/dist-packages/pip (python 3.11)"
  int major = 0, minor = 0;
  if (r.ok() && std::sscanf(r.out.c_str(), "pip %d.%d", &major, &minor) == 2)
    base_pip_python_ = major > 22 || (major == 22 && minor >= 3);
  return base_pip_python_;
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
nlohmann::json env_marker(const std::string& key, const std::string& version, const std::string& req, const char* installer,
                          const BasePython& base, const IndexOptions& index, const TorchFacts& t) {
  return {{"key", key},
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
    write_json_atomic(tmp + "/" + kMarker, marker);
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

void EnvCache::make(const std::string& key, const std::string& version, const std::string& final_dir) {
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
    if (base_pip_takes_python()) {
      // The base interpreter's own pip installs into the env (pip 22.3+: --python): the env needs
      // no pip of its own, which saves ensurepip's copy of pip (seconds, ~20 MB) per env.
      run_step(isolated_python_argv(base_.path, {"-m", "venv", "--without-pip", tmp}), log, tmp, what,
               fmt::format("{} -m venv", base_.path));
      pip.insert(pip.begin(), {"-m", "pip", "--python", py});
      run_step(isolated_python_argv(base_.path, pip), log, tmp, what, "pip install " + req);
    } else {
      run_step(isolated_python_argv(base_.path, {"-m", "venv", tmp}), log, tmp, what, fmt::format("{} -m venv", base_.path));
      pip.insert(pip.begin(), {"-m", "pip"});
      run_step(isolated_python_argv(py, pip), log, tmp, what, "pip install " + req);
    }
  } else {
    run_step({uv_, "venv", "--python", base_.path, tmp}, log, tmp, what, "uv venv");
    std::vector<std::string> pip = {uv_, "pip", "install", "--python", py, req};
    const auto idx = index_.argv();
    pip.insert(pip.end(), idx.begin(), idx.end());
    run_step(pip, log, tmp, what, "uv pip install " + req);
  }
  // The import check: the torch it imports is the one asked for.
  const TorchFacts t = checked_torch(py, version, what, tmp);
  write_marker(tmp, env_marker(key, version, req, uv_.empty() ? "pip" : "uv", base_, index_, t), what);
  if (const int sig = interrupt_signal()) {
    remove_tree(tmp);
    throw EnvError(fmt::format("interrupted by {} before {} was cached; it was removed", signal_name(sig), what), 128 + sig);
  }
  move_into_place(root_, key, tmp, final_dir);
  ::unlink(log.c_str());
  out_ << fmt::format("  made {}: torch {} (Python {})\n", final_dir, t.torch_version, t.python_version);
}

}  // namespace wmb::releases
