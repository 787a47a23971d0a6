// The offload program (write-up 000: what `.to("cpu")` frees): fill the device, move everything
// to the CPU, read the CPU copy, release it to the meta device, reporting a "stage" line after
// each step. Only code that links libtorch includes this header.
#pragma once

#include "fill/device.h"
#include "fillbase/options.h"
#include "fillbase/protocol_out.h"

namespace wmb::fill {

// Writes stage lines on_device, moved_to_cpu, cpu_read, released, then
// {"type":"done","reason":"program","held_bytes":0}. Needs options.offload_bytes.
// Exceptions (c10::Error from the device) propagate to the caller, which reports them.
void run_offload(FillDevice& device, const FillOptions& options, ProtocolOut& out);

}  // namespace wmb::fill
