#include "explain/explain.h"

#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "explain/explain_forms.h"
#include "mpsmodel/macos_memory.h"

namespace wmb {

std::optional<uint64_t> implied_recommended_max(const ParsedError& e, double high) {
  if (e.kind != ErrorKind::MpsOom || !e.max_allowed_bytes || !(high > 0) || !std::isfinite(high)) return std::nullopt;
  const double r = std::round(static_cast<double>(*e.max_allowed_bytes) / high);
  if (!(r < kTwoTo64)) return std::nullopt;
  return static_cast<uint64_t>(r);
}

namespace explain_forms {

std::string ram_class(uint64_t ram) {
  if (ram % GiB == 0) return fmt::format("{} GB", ram / GiB);
  return format_size(ram);
}

}  // namespace explain_forms

using namespace explain_forms;

std::string explain_text(const ParsedError& e, const ExplainOptions& opt) {
  std::string out = fmt::format("{}: {}\n", kind_name(e.kind), e.summary);
  switch (e.kind) {
    case ErrorKind::MpsOom: explain_mps(e, opt, out); break;
    case ErrorKind::CudaOom: explain_cuda(e, out); break;
    case ErrorKind::CpuOom:
      out += "Which limit: the process's RAM as the operating system grants it (not an accelerator limit). Check the "
             "address-space limit (ulimit -v / RLIMIT_AS), a container or cgroup memory limit (memory.max; wmbench's "
             "--ram-limit sets one), and what else is using RAM.\n";
      break;
    case ErrorKind::InvalidWatermark: {
      const bool low = e.watermark && *e.watermark == "low";
      const std::string r = e.ratio ? fmt::format("{:g}", *e.ratio) : std::string("the value");
      if (low) {
        if (e.ratio && *e.ratio == kDefaultLowWatermark)
          out += "1.4 is LOW's default on Apple silicon: you most likely set only PYTORCH_MPS_HIGH_WATERMARK_RATIO, to "
                 "a value below 1.4.\n";
        out += fmt::format("LOW = {} is checked against HIGH: it must lie in [0, HIGH] (or [0, 2.0] when HIGH is 0.0). "
                           "The check runs at the first MPS allocation, not at import.\n", r);
      } else {
        out += fmt::format("HIGH = {} is outside [0, 2.0]. 0.0 removes the limit (the job can slide into swap); around "
                           "0.8 gives a clean error below RAM on most Macs.\n", r);
      }
      out += "Set both variables, LOW <= HIGH, before the process starts, e.g.:\n"
             "  PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8 python your_script.py\n"
             "(A value that is not a number is read as 0.0 without any error.)\n";
      break;
    }
    case ErrorKind::InvalidBufferSize:
      out += "Which limit: Metal's maximum size of one buffer (MTLDevice.maxBufferLength), checked before the watermark "
             "limit. No environment variable changes it: make that one tensor smaller (batch size, resolution, or "
             "split/tile the operation).\n";
      break;
    case ErrorKind::InvalidAllocConf:
      out += "\"stod\" is the C++ number parser failing on a value. The form is comma-separated key:value pairs, e.g.\n"
             "  PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.9,expandable_segments:True\n"
             "per_process_memory_fraction must be a number in [0.0, 1.0] (a fraction of the GPU's total capacity). "
             "The value is read at the first CUDA allocation.\n";
      break;
    case ErrorKind::InvalidMemoryFraction:
      out += "torch.mps.set_per_process_memory_fraction(F) sets only HIGH (max allowed = F x recommended max) and "
             "skips the LOW check, so F = 0.8 works where PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 alone fails; F must lie "
             "in [0, 2]. torch.cuda.set_per_process_memory_fraction(F) takes F in [0, 1] of the GPU's memory.\n";
      break;
    case ErrorKind::Unknown:
      out += "wmbench recognizes: \"MPS backend out of memory\", \"CUDA out of memory\" / \"CUDA error: out of memory\", "
             "DefaultCPUAllocator failures, \"invalid low/high watermark ratio\", \"Invalid buffer size\" and malformed "
             "PYTORCH_CUDA_ALLOC_CONF values. Paste the whole error line (the one after \"RuntimeError:\").\n";
      break;
  }
  return out;
}

nlohmann::json explain_json(const ParsedError& e, const ExplainOptions& opt) {
  nlohmann::json j = to_json(e);
  j["limit_ratio"] = opt.ratio();
  j["limit_ratio_from"] = opt.fraction ? "fraction" : opt.high_given ? "high" : "default";
  if (const auto rec = implied_recommended_max(e, opt.ratio())) {
    j["implied_recommended_max_bytes"] = *rec;
    const auto ram = mpsmodel::likely_ram_for_recommended(*rec);
    j["likely_ram_bytes"] = ram ? nlohmann::json(*ram) : nlohmann::json(nullptr);
  }
  if (opt.wired_limit_mib) {
    const long double lim = static_cast<long double>(opt.ratio()) * static_cast<long double>(*opt.wired_limit_mib) * MiB;
    j["wired_limit"] = {{"iogpu.wired_limit_mb", *opt.wired_limit_mib},
                        {"recommended_max_bytes", *opt.wired_limit_mib * MiB},
                        {"max_allowed_bytes", lim >= 18446744073709551615.0L ? UINT64_MAX : static_cast<uint64_t>(lim)}};
  }
  return j;
}

}  // namespace wmb
