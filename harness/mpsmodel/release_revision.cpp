#include "mpsmodel/release_revision.h"

#include <cctype>

#include <fmt/format.h>

namespace wmb::mpsmodel {

const std::vector<ReleaseRevision>& release_revisions() {
  static const std::vector<ReleaseRevision> t = {
      {0, 0, "legacy", "the oldest revision the model has (KB/MB/GB sizes, private pools)"},
      {2, 7, "private-pool", "KiB/MiB/GiB sizes, private pools, before pytorch/pytorch#175818"},
      {2, 12, "shared-pool", "pytorch/pytorch#175818 (2026-02-26, after 2.11's branch cut): shared pools only"},
      {2, 14, "current", "pytorch/pytorch#187441 (2026-06-16, after 2.13's branch cut): large sizes in buckets"},
  };
  return t;
}

namespace {
// MAJOR.MINOR at the start of the string; false when there is none.
bool major_minor(const std::string& v, int& major, int& minor) {
  size_t i = 0;
  auto number = [&](int& out) {
    const size_t start = i;
    out = 0;
    while (i < v.size() && i - start < 6 && std::isdigit(static_cast<unsigned char>(v[i]))) out = out * 10 + (v[i++] - '0');
    return i > start;
  };
  if (!number(major) || i >= v.size() || v[i] != '.') return false;
  ++i;
  return number(minor);
}
}  // namespace

std::string revision_for_torch(const std::string& torch_version) {
  int major = 0, minor = 0;
  if (!major_minor(torch_version, major, minor)) return "";
  std::string rev;
  for (const auto& r : release_revisions())
    if (major > r.first_major || (major == r.first_major && minor >= r.first_minor)) rev = r.revision;
  return rev;
}

std::string release_revision_table() {
  std::string s;
  const auto& t = release_revisions();
  for (size_t i = 0; i < t.size(); ++i) {
    std::string range;
    if (i == 0)
      range = fmt::format("torch < {}.{}", t[1].first_major, t[1].first_minor);
    else if (i + 1 < t.size())
      range = fmt::format("torch {}.{} - {}.{}", t[i].first_major, t[i].first_minor, t[i + 1].first_major,
                          t[i + 1].first_minor - 1);
    else
      range = fmt::format("torch >= {}.{}", t[i].first_major, t[i].first_minor);
    s += fmt::format("{:<20} {:<13} {}\n", range, t[i].revision, t[i].why);
  }
  return s;
}

}  // namespace wmb::mpsmodel
