// The child's side of the protocol: one JSON object per line on stdout (docs/ARCHITECTURE.md,
// "Child protocol"). No libtorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wmb::fill {

// Keys stay in the order written, so every line starts with "type".
using Msg = nlohmann::ordered_json;

class ProtocolOut {
 public:
  // Keeps a private duplicate of stdout for the protocol and points fd 1 at stderr, so that
  // anything else printing to stdout (a library, a stray printf) cannot break a line.
  static ProtocolOut take_stdout();
  explicit ProtocolOut(int fd) : fd_(fd) {}

  // Writes `msg` and a newline with a single write() (looping only on EINTR or a short write),
  // so a line is never interleaved. Invalid UTF-8 in strings is replaced, never thrown.
  void write(const Msg& msg);

  int fd() const { return fd_; }

 private:
  int fd_;
};

// null or the number.
Msg opt_json(const std::optional<uint64_t>& v);

// Every PYTORCH_* variable of this process's environment, verbatim.
Msg pytorch_env();

// {"type":"error","text":...,"exception":...}
Msg error_message(const std::string& text, const std::string& exception);

// This process's footprint: VmRSS + VmSwap from /proc/self/status on Linux; nullopt elsewhere.
std::optional<uint64_t> self_footprint_bytes();

}  // namespace wmb::fill
