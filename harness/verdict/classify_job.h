// Who stopped a job (the command child, child_command.h). It speaks no protocol, so what it says
// is its exit status and its stderr:
//   guard | timeout | interrupted  as for the fill child (the supervisor stopped it)
//   crash     a signal ended it (its own or one from outside; the detail says which)
//   finished  exit 0, whatever its stderr says
//   pytorch   a non-zero exit whose stderr tail holds a PyTorch out-of-memory text (the explain
//             parser: MPS, CUDA, CPU, old and new wordings), with max allowed, allocated, requested
//   config    a non-zero exit whose stderr tail holds a watermark / alloc-conf refusal
//   exited    any other non-zero exit: the code and the stderr's last line; never pytorch or
//             config by guess
#pragma once

#include <string>

#include "verdict/classify.h"

namespace wmb {

// The last non-blank line of `text`, at most `max` bytes (UTF-8 kept whole).
std::string last_line(const std::string& text, size_t max = 240);

Classification classify_job(const SuperviseResult& sup, const std::string& stderr_tail);

}  // namespace wmb
