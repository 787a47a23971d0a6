#include "verdict/classify.h"

#include <csignal>

#include <fmt/format.h>

#include "io/utf8.h"

#include "common/units.h"

namespace wmb {
namespace {

std::string first_line(const std::string& s, size_t max = 240) {
  std::string out = s.substr(0, s.find('\n'));
  if (out.size() > max) out = std::string(utf8_prefix(out, max - 3)) + "...";  // never inside a character
  return out;
}

std::string sz(const std::optional<uint64_t>& v) { return v ? format_size(*v) : std::string("?"); }

}  // namespace

bool self_inflicted_signal(int sig) {
  switch (sig) {
    case SIGABRT: case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP: case SIGSYS:
      return true;
    default:
      return false;
  }
}

namespace {

// "std::bad_alloc" when the child ran out of memory it could map (an exception it reported, or
// one the C++ runtime printed before aborting); "" otherwise.
bool mentions_bad_alloc(const std::string& s) { return s.find("bad_alloc") != std::string::npos; }

std::string own_crash_detail(int sig, const std::string& stderr_tail) {
  if (mentions_bad_alloc(stderr_tail))
    return fmt::format("the child crashed itself ({}) after running out of memory it could map (std::bad_alloc): "
                       "not a PyTorch limit, and not killed from outside",
                       signal_name(sig));
  if (sig == SIGABRT)
    return "the child aborted itself (SIGABRT: an uncaught exception or a failed check; see its stderr log)";
  return fmt::format("the child crashed itself ({}; see its stderr log)", signal_name(sig));
}

}  // namespace

Classification classify(const SuperviseResult& sup, const ChildReport& child, const std::string& stderr_tail) {
  Classification c;
  switch (sup.stopper) {
    case Stopper::Guard:
      return {"guard", sup.reason, std::nullopt};
    case Stopper::Timeout:
      return {"timeout", sup.reason, std::nullopt};
    case Stopper::Interrupted:
      return {"interrupted", sup.reason, std::nullopt};
    case Stopper::None:
      break;
  }
  // The kernel's OOM killer: SIGKILL while the sandbox cgroup's oom_kill count grew.
  if (sup.status.signal && *sup.status.signal == SIGKILL && sup.oom_kills && *sup.oom_kills > 0)
    return {"kernel",
            fmt::format("killed by the kernel's OOM killer (SIGKILL; the sandbox cgroup's oom_kill count grew by {} during "
                        "the run)",
                        *sup.oom_kills),
            std::nullopt, "oom-kill"};
  // macOS jetsam: SIGKILL, and the kernel's JetsamEvent report names the child.
  if (sup.status.signal && *sup.status.signal == SIGKILL && !sup.jetsam_reason.empty())
    return {"kernel",
            fmt::format("killed by macOS jetsam (SIGKILL; reason \"{}\" in {})", sup.jetsam_reason, sup.jetsam_report),
            std::nullopt, "jetsam"};
  if (child.error_text) {
    const std::string& text = *child.error_text;
    if (child.error_exception && *child.error_exception == "usage")
      return {"config", fmt::format("wmbench-fill refused its arguments: {}", first_line(text)), std::nullopt};
    ParsedError e = parse_error(text);
    c.error = e;
    switch (e.kind) {
      case ErrorKind::InvalidWatermark:
      case ErrorKind::InvalidAllocConf:
      case ErrorKind::InvalidMemoryFraction:
        c.stopped_by = "config";
        c.detail = fmt::format("PyTorch refused the settings: {}", first_line(text));
        return c;
      case ErrorKind::MpsOom:
        c.stopped_by = "pytorch";
        c.detail = e.max_allowed_bytes
                       ? fmt::format("MPS out of memory: max allowed {}, allocated {}, tried {}", sz(e.max_allowed_bytes),
                                     sz(e.allocated_bytes), sz(e.requested_bytes))
                       : fmt::format("MPS out of memory (no limit set): allocated {}, tried {}", sz(e.allocated_bytes),
                                     sz(e.requested_bytes));
        return c;
      case ErrorKind::CudaOom:
        c.stopped_by = "pytorch";
        c.detail = e.max_allowed_bytes
                       ? fmt::format("CUDA out of memory: {} allowed, tried {}", sz(e.max_allowed_bytes), sz(e.requested_bytes))
                       : fmt::format("CUDA out of memory: tried {}", sz(e.requested_bytes));
        return c;
      case ErrorKind::CpuOom:
        c.stopped_by = "pytorch";
        c.detail = fmt::format("CPU allocator refused {}", sz(e.requested_bytes));
        return c;
      case ErrorKind::InvalidBufferSize:
        c.stopped_by = "pytorch";
        c.detail = fmt::format("a single buffer too large: {}", first_line(text));
        return c;
      case ErrorKind::Unknown:
        c.stopped_by = "crash";
        if (mentions_bad_alloc(child.error_exception.value_or("")) || mentions_bad_alloc(text))
          c.detail = fmt::format("the child ran out of memory it could map (std::bad_alloc: {}): not a PyTorch limit",
                                 first_line(text));
        else
          c.detail = fmt::format("the child failed with an error that is not a memory limit: {}", first_line(text));
        return c;
    }
  }
  if (sup.status.signal && self_inflicted_signal(*sup.status.signal))
    return {"crash", own_crash_detail(*sup.status.signal, stderr_tail), std::nullopt};
  if (sup.status.signal)
    return {"crash",
            fmt::format("killed by {} from outside wmbench (e.g. the kernel's OOM killer, macOS jetsam, or a user)",
                        signal_name(*sup.status.signal)),
            std::nullopt};
  if (child.done_reason) {
    if (*child.done_reason == "cap")
      return {"cap", fmt::format("reached the cap after {} steps", child.steps), std::nullopt};
    return {"finished", fmt::format("the program ran to its end ({})", *child.done_reason), std::nullopt};
  }
  if (sup.status.code && *sup.status.code != 0)
    return {"crash", fmt::format("exited with code {} without reporting an error", *sup.status.code), std::nullopt};
  return {"crash", "exited without reporting an end", std::nullopt};
}

}  // namespace wmb
