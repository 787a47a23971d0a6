#include "fillbase/protocol_out.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace wmb::fill {

ProtocolOut ProtocolOut::take_stdout() {
  const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) return ProtocolOut(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return ProtocolOut(fd);
}

void ProtocolOut::write(const Msg& msg) {
  std::string line = msg.dump(-1, ' ', false, Msg::error_handler_t::replace);
  line.push_back('\n');
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // the reader is gone; nothing useful to do
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

Msg opt_json(const std::optional<uint64_t>& v) {
  return v ? Msg(*v) : Msg(nullptr);
}

Msg pytorch_env() {
  Msg env = Msg::object();
  for (char** e = environ; e && *e; ++e) {
    const char* kv = *e;
    if (std::strncmp(kv, "PYTORCH_", 8) != 0) continue;
    const char* eq = std::strchr(kv, '=');
    if (!eq) continue;
    env[std::string(kv, eq)] = std::string(eq + 1);
  }
  return env;
}

Msg error_message(const std::string& text, const std::string& exception) {
  return {{"type", "error"}, {"text", text}, {"exception", exception}};
}

std::optional<uint64_t> self_footprint_bytes() {
#if defined(__linux__)
  std::ifstream in("/proc/self/status");
  if (!in) return std::nullopt;
  std::string line;
  uint64_t total = 0;
  bool seen = false;
  while (std::getline(in, line)) {
    const bool rss = line.rfind("VmRSS:", 0) == 0;
    const bool swap = line.rfind("VmSwap:", 0) == 0;
    if (!rss && !swap) continue;
    std::istringstream ls(line.substr(line.find(':') + 1));
    uint64_t kib = 0;
    if (ls >> kib) {
      total += kib * 1024;
      seen = seen || rss;
    }
  }
  if (!seen) return std::nullopt;
  return total;
#else
  return std::nullopt;
#endif
}

}  // namespace wmb::fill
