// What the fill child said about one run, gathered from its JSON lines.
//
// Every line is hostile input (a Python child, a broken build, a child that prints anything):
// absorb() checks each message's fields against the protocol's schema and ignores a message with
// a field of the wrong type or range, recording a warning that names the type, the key and the
// value; the run and its record go on. absorb_line() is the whole path from one raw line: the
// size bound, the bounded parser (io/json_input.h), UTF-8 (a line cut inside a character is
// shown with U+FFFD, never stored ill-formed), then absorb().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb {

// Bounds on what one child can make the parent keep.
constexpr size_t kMaxChildWarnings = 100;
constexpr size_t kMaxChildStages = 1000;
constexpr size_t kMaxChildErrorTextBytes = 64 * 1024;

struct ChildReport {
  std::optional<nlohmann::json> hello;  // checked: torch_version, env, ... have their types
  int steps = 0;
  uint64_t held_bytes = 0;
  std::optional<uint64_t> allocated_bytes;
  std::optional<uint64_t> driver_bytes;
  std::optional<uint64_t> allocator_peak_bytes;  // the highest "allocator_peak_bytes" any line gave
  std::optional<std::string> error_text;
  std::optional<std::string> error_exception;
  std::optional<std::string> done_reason;
  std::vector<nlohmann::json> stages;  // program "offload"; each checked (check_stage_json)
  std::optional<uint64_t> exact_max_allowed;  // the device's own limit, to the byte (mps-model)
  std::vector<std::string> warnings;   // the child's own warnings, and the parent's about bad lines
  size_t dropped_warnings = 0;

  struct Absorbed {
    bool ok = false;      // the message was of a known type and well-formed, and was folded in
    std::string type;     // its "type" when ok
    nlohmann::json msg;   // the message when ok (safe to read: its known fields have their types)
    explicit operator bool() const { return ok; }
  };

  // Folds one protocol message in. A message of unknown type, or with a field of the wrong type
  // or range, is ignored with a warning. Never throws.
  Absorbed absorb(const nlohmann::json& msg);
  // One raw line (without its newline). `cut`: the line was longer than kMaxChildLineBytes and
  // this is its start (ChildLineSplitter). Never throws.
  Absorbed absorb_line(std::string_view line, bool cut = false);
  // A warning of the parent's about the child's output (bounded in number, UTF-8 made safe).
  void warn(const std::string& text);
  // A line's allocator peak: the record keeps the highest (the allocator's peak never falls
  // unless reset, which the children do not do; a lower one is a child's mistake, not news).
  void note_peak(std::optional<uint64_t> peak);
};

// Splits a byte stream (the child's stdout pipe) into lines of at most max_line bytes: a longer
// line is handed on cut (its first max_line bytes, cut=true) and the rest of it, up to its
// newline, is skipped, so the parent's memory stays bounded whatever the child writes.
class ChildLineSplitter {
 public:
  using Sink = std::function<void(std::string_view line, bool cut)>;
  explicit ChildLineSplitter(size_t max_line);
  void feed(const char* data, size_t n, const Sink& sink);
  void finish(const Sink& sink);  // the last line, when the stream ended without a newline

 private:
  size_t max_;
  std::string pending_;
  bool skipping_ = false;
};

}  // namespace wmb
