// The CPU allocator's message (c10/core/impl/alloc_cpu.cpp).
#include "errparse/parse_forms.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::errparse {

void parse_cpu(const View& v, size_t from, ParsedError& e) {
  e.requested_bytes = bytes_of(size_after(v, "triedtoallocate", from));
  e.summary = fmt::format(
      "The CPU allocator could not get {} from the operating system (RAM, an address-space ulimit or a cgroup limit).",
      e.requested_bytes ? format_size(*e.requested_bytes) : std::string("memory"));
}

}  // namespace wmb::errparse
