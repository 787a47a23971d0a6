#include "mpsmodel/release_revision.h"

#include <cctype>

#include <fmt/format.h>

namespace wmb::mpsmodel {

const std::vector<ReleaseRevision>& release_revisions() {
  static const std::vector<ReleaseRevision> t = {
      {0, 0, "legacy", "the oldest revision the model has (KB/MB/GB sizes, private pools)"},
      {2, 7, "private-pool", "KiB/MiB/GiB sizes, private pools, before pytorch/pytorch#175818"},
      {2, 12, "shared-pool", "pytorch/pytorch#175818 (2026-02-26, after 2.11's branch cut): shared pools only", 20260226},
      {2, 14, "current",
       "pytorch/pytorch#187441 (2026-06-16, after 2.13's branch cut): large sizes in buckets; #190438's reuse of freed "
       "memory (placement heaps, most likely 2.14) not modelled",
       20260616},
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

namespace {
// YYYYMMDD of a nightly's ".devYYYYMMDD"; 0 when it is not one.
int nightly_date(const std::string& v) {
  const size_t at = v.find(".dev");
  if (at == std::string::npos || v.size() < at + 12) return 0;
  int d = 0;
  for (size_t i = at + 4; i < at + 12; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return 0;
    d = d * 10 + (v[i] - '0');
  }
  return d > 20000000 ? d : 0;
}
}  // namespace

std::string revision_for_torch(const std::string& torch_version) {
  int major = 0, minor = 0;
  if (!major_minor(torch_version, major, minor) || major < 2) return "";
  const auto& t = release_revisions();
  size_t row = 0;
  for (size_t i = 0; i < t.size(); ++i)
    if (major > t[i].first_major || (major == t[i].first_major && minor >= t[i].first_minor)) row = i;
  // A nightly of the row's first MAJOR.MINOR built before the PR that starts the row: the row before.
  const int date = nightly_date(torch_version);
  if (date && row > 0 && major == t[row].first_major && minor == t[row].first_minor && t[row].merged_yyyymmdd &&
      date < t[row].merged_yyyymmdd)
    --row;
  return t[row].revision;
}

std::string revision_gap(const std::string& torch_version) {
  int major = 0, minor = 0;
  if (!major_minor(torch_version, major, minor)) return fmt::format("torch \"{}\" has no MAJOR.MINOR to choose a model revision by", torch_version);
  if (major < 2)
    return fmt::format("torch {} is not covered by the table of revisions: the 1.x MPS allocator had no high watermark "
                       "limit, which every revision of the model has",
                       torch_version);
  return "";
}

std::string revision_note(const std::string& torch_version) {
  int major = 0, minor = 0;
  if (!major_minor(torch_version, major, minor) || major < 2) return "";
  std::string note;
  if (major > kCheckedMajor || (major == kCheckedMajor && minor > kCheckedMinor))
    note = fmt::format("torch {} is newer than the last release the table was checked against ({}.{}): revision {} is "
                       "assumed, not checked",
                       torch_version, kCheckedMajor, kCheckedMinor, revision_for_torch(torch_version));
  if (major > 2 || (major == 2 && minor >= 14))
    note += std::string(note.empty() ? "" : "; ") +
            "pytorch/pytorch#190438 (placement heaps, most likely in 2.14) changed how freed memory is reused; the "
            "model keeps the older rules, so a scenario that frees and allocates again (offload-footprint) is not "
            "modelled for this release";
  return note;
}

std::string release_revision_table() {
  std::string s;
  const auto& t = release_revisions();
  for (size_t i = 0; i < t.size(); ++i) {
    std::string range;
    if (i == 0)
      range = fmt::format("torch 2.0 - {}.{}", t[1].first_major, t[1].first_minor - 1);
    else if (i + 1 < t.size())
      range = fmt::format("torch {}.{} - {}.{}", t[i].first_major, t[i].first_minor, t[i + 1].first_major,
                          t[i + 1].first_minor - 1);
    else
      range = t[i].first_major == kCheckedMajor && t[i].first_minor == kCheckedMinor
                  ? fmt::format("torch {}.{}", kCheckedMajor, kCheckedMinor)
                  : fmt::format("torch {}.{} - {}.{}", t[i].first_major, t[i].first_minor, kCheckedMajor, kCheckedMinor);
    s += fmt::format("{:<20} {:<13} {}\n", range, t[i].revision, t[i].why);
  }
  s += fmt::format("torch > {}.{}         (flagged)     the newest row, assumed: the table was last checked against torch {}.{}\n",
                   kCheckedMajor, kCheckedMinor, kCheckedMajor, kCheckedMinor);
  s += "torch 1.x            (refused)     not covered: its MPS allocator had no high watermark limit\n";
  s += "A nightly (2.12.0.dev20260220) is placed by its date against the merge of the PR that starts its row.\n";
  return s;
}

}  // namespace wmb::mpsmodel
