// The CUDA out-of-memory messages explained.
#include "explain/explain_forms.h"

#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "mpsmodel/macos_memory.h"

namespace wmb::explain_forms {

void explain_cuda(const ParsedError& e, std::string& out) {
  auto line = [&](std::string_view label, const std::optional<uint64_t>& b) {
    if (b) out += fmt::format("  {:<22}{:>12}\n", label, format_size(*b));
  };
  if (e.gpu) out += fmt::format("  {:<22}{:>12}\n", "GPU:", *e.gpu);
  line("total capacity:", e.total_bytes);
  line("free:", e.free_bytes);
  line("allowed (cap):", e.max_allowed_bytes);
  line("allocated by PyTorch:", e.allocated_bytes);
  line("tried to allocate:", e.requested_bytes);
  out += '\n';
  if (e.max_allowed_bytes) {
    std::string frac;
    if (e.total_bytes && *e.total_bytes > 0)
      frac = fmt::format(" ({:.2f} of the total capacity)",
                         static_cast<double>(*e.max_allowed_bytes) / static_cast<double>(*e.total_bytes));
    out += fmt::format(
        "Which limit: a per-process cap of {}{}, not the card. It comes from "
        "PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:F (torch >= ~2.9) or "
        "torch.cuda.set_per_process_memory_fraction(F). Raise F to allow more, or lower it for an earlier clean "
        "error.\n",
        format_size(*e.max_allowed_bytes), frac);
  } else if (e.total_bytes || e.free_bytes || e.allocated_bytes || e.requested_bytes) {
    out += "Which limit: the GPU's own memory (no per-process cap in the message). To stop a job at a size you "
           "choose, cap the caching allocator with PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.9 (a fraction "
           "of total capacity, torch >= ~2.9) or torch.cuda.set_per_process_memory_fraction(0.9).\n";
  } else {
    out += "Which limit: the device's memory, as seen by a raw CUDA call (no sizes in the message). "
           "A per-process cap (PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:F) bounds only PyTorch's caching "
           "allocator.\n";
  }
}

}  // namespace wmb::explain_forms
