// `wmbench explain`: the advice for a parsed PyTorch message (errparse/error_parser.h), as text
// for a human who pasted it or as JSON. In wmbench_core, so that it is unit-tested;
// cli/cmd_explain.cpp only reads the input and prints. One file per message form:
// explain_mps.cpp, explain_cuda.cpp; the rest (watermark, buffer size, configs) explain.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "errparse/error_parser.h"

namespace wmb {


constexpr double kDefaultHighWatermark = 1.7;  // PyTorch's default PYTORCH_MPS_HIGH_WATERMARK_RATIO
constexpr double kDefaultLowWatermark = 1.4;   // default LOW on Apple silicon
constexpr double kSuggestedWatermark = 0.8;    // the HIGH = LOW pair suggested for a clean error

struct ExplainOptions {
  double high = kDefaultHighWatermark;  // the HIGH ratio in force when the message was raised, > 0
  bool high_given = false;              // true when the user said so (--high), false when assumed
  // torch.mps.set_per_process_memory_fraction(F) (--fraction): PyTorch's message is the same text,
  // and the call replaces the high ratio (MPSHooks::setMemoryFraction -> setHighWatermarkRatio,
  // mpsmodel/memory_fraction.h), so F, when given, is the ratio the limit came from (issue 30).
  std::optional<double> fraction;
  // --wired-limit N: the sysctl iogpu.wired_limit_mb (MiB) to say the limit for; Metal's recommended
  // max follows it (AlexsJones/llmfit#754, antirez/ds4#893), so the limit would be ratio() x N MiB.
  std::optional<uint64_t> wired_limit_mib = std::nullopt;
  double ratio() const { return fraction ? *fraction : high; }
};

// For MpsOom with "max allowed": max allowed / HIGH (the Mac's recommended max working set).
std::optional<uint64_t> implied_recommended_max(const ParsedError& e, double high);

// Several lines of plain text for a human who pasted the error.
std::string explain_text(const ParsedError& e, const ExplainOptions& opt = {});
// to_json(e) plus "implied_recommended_max_bytes" and "likely_ram_bytes" (null when unknown)
// when the recommended max could be computed.
nlohmann::json explain_json(const ParsedError& e, const ExplainOptions& opt = {});

}  // namespace wmb
