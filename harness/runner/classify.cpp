#include "runner/classify.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb {
namespace {

std::string first_line(const std::string& s, size_t max = 240) {
  std::string out = s.substr(0, s.find('\n'));
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

std::string sz(const std::optional<uint64_t>& v) { return v ? format_size(*v) : std::string("?"); }

}  // namespace

Classification classify(const SuperviseResult& sup, const ChildReport& child) {
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
  if (child.error_text) {
    const std::string& text = *child.error_text;
    if (child.error_exception && *child.error_exception == "usage")
      return {"config", fmt::format("wmbench-fill refused its arguments: {}", first_line(text)), std::nullopt};
    ParsedError e = parse_error(text);
    c.error = e;
    switch (e.kind) {
      case ErrorKind::InvalidWatermark:
      case ErrorKind::InvalidAllocConf:
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
        c.detail = fmt::format("the child failed with an error that is not a memory limit: {}", first_line(text));
        return c;
    }
  }
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
