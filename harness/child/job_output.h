// A job's stdout and stderr (`wmbench run --command`), kept bounded in the result folder: a job
// that floods either must not fill the disk nor the parent's memory. Each log keeps the first
// kJobLogHeadBytes and the last kJobLogTailBytes, with one line in between saying how many bytes
// were left out. The stderr tail goes into the run record and to the error parser.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "io/files.h"

namespace wmb {

// A fill child writes its stderr log itself, under RLIMIT_FSIZE = `cap` (runner/run_one.cpp): a
// log that reached the cap was cut there, mid-line, by EFBIG. Once the child is gone this appends
// a line saying so (the parent has no such limit) and adds a warning for the record. A log under
// the cap, or one that cannot be opened (never through a link), is left as it is.
void note_capped_log(const Folder& folder, const std::string& rel, uint64_t cap, std::vector<std::string>& warnings);

constexpr uint64_t kJobLogHeadBytes = 1 << 20;    // 1 MiB
constexpr uint64_t kJobLogTailBytes = 256 << 10;  // 256 KiB
constexpr size_t kJobStderrTailBytes = 4096;      // what the record and the classifier see

class BoundedLog {
 public:
  // `fd`: the log file, written here (not closed here); -1 keeps only the tail.
  explicit BoundedLog(int fd, uint64_t head = kJobLogHeadBytes, uint64_t tail = kJobLogTailBytes)
      : fd_(fd), head_limit_(head), tail_limit_(tail) {}
  void write(std::string_view data);
  // Writes the note and the tail when bytes were left out. Once, at the end.
  void finish();
  uint64_t total_bytes() const { return total_; }
  uint64_t dropped_bytes() const { return dropped_; }
  // The last `n` bytes of everything written.
  std::string tail(size_t n = kJobStderrTailBytes) const;
  bool write_failed() const { return write_failed_; }

 private:
  void put(std::string_view data);
  int fd_;
  uint64_t head_limit_, tail_limit_;
  uint64_t total_ = 0, dropped_ = 0;
  std::string head_end_;  // the last bytes of the head (for tail() when nothing was dropped)
  std::string ring_;      // bytes past the head, the last tail_limit_ of them
  bool write_failed_ = false;
};

// Reads `read_fd` (a pipe from the job) into `log` on a thread of its own until the pipe closes,
// or, after stop(), until it has nothing more to read now (a daemon of the job may keep the pipe
// open for ever). The destructor stops and joins; it closes read_fd.
class PipeRelay {
 public:
  PipeRelay(int read_fd, BoundedLog& log);
  ~PipeRelay();
  void stop();  // drain what is there, then end; joins
  PipeRelay(const PipeRelay&) = delete;
  PipeRelay& operator=(const PipeRelay&) = delete;

 private:
  void loop();
  int fd_;
  BoundedLog& log_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace wmb
