#include "verdict/classify_job.h"

#include <fmt/format.h>

#include "io/utf8.h"

namespace wmb {

std::string last_line(const std::string& text, size_t max) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const size_t start = text.find_last_of('\n', end);
  std::string line = text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  if (line.size() > max) line = std::string(utf8_prefix(line, max - 3)) + "...";
  return utf8_sanitize(line);
}

namespace {

// The PyTorch message in a stderr tail (a traceback ends with it, a logger may add lines after):
// the shortest end of the tail, line by line from the last, that the parser recognises; the whole
// tail when none is (then the parser says Unknown).
std::string error_in_stderr(const std::string& tail) {
  size_t pos = tail.size();
  for (int lines = 0; lines < 200 && pos > 0; ++lines) {
    const size_t nl = tail.rfind('\n', pos - 1);
    const size_t start = nl == std::string::npos ? 0 : nl + 1;
    const std::string candidate = tail.substr(start);
    if (parse_error(candidate).kind != ErrorKind::Unknown) return candidate;
    if (nl == std::string::npos) break;
    pos = nl;
  }
  return tail;
}

}  // namespace

Classification classify_job(const SuperviseResult& sup, const std::string& stderr_tail) {
  if (sup.stopper != Stopper::None) {  // guard, timeout, interrupted
    Classification c = classify(sup, ChildReport{}, stderr_tail);
    if (sup.killed) c.detail += "; the command ignored SIGTERM for the grace: SIGKILL was needed";
    return c;
  }
  if (sup.status.signal) return classify(sup, ChildReport{}, stderr_tail);              // crash, own or from outside
  const int code = sup.status.code.value_or(0);
  if (code == 0) return {"finished", "the command exited with code 0", std::nullopt};
  // The same reading of an error text as the fill child's (classify), on the stderr tail.
  ChildReport said;
  said.error_text = error_in_stderr(stderr_tail);
  Classification c = classify(sup, said, stderr_tail);
  if (c.stopped_by == "pytorch" || c.stopped_by == "config") {
    c.detail = fmt::format("{} (exit code {})", c.detail, code);
    return c;
  }
  const std::string last = last_line(stderr_tail);
  return {"exited",
          last.empty() ? fmt::format("the command exited with code {} and an empty stderr", code)
                       : fmt::format("the command exited with code {}: {}", code, last),
          std::nullopt};
}

}  // namespace wmb
