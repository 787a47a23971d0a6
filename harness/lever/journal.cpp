#include "lever/journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/files.h"
#include "io/utf8.h"
#include "scenario/wired_limit.h"

namespace wmb::lever {
namespace {

constexpr const char* kPendingFile = "wired-limit.json";
constexpr const char* kLockFile = "wired-limit.lock";
constexpr size_t kMaxPendingBytes = 64 * 1024;

// The state folder, made when `make` (0700), checked: a real folder of this user's (or root's),
// writable by no one else. Throws LeverError.
std::string checked_state_dir(bool make) {
  const std::string dir = state_dir();
  if (make) {
    try {
      make_dirs(dir);
    } catch (const FileError& e) {
      throw LeverError(fmt::format("the lever's state folder {}: {}", dir, e.what()));
    }
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) throw LeverError(fmt::format("the lever's state folder {} is missing", dir));
  if (!S_ISDIR(st.st_mode))
    throw LeverError(fmt::format("the lever's state folder {} is {}, not a folder", dir, file_kind(st.st_mode)));
  if ((st.st_uid != ::geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH)))
    throw LeverError(fmt::format("the lever's state folder {} is writable by others or not this user's; it must be "
                                 "root's and 0700",
                                 dir));
  if (make) ::chmod(dir.c_str(), 0700);
  return dir;
}

nlohmann::json to_json(const Pending& p) {
  return {{"sysctl", p.name}, {"found_mib", p.found}, {"set_mib", p.set}, {"folder", p.folder}, {"run", p.run},
          {"boot", p.boot},   {"pid", p.pid},         {"since_utc", p.since_utc}};
}

// The pending file as written by write_pending, or nullopt with `why`.
std::optional<Pending> parse_pending(const nlohmann::json& j, std::string& why) {
  const auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() && j[k].get_ref<const std::string&>().size() < 4096; };
  const auto num = [&](const char* k) { return j.contains(k) && j[k].is_number_unsigned(); };
  if (!j.is_object() || !str("sysctl") || !num("found_mib") || !num("set_mib") || !str("folder") || !str("boot") ||
      !num("pid")) {
    why = "not the file wmbench writes (keys sysctl, found_mib, set_mib, folder, boot, pid)";
    return std::nullopt;
  }
  Pending p;
  p.name = j["sysctl"].get<std::string>();
  p.found = j["found_mib"].get<uint64_t>();
  p.set = j["set_mib"].get<uint64_t>();
  p.folder = j["folder"].get<std::string>();
  p.run = str("run") ? j["run"].get<std::string>() : "";
  p.boot = j["boot"].get<std::string>();
  p.pid = static_cast<long long>(std::min<uint64_t>(j["pid"].get<uint64_t>(), 1ull << 40));
  p.since_utc = str("since_utc") ? j["since_utc"].get<std::string>() : "";
  if (p.name != kWiredLimitKey || p.found > kMaxWiredLimitMiB || p.set > kMaxWiredLimitMiB) {
    why = fmt::format("names sysctl \"{}\" = {}; wmbench puts back only {} (0 to {} MiB)", utf8_sanitize(p.name, 64),
                      p.found, kWiredLimitKey, kMaxWiredLimitMiB);
    return std::nullopt;
  }
  return p;
}

// Whether another process holds the lock now (a wmbench that is still running).
bool lock_busy(const std::string& dir) {
  const int fd = ::open((dir + "/" + kLockFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
  ::close(fd);
  return busy;
}

void put_back(Sysctl& sysctl, const Pending& p, std::ostream& err) {
  const std::string who = fmt::format("a wmbench (pid {}, run {} of {}, since {})", p.pid, utf8_sanitize(p.run, 200),
                                      utf8_sanitize(p.folder, 400), utf8_sanitize(p.since_utc, 40));
  if (!p.boot.empty() && p.boot != boot_id()) {
    err << fmt::format("wmbench: {} was set to {} by {}, which did not put it back; the machine restarted since, "
                       "which reset it: nothing to put back\n",
                       p.name, p.set, who);
    return;
  }
  sysctl.write(p.name, p.found);
  const uint64_t now = sysctl.read(p.name);
  if (now != p.found)
    throw LeverError(fmt::format("{} read back {} after setting {}", p.name, now, p.found));
  err << fmt::format("wmbench: put {} back to {} (the value found before {} set it to {} and ended without "
                     "putting it back; {}): read back {}\n",
                     p.name, p.found, who, p.set, sysctl.where(), now);
}

}  // namespace

std::string state_dir() {
  const char* env = std::getenv(kStateEnv);
  if (env && *env) return env;
#ifdef __APPLE__
  return "/var/db/wmbench";
#else
  return "/var/lib/wmbench";
#endif
}

StateLock::StateLock() {
  const std::string dir = checked_state_dir(true);
  try {
    Folder f(dir);
    fd_ = f.open_for_write(kLockFile, 0);
  } catch (const FileError& e) {
    throw LeverError(fmt::format("the lever's lock {}/{}: {}", dir, kLockFile, e.what()));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw LeverError(fmt::format("another wmbench holds {} now (the lock {}/{}); wait for it to end", kWiredLimitKey,
                                 dir, kLockFile));
  }
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);
}

void write_pending(const Pending& p) {
  const std::string dir = checked_state_dir(true);
  try {
    Folder(dir).write_json(kPendingFile, to_json(p));
  } catch (const FileError& e) {
    throw LeverError(fmt::format("cannot keep the value to put back in {}/{}: {}", dir, kPendingFile, e.what()));
  }
}

std::string clear_pending() {
  const std::string path = state_dir() + "/" + kPendingFile;
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return fmt::format("cannot remove {}: {}", path, std::strerror(errno));
  return "";
}

void restore_left_over(Sysctl& sysctl, std::ostream& err) {
  std::string dir;
  struct stat st {};
  if (::lstat((state_dir() + "/" + kPendingFile).c_str(), &st) != 0) return;  // nothing pending
  try {
    dir = checked_state_dir(false);
    if (lock_busy(dir)) return;  // a wmbench that is running holds it, and puts it back itself
    const std::string text = Folder(dir).read(kPendingFile, kMaxPendingBytes);
    std::string why;
    const auto p = parse_pending(nlohmann::json::parse(text), why);
    if (!p) {
      err << fmt::format("wmbench: {}/{}: {}; left as it is (remove it once {} is as you want it)\n", dir, kPendingFile,
                         why, kWiredLimitKey);
      return;
    }
    put_back(sysctl, *p, err);
    if (std::string e = clear_pending(); !e.empty()) err << "wmbench: " << e << "\n";
  } catch (const std::exception& e) {
    err << fmt::format("wmbench: could not put back a value of {} that a wmbench left set ({}/{}): {}; put it back "
                       "with `{}` (the file says the value found)\n",
                       kWiredLimitKey, dir.empty() ? state_dir() : dir, kPendingFile, e.what(),
                       wired_limit_set_line(0));
  }
}

void restore_left_over(std::ostream& err) {
  struct stat st {};
  if (::lstat((state_dir() + "/" + kPendingFile).c_str(), &st) != 0) return;
  try {
    auto sysctl = chosen_sysctl();
    restore_left_over(*sysctl, err);
  } catch (const std::exception& e) {
    err << fmt::format("wmbench: a value of {} is pending in {}/{}, but: {}\n", kWiredLimitKey, state_dir(),
                       kPendingFile, e.what());
  }
}

}  // namespace wmb::lever
