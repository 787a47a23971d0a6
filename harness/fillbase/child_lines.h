// What both halves of wmbench-fill write the same way: the hello line, a usage error, the name of
// the exception being handled, and the torch this child was built with. No libtorch is linked here
// (the torch version comes from <torch/version.h>, a header).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fillbase/options.h"
#include "fillbase/protocol_out.h"

namespace wmb::fill {

// TORCH_VERSION of the headers this child was built with ("1.13.0", "2.11.0", ...).
std::string built_torch_version();

// The hello line (docs/ARCHITECTURE.md, "Child protocol").
Msg hello_message(const FillOptions& o, const std::string& device, const std::optional<uint64_t>& recommended_max,
                  const std::string& torch_version, const Msg& torch_library, const Msg& model);

// The command line as both halves read it: the options; or, after --help (printed, exit 0) or a
// usage error (reported, exit 2), nullopt with `exit_code` set.
std::optional<FillOptions> parse_command_line(int argc, char** argv, int& exit_code);

// Says a usage error on stderr and as an error line; returns exit code 2.
int usage_fail(ProtocolOut& out, const std::string& msg);

// The dynamic type of the exception being handled ("c10::Error", "std::bad_alloc", ...).
std::string current_exception_type();

// Reports the exception being handled (call it inside a catch) on stderr and as an error line;
// returns the exit code both children give: 2 a UsageError; 3 PyTorch's refusal (PyTorchRefusal),
// std::bad_alloc, and, when `std_exceptions_are_torchs`, any other std::exception: it came out of a
// libtorch call (c10's allocator config parses numbers with std::stod, so PYTORCH_CUDA_ALLOC_CONF=
// per_process_memory_fraction:abc throws std::invalid_argument), and torch's Python binding turns
// every such exception into a RuntimeError (torch/csrc/Exceptions.h, CATCH_ALL_ERRORS), which the
// Python child reports with exit 3; 1 anything else (wmbench's own fault).
int report_exception(ProtocolOut& out, bool std_exceptions_are_torchs);

}  // namespace wmb::fill
