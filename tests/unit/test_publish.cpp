// wmbench publish, the pure parts: html_escape (every string of a folder is hostile), slugs (no
// string becomes a path), the walk over folders and parents (only what `check` accepts; the
// others named with why), the index's grouping by machine and torch release, the base URL, and
// the site writer (a second write of the same content writes nothing; a link is never written
// through; files of the last publish that this one did not write are removed).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "io/files.h"
#include "publish/html.h"
#include "publish/pages.h"
#include "publish/publish.h"
#include "publish/site_model.h"
#include "publish/site_writer.h"
#include "unit_util.h"

namespace test_publish {  // one namespace per test file: the unity build compiles 8 files as one

namespace fs = std::filesystem;
using namespace wmb::publish;
using wmbt_unit::has;

namespace {

const std::string kResults = std::string(WMBENCH_SOURCE_DIR) + "/results";

std::vector<std::string> committed_folders() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kResults))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct TmpDir {
  std::string path = wmbt_unit::tmpdir("publish");
  ~TmpDir() { fs::remove_all(path); }
};

}  // namespace

TEST(PublishHtml, EscapesEveryCharacterThatOpensMarkupInTextAndAttributes) {
  EXPECT_EQ(html_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(html_escape("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
  // An attribute value cannot be closed: no quote survives.
  const std::string attr = html_escape("x\" onerror=\"alert(1)");
  EXPECT_EQ(attr.find('"'), std::string::npos);
  EXPECT_EQ(attr.find('\''), std::string::npos);
  // An entity in the input is shown as text, not decoded.
  EXPECT_EQ(html_escape("&lt;"), "&amp;lt;");
}

TEST(PublishHtml, KeepsUtf8AndMakesBadBytesAndControlsVisible) {
  EXPECT_EQ(html_escape("Apple M4 Max \xc2\xb5s \xe2\x86\x92"), "Apple M4 Max \xc2\xb5s \xe2\x86\x92");
  EXPECT_EQ(html_escape("a\xff" "b"), "a\xef\xbf\xbd" "b");  // ill-formed byte -> U+FFFD
  EXPECT_EQ(html_escape("a\x1b[31mb"), "a\\u001b[31mb");     // ESC: visible, not a control
  EXPECT_EQ(html_escape("line\nnext\ttab"), "line\nnext\ttab");
  EXPECT_FALSE(has(html_escape(std::string("a\0b", 3)), std::string(1, '\0')));
}

TEST(PublishHtml, SlugsAreFileNamesAndNeverPaths) {
  EXPECT_EQ(slug("2026-12-01-mps-watermark"), "2026-12-01-mps-watermark");
  for (const std::string& s : std::vector<std::string>{"../x", "..", ".", "", "a/b", "<script>", "-rf", std::string(300, 'a'), "x+y"}) {
    const std::string g = slug(s);
    SCOPED_TRACE(s);
    EXPECT_FALSE(g.empty());
    EXPECT_NE(g.front(), '.');
    EXPECT_NE(g.front(), '-');
    EXPECT_LE(g.size(), 64u);
    for (char c : g) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') << g;
  }
  EXPECT_NE(slug("../x"), slug("__x"));  // the hash tells strings apart that look alike once cut
  EXPECT_NE(slug("a/b"), slug("a_b"));
  EXPECT_EQ(slug("a/b"), slug("a/b"));
}

TEST(PublishModel, RawFilesAreTheFilesWmbenchWritesOnly) {
  for (const char* ok : {"summary.json", "README.md", "tune.json", "runs/01-default.json", "runs/01-a+b.trace.jsonl",
                         "runs/02-x.stderr.log", "runs/03-y.stdout.log"})
    EXPECT_TRUE(is_raw_file(ok)) << ok;
  for (const char* no : {"plots/table.svg", "index.html", "runs/x.html", "runs/../../etc/passwd", "runs/.hidden.json",
                         "runs/a b.json", "runs/", "evil.svg", "runs/sub/01.json"})
    EXPECT_FALSE(is_raw_file(no)) << no;
}

TEST(PublishModel, TorchReleasesInVersionOrder) {
  EXPECT_TRUE(torch_less("1.13.0", "2.9.1"));
  EXPECT_TRUE(torch_less("2.9.1", "2.10.0"));  // not as text
  EXPECT_TRUE(torch_less("2.10.0.dev20261201", "2.10.0"));
  EXPECT_TRUE(torch_less("2.11.0", "2.11.0+cu130"));
  EXPECT_TRUE(torch_less("?", "1.13.0"));
  EXPECT_FALSE(torch_less("2.10.0", "2.9.1"));
}

TEST(PublishModel, CommittedResultsAreEveryOneGroupedByMachineAndTorch) {
  const Site site = collect_site({kResults});
  const auto names = committed_folders();
  ASSERT_EQ(site.folders.size(), names.size());
  EXPECT_TRUE(site.skipped.empty()) << site.skipped.front().path << ": " << site.skipped.front().why;
  const auto groups = group_index(site);
  std::multiset<size_t> seen;
  for (const auto& g : groups) {
    EXPECT_FALSE(g.torches.empty());
    for (size_t k = 1; k < g.torches.size(); ++k) EXPECT_TRUE(torch_less(g.torches[k - 1].torch, g.torches[k].torch));
    for (const auto& t : g.torches)
      for (size_t i : t.folders) {
        seen.insert(i);
        // Every folder of a group has the group's machine, RAM, OS and torch.
        EXPECT_EQ(site.folders[i].info.machine, g.machine);
        EXPECT_EQ(site.folders[i].info.ram_bytes, g.ram);
        EXPECT_EQ(site.folders[i].info.os, g.os);
        EXPECT_EQ(site.folders[i].info.side.torch_version, t.torch);
      }
  }
  EXPECT_EQ(seen.size(), site.folders.size());
  EXPECT_EQ(std::set<size_t>(seen.begin(), seen.end()).size(), site.folders.size());  // each once
  // The two committed mps-model folders of one host and torch 1.13 share a group, cuda folders of
  // 2.11.0 and 2.11.0+cu130 do not.
  const auto group_of = [&](const std::string& name) -> std::pair<std::string, std::string> {
    for (const auto& g : groups)
      for (const auto& t : g.torches)
        for (size_t i : t.folders)
          if (site.folders[i].name == name) return {g.title(), t.torch};
    return {"", ""};
  };
  EXPECT_EQ(group_of("2026-11-29-mps-watermark"), group_of("2026-11-29-pair-torch-1.13-debian"));
  EXPECT_NE(group_of("2026-12-01-cuda-fraction-h200-native").second,
            group_of("2026-12-01-cuda-fraction-h200-python").second);
  // The tune folder's answer, from its tune.json.
  for (const auto& f : site.folders)
    if (f.name == "2026-12-01-tune-mps-watermark") EXPECT_EQ(tune_answer(f), "HIGH 0.913, LOW 0.913");
}

TEST(PublishModel, FoldersCheckRefusesAreNamedAndSkipped) {
  TmpDir t;
  const std::string parent = t.path + "/parent";
  fs::create_directories(parent);
  fs::copy(kResults + "/2026-12-01-tune-check", parent + "/good", fs::copy_options::recursive);
  fs::copy(kResults + "/2026-12-01-tune-check", parent + "/no-table", fs::copy_options::recursive);
  fs::remove(parent + "/no-table/table.md");
  fs::create_directories(parent + "/empty");
  fs::create_directory_symlink(parent + "/good", parent + "/link");
  wmbt_unit::put(parent + "/README.md", "a file of the parent\n");
  const Site site = collect_site({parent, parent + "/good", t.path + "/missing"});
  ASSERT_EQ(site.folders.size(), 1u);  // good, once although given twice
  EXPECT_EQ(site.folders[0].name, "good");
  std::map<std::string, std::string> why;
  for (const auto& s : site.skipped) why[s.path] = s.why;
  ASSERT_EQ(why.size(), 4u);
  EXPECT_TRUE(has(why[parent + "/no-table"], "wmbench check found 1 problem")) << why[parent + "/no-table"];
  EXPECT_TRUE(has(why[parent + "/no-table"], "table.md"));
  EXPECT_TRUE(has(why[parent + "/empty"], "not a result folder"));
  EXPECT_TRUE(has(why[parent + "/link"], "symbolic link"));
  EXPECT_TRUE(has(why[t.path + "/missing"], "missing"));
  EXPECT_FALSE(why.count(parent + "/README.md"));  // a plain file of a parent is passed over
}

TEST(PublishPages, IndexShowsEveryCommittedFolderAsTextAndLinks) {
  const Site site = collect_site({kResults});
  const auto scenarios = scenario_views(site);
  const std::string html = index_page(site, group_index(site), scenarios, {});
  for (const auto& n : committed_folders()) EXPECT_TRUE(has(html, "href=\"folders/" + n + "/index.html\">" + n + "<")) << n;
  EXPECT_FALSE(has(html, "<script"));
  EXPECT_TRUE(has(html, "prefers-color-scheme: dark"));
  EXPECT_TRUE(has(html, "HIGH 0.913, LOW 0.913"));
  // mps-watermark: folders on one machine by release, and on one release by machine, compared.
  for (const auto& s : scenarios) {
    if (s.name != "mps-watermark") continue;
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_FALSE(s.devices[0].by_release.empty());
    EXPECT_FALSE(s.devices[0].by_machine.empty());
    const std::string page = scenario_page(site, s, "", {});
    EXPECT_TRUE(has(page, "by torch release"));
    EXPECT_TRUE(has(page, "by machine"));
  }
}

TEST(PublishPages, BaseUrlIsCheckedAndOnlyACanonicalLink) {
  EXPECT_EQ(check_base_url("https://example.github.io/wmbench/"), "https://example.github.io/wmbench");
  EXPECT_EQ(check_base_url("http://h"), "http://h");
  for (const char* bad : {"javascript:alert(1)", "https://", "https://a\"b", "https://a b", "ftp://x", "https://x/<",
                          "https://x/?q", "file:///etc", "//x"})
    EXPECT_FALSE(check_base_url(bad)) << bad;
  PageContext ctx{"https://example.org/site"};
  const std::string page = page_layout("t", "", "folders/x/index.html", ctx);
  EXPECT_TRUE(has(page, "<link rel=\"canonical\" href=\"https://example.org/site/folders/x/index.html\">"));
  EXPECT_TRUE(has(page, "href=\"../../index.html\""));  // links stay relative: the site opens from disk
}

TEST(PublishWriter, WritesOnlyWhatChangedAndNeverThroughALink) {
  TmpDir t;
  const std::string out = t.path + "/site";
  {
    SiteWriter w(out);
    EXPECT_TRUE(w.put("a/b/page.html", "one"));
    EXPECT_TRUE(w.put("scenarios/old.html", "old"));  // a path publish writes (issue 40: only those are removed)
    w.finish();
  }
  struct stat before {};
  ASSERT_EQ(::stat((out + "/a/b/page.html").c_str(), &before), 0);
  {
    SiteWriter w(out);
    EXPECT_FALSE(w.put("a/b/page.html", "one"));  // same content: not written
    EXPECT_TRUE(w.put("new.html", "new"));
    EXPECT_EQ(w.finish(), 1);  // scenarios/old.html: the last publish's (its hash recorded), not this one's
  }
  struct stat after {};
  ASSERT_EQ(::stat((out + "/a/b/page.html").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);  // not replaced
  EXPECT_FALSE(fs::exists(out + "/scenarios/old.html"));
  EXPECT_TRUE(fs::exists(out + "/new.html"));
  // Links planted in the site: refused, their targets untouched.
  wmbt_unit::put(t.path + "/victim", "keep");
  fs::create_directories(t.path + "/victim-dir");
  fs::remove(out + "/new.html");
  fs::create_symlink(t.path + "/victim", out + "/new.html");
  fs::create_directory_symlink(t.path + "/victim-dir", out + "/d");
  SiteWriter w(out);
  EXPECT_TRUE(has(wmbt_unit::error_of([&] { w.put("new.html", "x"); }), "symbolic link"));
  EXPECT_FALSE(wmbt_unit::error_of([&] { w.put("d/page.html", "x"); }).empty());
  EXPECT_THROW(w.put("../escape.html", "x"), wmb::FileError);
  EXPECT_EQ(wmb::read_file(t.path + "/victim"), "keep");
  EXPECT_TRUE(fs::is_empty(t.path + "/victim-dir"));
  EXPECT_FALSE(fs::exists(t.path + "/escape.html"));
}

// Issue 40: the manifest is text anyone may edit. A file it lists is removed only when wmbench
// recognises it (a path publish writes, holding the content whose hash it recorded); a file it
// did not write is never replaced.
TEST(PublishWriter, TheManifestIsTrustedOnlyForFilesWmbenchRecognisesAsItsOwn) {
  TmpDir t;
  const std::string out = t.path + "/site";
  fs::create_directories(out + "/folders/x");
  wmbt_unit::put(out + "/CNAME", "example.org\n");
  wmbt_unit::put(out + "/folders/x/mine.txt", "mine\n");
  wmbt_unit::put(out + "/.wmbench-site.json",
                 R"({"wmbench_site": 1, "files": ["CNAME", "folders/x/mine.txt"], "hashes": {"CNAME": "0", "folders/x/mine.txt": "0"}, "charts": {}})");
  {
    SiteWriter w(out);
    EXPECT_EQ(w.finish(), 0);
  }
  EXPECT_EQ(wmb::read_file(out + "/CNAME"), "example.org\n");
  EXPECT_EQ(wmb::read_file(out + "/folders/x/mine.txt"), "mine\n");
  SiteWriter w(out);
  EXPECT_TRUE(has(wmbt_unit::error_of([&] { w.put("folders/x/mine.txt", "ours"); }), "did not write"));
  EXPECT_EQ(wmb::read_file(out + "/folders/x/mine.txt"), "mine\n");
}

}  // namespace test_publish
