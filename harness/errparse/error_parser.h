// The parser of PyTorch error messages: which memory limit stopped a job, and the sizes it named.
//
// Used by the runner to classify who stopped a run (an exception text from the fill child) and
// by `wmbench explain` for messages users paste. It accepts messages as people post them:
// prefixes ("RuntimeError: ", log timestamps, "!!! Exception during processing !!! "), messages
// cut short, and messages wrapped across lines (whitespace anywhere, even inside words or
// numbers, is ignored while matching). It never throws and never reads past its input.
//
// Sizes in the messages are 1024-based whatever the spelling: "bytes", "KB/MB/GB" (older
// builds) and "KiB/MiB/GiB" all convert to bytes with round-to-nearest ("18.13 GB" ->
// llround(18.13 * 2^30)). A size that does not fit 64 bits, or that is cut short before its
// unit, is left absent (nullopt) rather than guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wmb {

enum class ErrorKind {
  MpsOom,             // "MPS backend out of memory (...)": the MPS allocator's limit or Metal itself
  CudaOom,            // "CUDA out of memory. ..." or the bare "CUDA error: out of memory"
  CpuOom,             // "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes"
  InvalidWatermark,   // "invalid low|high watermark ratio R" (raised at the first MPS allocation)
  InvalidBufferSize,  // "Invalid buffer size: S": one buffer over Metal's maxBufferLength
  InvalidAllocConf,   // a malformed PYTORCH_CUDA_ALLOC_CONF ("stod", per_process_memory_fraction...)
  InvalidMemoryFraction,  // set_per_process_memory_fraction(F) refused: "Invalid fraction value: F. Allowed range:
                          // 0~2" (torch.mps) / "0~1" (torch.cuda), "invalid fraction:F. Please set within ..." (c10 CUDA)
  Unknown,            // anything else: not a memory-limit message
};

// "mps_oom", "cuda_oom", "cpu_oom", "invalid_watermark", "invalid_buffer_size",
// "invalid_alloc_conf", "invalid_memory_fraction", "unknown".
std::string kind_name(ErrorKind kind);
// The inverse of kind_name; nullopt for any other text.
std::optional<ErrorKind> kind_from_name(std::string_view name);

struct ParsedError {
  ErrorKind kind = ErrorKind::Unknown;
  std::optional<uint64_t> allocated_bytes;    // MPS "MPS allocated"/"currently allocated"; CUDA "allocated by PyTorch" / "already allocated"
  std::optional<uint64_t> other_bytes;        // MPS "other allocations"
  std::optional<uint64_t> max_allowed_bytes;  // MPS "max allowed"; CUDA "N GiB allowed" (a per-process fraction was set)
  std::optional<uint64_t> requested_bytes;    // "Tried to allocate T"; CPU "you tried to allocate N bytes"; "Invalid buffer size: S"
  std::optional<std::string> pool;            // MPS only: "private" | "shared"
  std::optional<std::string> watermark;       // InvalidWatermark: "high" | "low"
  std::optional<double> ratio;                // InvalidWatermark: the ratio PyTorch rejected (finite values only)
  std::optional<uint64_t> total_bytes;        // CUDA "total capacity"
  std::optional<uint64_t> free_bytes;         // CUDA "free"
  std::optional<int> gpu;                     // CUDA GPU index
  std::string summary;                        // one human sentence: what limit was hit
};

// Classifies `text` and extracts the sizes. Never throws.
ParsedError parse_error(std::string_view text);

// {"kind", "allocated_bytes", "other_bytes", "max_allowed_bytes", "requested_bytes", "pool",
//  "watermark", "ratio", "total_bytes", "free_bytes", "gpu", "summary"}; absent values are null.
nlohmann::json to_json(const ParsedError& e);
// The same, for nlohmann's implicit conversion (`nlohmann::json j = parsed;`).
void to_json(nlohmann::json& j, const ParsedError& e);

}  // namespace wmb
