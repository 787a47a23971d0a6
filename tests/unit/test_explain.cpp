// `wmbench explain`'s content: the implied recommended max, the Mac RAM class and the advice
// (errparse's explain_text / explain_json; the CLI file only does the input and output).
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/units.h"
#include "errparse/error_parser.h"
#include "explain/explain.h"

namespace test_explain {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using wmb::ErrorKind;
using wmb::ExplainOptions;
using wmb::parse_error;

const char* kSeed =
    "RuntimeError: MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB, max allowed: "
    "18.72 GiB). Tried to allocate 512.00 MiB on shared pool.";

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

std::string mps_with_max(const std::string& max_allowed) {
  return "MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 2.00 MB, max allowed: " + max_allowed +
         "). Tried to allocate 4.00 MB on private pool.";
}

TEST(ExplainMps, SeedMessageAtHighHalfIsA48GBMac) {
  const auto p = parse_error(kSeed);
  const ExplainOptions opt{0.5, true, std::nullopt};
  const auto rec = wmb::implied_recommended_max(p, 0.5);
  ASSERT_TRUE(rec);
  EXPECT_EQ(*rec, static_cast<uint64_t>(std::llround(std::llround(18.72 * wmb::GiB) / 0.5)));
  EXPECT_EQ(wmb::format_size(*rec), "37.44 GiB");

  const nlohmann::json j = wmb::explain_json(p, opt);
  EXPECT_EQ(j.at("kind"), "mps_oom");
  EXPECT_EQ(j.at("implied_recommended_max_bytes").get<uint64_t>(), *rec);
  EXPECT_EQ(j.at("likely_ram_bytes").get<uint64_t>(), 48 * wmb::GiB);
  EXPECT_EQ(j.at("max_allowed_bytes").get<uint64_t>(), 20100446945ull);

  const std::string t = wmb::explain_text(p, opt);
  EXPECT_TRUE(has(t, "37.44 GiB")) << t;
  EXPECT_TRUE(has(t, "48 GB")) << t;
  EXPECT_TRUE(has(t, "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8")) << t;
  EXPECT_TRUE(has(t, "29.95 GiB")) << t;  // 0.8 x 37.44 GiB, the limit that gave a clean error in write-up 004
  EXPECT_TRUE(has(t, "defaults to 1.4")) << t;
  EXPECT_TRUE(has(t, "invalid low watermark ratio 1.4")) << t;
  EXPECT_TRUE(has(t, "=0.0")) << t;
  EXPECT_TRUE(has(t, "swap")) << t;
  EXPECT_TRUE(has(t, "from --high")) << t;
}

TEST(ExplainMps, DefaultHighGivesTheRamOfRealReports) {
  // "max allowed" / 1.7 from real messages, and the Mac each came from.
  const struct {
    const char* max_allowed;
    uint64_t ram_gib;
  } cases[] = {{"9.07 GB", 8}, {"18.13 GB", 16}, {"27.20 GB", 24}, {"45.90 GB", 36}, {"81.60 GB", 64}, {"182.78 GiB", 128}};
  for (const auto& c : cases) {
    const auto p = parse_error(mps_with_max(c.max_allowed));
    const nlohmann::json j = wmb::explain_json(p, ExplainOptions{});
    ASSERT_TRUE(j.contains("likely_ram_bytes")) << c.max_allowed;
    EXPECT_EQ(j.at("likely_ram_bytes").get<uint64_t>(), c.ram_gib * wmb::GiB) << c.max_allowed;
    EXPECT_EQ(j.at("implied_recommended_max_bytes").get<uint64_t>(),
              static_cast<uint64_t>(std::llround(static_cast<double>(*p.max_allowed_bytes) / 1.7)));
    const std::string t = wmb::explain_text(p, ExplainOptions{});
    EXPECT_TRUE(has(t, std::to_string(c.ram_gib) + " GB")) << t;
    EXPECT_TRUE(has(t, "assumed")) << t;
    EXPECT_TRUE(has(t, "already swapping")) << t;  // at 1.7 the limit lies above RAM
  }
}

TEST(ExplainMps, UnknownRamClass) {
  const auto p = parse_error(mps_with_max("1.00 GB"));
  const nlohmann::json j = wmb::explain_json(p, ExplainOptions{});
  ASSERT_TRUE(j.contains("implied_recommended_max_bytes"));
  EXPECT_TRUE(j.at("likely_ram_bytes").is_null());
  EXPECT_TRUE(has(wmb::explain_text(p, ExplainOptions{}), "Likely Mac RAM: unknown"));
}

// Issue 45, item 6: since pytorch/pytorch#193819, pin_memory() buffers come from the MPS shared pool
// and count in "MPS allocated", not in "other allocations": explain says so where it meets them.
TEST(ExplainMps, PinMemoryBuffersAreSaidToCountInMpsAllocated) {
  const auto p = parse_error(kSeed);
  const std::string t = wmb::explain_text(p, ExplainOptions{});
  EXPECT_TRUE(has(t, "pin_memory() buffers")) << t;
  EXPECT_TRUE(has(t, "#193819")) << t;
}

TEST(ExplainMps, NoMaxAllowedComputesNothing) {
  const auto p = parse_error("MPS backend out of memory (MPS allocated: 36.00 GiB, other allocations: 1.25 GiB). Tried "
                             "to allocate 512.00 MiB on shared pool.");
  EXPECT_FALSE(wmb::implied_recommended_max(p, 1.7));
  const nlohmann::json j = wmb::explain_json(p, ExplainOptions{});
  EXPECT_FALSE(j.contains("implied_recommended_max_bytes"));
  EXPECT_FALSE(j.contains("likely_ram_bytes"));
  const std::string t = wmb::explain_text(p, ExplainOptions{});
  EXPECT_TRUE(has(t, "No \"max allowed\"")) << t;
  EXPECT_TRUE(has(t, "PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8")) << t;
}

TEST(ExplainOther, CudaCapAndFraction) {
  const auto p = parse_error("CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 139.80 GiB "
                             "of which 125.78 GiB is free. 13.98 GiB allowed; Of the allocated memory 13.50 GiB is "
                             "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.");
  const std::string t = wmb::explain_text(p, ExplainOptions{});
  EXPECT_TRUE(has(t, "13.98 GiB")) << t;
  EXPECT_TRUE(has(t, "0.10 of the total")) << t;
  EXPECT_TRUE(has(t, "per_process_memory_fraction")) << t;
  const nlohmann::json j = wmb::explain_json(p, ExplainOptions{});
  EXPECT_EQ(j.at("kind"), "cuda_oom");
  EXPECT_FALSE(j.contains("implied_recommended_max_bytes"));

  const std::string full = wmb::explain_text(parse_error("RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB "
                                                         "(GPU 0; 4.00 GiB total capacity; 3.35 GiB already allocated; "
                                                         "0 bytes free; 3.41 GiB reserved in total by PyTorch)"),
                                             ExplainOptions{});
  EXPECT_TRUE(has(full, "GPU's own memory")) << full;
  EXPECT_TRUE(has(full, "per_process_memory_fraction:0.9")) << full;
}

TEST(ExplainOther, WatermarkBufferConfCpuUnknown) {
  const std::string w = wmb::explain_text(parse_error("RuntimeError: invalid low watermark ratio 1.4"), ExplainOptions{});
  EXPECT_TRUE(has(w, "you most likely set only PYTORCH_MPS_HIGH_WATERMARK_RATIO")) << w;
  EXPECT_TRUE(has(w, "[0, HIGH]")) << w;
  EXPECT_TRUE(has(w, "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8")) << w;
  const std::string h = wmb::explain_text(parse_error("invalid high watermark ratio 2.5"), ExplainOptions{});
  EXPECT_TRUE(has(h, "HIGH = 2.5 is outside [0, 2.0]")) << h;

  EXPECT_TRUE(has(wmb::explain_text(parse_error("Invalid buffer size: 9.75 GB"), ExplainOptions{}), "maxBufferLength"));
  EXPECT_TRUE(has(wmb::explain_text(parse_error("RuntimeError: stod"), ExplainOptions{}),
                  "PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:"));
  EXPECT_TRUE(has(wmb::explain_text(parse_error("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                                                "268435456 bytes."),
                                    ExplainOptions{}),
                  "256.00 MiB"));
  const std::string u = wmb::explain_text(parse_error("Error: command buffer exited with error status."), ExplainOptions{});
  EXPECT_EQ(u.rfind("unknown: Not a memory-limit message", 0), 0u) << u;
}

}  // namespace

}  // namespace test_explain
