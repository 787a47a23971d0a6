// Which PyTorch release the model speaks for. The allocator's arithmetic (heaps, the driver count,
// the watermarks) is the same in every release wmbench models; what users' pasted messages show
// differs (tests/data/pytorch-error-messages.json, /work/shared/docs/pytorch-allocator-facts.md):
//
//   name          pool in the message  size units         large-size buckets  releases (where known)
//   current       "shared"             KiB/MiB/GiB        yes                 after pytorch/pytorch#187441 (June 2026)
//   shared-pool   "shared"             KiB/MiB/GiB        no                  #175818 (Feb 2026) to #187441
//   private-pool  "private"            KiB/MiB/GiB        no                  ~2.7 to #175818 (Feb 2026)
//   legacy        "private"            KB/MB/GB (float)   no                  2.0 to ~2.6
//
// The two changes of 2026, each its own revision (found with the search tool, issues corpus):
//   - pytorch/pytorch#175818 "[MPS] Allocating all tensors in unified memory" (2026-02-26): removes
//     PRIVATE_LARGE / PRIVATE_SMALL and _getPrivateAllocator(): every tensor is in a shared pool,
//     so the OOM text says "on shared pool".
//   - pytorch/pytorch#187441 "[MPS] Bucket large allocations to bound caching-allocator reserved
//     memory during decode" (reviewed 2026-06-16): get_allocation_size rounds large sizes up into
//     buckets (32 per power of two here), so "Tried to allocate" shows the bucket for sizes that are
//     not a power of two; it also releases a cached near-fit buffer (within 1/8 of the request),
//     which a fill that never frees does not meet.
// Both threads are closed the way PyTorch's merge bot closes merged PRs; the first release that
// carries each is inferred from the dates (2.11 branched before June 2026), not read from a tag.
//
// Sources (pytorch/pytorch, aten/src/ATen/mps/MPSAllocator.mm, read with the search tool):
//   - newest stored version: init_buffer_pools() creates only SHARED_LARGE / SHARED_SMALL / SCALAR
//     pools, so the OOM text's `(pool.usage & UsageFlags::SHARED) ? "shared" : "private"` always
//     says "shared"; format_size() returns c10::CachingAllocator::format_size(size) (KiB/MiB/GiB);
//     get_allocation_size() rounds large requests up into 32 buckets per power of two.
//   - older versions: PRIVATE_LARGE / PRIVATE_SMALL pools, and ordinary tensors come from
//     _getPrivateAllocator(), hence "private pool"; the oldest ones have their own format_size:
//     `os << ((float)size / 1048576.0) << " MB"` (KB/MB/GB, through a float).
// The unit switch "around 2.7" is inferred from dated user messages, not read from a tag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wmb::mpsmodel {

// The model's own version (machine.json "model"."version", written by the mps-model child's hello):
// it changes when the model's arithmetic changes, so that `compare` and `history` can say "not
// comparable: the model changed" instead of a regression.
//   1: the ratio-only model (max allowed = HIGH x recommended, tensors' bytes against it); folders
//      of 2026-11-29 and before; they carry no version and no tier_scale.
//   2: the heap model (mpsmodel/heap_allocator.h: heaps by tier, Metal's driver count, the low
//      watermark's pressure, tier_scale for a sandbox); from 2026-12-01.
constexpr int kHeapModelVersion = 2;
constexpr int kModelVersion = 2;
// "the heap model (heaps by tier, the driver count)"; "not a version wmbench knows" otherwise.
std::string model_version_in_words(int version);

enum class SizeUnits { Iec, Legacy };

struct Revision {
  std::string name;         // "current", "private-pool", "legacy"
  std::string pool;         // the pool the fill's tensors are in: "shared" or "private"
  SizeUnits units = SizeUnits::Iec;
  bool bucketed_sizes = false;  // get_allocation_size's power-of-two buckets (current only)
  std::string releases;     // which PyTorch releases it stands for, in words (with the PR that starts it)
};

// The revisions by name, "current" first.
const std::vector<Revision>& revisions();
// The revision of that name; throws std::invalid_argument naming the allowed names otherwise.
const Revision& find_revision(const std::string& name);
const Revision& current_revision();
// "current, shared-pool, private-pool, legacy"
std::string revision_names();
// One line per revision: name, pool, units, buckets, releases (for `--model-revision list`).
std::string revision_table();
// For captions: "PyTorch revision `legacy` (PyTorch 2.0 to ~2.6)"; a name wmbench does not know
// is said as such (it comes from a machine.json).
std::string revision_in_words(const std::string& name);

// PyTorch's format_size in that revision's units ("18.72 GiB" or "18.72 GB").
std::string format_size_for(const Revision& rev, uint64_t bytes);

// PyTorch's MPS out-of-memory text in that revision (MPSAllocator.mm alloc_buffer_block):
//   "MPS backend out of memory (MPS allocated: A, other allocations: O, max allowed: M). Tried to
//    allocate T on <pool> pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for
//    memory allocations (may cause system failure)."
// With HIGH 0.0 (`max_allowed` nullopt) the other branch: no ", max allowed: M", and the text ends
// "... on <pool> pool." with no hint. A = the heaps, O = driver count - heaps, T = the aligned size.
std::string oom_message_for(const Revision& rev, uint64_t allocated, uint64_t other,
                            std::optional<uint64_t> max_allowed, uint64_t requested_aligned);

}  // namespace wmb::mpsmodel
