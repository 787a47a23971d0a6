// The MPS allocator's out-of-memory message (MPSAllocator.mm).
#include "errparse/parse_forms.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::errparse {

void parse_mps(const View& v, size_t from, ParsedError& e) {
  auto allocated = first_of(size_after(v, "mpsallocated:", from), size_after(v, "currentlyallocated:", from));
  auto other = size_after(v, "otherallocations:", from);
  auto max_allowed = size_after(v, "maxallowed:", from);
  auto requested = size_after(v, "triedtoallocate", from);
  e.allocated_bytes = bytes_of(allocated);
  e.other_bytes = bytes_of(other);
  e.max_allowed_bytes = bytes_of(max_allowed);
  e.requested_bytes = bytes_of(requested);
  if (requested) {
    if (starts_at(v.s, requested->end, "onshared")) e.pool = "shared";
    else if (starts_at(v.s, requested->end, "onprivate")) e.pool = "private";
  }
  // With HIGH = 0.0 the message reads "(MPS allocated: A, other allocations: O). Tried to ...".
  const bool limit_off = !max_allowed && other && starts_at(v.s, other->end, ")");

  std::string sizes;
  if (e.allocated_bytes) sizes += fmt::format("MPS allocated {}", format_size(*e.allocated_bytes));
  if (e.other_bytes) sizes += fmt::format("{}other allocations {}", sizes.empty() ? "" : ", ", format_size(*e.other_bytes));
  if (e.requested_bytes)
    sizes += fmt::format("{}tried to allocate {}{}", sizes.empty() ? "" : ", ", format_size(*e.requested_bytes),
                         e.pool ? " on the " + *e.pool + " pool" : "");
  const std::string tail = sizes.empty() ? "." : "; " + sizes + ".";
  if (e.max_allowed_bytes) {
    e.summary = fmt::format(
        "PyTorch's MPS allocator hit its limit (the HIGH watermark): max allowed {}{}",
        format_size(*e.max_allowed_bytes), tail);
  } else if (max_allowed) {
    e.summary = "PyTorch's MPS allocator hit its limit (the \"max allowed\" value in the message is not a readable size)" + tail;
  } else if (limit_off) {
    e.summary = "PyTorch's MPS backend ran out of memory with no upper limit set (PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0): "
                "Metal itself could not allocate" + tail;
  } else {
    e.summary = "PyTorch's MPS backend ran out of memory; the message gives no \"max allowed\" (cut short, or the "
                "limit was off)" + tail;
  }
}

}  // namespace wmb::errparse
