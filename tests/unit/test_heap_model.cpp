// The heap allocator model (harness/mpsmodel/heap_allocator.h), each rule pinned to PyTorch's
// aten/src/ATen/mps/MPSAllocator.h / .mm, the messages of each modelled release, the step-by-step
// simulation `predict` runs, and the parse-back of the model's texts through harness/errparse.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/units.h"
#include "errparse/error_parser.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/predict.h"
#include "mpsmodel/revision.h"

namespace wmb::mpsmodel::test_heap_model {  // one namespace per test file: the unity build compiles 8 files as one
namespace {

WatermarkConfig cfg_of(std::map<std::string, std::string> env) { return read_watermark_config_from_map(env); }

ModelParams params(const std::string& rev = "current", uint64_t other = kDefaultOtherBytes) {
  ModelParams p;
  p.revision = rev;
  p.other_bytes = other;
  return p;
}

// Fills in `step`s until refused; returns the steps held and the message.
std::pair<uint64_t, std::string> fill(MpsAllocatorModel& m, uint64_t step, int max_steps = 100000) {
  uint64_t n = 0;
  for (int i = 0; i < max_steps; ++i) {
    try {
      m.allocate(step);
      ++n;
    } catch (const ModelError& e) {
      return {n, e.what()};
    }
  }
  return {n, ""};
}

// ---------------------------------------------------------------------------------------------
// HeapBlock::createHeapBlock / getHeapTier, on the aligned size.

TEST(HeapModelTiers, BoundariesAsInTheSource) {
  EXPECT_EQ(heap_tier(kMaxSmallAlloc, false), HeapTier::Small);  // size <= kMaxSmallAlloc
  EXPECT_EQ(heap_tier(kMaxSmallAlloc + 1, false), HeapTier::Large);
  EXPECT_EQ(heap_tier(kMinLargeAlloc - 1, false), HeapTier::Large);  // size < kMinLargeAlloc
  EXPECT_EQ(heap_tier(kMinLargeAlloc, false), HeapTier::XLarge);
  EXPECT_EQ(heap_tier(512 * MiB - 1, false), HeapTier::XLarge);  // size < kXLargeHeap / 2
  EXPECT_EQ(heap_tier(512 * MiB, false), HeapTier::Oversize);    // the write-up's step: a heap of its own
  EXPECT_EQ(heap_tier(64 * MiB, true), HeapTier::Oversize) << "memory pressure: exact-size heaps";
  EXPECT_EQ(heap_tier(MiB, true), HeapTier::Small) << "pressure does not change the small and large tiers";
  EXPECT_EQ(heap_tier(5 * MiB, true), HeapTier::Large);
}

TEST(HeapModelTiers, HeapSizes) {
  EXPECT_EQ(heap_size(HeapTier::Small, 16 * KiB), 8 * MiB);
  EXPECT_EQ(heap_size(HeapTier::Large, 2 * MiB), 32 * MiB);
  EXPECT_EQ(heap_size(HeapTier::XLarge, 64 * MiB), 1024 * MiB);
  EXPECT_EQ(heap_size(HeapTier::Oversize, 512 * MiB), 512 * MiB);
  EXPECT_EQ(heap_size(HeapTier::Oversize, 512 * MiB + 16 * KiB), 514 * MiB) << "rounded up to kRoundLarge";
}

TEST(HeapModelTiers, NewHeapOnlyWhenNoneHasRoom) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), 10 * GiB, params());
  for (int i = 0; i < 16; ++i) m.allocate(64 * MiB);
  EXPECT_EQ(m.heap_count(), 1u) << "16 x 64 MiB fill one 1 GiB heap";
  m.allocate(64 * MiB);
  EXPECT_EQ(m.heap_count(), 2u);
  EXPECT_EQ(m.heaps_bytes(), 2 * GiB);
  EXPECT_EQ(m.in_use_bytes(), 17 * 64 * MiB);
}

// ---------------------------------------------------------------------------------------------
// The check against the driver count (all heaps + other allocations).

TEST(HeapModelDriver, NewGiBHeapCarriesTheCountPastTheLimit) {
  // The macOS CI runner: recommended max 5010800640 B, HIGH = LOW = 0.3 -> max allowed 1.40 GiB.
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.3"}, {kLowEnv, "0.3"}}), 5010800640ull, params());
  auto [steps, msg] = fill(m, 64 * MiB);
  // Step 17 still passes (1 GiB + 448 KiB + 64 MiB <= 1.40 GiB) and makes a second 1 GiB heap;
  // step 18 sees 2 GiB + 448 KiB + 64 MiB > 1.40 GiB.
  EXPECT_EQ(steps, 17u);
  EXPECT_EQ(m.heaps_bytes(), 2 * GiB);
  EXPECT_EQ(m.driver(), 2 * GiB + 448 * KiB);
  EXPECT_EQ(msg,
            "MPS backend out of memory (MPS allocated: 2.00 GiB, other allocations: 448.00 KiB, max allowed: 1.40 GiB). "
            "Tried to allocate 64.00 MiB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
            "limit for memory allocations (may cause system failure).");
}

