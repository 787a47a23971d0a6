// The one-line progress of a run on a terminal (rewritten in place), and its final line.
#pragma once

#include <unistd.h>

#include <ostream>
#include <string>

namespace wmb {

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : err_(err), tty_(::isatty(2)) {}
  void update(const std::string& s) {
    if (!tty_) return;
    err_ << "\r\033[K" << s << std::flush;
    shown_ = true;
  }
  void finish(const std::string& s) {
    if (tty_ && shown_) err_ << "\r\033[K";
    err_ << s << "\n" << std::flush;
    shown_ = false;
  }

 private:
  std::ostream& err_;
  bool tty_;
  bool shown_ = false;
};

}  // namespace wmb
