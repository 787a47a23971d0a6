// The MPS allocator's limit policy (harness/mpsmodel/watermark.h), pinned to PyTorch's source
// (MPSAllocator.mm, c10 format_size) and to the write-up 004's measurements.
#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/units.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/revision.h"
#include "mpsmodel/watermark.h"

#if __has_include("errparse/error_parser.h")
#include "errparse/error_parser.h"
#endif

namespace wmb::mpsmodel::test_mps_model {  // one namespace per test file: the unity build compiles 8 files as one
namespace {

// The write-up's Mac: recommendedMaxWorkingSetSize 37.44 GiB.
const uint64_t kRec48 = static_cast<uint64_t>(37.44 * GiB);

const char* kWriteupMessage =
    "MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB, max allowed: "
    "18.72 GiB). Tried to allocate 512.00 MiB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 "
    "to disable upper limit for memory allocations (may cause system failure).";

WatermarkConfig cfg_of(std::map<std::string, std::string> env) { return read_watermark_config_from_map(env); }

std::optional<std::string> check(std::map<std::string, std::string> env) { return validate(cfg_of(std::move(env))); }

// ---------------------------------------------------------------------------------------------
// strtod without an end-pointer check.

TEST(WatermarkStrtod, ReadsLikePyTorch) {
  EXPECT_EQ(read_ratio_strtod("0.8"), 0.8);
  EXPECT_EQ(read_ratio_strtod("abc"), 0.0);
  EXPECT_EQ(read_ratio_strtod("0.8abc"), 0.8);
  EXPECT_EQ(read_ratio_strtod(""), 0.0);
  EXPECT_EQ(read_ratio_strtod(nullptr), 0.0);
  EXPECT_EQ(read_ratio_strtod(" 1.0"), 1.0);  // strtod skips leading blanks
  EXPECT_TRUE(std::isnan(read_ratio_strtod("nan")));
}

TEST(WatermarkConfigRead, DefaultsAndRawText) {
  const auto d = cfg_of({});
  EXPECT_EQ(d.high, 1.7);
  EXPECT_EQ(d.low, 1.4);
  EXPECT_FALSE(d.high_set);
  EXPECT_FALSE(d.low_set);

  const auto c = cfg_of({{kHighEnv, "0.8abc"}, {kLowEnv, ""}});
  EXPECT_TRUE(c.high_set);
  EXPECT_TRUE(c.low_set);
  EXPECT_EQ(c.high_raw, "0.8abc");
  EXPECT_EQ(c.low_raw, "");
  EXPECT_EQ(c.high, 0.8);
  EXPECT_EQ(c.low, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Validation: every branch of init_allocator's two TORCH_CHECKs.

TEST(WatermarkValidate, DefaultIsAccepted) { EXPECT_EQ(check({}), std::nullopt); }

TEST(WatermarkValidate, HighBelowZero) {
  EXPECT_EQ(check({{kHighEnv, "-0.5"}}), "invalid high watermark ratio -0.5");
}

TEST(WatermarkValidate, HighAboveTwo) {
  EXPECT_EQ(check({{kHighEnv, "2.5"}, {kLowEnv, "0.5"}}), "invalid high watermark ratio 2.5");
  EXPECT_EQ(check({{kHighEnv, "2.0000001"}}), "invalid high watermark ratio 2");  // ostream's 6 digits
}

TEST(WatermarkValidate, HighExactlyTwoIsAccepted) { EXPECT_EQ(check({{kHighEnv, "2.0"}}), std::nullopt); }

TEST(WatermarkValidate, HighCheckedBeforeLow) {
  EXPECT_EQ(check({{kHighEnv, "3"}, {kLowEnv, "5"}}), "invalid high watermark ratio 3");
}

TEST(WatermarkValidate, HighZeroLetsLowGoToTwo) {
  EXPECT_EQ(check({{kHighEnv, "0.0"}}), std::nullopt);
  EXPECT_EQ(check({{kHighEnv, "0.0"}, {kLowEnv, "2.0"}}), std::nullopt);
  EXPECT_EQ(check({{kHighEnv, "0.0"}, {kLowEnv, "2.1"}}), "invalid low watermark ratio 2.1");
}

TEST(WatermarkValidate, LowAboveHighIsRefused) {
  EXPECT_EQ(check({{kHighEnv, "0.5"}, {kLowEnv, "0.6"}}), "invalid low watermark ratio 0.6");
  EXPECT_EQ(check({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), std::nullopt);
  EXPECT_EQ(check({{kHighEnv, "1.0"}, {kLowEnv, "-0.1"}}), "invalid low watermark ratio -0.1");
}

TEST(WatermarkValidate, HighAloneBelowDefaultLow) {
  // The write-up: PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 python fill.py
  EXPECT_EQ(check({{kHighEnv, "0.8"}}), "invalid low watermark ratio 1.4");
  EXPECT_EQ(check({{kHighEnv, "1.0"}}), "invalid low watermark ratio 1.4");
  EXPECT_EQ(check({{kHighEnv, "1.4"}}), std::nullopt);
  EXPECT_EQ(check({{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}), std::nullopt);
}

TEST(WatermarkValidate, GarbageReadsAsZero) {
  // HIGH "abc" = 0.0 = no limit; LOW default 1.4 <= 2.0 is then fine.
  const auto c = cfg_of({{kHighEnv, "abc"}});
  EXPECT_EQ(validate(c), std::nullopt);
  EXPECT_FALSE(compute_limits(c, kRec48).limited());
  EXPECT_EQ(check({{kHighEnv, "0.8abc"}, {kLowEnv, "0.8"}}), std::nullopt);
  EXPECT_EQ(compute_limits(cfg_of({{kHighEnv, "0.8abc"}, {kLowEnv, "0.8"}}), kRec48).max_allowed,
            static_cast<uint64_t>(0.8 * static_cast<double>(kRec48)));
  EXPECT_EQ(check({{kHighEnv, ""}}), std::nullopt);
}

TEST(WatermarkValidate, NanIsRefused) {
  EXPECT_EQ(check({{kHighEnv, "nan"}}), "invalid high watermark ratio nan");
  EXPECT_EQ(check({{kHighEnv, "1.0"}, {kLowEnv, "nan"}}), "invalid low watermark ratio nan");
}

TEST(WatermarkValidate, ComputeLimitsThrowsForInvalid) {
  EXPECT_THROW(compute_limits(cfg_of({{kHighEnv, "0.8"}}), kRec48), ModelError);
}

// ---------------------------------------------------------------------------------------------
// Limits and sizes as the write-up printed them.

TEST(WatermarkLimits, WriteupMaxAllowed) {
  const auto half = compute_limits(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), kRec48);
  EXPECT_EQ(half.max_allowed, static_cast<uint64_t>(0.5 * static_cast<double>(kRec48)));
  EXPECT_EQ(format_size_pytorch(half.max_allowed), "18.72 GiB");
  const auto p8 = compute_limits(cfg_of({{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}), kRec48);
  EXPECT_EQ(format_size_pytorch(p8.max_allowed), "29.95 GiB");
  const auto def = compute_limits(cfg_of({}), kRec48);
  EXPECT_EQ(format_size_pytorch(def.max_allowed), "63.65 GiB");
  EXPECT_FALSE(compute_limits(cfg_of({{kHighEnv, "0.0"}}), kRec48).limited());
  EXPECT_EQ(compute_limits(cfg_of({{kHighEnv, "0.0"}, {kLowEnv, "0.0"}}), kRec48).low_limit, kNoLimit);
}

TEST(WatermarkFormatSize, Boundaries) {
  EXPECT_EQ(format_size_pytorch(0), "0 bytes");
  EXPECT_EQ(format_size_pytorch(1024), "1024 bytes");
  EXPECT_EQ(format_size_pytorch(1025), "1.00 KiB");
  EXPECT_EQ(format_size_pytorch(448 * KiB), "448.00 KiB");
  EXPECT_EQ(format_size_pytorch(MiB), "1024.00 KiB");
  EXPECT_EQ(format_size_pytorch(MiB + 1), "1.00 MiB");
  EXPECT_EQ(format_size_pytorch(512 * MiB), "512.00 MiB");
  EXPECT_EQ(format_size_pytorch(GiB), "1024.00 MiB");
  EXPECT_EQ(format_size_pytorch(GiB + 1), "1.00 GiB");
  EXPECT_EQ(format_size_pytorch(2 * TiB), "2048.00 GiB");
}

TEST(WatermarkMessage, MatchesTheWriteup) {
  EXPECT_EQ(oom_message_for(current_revision(), 37 * 512 * MiB, 448 * KiB,
                            static_cast<uint64_t>(0.5 * static_cast<double>(kRec48)), 512 * MiB),
            kWriteupMessage);
}

TEST(WatermarkMessage, NoMaxAllowedAndNoHintWithHighZero) {
  // MPSAllocator.mm: the m_high_watermark_ratio == 0.0 branch ends "... pool." (no hint).
  EXPECT_EQ(oom_message_for(find_revision("private-pool"), GiB + GiB / 2, 448 * KiB, std::nullopt, 512 * MiB),
            "MPS backend out of memory (MPS allocated: 1.50 GiB, other allocations: 448.00 KiB). Tried to "
            "allocate 512.00 MiB on private pool.");
}

// ---------------------------------------------------------------------------------------------
// The allocator model.

TEST(AllocatorModelTest, StopsTheWriteupFillAt18_5GiB) {
  // 512 MiB is not < kXLargeHeap / 2: each step gets a heap of exactly its size, so "MPS allocated"
  // equals the tensors' bytes, as in the write-up's message.
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), kRec48);
  uint64_t held = 0;
  std::string error;
  for (int i = 0; i < 1000; ++i) {
    try {
      m.allocate(512 * MiB);
      held += 512 * MiB;
    } catch (const ModelError& e) {
      error = e.what();
      break;
    }
  }
  EXPECT_EQ(held, 37 * 512 * MiB);  // 18.5 GiB
  EXPECT_EQ(m.heaps_bytes(), held);
  EXPECT_EQ(m.heap_count(), 37u);
  EXPECT_EQ(m.driver(), held + 448 * KiB);
  EXPECT_EQ(error, kWriteupMessage);
}

TEST(AllocatorModelTest, StopsThe0_8FillAt29_5GiB) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}), kRec48);
  uint64_t held = 0;
  try {
    for (int i = 0; i < 1000; ++i) {
      m.allocate(512 * MiB);
      held += 512 * MiB;
    }
    FAIL() << "no refusal";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("max allowed: 29.95 GiB"), std::string::npos) << e.what();
  }
  EXPECT_EQ(held, 59 * 512 * MiB);  // 29.5 GiB, as in the write-up's table
}