TEST(HeapModelDriver, OtherAllocationsCountAndShowInTheMessage) {
  const uint64_t rec = 10 * GiB;
  MpsAllocatorModel none(cfg_of({{kHighEnv, "0.1"}, {kLowEnv, "0.1"}}), rec, params("current", 0));
  MpsAllocatorModel lots(cfg_of({{kHighEnv, "0.1"}, {kLowEnv, "0.1"}}), rec, params("current", 600 * MiB));
  EXPECT_EQ(fill(none, 512 * MiB).first, 2u);  // 2 x 512 MiB <= 1.00 GiB
  auto [steps, msg] = fill(lots, 512 * MiB);
  EXPECT_EQ(steps, 0u);
  EXPECT_NE(msg.find("MPS allocated: 0 bytes, other allocations: 600.00 MiB"), std::string::npos) << msg;
}

TEST(HeapModelDriver, CheckIsStrictlyGreater) {
  const uint64_t rec = 1024 * MiB;
  MpsAllocatorModel m(cfg_of({{kHighEnv, "1.0"}, {kLowEnv, "1.0"}}), rec, params("current", 0));
  EXPECT_EQ(fill(m, 512 * MiB).first, 2u) << "driver + size == max allowed is allowed";
}

// ---------------------------------------------------------------------------------------------
// getLowWatermarkValue() and the memory pressure it switches on.

TEST(HeapModelPressure, LowWatermarkValueIsIntegerMiB) {
  // recommended 10 GiB, LOW 0.1 -> low limit 1 GiB (static_cast<size_t>(0.1 * 10 GiB)).
  const uint64_t rec = 10 * GiB;
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.2"}, {kLowEnv, "0.1"}}), rec, params("current", 0));
  const uint64_t low = static_cast<uint64_t>(0.1 * static_cast<double>(rec));
  EXPECT_EQ(m.low_limit(), low);
  EXPECT_EQ(m.low_watermark_value(), static_cast<int64_t>(low / MiB));
  MpsAllocatorModel near(cfg_of({{kHighEnv, "0.2"}, {kLowEnv, "0.1"}}), rec, params("current", low - MiB + 1));
  EXPECT_EQ(near.low_watermark_value(), 0) << "less than 1 MiB below the low limit: 0, pressure";
  EXPECT_TRUE(near.memory_pressure());
  MpsAllocatorModel above(cfg_of({{kHighEnv, "0.2"}, {kLowEnv, "0.1"}}), rec, params("current", low + GiB));
  EXPECT_EQ(above.low_watermark_value(), 0) << "above the low limit: max(0, negative)";
}

TEST(HeapModelPressure, LowZeroDisablesIt) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "1.0"}, {kLowEnv, "0.0"}}), GiB, params("current", 10 * GiB));
  EXPECT_FALSE(m.memory_pressure());
  EXPECT_EQ(m.low_watermark_value(), std::numeric_limits<int64_t>::max());
}

TEST(HeapModelPressure, UnderPressureNewHeapsAreExactSize) {
  // LOW 0.1 of 10 GiB = 1 GiB: the first 64 MiB step makes a shared 1 GiB heap, which reaches the
  // low limit; the 17th step (heap full) then gets a heap of exactly 64 MiB.
  MpsAllocatorModel m(cfg_of({{kHighEnv, "1.0"}, {kLowEnv, "0.1"}}), 10 * GiB, params("current", 0));
  for (int i = 0; i < 16; ++i) m.allocate(64 * MiB);
  EXPECT_TRUE(m.memory_pressure());
  m.allocate(64 * MiB);
  EXPECT_EQ(m.heaps_bytes(), GiB + 64 * MiB);
  EXPECT_EQ(m.heap_count(), 2u);
}

TEST(HeapModelPressure, GarbageCollectsCachedBuffersDownToTheLowLimit) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "1.0"}, {kLowEnv, "0.1"}}), 10 * GiB, params("current", 0));
  std::vector<uint64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(m.allocate(512 * MiB));  // 4 exact heaps, 2 GiB > 1 GiB low limit
  for (uint64_t id : ids) m.free(id);
  EXPECT_EQ(m.heaps_bytes(), 2 * GiB) << "cached, not released";
  m.allocate(640 * MiB);  // no cached buffer fits; under pressure: GC down to the low limit, then a new heap
  EXPECT_EQ(m.heaps_bytes(), GiB + 640 * MiB);
}

