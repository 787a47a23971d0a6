// The guard check's reading (MemoryProbe::check_reading: /proc/meminfo alone on Linux, without
// /proc/vmstat) against the full sample reading of the real platform probe: the same source, so
// swap growth measured between a sample at the start and a check later compares like with like.
#include <gtest/gtest.h>

#include <cmath>

#include "probe/probe.h"

namespace test_probe_check {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

TEST(SamplerProbeCheck, TheCheckReadsWhatTheSampleReadsWithoutTheTraceCounters) {
  auto probe = make_platform_probe();
  const SystemMemory full = probe->system();
  const SystemMemory check = probe->check_reading();
  EXPECT_EQ(check.ram_total, full.ram_total);
  EXPECT_EQ(check.swap_total, full.swap_total);
  // Swap moves between the two readings only by what the machine did meanwhile.
  const double moved = std::fabs(static_cast<double>(check.swap_used) - static_cast<double>(full.swap_used));
  EXPECT_LT(moved, 256.0 * (1 << 20)) << "check " << check.swap_used << " sample " << full.swap_used;
  EXPECT_GT(check.level, 0.0);
  EXPECT_LE(check.level, 100.0);
}

}  // namespace test_probe_check
