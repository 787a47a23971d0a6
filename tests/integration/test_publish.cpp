// `wmbench publish` end to end through the binary: a hostile folder (a chip name, an env value and
// a stop detail holding markup, a scenario name with "../", a folder name with <script>) is
// published as text, links planted in --out are refused with nothing written through them, and
// nothing is ever written outside --out; a second publish rewrites nothing, a new folder rewrites
// only what shows it, a folder taken away takes its files with it.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace test_publish {  // one namespace per test file: the unity build compiles 8 files as one

namespace fs = std::filesystem;
using nlohmann::json;
using wmbt::has;

namespace {

const std::string kResults = std::string(WMBENCH_SOURCE_DIR) + "/results";
const std::string kMarkup = "</td><script>alert(1)</script>";
const std::string kAttr = "0.8\"><img src=x onerror=alert(2)>";

void edit_json(const std::string& path, const std::function<void(json&)>& f) {
  json j = wmbt::read_json(path);
  f(j);
  wmbt::write(path, j.dump(1));
}

// A copy of a committed folder with markup in its chip name, one cell's env value and a stop
// detail, made consistent again by `wmbench report` so that `wmbench check` accepts it.
std::string hostile_folder(const std::string& parent, const std::string& name) {
  const std::string d = parent + "/" + name;
  fs::copy(kResults + "/2026-12-01-tune-check", d, fs::copy_options::recursive);
  edit_json(d + "/machine.json", [](json& j) { j["chip"] = "Chip" + kMarkup; });
  edit_json(d + "/scenario.json", [](json& j) {
    for (auto& c : j["matrix"])
      if (c["label"] == "answer-0.913") c["env"]["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = kAttr;
  });
  for (const auto& e : fs::directory_iterator(d + "/runs")) {
    if (e.path().extension() != ".json") continue;
    edit_json(e.path().string(), [](json& j) {
      if (j["label"] != "answer-0.913") return;
      j["env"]["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = kAttr;
      j["detail"] = "detail" + kMarkup;
    });
  }
  const auto r = wmbt::wmbench({"report", d});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto c = wmbt::wmbench({"check", d});
  EXPECT_EQ(c.status, 0) << c.out;
  return d;
}

// Every path under ROOT (files, folders, links), relative, with the size of regular files.
std::map<std::string, uintmax_t> tree(const std::string& root) {
  std::map<std::string, uintmax_t> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const auto rel = fs::relative(it->path(), root).string();
    out[rel] = it->is_regular_file() && !it->is_symlink() ? it->file_size() : 0;
  }
  return out;
}

std::string all_pages(const std::string& site) {
  std::string s;
  for (const auto& e : fs::recursive_directory_iterator(site))
    if (e.is_regular_file() && (e.path().extension() == ".html" || e.path().extension() == ".svg"))
      s += wmbt::slurp(e.path().string());
  return s;
}

}  // namespace

TEST(Publish, HostileFolderIsPublishedAsTextAndNothingIsWrittenOutsideOut) {
  wmbt::Tmp t;
  const std::string parent = t.path + "/in";
  fs::create_directories(parent);
  hostile_folder(parent, "evil");
  // A scenario name with "../" and a folder name with markup: `check` refuses them; named, skipped.
  const std::string dotdot = parent + "/dotdot";
  fs::copy(kResults + "/2026-12-01-tune-check", dotdot, fs::copy_options::recursive);
  edit_json(dotdot + "/scenario.json", [](json& j) { j["name"] = "../../escape"; });
  edit_json(dotdot + "/summary.json", [](json& j) { j["scenario"] = "../../escape"; });
  fs::create_directories(parent + "/x<script>alert(3)<");
  const auto before = tree(t.path);
  const std::string out = t.path + "/site";
  const auto r = wmbt::wmbench({"publish", parent, "--out", out});
  ASSERT_TRUE(r.status == 0 || r.status == 3) << r.err;  // 3: no python3 with matplotlib here
  EXPECT_TRUE(has(r.out, "1 folder (2 skipped)")) << r.out;
  EXPECT_TRUE(has(r.err, "skipped " + dotdot)) << r.err;
  // Nothing changed outside --out, nothing appeared there (no ../escape anywhere).
  auto after = tree(t.path);
  for (auto it = after.begin(); it != after.end();) it = it->first.rfind("site", 0) == 0 ? after.erase(it) : std::next(it);
  EXPECT_EQ(before, after);
  EXPECT_FALSE(fs::exists(t.path + "/escape.html"));
  EXPECT_FALSE(fs::exists(fs::path(t.path).parent_path() / "escape.html"));
  for (const auto& e : fs::directory_iterator(out))  // the charts' scratch folder is gone
    EXPECT_NE(e.path().filename().string().rfind(".wmbench-scratch", 0), 0u) << e.path();
  // The pages (and charts) hold the hostile strings only as text.
  const std::string pages = all_pages(out);
  EXPECT_FALSE(has(pages, "<script")) << "markup from a folder reached a page";
  EXPECT_FALSE(has(pages, "<img src=x"));
  EXPECT_FALSE(has(pages, "onerror=alert(2)>"));
  const std::string index = wmbt::slurp(out + "/index.html");
  EXPECT_TRUE(has(index, "Chip&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;")) << index.substr(0, 3000);
  EXPECT_TRUE(has(index, "x&lt;script&gt;alert(3)&lt;"));  // the skipped folder, named
  const std::string page = wmbt::slurp(out + "/folders/evil/index.html");
  EXPECT_TRUE(has(page, "0.8&quot;&gt;&lt;img src=x onerror=alert(2)&gt;")) << page;
  EXPECT_TRUE(has(page, "detail&lt;/td&gt;&lt;script&gt;"));
  // The raw files are copies, byte for byte (served by their extension, as text).
  EXPECT_EQ(wmbt::slurp(out + "/folders/evil/raw/machine.json"), wmbt::slurp(parent + "/evil/machine.json"));
}

TEST(Publish, LinksPlantedInOutAreRefusedAndNotWrittenThrough) {
  wmbt::Tmp t;
  const std::string parent = t.path + "/in";
  fs::create_directories(parent);
  fs::copy(kResults + "/2026-12-01-tune-check", parent + "/a", fs::copy_options::recursive);
  wmbt::write(t.path + "/victim", "keep");
  fs::create_directories(t.path + "/victim-dir");
  for (const std::string planted : {"index.html", "folders", "scenarios"}) {
    SCOPED_TRACE(planted);
    const std::string out = t.path + "/site-" + planted;
    fs::create_directories(out);
    if (planted == "index.html") fs::create_symlink(t.path + "/victim", out + "/" + planted);
    else fs::create_directory_symlink(t.path + "/victim-dir", out + "/" + planted);
    // index.html is written last, after the charts: their scratch folder goes all the same.
    std::vector<std::string> args = {"publish", parent, "--out", out};
    if (planted != "index.html") args.push_back("--no-charts");
    const auto r = wmbt::wmbench(args);
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_TRUE(has(r.err, out + "/" + planted)) << r.err;
    for (const auto& e : fs::directory_iterator(out))
      EXPECT_NE(e.path().filename().string().rfind(".wmbench-scratch", 0), 0u) << e.path();
    EXPECT_EQ(wmbt::slurp(t.path + "/victim"), "keep");
    EXPECT_TRUE(fs::is_empty(t.path + "/victim-dir"));
  }
}

TEST(Publish, RerunRewritesOnlyWhatChanged) {
  wmbt::Tmp t;
  const std::string parent = t.path + "/in";
  fs::create_directories(parent);
  fs::copy(kResults + "/2026-12-01-tune-check", parent + "/a", fs::copy_options::recursive);
  const std::string out = t.path + "/site";
  auto r = wmbt::wmbench({"publish", parent, "--out", out, "--no-charts", "--base-url", "https://example.org/w/"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(wmbt::slurp(out + "/index.html"), "href=\"https://example.org/w/index.html\""));
  struct stat s1 {};
  ::stat((out + "/folders/a/index.html").c_str(), &s1);
  r = wmbt::wmbench({"publish", parent, "--out", out, "--no-charts", "--base-url", "https://example.org/w/"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, " 0 files written")) << r.out;
  // A second folder: its page and the pages that show it are written, a's page is not.
  fs::copy(kResults + "/2026-12-01-tune-check", parent + "/b", fs::copy_options::recursive);
  r = wmbt::wmbench({"publish", parent, "--out", out, "--no-charts", "--base-url", "https://example.org/w/"});
  ASSERT_EQ(r.status, 0) << r.err;
  struct stat s2 {};
  ::stat((out + "/folders/a/index.html").c_str(), &s2);
  EXPECT_EQ(s1.st_ino, s2.st_ino);
  EXPECT_TRUE(fs::exists(out + "/folders/b/index.html"));
  EXPECT_FALSE(has(r.out, " 0 files written"));
  // b taken away: its files go, a user's own file in the site stays.
  wmbt::write(out + "/mine.txt", "mine");
  fs::remove_all(parent + "/b");
  r = wmbt::wmbench({"publish", parent, "--out", out, "--no-charts", "--base-url", "https://example.org/w/"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out + "/folders/b/index.html"));
  EXPECT_TRUE(fs::exists(out + "/mine.txt"));
  // Bad input: exit 2, nothing made.
  r = wmbt::wmbench({"publish", t.path + "/none", "--out", t.path + "/site2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(t.path + "/site2"));
  r = wmbt::wmbench({"publish", parent, "--out", parent + "/a/site", "--no-charts"});  // into a folder it publishes
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "is inside the result folder")) << r.err;
  EXPECT_FALSE(fs::exists(parent + "/a/site"));
  r = wmbt::wmbench({"publish", parent, "--out", t.path + "/site3", "--base-url", "javascript:alert(1)"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--base-url"));
}

}  // namespace test_publish
