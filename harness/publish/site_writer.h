// Writing the site: every file goes into --out through io/files.h's Folder (each path walked
// component by component with O_NOFOLLOW, written atomically, a link never written through nor
// replaced), and only when its content differs from what is there, so a second publish of the
// same folders rewrites nothing and a new folder rewrites only the pages that show it.
// The site's manifest (.wmbench-site.json) lists the files the last publish wrote (with the hash
// of each), so files of a folder no longer published are removed, and the inputs each chart was
// drawn from, so a chart whose inputs did not change is not drawn again. The manifest is text
// anyone may edit: a file is replaced or removed only when wmbench recognises it as its own
// (ours()): a path publish writes (index.html, folders/..., scenarios/...) holding a page with
// publish's footer or the content whose hash the manifest names (a file listed by a manifest of a
// site made before the hashes is replaced there, never removed). Anything else (CNAME,
// .git/config, a user's own index.html) is never replaced nor removed.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "io/files.h"

namespace wmb::publish {

inline constexpr const char* kManifestName = ".wmbench-site.json";

class SiteWriter {
 public:
  // Creates OUT (mkdir -p; a folder on the way that is another user's link is refused:
  // io/safe_open.h check_parent_links) and reads its manifest, if any (a malformed one is
  // ignored: everything is then compared by content). Throws FileError.
  explicit SiteWriter(const std::string& out);
  ~SiteWriter() { remove_scratch(); }  // also when a write was refused half-way
  SiteWriter(const SiteWriter&) = delete;
  SiteWriter& operator=(const SiteWriter&) = delete;

  const std::string& out() const { return folder_.path(); }
  const Folder& folder() const { return folder_; }

  // Writes REL (and the folders above it) when its content differs. Returns true when written.
  // Throws FileError when something in the way is a link or not a regular file / folder, or when
  // REL holds a file that is not ours() (named, never replaced).
  bool put(const std::string& rel, const std::string& content);
  // REL was put by an earlier publish and is kept as it is (a chart whose inputs did not change):
  // true when it is there as a regular file (then it counts as this publish's file).
  bool keep(const std::string& rel);

  // The inputs' hash a chart at REL was last drawn from ("" when unknown), and this publish's.
  std::string chart_key(const std::string& rel) const;
  void set_chart_key(const std::string& rel, const std::string& key) { new_charts_[rel] = key; }

  // A scratch folder inside OUT for the chart scripts (made empty), and its removal.
  std::string make_scratch();
  void remove_scratch();

  // Throws FileError naming REL when a regular file is there that wmbench does not recognise as its own
  // (a first publish into a folder holding the user's index.html): asked before anything is written.
  void refuse_foreign(const std::string& rel) const;

  // Removes the files the last publish wrote that this one did not (only those ours()), then writes
  // the manifest. Returns the number removed.
  int finish();

  int written() const { return written_; }
  int unchanged() const { return unchanged_; }

 private:
  void make_parents(const std::string& rel);
  // REL, a regular file holding `content` now, is one wmbench wrote (see the top of this file);
  // `to_replace`: to be overwritten by this publish's file of that name (else: to be removed).
  bool ours(const std::string& rel, const std::string& content, bool to_replace) const;
  Folder folder_;
  std::set<std::string> old_files_, files_;
  std::map<std::string, std::string> old_hashes_, hashes_;
  std::map<std::string, std::string> old_charts_, new_charts_;
  std::optional<std::string> scratch_;
  int written_ = 0, unchanged_ = 0;
};

// Opens OUT after creating it; helper of the constructor (a member initializer).
Folder open_site_folder(const std::string& out);

}  // namespace wmb::publish