// ---------------------------------------------------------------------------------------------
// Messages per revision; HIGH 0.0; Invalid buffer size.

TEST(HeapModelMessages, HighZeroHasNoMaxAllowedAndNoHint) {
  ModelParams p = params();
  p.max_buffer = 3 * GiB;
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), GiB, p);
  m.allocate(GiB);
  EXPECT_EQ(m.oom_text(512 * MiB),
            "MPS backend out of memory (MPS allocated: 1024.00 MiB, other allocations: 448.00 KiB). Tried to allocate "
            "512.00 MiB on shared pool.");
}

TEST(HeapModelMessages, LegacyRevisionPrintsPrivatePoolAndGB) {
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), static_cast<uint64_t>(37.44 * GiB),
                      params("legacy"));
  auto [steps, msg] = fill(m, 512 * MiB);
  EXPECT_EQ(steps, 37u);
  EXPECT_EQ(msg,
            "MPS backend out of memory (MPS allocated: 18.50 GB, other allocations: 448.00 KB, max allowed: 18.72 GB). "
            "Tried to allocate 512.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
            "limit for memory allocations (may cause system failure).");
  EXPECT_EQ(format_size_for(find_revision("legacy"), GiB), "1024.00 MB") << "old builds: exactly 1 GiB is 1024.00 MB";
}

TEST(HeapModelMessages, PrivatePoolRevisionKeepsIecUnits) {
  EXPECT_EQ(find_revision("private-pool").pool, "private");
  EXPECT_EQ(format_size_for(find_revision("private-pool"), 448 * KiB), "448.00 KiB");
  EXPECT_THROW(find_revision("2.3"), std::invalid_argument);
  EXPECT_EQ(revision_names(), "current, shared-pool, private-pool, legacy");
}

TEST(HeapModelMessages, InvalidBufferSizeComesFirst) {
  ModelParams p = params();
  p.max_buffer = 4 * GiB;
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), GiB, p);
  try {
    m.allocate(4 * GiB);  // TORCH_CHECK(size < m_max_buffer_size, ...): equal is refused
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "Invalid buffer size: 4.00 GiB");
  }
  EXPECT_EQ(m.heaps_bytes(), 0u);
  EXPECT_NO_THROW(m.allocate(4 * GiB - 1));
  EXPECT_EQ(estimated_max_buffer(64 * GiB), 36 * GiB);  // gfx-rs/wgpu#2502: M1 Max 64 GB
}

TEST(HeapModelMessages, CurrentRevisionBucketsLargeSizes) {
  MpsAllocatorModel cur(cfg_of({}), GiB, params("current"));
  MpsAllocatorModel old(cfg_of({}), GiB, params("private-pool"));
  EXPECT_EQ(cur.allocation_size(100 * MiB + 1), 102 * MiB) << "32 buckets in [64, 128) MiB: 2 MiB granules";
  EXPECT_EQ(old.allocation_size(100 * MiB + 1), 100 * MiB + 16 * KiB);
  EXPECT_EQ(cur.allocation_size(64 * MiB), 64 * MiB);
  EXPECT_EQ(cur.allocation_size(500 * MiB), 504 * MiB) << "8 MiB granules in [256, 512) MiB";
  EXPECT_EQ(cur.allocation_size(510 * MiB), 510 * MiB) << "512 MiB would cross into the oversize tier";
}

// ---------------------------------------------------------------------------------------------
// The sandbox: tiers follow the unscaled step.

TEST(HeapModelSandbox, TierScaleKeepsTheStepInTheMacsTier) {
  ModelParams p = params();
  p.tier_scale = 16.0;  // 32 MiB in the sandbox stands for the write-up's 512 MiB
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), GiB, p);
  EXPECT_EQ(m.tier_of(32 * MiB, false), HeapTier::Oversize);
  m.allocate(32 * MiB);
  EXPECT_EQ(m.heaps_bytes(), 32 * MiB) << "a heap of its own, as 512 MiB gets on the Mac";
  ModelParams q = params();
  q.tier_scale = 16.0;
  MpsAllocatorModel x(cfg_of({{kHighEnv, "0.0"}}), GiB, q);
  x.allocate(2 * MiB);  // stands for 32 MiB: the xlarge tier, a 1 GiB heap scaled down to 64 MiB
  EXPECT_EQ(x.heaps_bytes(), 64 * MiB);
  ModelParams bad = params();
  bad.tier_scale = 0.5;
  EXPECT_THROW(MpsAllocatorModel(cfg_of({}), GiB, bad), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// predict's simulation and the estimate's basis.

TEST(HeapModelPredict, SimulatesTheCiScenario) {
  FillPlan plan;
  plan.step = 64 * MiB;
  plan.cap = 7 * GiB / 2;
  const uint64_t rec = 5010800640ull;
  const auto a = simulate_fill(cfg_of({{kHighEnv, "0.3"}, {kLowEnv, "0.3"}}), rec, plan, 7 * GiB);
  EXPECT_EQ(a.steps, 17u);
  EXPECT_EQ(a.held_bytes, 17 * 64 * MiB);
  EXPECT_EQ(a.stopped_by, "pytorch");
  EXPECT_EQ(a.heap_tier, "xlarge");
  const auto b = simulate_fill(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), rec, plan, 7 * GiB);
  EXPECT_EQ(b.steps, 33u);
  EXPECT_EQ(b.heaps_bytes, 3 * GiB);
  const auto c = simulate_fill(cfg_of({{kHighEnv, "0.3"}}), rec, plan, 7 * GiB);
  EXPECT_EQ(c.steps, 0u);
  EXPECT_EQ(c.stopped_by, "config");
  EXPECT_EQ(c.message, "invalid low watermark ratio 1.4");
  const auto d = simulate_fill(cfg_of({{kHighEnv, "0.0"}}), rec, plan, 7 * GiB);
  EXPECT_EQ(d.stopped_by, "cap");
  EXPECT_EQ(d.held_bytes, 7 * GiB / 2);
  EXPECT_FALSE(d.message.has_value());
}

