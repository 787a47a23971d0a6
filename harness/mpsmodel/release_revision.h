// Which model revision (mpsmodel/revision.h) stands for which PyTorch release, so that
// `wmbench releases` on mps-model runs each release under the allocator text and arithmetic of
// its own time (`--model-revision` still wins).
//
//   torch        revision       why
//   < 2.7        legacy         KB/MB/GB sizes through a float, private pools (user messages of 2.0 to ~2.6)
//   2.7 - 2.11   private-pool   before pytorch/pytorch#175818 (merged 2026-02-26; 2.11's branch was cut 2026-02-16..19)
//   2.12 - 2.13  shared-pool    #175818 in (2.12's cut: 2026-04-13..15); before #187441 (reviewed 2026-06-16; 2.13's cut: 2026-06-08..10)
//   >= 2.14      current        #187441 in: large sizes in buckets (checked against 2.14; newer: flagged)
//
// A nightly (2.12.0.dev20260220) is placed by its date against the PR's merge: a nightly between a
// branch cut and the PR has the older revision. Torch 1.x is not covered: the 1.13-era MPS allocator
// had no high watermark limit, which every revision models. pytorch/pytorch#190438 (placement heaps;
// merged by August 2026, before 2.14's branch cut, so most likely in 2.14) changed how freed memory
// is reused (free space split and merged within a heap; garbage collection and retries release only
// whole free heaps; a last retry waits for pending frees): for a fill that never frees, nothing the
// model depends on changed, but a scenario that frees and allocates again (offload-footprint) is not
// modelled for 2.14+ (revision_note says so on each such release).
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
  int merged_yyyymmdd = 0;       // the PR's merge into main: a nightly of that MAJOR.MINOR built before it has the row before
};

// The last release this table was checked against (a read of PyTorch's allocator history since
// June 2026): a newer release gets the newest row, flagged (revision_note).
inline constexpr int kCheckedMajor = 2, kCheckedMinor = 14;

// The rows above, oldest first.
const std::vector<ReleaseRevision>& release_revisions();

// The revision for a torch version string ("2.12.0", "2.13.0.dev20260601+cpu"): by MAJOR.MINOR,
// and for a nightly (.devYYYYMMDD) by its date against the merge of the PR that starts its row (a
// 2.12 nightly of 2026-02-20 is before #175818). "" when the table does not cover it: no MAJOR.MINOR
// to read, or torch 1.x (revision_gap says why).
std::string revision_for_torch(const std::string& torch_version);
// Why revision_for_torch is "" for this version, in words ("" when it is not).
std::string revision_gap(const std::string& torch_version);
// What the table does not say about a covered version ("" when nothing): a release newer than the
// last one it was checked against; 2.14+'s freed-memory reuse (#190438), which the model lacks.
std::string revision_note(const std::string& torch_version);

// The table as text (one line per row), for `wmbench releases --revisions`.
std::string release_revision_table();

}  // namespace wmb::mpsmodel