TEST(AllocatorModelTest, HighZeroNeverRefuses) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), kRec48);
  for (int i = 0; i < 200; ++i) m.allocate(512 * MiB);  // 100 GiB of bookkeeping, no memory
  EXPECT_EQ(m.heaps_bytes(), 100 * GiB);
  EXPECT_EQ(m.max_allowed(), kNoLimit);
  EXPECT_FALSE(m.limited());
}

TEST(AllocatorModelTest, ConfigCheckedAtFirstAllocationNotConstruction) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.8"}}), kRec48);  // does not throw
  EXPECT_EQ(m.config_error(), "invalid low watermark ratio 1.4");
  try {
    m.check_config();
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "invalid low watermark ratio 1.4");
  }
  try {
    m.allocate(MiB);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "invalid low watermark ratio 1.4");
  }
  EXPECT_EQ(m.heaps_bytes(), 0u);
  MpsAllocatorModel ok(cfg_of({{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}), kRec48);
  EXPECT_NO_THROW(ok.check_config());
}

TEST(AllocatorModelTest, SixteenKiBPagesAndRelease) {
  MpsAllocatorModel m(cfg_of({}), kRec48, ModelParams{0, "current", std::nullopt, 1.0});
  EXPECT_EQ(m.allocation_size(1), 16 * KiB);
  EXPECT_EQ(m.allocation_size(16 * KiB), 16 * KiB);
  EXPECT_EQ(m.allocation_size(16 * KiB + 1), 32 * KiB);
  EXPECT_EQ(m.allocation_size(512 * MiB), 512 * MiB);

  const uint64_t a = m.allocate(100);  // small pool: one 8 MiB heap
  EXPECT_EQ(m.in_use_bytes(), 16 * KiB);
  EXPECT_EQ(m.heaps_bytes(), kSmallHeap);
  const uint64_t b = m.allocate(GiB);  // oversize: its own 1 GiB heap
  EXPECT_EQ(m.heaps_bytes(), kSmallHeap + GiB);
  m.free(a);
  m.free(b);
  EXPECT_EQ(m.in_use_bytes(), 0u);
  EXPECT_EQ(m.heaps_bytes(), kSmallHeap + GiB) << "freed buffers stay cached in their heaps";
  m.empty_cache();
  EXPECT_EQ(m.heaps_bytes(), 0u);
  EXPECT_EQ(m.driver(), 0u);
}

