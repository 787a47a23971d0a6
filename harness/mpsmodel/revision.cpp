#include "mpsmodel/revision.h"

#include <sstream>
#include <stdexcept>

#include "mpsmodel/watermark.h"

namespace wmb::mpsmodel {

std::string model_version_in_words(int version) {
  switch (version) {
    case 1: return "the ratio-only model, before the heap model";
    case 2: return "the heap model: heaps by tier, the driver count";
    default: return "not a version wmbench knows";
  }
}

const std::vector<Revision>& revisions() {
  static const std::vector<Revision> r = {
      {"current", "shared", SizeUnits::Iec, true,
       "PyTorch from June 2026: large sizes rounded into buckets, pytorch/pytorch#187441; shared pools only since #175818"},
      {"shared-pool", "shared", SizeUnits::Iec, false,
       "PyTorch from Feb 2026 to June 2026: shared pools only, pytorch/pytorch#175818 (2026-02-26), before the buckets of #187441"},
      {"private-pool", "private", SizeUnits::Iec, false, "PyTorch ~2.7 to Feb 2026 (before pytorch/pytorch#175818)"},
      {"legacy", "private", SizeUnits::Legacy, false, "PyTorch 2.0 to ~2.6"},
  };
  return r;
}

const Revision& current_revision() { return revisions().front(); }

std::string revision_names() {
  std::string s;
  for (const auto& r : revisions()) s += (s.empty() ? "" : ", ") + r.name;
  return s;
}

std::string revision_in_words(const std::string& name) {
  for (const auto& r : revisions())
    if (r.name == name) return "PyTorch revision `" + r.name + "` (" + r.releases + ")";
  return "PyTorch revision `" + name + "` (not one wmbench knows)";
}

std::string revision_table() {
  std::string s;
  for (const auto& r : revisions())
    s += r.name + std::string(r.name.size() < 14 ? 14 - r.name.size() : 1, ' ') + "pool " + r.pool + ", " +
         (r.units == SizeUnits::Iec ? "KiB/MiB/GiB" : "KB/MB/GB") + ", " +
         (r.bucketed_sizes ? "large sizes in buckets" : "sizes not bucketed") + ": " + r.releases + "\n";
  return s;
}

const Revision& find_revision(const std::string& name) {
  for (const auto& r : revisions())
    if (r.name == name) return r;
  throw std::invalid_argument("unknown model revision \"" + name + "\"; allowed: " + revision_names());
}

namespace {
// MPSAllocator.mm, older MPSHeapAllocatorImpl::format_size: the same boundaries as c10's, but the
// size goes through a float first and the units are KB/MB/GB (still 1024-based).
std::string format_size_legacy(uint64_t size) {
  std::ostringstream os;
  os.precision(2);
  os << std::fixed;
  const float f = static_cast<float>(size);
  if (size <= 1024UL) {
    os << size << " bytes";
  } else if (size <= 1048576UL) {
    os << (f / 1024.0) << " KB";
  } else if (size <= 1073741824UL) {
    os << (f / 1048576.0) << " MB";
  } else {
    os << (f / 1073741824.0) << " GB";
  }
  return os.str();
}
}  // namespace

std::string format_size_for(const Revision& rev, uint64_t bytes) {
  return rev.units == SizeUnits::Legacy ? format_size_legacy(bytes) : format_size_pytorch(bytes);
}

std::string oom_message_for(const Revision& rev, uint64_t allocated, uint64_t other,
                            std::optional<uint64_t> max_allowed, uint64_t requested_aligned) {
  std::string s = "MPS backend out of memory (MPS allocated: " + format_size_for(rev, allocated) +
                  ", other allocations: " + format_size_for(rev, other);
  if (max_allowed) s += ", max allowed: " + format_size_for(rev, *max_allowed);
  s += "). Tried to allocate " + format_size_for(rev, requested_aligned) + " on " + rev.pool + " pool.";
  if (max_allowed)
    s += " Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations "
         "(may cause system failure).";
  return s;
}

}  // namespace wmb::mpsmodel
