#include "errparse/error_parser.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/units.h"
#include "errparse/parse_forms.h"
#include "errparse/text_view.h"

namespace wmb {
namespace {

using namespace errparse;

struct Signature {
  ErrorKind kind;
  std::string_view key;
};

constexpr Signature kSignatures[] = {
    {ErrorKind::MpsOom, "mpsbackendoutofmemory"},
    {ErrorKind::CudaOom, "cudaoutofmemory"},
    {ErrorKind::CudaOom, "cudaerror:outofmemory"},
    {ErrorKind::CudaOom, "cudaruntimeerror(2):outofmemory"},
    {ErrorKind::CpuOom, "defaultcpuallocator"},
    {ErrorKind::InvalidWatermark, "invalidlowwatermarkratio"},
    {ErrorKind::InvalidWatermark, "invalidhighwatermarkratio"},
    {ErrorKind::InvalidBufferSize, "invalidbuffersize"},
    {ErrorKind::InvalidMemoryFraction, "invalidfraction"},
};

}  // namespace

std::string kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::MpsOom: return "mps_oom";
    case ErrorKind::CudaOom: return "cuda_oom";
    case ErrorKind::CpuOom: return "cpu_oom";
    case ErrorKind::InvalidWatermark: return "invalid_watermark";
    case ErrorKind::InvalidBufferSize: return "invalid_buffer_size";
    case ErrorKind::InvalidAllocConf: return "invalid_alloc_conf";
    case ErrorKind::InvalidMemoryFraction: return "invalid_memory_fraction";
    case ErrorKind::Unknown: return "unknown";
  }
  return "unknown";
}

std::optional<ErrorKind> kind_from_name(std::string_view name) {
  for (ErrorKind k : {ErrorKind::MpsOom, ErrorKind::CudaOom, ErrorKind::CpuOom, ErrorKind::InvalidWatermark,
                      ErrorKind::InvalidBufferSize, ErrorKind::InvalidAllocConf, ErrorKind::InvalidMemoryFraction,
                      ErrorKind::Unknown})
    if (kind_name(k) == name) return k;
  return std::nullopt;
}

ParsedError parse_error(std::string_view text) {
  ParsedError e;
  try {
    const View v = make_view(text);

    // The earliest signature in the text decides the kind.
    const Signature* best = nullptr;
    size_t best_pos = npos;
    for (const Signature& sig : kSignatures) {
      const size_t pos = v.s.find(sig.key.data(), 0, sig.key.size());
      if (pos == npos || pos >= best_pos) continue;
      if (sig.kind == ErrorKind::CpuOom && !contains(v.s.substr(pos), "allocatememory") &&
          !contains(v.s.substr(pos), "notenoughmemory") && !contains(v.s.substr(pos), "triedtoallocate"))
        continue;
      best = &sig;
      best_pos = pos;
    }
    // An MPS message pasted without its first words: "(MPS allocated: A, other allocations: O, ...".
    if (!best) {
      const size_t a = v.s.find("mpsallocated:");
      const size_t c = v.s.find("currentlyallocated:");
      if (a != npos && contains(v.s, "otherallocations:")) {
        best = &kSignatures[0];
        best_pos = a;
      } else if (c != npos && contains(v.s, "maxallowed:")) {
        best = &kSignatures[0];
        best_pos = c;
      }
    }

    if (best) {
      e.kind = best->kind;
      switch (best->kind) {
        case ErrorKind::MpsOom: parse_mps(v, best_pos, e); break;
        case ErrorKind::CudaOom: parse_cuda(v, best_pos, best->key, e); break;
        case ErrorKind::CpuOom: parse_cpu(v, best_pos, e); break;
        case ErrorKind::InvalidWatermark: {
          const bool low = best->key == "invalidlowwatermarkratio";
          e.watermark = low ? "low" : "high";
          e.ratio = ratio_after(v, best_pos + best->key.size());
          const std::string r = e.ratio ? fmt::format(" {:g}", *e.ratio) : std::string();
          e.summary = low ? fmt::format("PyTorch rejected PYTORCH_MPS_LOW_WATERMARK_RATIO{}: LOW must not exceed HIGH "
                                        "(LOW defaults to 1.4, so setting only HIGH below 1.4 fails).", r)
                          : fmt::format("PyTorch rejected PYTORCH_MPS_HIGH_WATERMARK_RATIO{}: HIGH must lie in [0, 2.0].", r);
          break;
        }
        case ErrorKind::InvalidBufferSize: {
          e.requested_bytes = bytes_of(size_after(v, "invalidbuffersize:", best_pos));
          e.summary = fmt::format(
              "One MPS buffer of {} is larger than Metal allows for a single buffer (maxBufferLength); this is not "
              "the watermark limit.",
              size_or(e.requested_bytes, "this size"));
          break;
        }
        case ErrorKind::InvalidMemoryFraction:
          e.summary = "PyTorch refused the per-process memory fraction (set_per_process_memory_fraction): on MPS it "
                      "must lie in [0, 2] (a multiple of the recommended max), on CUDA in [0, 1] (of the device's "
                      "memory).";
          break;
        default: break;
      }
      return e;
    }

    if (is_alloc_conf_error(v)) {
      e.kind = ErrorKind::InvalidAllocConf;
      e.summary = "PyTorch could not parse its allocator configuration (PYTORCH_CUDA_ALLOC_CONF, e.g. a "
                  "per_process_memory_fraction that is not a number in [0.0, 1.0]).";
      return e;
    }
    e.summary = "Not a memory-limit message: no MPS/CUDA/CPU out-of-memory, watermark, buffer-size or allocator-config "
                "error was recognized.";
  } catch (...) {
    // Only std::bad_alloc can get here; classify as unknown rather than throw.
    e = ParsedError{};
    e.summary = "Not a memory-limit message (the text could not be examined).";
  }
  return e;
}

nlohmann::json to_json(const ParsedError& e) {
  auto opt = [](const auto& o) -> nlohmann::json { return o ? nlohmann::json(*o) : nlohmann::json(nullptr); };
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = kind_name(e.kind);
  j["allocated_bytes"] = opt(e.allocated_bytes);
  j["other_bytes"] = opt(e.other_bytes);
  j["max_allowed_bytes"] = opt(e.max_allowed_bytes);
  j["requested_bytes"] = opt(e.requested_bytes);
  j["pool"] = opt(e.pool);
  j["watermark"] = opt(e.watermark);
  j["ratio"] = opt(e.ratio);
  j["total_bytes"] = opt(e.total_bytes);
  j["free_bytes"] = opt(e.free_bytes);
  j["gpu"] = opt(e.gpu);
  j["summary"] = e.summary;
  return j;
}

void to_json(nlohmann::json& j, const ParsedError& e) { j = to_json(e); }

}  // namespace wmb