TEST(AllocatorModelTest, RefusalCountsNothingAndReportsAlignedSize) {
  const uint64_t rec = 10 * MiB;
  // private-pool: no size buckets, so the aligned size is the 16 KiB-rounded request.
  MpsAllocatorModel m(cfg_of({{kHighEnv, "1.0"}, {kLowEnv, "1.0"}}), rec,
                      ModelParams{0, "private-pool", std::nullopt, 1.0});
  m.allocate(KiB);  // an 8 MiB small heap
  try {
    m.allocate(MiB + 1);  // 1 MiB + 16 KiB: a new 32 MiB heap would be needed, and 8 + 1.02 <= 10 lets it be made
    SUCCEED();
  } catch (const ModelError& e) {
    FAIL() << e.what();
  }
  EXPECT_EQ(m.heaps_bytes(), kSmallHeap + kLargeHeap) << "one new heap carries the driver count past the limit";
  try {
    m.allocate(MiB + 1);
    FAIL() << "no refusal";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("(MPS allocated: 40.00 MiB, other allocations: 0 bytes, max allowed: "
                                         "10.00 MiB). Tried to allocate 1.02 MiB on private pool"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(m.heaps_bytes(), kSmallHeap + kLargeHeap);
}

// ---------------------------------------------------------------------------------------------
// The modelled Mac for a sandbox.

TEST(ModelledMacTest, FreeFractionFromTheWriteup) {
  EXPECT_NEAR(kWriteupFreeFraction, 0.726, 0.001);
  EXPECT_NEAR(recommended_fraction(48 * GiB), 0.78, 0.0001);
}

TEST(ModelledMacTest, TwoGiBSandbox) {
  const uint64_t sandbox = 2 * GiB;
  const auto m = modelled_mac_for_sandbox(sandbox);
  EXPECT_EQ(m.sandbox, sandbox);
  EXPECT_EQ(m.mac_ram, 48 * GiB);
  EXPECT_NEAR(static_cast<double>(m.model_ram) / GiB, 2.75, 0.01);        // 2 / 0.726
  EXPECT_NEAR(static_cast<double>(m.recommended_max) / GiB, 2.15, 0.01);  // 0.78 x 2.75

  const auto lim = [&](const char* ratio) {
    return compute_limits(cfg_of({{kHighEnv, ratio}, {kLowEnv, ratio}}), m.recommended_max).max_allowed;
  };
  // 1.0/1.0 lies above the sandbox: the fill slides into swap and the guard stops it.
  EXPECT_GT(lim("1.0"), sandbox);
  // 0.8/0.8 (about 1.72 GiB) and 0.5/0.5 lie below it: PyTorch stops them with a clean error.
  EXPECT_NEAR(static_cast<double>(lim("0.8")) / GiB, 1.72, 0.01);
  EXPECT_LT(lim("0.8"), sandbox);
  EXPECT_LT(lim("0.5"), sandbox);
  // The default and 0.0 lie far above it, as on the write-up's Mac.
  EXPECT_GT(compute_limits(cfg_of({}), m.recommended_max).max_allowed, m.model_ram);
}

TEST(ModelledMacTest, The48GiBMacModelsItself) {
  // A sandbox as large as the write-up's free memory models the write-up's Mac.
  const auto m = modelled_mac_for_sandbox(static_cast<uint64_t>(34.85 * GiB));
  EXPECT_NEAR(static_cast<double>(m.model_ram) / GiB, 48.0, 0.01);
  EXPECT_NEAR(static_cast<double>(m.recommended_max) / GiB, 37.44, 0.01);
}

TEST(WatermarkCleanRatio, WriteupChoice) {
  // 0.9 x 34.85 GiB free / 37.44 GiB = 0.838 -> 0.80, the author's pick.
  EXPECT_EQ(clean_error_ratio(static_cast<uint64_t>(34.85 * GiB), kRec48), 0.8);
  EXPECT_EQ(clean_error_ratio(100 * GiB, GiB), 2.0);  // never above HIGH's bound
  EXPECT_EQ(clean_error_ratio(MiB, 10 * GiB), std::nullopt);
  const auto r = clean_error_ratio(GiB, GiB);  // 0.9 x 1 GiB -> 0.90
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(*r, 0.9);
}

#if __has_include("errparse/error_parser.h")
// The model's messages parse back (harness/errparse).
TEST(WatermarkErrparse, OomMessageRoundTrips) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), kRec48);
  std::string text;
  try {
    for (int i = 0; i < 1000; ++i) m.allocate(512 * MiB);
  } catch (const ModelError& e) {
    text = e.what();
  }
  const auto p = wmb::parse_error(text);
  EXPECT_EQ(p.kind, wmb::ErrorKind::MpsOom);
  const auto near = [](std::optional<uint64_t> got, uint64_t want, uint64_t unit) {
    ASSERT_TRUE(got.has_value());
    // 2 decimals of the unit: within half a hundredth.
    EXPECT_LE(static_cast<double>(*got > want ? *got - want : want - *got), 0.005 * static_cast<double>(unit) + 1);
  };
  near(p.allocated_bytes, m.heaps_bytes(), GiB);
  near(p.other_bytes, m.other(), KiB);
  near(p.max_allowed_bytes, m.max_allowed(), GiB);
  near(p.requested_bytes, 512 * MiB, MiB);
  EXPECT_EQ(p.pool, "shared");
}

TEST(WatermarkErrparse, InvalidWatermarkParses) {
  const auto text = validate(cfg_of({{kHighEnv, "0.8"}}));
  ASSERT_TRUE(text.has_value());
  const auto p = wmb::parse_error(*text);
  EXPECT_EQ(p.kind, wmb::ErrorKind::InvalidWatermark);
  EXPECT_EQ(p.watermark, "low");
  ASSERT_TRUE(p.ratio.has_value());
  EXPECT_DOUBLE_EQ(*p.ratio, 1.4);
}
#endif

}  // namespace
}  // namespace wmb::mpsmodel::test_mps_model
