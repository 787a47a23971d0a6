// The words for a failed install, from the tail of pip's (or uv's) stderr (env_cache.h).
#include <algorithm>

#include <fmt/format.h>

#include "releases/env_cache.h"

namespace wmb::releases {
namespace {

std::string tail_lines(const std::string& s, int n) {
  size_t pos = s.find_last_not_of("\r\n");
  if (pos == std::string::npos) return "";
  const size_t end = pos + 1;
  while (n > 0 && pos > 0) {
    const size_t nl = s.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    pos = nl;
    if (--n == 0) ++pos;
  }
  if (pos < end && s[pos] == '\n') ++pos;
  return s.substr(pos, end - pos);
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The log with every run of whitespace as one space: uv wraps its messages to the terminal's width
// ("No space\n  left on device (os error 28)"), so a phrase may span lines.
std::string one_line(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (space && (o.empty() || o.back() == ' ')) continue;
    o += space ? ' ' : c;
  }
  return o;
}

}  // namespace

std::string explain_install_failure(const std::string& raw_log, const std::string& what, const std::string& where,
                                    const std::string& step, bool disk_nearly_full, const std::string& python) {
  const std::string tail = tail_lines(raw_log, 6);
  const std::string said = tail.empty() ? "" : "; it said:\n" + tail;
  const std::string log = one_line(raw_log);
  const std::string for_python = python.empty() ? "this Python and machine" : python;
  if (disk_nearly_full || has(log, "No space left on device") || has(log, "Errno 28") || has(log, "ENOSPC") ||
      has(log, "os error 28"))
    return fmt::format("{}: the disk filled while {} was installed (No space left on device); free space there or point "
                       "XDG_CACHE_HOME at a disk with room (a torch wheel unpacks to several GB); nothing was cached{}",
                       step, what, said);
  if (has(log, "ensurepip is not available") || has(log, "No module named venv") || has(log, "No module named ensurepip"))
    return fmt::format("{}: this Python cannot make a virtual environment (no venv/ensurepip): install its venv module "
                       "(Debian/Ubuntu: apt-get install python3-venv), install uv, or give --base-python another "
                       "interpreter{}",
                       step, said);
  const bool unreachable = has(log, "NewConnectionError") || has(log, "Failed to establish a new connection") ||
                           has(log, "Connection refused") || has(log, "Name or service not known") ||
                           has(log, "Temporary failure in name resolution") || has(log, "ConnectTimeout") ||
                           has(log, "Could not fetch URL") || has(log, "ProxyError") || has(log, "SSLError") ||
                           has(log, "Network is unreachable") || has(log, "error sending request") || has(log, "Failed to fetch");
  if (unreachable)
    return fmt::format("{}: pip could not reach its index ({}) for {}: check the network, or give --find-links DIR for a "
                       "local wheelhouse (or --index-url for a mirror){}",
                       step, where, what, said);
  const std::string marker = "(from versions: ";
  if (const size_t at = log.find(marker); at != std::string::npos) {
    const size_t end = log.find(')', at);
    const std::string versions = log.substr(at + marker.size(), end == std::string::npos ? 200 : std::min<size_t>(end - at - marker.size(), 400));
    if (versions == "none")
      return fmt::format("{}: {} offers no torch wheel for this Python and machine{}: give --base-python an "
                         "interpreter that release has wheels for (an older or newer Python 3), or --find-links or "
                         "--index-url of an index that has {} for it{}",
                         step, where, python.empty() ? "" : " (" + python + ")", what, said);
    return fmt::format("{}: {} is not in {}; the versions there for {}: {}", step, what, where, for_python, versions);
  }
  // uv: "we only found wheels for torch (v2.12.0) with the following Python ABI tags: cp310, ..."
  if (has(log, "Python ABI tag") || has(log, "only found wheels for") || has(log, "has no wheels with a matching Python"))
    return fmt::format("{}: {} has {} only for other Pythons than {}: give --base-python an interpreter it has wheels "
                       "for{}",
                       step, where, what, for_python, said);
  // uv: "Because only torch==2.11.0 is available and you require torch==2.12.*, ..."
  if (const size_t at = log.find("only torch=="); at != std::string::npos) {
    const size_t end = log.find(" is available", at);
    if (end != std::string::npos && end - at < 200)
      return fmt::format("{}: {} is not in {}; the versions there for {}: {}", step, what, where, for_python,
                         log.substr(at + 12, end - at - 12));
  }
  if (has(log, "No matching distribution found") || has(log, "No solution found") || has(log, "not found in the package registry") ||
      has(log, "no version of torch"))
    return fmt::format("{}: {} is not in {} (an unknown version, or none for {}){}", step, what, where, for_python, said);
  return fmt::format("{} failed{}", step, said);
}

}  // namespace wmb::releases
