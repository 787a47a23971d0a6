// The MPS out-of-memory message explained: the sizes, which limit, the implied Mac, a HIGH/LOW pair.
#include "explain/explain_forms.h"

#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "mpsmodel/macos_memory.h"

namespace wmb::explain_forms {

namespace {

// The message's sizes, one per line, and their sum against the limit.
void explain_sizes(const ParsedError& e, std::string& out) {
  auto line = [&](std::string_view label, const std::optional<uint64_t>& b, std::string_view note) {
    if (b) out += fmt::format("  {:<19}{:>12}  {}\n", label, format_size(*b), note);
  };
  line("max allowed:", e.max_allowed_bytes, "= HIGH ratio x the Mac's recommended max working set");
  line("MPS allocated:", e.allocated_bytes,
       "held by PyTorch's allocator (tensors, cached blocks; since pytorch/pytorch#193819 also pin_memory() buffers, "
       "from the shared pool)");
  line("other allocations:", e.other_bytes, "Metal memory outside PyTorch's heaps (pin_memory() buffers are not here since #193819)");
  line("tried to allocate:", e.requested_bytes, e.pool ? "on the " + *e.pool + " pool" : std::string());
  if (e.allocated_bytes && e.other_bytes && e.requested_bytes && e.max_allowed_bytes) {
    const uint64_t sum = sat_add(sat_add(*e.allocated_bytes, *e.other_bytes), *e.requested_bytes);
    out += fmt::format("  allocated + other + request = {} {} max allowed {}\n", format_size(sum),
                       sum > *e.max_allowed_bytes ? ">" : "<=", format_size(*e.max_allowed_bytes));
  }
}

// Which ratio the limit came from: --fraction, --high, or PyTorch's default HIGH (issue 30).
void explain_ratio(const ExplainOptions& opt, double ratio, std::string& out) {
  // The same text comes from the HIGH variable and from set_per_process_memory_fraction(F): say
  // which ratio was used and that the limit may come from either (issue 30).
  if (opt.fraction)
    out += fmt::format("Limit ratio: {:g} (from --fraction: torch.mps.set_per_process_memory_fraction({:g}) replaces the "
                       "HIGH ratio{})\n",
                       ratio, ratio, opt.high_given ? fmt::format(", so --high {:g} was not in force", opt.high) : "");
  else if (opt.high_given)
    out += fmt::format("HIGH ratio: {:g} (from --high; if the code calls torch.mps.set_per_process_memory_fraction(F), "
                       "that F replaced it: pass --fraction F)\n",
                       ratio);
  else
    out += fmt::format("HIGH ratio: {:g} (assumed: PyTorch's default. The same message comes from "
                       "PYTORCH_MPS_HIGH_WATERMARK_RATIO and from torch.mps.set_per_process_memory_fraction(F), which "
                       "replaces HIGH: pass --high RATIO or --fraction F if either was set)\n",
                       ratio);
}

// The recommended max the limit implies, the Mac it likely is, and what to set for a clean error.
void explain_recommended(const ParsedError& e, double ratio, uint64_t rec, std::string& out) {
  out += fmt::format("Implied recommended max working set: {} / {:g} = {}\n", format_size(*e.max_allowed_bytes),
                     ratio, format_size(rec));
  const auto ram = mpsmodel::likely_ram_for_recommended(rec);
  if (ram)
    out += fmt::format("Likely Mac RAM: {} (estimated from Apple's recommended-working-set sizes)\n", ram_class(*ram));
  else
    out += "Likely Mac RAM: unknown (no usual Mac size matches; if HIGH was not " +
           fmt::format("{:g}", ratio) + ", pass --high RATIO)\n";
  out += '\n';
  const long double sug = std::roundl(static_cast<long double>(rec) * kSuggestedWatermark);
  const uint64_t suggested = sug >= 18446744073709551615.0L ? UINT64_MAX : static_cast<uint64_t>(sug);
  if (ratio > 1.0) {
    out += fmt::format(
        "With HIGH {:g} the limit lies above what fits in RAM: by the time PyTorch raised this error the Mac was "
        "most likely already swapping.\n",
        ratio);
  } else if (ratio <= kSuggestedWatermark) {
    out += fmt::format(
        "HIGH {:g} did its job: the job stopped with a clean error. If that much memory really is free with your "
        "everyday apps open, you can raise both ratios up to about {:g} ({}); above that the job can slide into "
        "swap. Otherwise make the job smaller (batch size, resolution, one model stage at a time).\n",
        ratio, kSuggestedWatermark, format_size(suggested));
  }
  out += fmt::format(
      "For a clean error below RAM (instead of swapping), set a HIGH/LOW pair, e.g. {:g}/{:g} of the recommended "
      "max:\n"
      "  PYTORCH_MPS_HIGH_WATERMARK_RATIO={:g} PYTORCH_MPS_LOW_WATERMARK_RATIO={:g} python your_script.py\n"
      "  -> limit {:g} x {} = {}\n",
      kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark,
      format_size(rec), format_size(suggested));
}

// --wired-limit N: the limit with the sysctl set, next to the one the message names.
void explain_wired_limit(const ParsedError& e, double ratio, uint64_t mib, std::string& out) {
  const long double lim = static_cast<long double>(ratio) * static_cast<long double>(mib) * MiB;
  const uint64_t limit = lim >= 18446744073709551615.0L ? UINT64_MAX : static_cast<uint64_t>(lim);
  out += fmt::format(
      "With iogpu.wired_limit_mb={}: Metal's recommended max follows the sysctl ({} MiB), so the limit would be "
      "{:g} x {} = {}{}, for PyTorch, MLX and llama.cpp at once. Set it with `sudo sysctl iogpu.wired_limit_mb={}` "
      "(root; a new process picks it up; it resets at reboot), put it back with `sudo sysctl iogpu.wired_limit_mb=0` "
      "(the system default) or the value `sysctl iogpu.wired_limit_mb` showed before.\n",
      mib, mib, ratio, format_size(mib * MiB), format_size(limit),
      e.max_allowed_bytes ? fmt::format(" (the message's: {})", format_size(*e.max_allowed_bytes)) : "", mib);
}

}  // namespace

void explain_mps(const ParsedError& e, const ExplainOptions& opt, std::string& out) {
  explain_sizes(e, out);
  out += '\n';

  const double ratio = opt.ratio();
  const auto rec = implied_recommended_max(e, ratio);
  if (rec) {
    out += fmt::format("Which limit: PyTorch's own MPS limit (HIGH watermark), not the end of RAM.\n");
    explain_ratio(opt, ratio, out);
    explain_recommended(e, ratio, *rec, out);
    if (opt.wired_limit_mib) explain_wired_limit(e, ratio, *opt.wired_limit_mib, out);
  } else if (e.max_allowed_bytes) {
    // The message has a max allowed, but max allowed / HIGH is beyond 2^64 bytes: the HIGH given
    // cannot be the one in force (explain --high 1e-10 once said there was no max allowed).
    out += fmt::format(
        "The message says max allowed {}, but with HIGH {:g} that implies a recommended max working set of more than "
        "2^64 bytes, which no machine has: HIGH {:g} cannot have been in force. Pass the "
        "PYTORCH_MPS_HIGH_WATERMARK_RATIO you really set with --high (PyTorch's default is 1.7).\n",
        format_size(*e.max_allowed_bytes), ratio, ratio);
  } else {
    out += "No \"max allowed\" in the message: either the limit was off (PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0) and "
           "Metal itself could not allocate, meaning memory really ran out (expect swap), or the message was cut "
           "short before that part (paste the whole line).\n"
           "For a clean error below RAM instead, set a HIGH/LOW pair such as 0.8/0.8 (of the recommended max):\n"
           "  PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8 python your_script.py\n";
  }
  out += kBothRatios;
  out += kSetBefore;
  out += kZeroRemoves;
  out += "Keep the limit below the memory that is really free with your everyday apps open; if the job needs more, "
         "lower batch size or resolution.\n";
}

}  // namespace wmb::explain_forms
