// The advice for each message form (explain/explain.cpp calls them).
#pragma once

#include <cstdint>
#include <string>

#include "explain/explain.h"

namespace wmb::explain_forms {

std::string ram_class(uint64_t ram);  // "48 GB" for a whole number of GiB, else the size
inline uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

inline constexpr const char* kBothRatios =
    "Set both ratios: LOW (PYTORCH_MPS_LOW_WATERMARK_RATIO) defaults to 1.4 on Apple silicon and must not exceed "
    "HIGH, so HIGH=0.8 alone fails at the first MPS allocation with \"invalid low watermark ratio 1.4\".\n";
inline constexpr const char* kZeroRemoves =
    "The message's own hint, PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0, removes the limit: the job then keeps allocating "
    "past what fits in RAM and slides into swap, slowing the whole Mac, instead of stopping with a clean error.\n";
inline constexpr const char* kSetBefore =
    "PyTorch reads both variables once, when MPS is first used: set them before the process starts.\n";

void explain_mps(const ParsedError& e, const ExplainOptions& opt, std::string& out);
void explain_cuda(const ParsedError& e, std::string& out);

}  // namespace wmb::explain_forms
