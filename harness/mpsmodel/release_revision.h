// Which model revision (mpsmodel/revision.h) stands for which PyTorch release, so that
// `wmbench releases` on mps-model runs each release under the allocator text and arithmetic of
// its own time (`--model-revision` still wins).
//
//   torch        revision       why
//   < 2.7        legacy         KB/MB/GB sizes through a float, private pools (user messages of 2.0 to ~2.6)
//   2.7 - 2.11   private-pool   before pytorch/pytorch#175818 (merged 2026-02-26; 2.11's branch was cut 2026-02-16..19)
//   2.12 - 2.13  shared-pool    #175818 in (2.12's cut: 2026-04-13..15); before #187441 (reviewed 2026-06-16; 2.13's cut: 2026-06-08..10)
//   >= 2.14      current        #187441 in: large sizes in buckets
//
// The branch-cut dates are PyTorch's published schedule (pytorch/pytorch#171832, "Update Rough
// 2026-2027 Release dates", 2026-01-06), read with the search tool; which release first carries
// each PR is inferred from those dates and the PRs' merge dates, not read from a release tag.
// The "~2.7" unit switch is inferred from dated user messages (revision.h). Torch before 2.0
// (1.12/1.13 had MPS) is modelled as legacy, the oldest revision wmbench has.
#pragma once

#include <string>
#include <vector>

namespace wmb::mpsmodel {

struct ReleaseRevision {
  int first_major, first_minor;  // the first release of the range
  std::string revision;          // a name of revisions()
  std::string why;               // the PR that starts it, in words
};

// The rows above, oldest first.
const std::vector<ReleaseRevision>& release_revisions();

// The revision for a torch version string ("2.12.0", "2.13.0.dev20260601+cpu", "1.13.0a0");
// "" when the string has no MAJOR.MINOR to read.
std::string revision_for_torch(const std::string& torch_version);

// The table as text (one line per row), for `wmbench releases --revisions`.
std::string release_revision_table();

}  // namespace wmb::mpsmodel
