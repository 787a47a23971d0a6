// The CUDA caching allocator's out-of-memory messages, old and new forms (c10/cuda/CUDACachingAllocator.cpp).
#include "errparse/parse_forms.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::errparse {

void parse_cuda(const View& v, size_t from, std::string_view signature, ParsedError& e) {
  auto requested = size_after(v, "triedtoallocate", from);
  auto allocated = first_of(size_before(v, "isallocatedbypytorch", from), size_before(v, "alreadyallocated", from));
  auto allowed = size_before(v, "allowed", from);
  auto total = first_of(first_of(size_after(v, "totalcapacityof", from), size_after(v, "totalcapactyof", from)),
                        first_of(size_before(v, "totalcapacity", from), size_before(v, "totalcapacty", from)));
  auto free = first_of(size_after(v, "ofwhich", from), size_before(v, "free", from));
  e.requested_bytes = bytes_of(requested);
  e.allocated_bytes = bytes_of(allocated);
  e.max_allowed_bytes = bytes_of(allowed);
  e.total_bytes = bytes_of(total);
  e.free_bytes = bytes_of(free);
  e.gpu = gpu_index(v, from);

  if (signature != "cudaoutofmemory") {
    e.summary = "The CUDA driver reported out of memory (a raw CUDA error outside PyTorch's caching allocator); "
                "the message gives no sizes.";
    return;
  }
  const std::string gpu = e.gpu ? fmt::format("GPU {}", *e.gpu) : std::string("the GPU");
  const std::string req = e.requested_bytes ? format_size(*e.requested_bytes) + " " : std::string();
  if (e.max_allowed_bytes) {
    e.summary = fmt::format(
        "PyTorch's CUDA caching allocator hit its per-process cap on {}: {} allowed (per_process_memory_fraction){}{}; "
        "it could not allocate {}more.",
        gpu, format_size(*e.max_allowed_bytes),
        e.total_bytes ? " of " + format_size(*e.total_bytes) + " total" : std::string(),
        e.allocated_bytes ? ", " + format_size(*e.allocated_bytes) + " allocated by PyTorch" : std::string(), req);
  } else {
    std::string detail;
    if (e.total_bytes) detail += "total capacity " + format_size(*e.total_bytes);
    if (e.free_bytes) detail += (detail.empty() ? "" : ", ") + format_size(*e.free_bytes) + " free";
    if (e.allocated_bytes) detail += (detail.empty() ? "" : ", ") + format_size(*e.allocated_bytes) + " allocated by PyTorch";
    e.summary = fmt::format("{} ran out of memory: PyTorch could not allocate {}more{}.", gpu, req,
                            detail.empty() ? "" : " (" + detail + ")");
  }
}

}  // namespace wmb::errparse
