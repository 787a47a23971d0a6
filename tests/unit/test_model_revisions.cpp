// The model's revisions split by the upstream change each follows (mpsmodel/revision.h):
// pytorch/pytorch#175818 (shared pools only, Feb 2026) and #187441 (large sizes in buckets, June 2026).
#include <string>

#include <gtest/gtest.h>

#include "common/units.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/revision.h"

namespace test_model_revisions {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;
using namespace wmb::mpsmodel;

TEST(ModelRevisions, SplitByTheUpstreamChangeEachFollows) {
  EXPECT_EQ(revision_names(), "current, shared-pool, private-pool, legacy");
  const Revision& cur = find_revision("current");
  const Revision& shared = find_revision("shared-pool");
  EXPECT_EQ(cur.pool, "shared");
  EXPECT_EQ(shared.pool, "shared");
  EXPECT_TRUE(cur.bucketed_sizes);
  EXPECT_FALSE(shared.bucketed_sizes);
  EXPECT_NE(cur.releases.find("#187441"), std::string::npos);
  EXPECT_NE(shared.releases.find("#175818"), std::string::npos);
  EXPECT_EQ(&current_revision(), &cur) << "current is the newest";
  // A size that is not a power of two: only the bucketed revision rounds it up.
  ModelParams pc, ps;
  pc.revision = "current";
  ps.revision = "shared-pool";
  MpsAllocatorModel mc(read_watermark_config_from_map({}), 10 * GiB, pc), ms(read_watermark_config_from_map({}), 10 * GiB, ps);
  const uint64_t odd = 600 * MiB + 16 * KiB;
  EXPECT_GT(mc.allocation_size(odd), ms.allocation_size(odd));
  EXPECT_EQ(ms.allocation_size(odd), odd);
  const std::string table = revision_table();
  for (const auto& r : revisions()) EXPECT_NE(table.find(r.name), std::string::npos) << table;
}

}  // namespace test_model_revisions
