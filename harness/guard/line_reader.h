// The child's stdout, read without blocking: lines are handed on one at a time, each at most
// max_line bytes (a longer one is handed on cut, its rest skipped: ChildLineSplitter in
// protocol/child_report.h), so whatever the child writes the parent's memory stays bounded.
// One concern of supervise(): the pipe. Parsing the lines is the caller's.
#pragma once

#include <functional>
#include <string_view>

#include "io/json_input.h"
#include "protocol/child_report.h"

namespace wmb {

class LineReader {
 public:
  using Sink = ChildLineSplitter::Sink;  // (line without its newline, cut)
  // -1 = the child has no pipe; makes fd non-blocking.
  explicit LineReader(int fd, size_t max_line = kMaxChildLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  int fd() const { return fd_; }  // -1 once closed (end of file)
  // Reads what is there and calls on_line for each complete non-empty line. A wake-up reads one
  // chunk (so the checks stay on time); the final read (after the child ended) reads to the end,
  // where an unterminated last line is handed on too (a child killed mid-line leaves one).
  void read(bool final_read, const Sink& on_line);

 private:
  int fd_;
  ChildLineSplitter split_;
};

}  // namespace wmb