TEST(HeapModelPredict, WriteupStepsAreUnchanged) {
  FillPlan plan;  // 512 MiB
  plan.cap = static_cast<uint64_t>(0.95 * 48.0 * GiB);
  const uint64_t rec = recommended_max_for_ram(48 * GiB);
  EXPECT_EQ(simulate_fill(cfg_of({{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}), rec, plan, 48 * GiB).held_bytes,
            37 * 512 * MiB);
  EXPECT_EQ(simulate_fill(cfg_of({{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}), rec, plan, 48 * GiB).held_bytes,
            59 * 512 * MiB);
}

TEST(HeapModelPredict, EstimateSaysItsBasis) {
  EXPECT_NE(recommended_basis(48 * GiB).find("public figure for 48.00 GiB"), std::string::npos);
  EXPECT_NE(recommended_basis(48 * GiB).find("write-up 004"), std::string::npos);
  EXPECT_NE(recommended_basis(40 * GiB).find("interpolated between 36.00 GiB"), std::string::npos);
  EXPECT_NE(recommended_basis(4 * GiB).find("below the smallest"), std::string::npos);
  EXPECT_NEAR(recommended_fraction(32 * GiB), 2.0 / 3.0, 0.001);
  EXPECT_NEAR(recommended_fraction(64 * GiB), 0.75, 0.001);
  EXPECT_NEAR(recommended_fraction(128 * GiB), 0.84, 0.001);
  for (const auto& k : known_macs()) EXPECT_NE(std::string(k.source), "") << k.ram;
}

// ---------------------------------------------------------------------------------------------
// The model's texts parse back through harness/errparse to the same numbers.

TEST(HeapModelErrparse, EveryRevisionsMessageParsesBack) {
  for (const auto& rev : revisions()) {
    MpsAllocatorModel m(cfg_of({{kHighEnv, "0.3"}, {kLowEnv, "0.3"}}), 5010800640ull, params(rev.name));
    const std::string msg = fill(m, 64 * MiB).second;
    const auto p = parse_error(msg);
    ASSERT_EQ(p.kind, ErrorKind::MpsOom) << msg;
    EXPECT_EQ(p.allocated_bytes, 2 * GiB) << msg;
    EXPECT_EQ(p.other_bytes, 448 * KiB) << msg;
    EXPECT_EQ(p.requested_bytes, 64 * MiB) << msg;
    ASSERT_TRUE(p.max_allowed_bytes.has_value());
    EXPECT_NEAR(static_cast<double>(*p.max_allowed_bytes), static_cast<double>(m.max_allowed()), 0.005 * GiB) << msg;
    EXPECT_EQ(p.pool, rev.pool);
  }
}

TEST(HeapModelErrparse, HighZeroAndBufferSizeParseBack) {
  ModelParams pm = params();
  pm.max_buffer = 4 * GiB;
  MpsAllocatorModel m(cfg_of({{kHighEnv, "0.0"}}), GiB, pm);
  m.allocate(GiB);
  const auto p = parse_error(m.oom_text(512 * MiB));
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, GiB + 0);
  EXPECT_FALSE(p.max_allowed_bytes.has_value());
  try {
    m.allocate(5 * GiB);
    FAIL();
  } catch (const ModelError& e) {
    const auto q = parse_error(e.what());
    EXPECT_EQ(q.kind, ErrorKind::InvalidBufferSize);
    EXPECT_EQ(q.requested_bytes, 5 * GiB);
  }
}

}  // namespace
}  // namespace wmb::mpsmodel::test_heap_model
