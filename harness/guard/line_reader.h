// The child's stdout, read without blocking: complete lines are handed on one at a time.
// One concern of supervise(): the pipe. Parsing the lines is the caller's.
#pragma once

#include <functional>
#include <string>

namespace wmb {

class LineReader {
 public:
  explicit LineReader(int fd);  // -1 = the child has no pipe; makes fd non-blocking
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  int fd() const { return fd_; }  // -1 once closed (end of file)
  // Reads what is there and calls on_line for each complete non-empty line. A wake-up reads one
  // chunk (so the checks stay on time); the final read (after the child ended) reads to the end.
  void read(bool final_read, const std::function<void(const std::string&)>& on_line);

 private:
  int fd_;
  std::string pending_;
};

}  // namespace wmb
