// Hostile input, round four (issue 40), end to end with the real binaries: a resumed folder never
// decides what runs, what is installed from where, which variables pass or how a verdict is
// reached (A: one gate for run, tune and releases), publish touches only what it wrote (D), `check`
// of a tune folder verifies what the site shows (E), an option given an empty value is refused
// everywhere and releases.md carries no raw HTML (F). Each listed case has a test; each class also
// has one of a case the issue did not list ("Unlisted").
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "cli_util.h"

namespace test_hostile_round4 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
namespace fs = std::filesystem;

namespace {

template <typename F>
void edit_json(const std::string& path, F edit) {
  auto j = read_json(path);
  edit(j);
  write(path, j.dump(2));
}

// Every path under ROOT, relative, with the size of regular files ("" when ROOT is missing).
std::map<std::string, uintmax_t> tree(const std::string& root) {
  std::map<std::string, uintmax_t> out;
  if (!fs::exists(root)) return out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
    out[fs::relative(it->path(), root).string()] = it->is_regular_file() && !it->is_symlink() ? it->file_size() : 0;
  return out;
}

// ---- releases: a folder of one --fill release on the model (no env, no index, no libtorch to
// start: cli_util.h's wmbench(); what is under test is the resume's gates, the same for any device)

struct Releases {
  Tmp t;
  std::string out = t.path + "/out", dir, release;
  Releases() {
    const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "mps-model", "step": "16MiB", "cap": "32MiB",
      "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
    // The build's torch (Debian's 1.13) predates the table of revisions: one is named.
    auto r = wmbench({"releases", "--fill", WMBENCH_FILL_BIN, "--scenario", sc, "--out", out, "--no-plots", "--model-revision",
                      "current"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    for (auto& e : fs::directory_iterator(out)) dir = e.path().string();
    const auto j = read_json(dir + "/releases.json");
    release = j["releases"][0]["folder"].get<std::string>();
  }
  // releases.json edited, its release planned again (so a resume would run it).
  template <typename F>
  void edit(F f) {
    edit_json(dir + "/releases.json", [&](nlohmann::json& j) {
      j["releases"][0]["state"] = "planned";
      f(j);
    });
  }
  Result resume(std::vector<std::string> more = {}) {
    std::vector<std::string> a = {"releases", "--resume", dir, "--fill", WMBENCH_FILL_BIN, "--no-plots"};
    a.insert(a.end(), more.begin(), more.end());
    return wmbench(a);
  }
  size_t run_files() const {
    size_t n = 0;
    if (fs::exists(dir + "/" + release + "/runs"))
      for (auto& e : fs::directory_iterator(dir + "/" + release + "/runs"))
        if (e.path().extension() == ".json") ++n;
    return n;
  }
};

std::string job_scenario(const std::string& dir) {
  return scenario(dir, "job", R"({"name": "job", "device": "cpu", "timeout": "60s",
    "matrix": [{"label": "a"}]})");
}

// A tune folder of a job that ends cleanly at every ratio (nothing to set: one probe).
std::string clean_tune_folder(const Tmp& t) {
  const auto job = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  return only_result_dir(t.path + "/out");
}

// A copy of a committed result folder that `check` accepts.
std::string result_copy(const std::string& parent, const std::string& name) {
  const std::string d = parent + "/" + name;
  fs::create_directories(parent);
  fs::copy(std::string(WMBENCH_SOURCE_DIR) + "/results/2026-12-01-tune-check", d, fs::copy_options::recursive);
  return d;
}

}  // namespace

// ---- A. a resumed folder never decides what runs, is installed, passes, or how a verdict is made

TEST(Hostile4A, AReleasesFileAllowEnvToleranceAndForceAreShownAndRefusedUntilNamedAgain) {
  Releases b;
  const size_t before = b.run_files();
  b.edit([](nlohmann::json& j) {
    j["run_options"]["allow_env"] = {"LD_PRELOAD"};
    j["run_options"]["tolerance_pct"] = 50;
    j["run_options"]["force"] = true;
  });
  auto r = b.resume();
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--allow-env: the folder has [\"LD_PRELOAD\"]")) << r.err;
  EXPECT_TRUE(has(r.err, "--allow-env LD_PRELOAD")) << r.err;
  EXPECT_TRUE(has(r.err, "--tolerance: the folder has 50")) << r.err;
  EXPECT_TRUE(has(r.err, "--force: the folder has true")) << r.err;
  EXPECT_EQ(b.run_files(), before) << "nothing ran";
  // Named again on the command line, the same values pass the gate.
  r = b.resume({"--allow-env", "LD_PRELOAD", "--tolerance", "50", "--force"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(has(r.err, "named again")) << r.err;
}

TEST(Hostile4A, AReleasesFileIndexIsNeverInstalledFromUntilNamedAgain) {
  Releases b;
  const std::string wheels = b.t.path + "/wheels";
  fs::create_directories(wheels);
  b.edit([&](nlohmann::json& j) {
    j["index"] = nlohmann::json::array({nlohmann::json::array({"--find-links", wheels}), nlohmann::json::array({"--no-index", ""})});
  });
  auto r = b.resume();
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--find-links " + wheels + " --no-index")) << r.err;
  r = b.resume({"--find-links", wheels, "--no-index"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(Hostile4A, ACommandInReleasesJsonOrInAReleaseFolderNeverRuns) {
  Releases b;
  const std::string marker = b.t.path + "/ran";
  const auto job = script(b.t.path, "job.sh", "#!/bin/sh\ntouch " + marker + "\n");
  // The release folder's own scenario.json names a command.
  edit_json(b.dir + "/" + b.release + "/scenario.json", [&](nlohmann::json& j) {
    j["program"] = "command";
    j["command"] = {job};
  });
  b.edit([](nlohmann::json&) {});
  auto r = b.resume();
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "runs a command of its own")) << r.err;
  EXPECT_FALSE(file_exists(marker)) << "the folder's command ran";
  // releases.json's scenario names one, and the release folder is gone (it would be made from it).
  fs::remove_all(b.dir + "/" + b.release);
  b.edit([&](nlohmann::json& j) {
    j["scenario"]["program"] = "command";
    j["scenario"]["command"] = {job};
  });
  r = b.resume();
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "runs a command of its own")) << r.err;
  EXPECT_FALSE(file_exists(marker)) << "the file's command ran";
}

TEST(Hostile4A, AReleaseFolderThatIsALinkIsRefusedNeverFollowedNorWrittenThrough) {
  Releases b;
  const std::string elsewhere = b.t.path + "/elsewhere";
  fs::rename(b.dir + "/" + b.release, elsewhere);
  fs::create_directory_symlink(elsewhere, b.dir + "/" + b.release);
  b.edit([](nlohmann::json&) {});
  const auto before = tree(elsewhere);
  auto r = b.resume();
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "a symbolic link")) << r.err;
  EXPECT_EQ(tree(elsewhere), before) << "nothing written through the link";
}

// Unlisted: tune's search policy decides its answer; an edited tune.json tolerance is shown and
// refused until named again, as releases' --tolerance.
TEST(Hostile4A, UnlistedATuneJsonToleranceIsShownAndRefusedUntilNamedAgain) {
  Tmp t;
  const std::string dir = clean_tune_folder(t);
  edit_json(dir + "/tune.json", [](nlohmann::json& j) { j["tolerance_bytes"] = uint64_t{100} << 30; });
  auto r = wmbench({"tune", "--resume", dir, "--command", "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--tolerance: the folder has 107374182400")) << r.err;
  EXPECT_TRUE(has(r.err, "--tolerance 107374182400")) << r.err;
  r = wmbench({"tune", "--resume", dir, "--command", "--no-plots", "--tolerance", "107374182400"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// ---- D. publish touches only what it wrote ----------------------------------------------------

TEST(Hostile4D, AnEditedManifestNeverRemovesFilesWmbenchDidNotWrite) {
  Tmp t;
  const std::string site = t.path + "/site";
  const std::string folder = result_copy(t.path + "/in", "a");
  fs::create_directories(site + "/.git");
  write(site + "/CNAME", "example.org\n");
  write(site + "/.git/config", "[core]\n");
  write(site + "/.wmbench-site.json", R"({"wmbench_site": 1, "files": ["CNAME", ".git/config"], "charts": {}})");
  auto r = wmbench({"publish", folder, "--out", site, "--no-charts"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(file_exists(site + "/CNAME"));
  EXPECT_TRUE(file_exists(site + "/.git/config"));
  EXPECT_TRUE(file_exists(site + "/index.html"));
}

TEST(Hostile4D, AFirstPublishIntoAFolderWithTheUsersIndexHtmlRefusesAndWritesNothing) {
  Tmp t;
  const std::string site = t.path + "/site";
  const std::string folder = result_copy(t.path + "/in", "a");
  fs::create_directories(site);
  write(site + "/index.html", "<html>my own page</html>\n");
  auto r = wmbench({"publish", folder, "--out", site, "--no-charts"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, site + "/index.html")) << r.err;
  EXPECT_EQ(slurp(site + "/index.html"), "<html>my own page</html>\n");
  EXPECT_FALSE(file_exists(site + "/folders")) << "nothing written";
}

TEST(Hostile4D, OneFolderWithAnOversizedTraceIsSkippedAndNamedTheRestIsPublished) {
  Tmp t;
  const std::string big = result_copy(t.path + "/in", "big");
  result_copy(t.path + "/in", "small");
  const std::string trace = big + "/runs/01-answer-0.913.trace.jsonl";
  ASSERT_EQ(::truncate(trace.c_str(), off_t{65} << 20), 0);  // sparse: 65 MiB on paper
  ASSERT_EQ(wmbench({"check", big}).status, 0) << "check accepts it (it does not read traces)";
  auto r = wmbench({"publish", t.path + "/in", "--out", t.path + "/site", "--no-charts"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "skipped " + big)) << r.err;
  EXPECT_TRUE(has(r.err, "01-answer-0.913.trace.jsonl")) << r.err;
  EXPECT_TRUE(file_exists(t.path + "/site/index.html"));
  EXPECT_TRUE(file_exists(t.path + "/site/folders/small/index.html"));
  EXPECT_FALSE(file_exists(t.path + "/site/folders/big"));
}

TEST(Hostile4D, MatplotlibsCacheStaysInsideOut) {
  Tmp t;
  const std::string folder = result_copy(t.path + "/in", "a");
  const std::string home = t.path + "/home", xdg = t.path + "/xdg";
  fs::create_directories(home);
  fs::create_directories(xdg);
  RunOpts o;
  o.set_env["HOME"] = home;
  o.set_env["XDG_CACHE_HOME"] = xdg;
  o.set_env["XDG_CONFIG_HOME"] = xdg;
  o.unset_env = {"MPLCONFIGDIR"};
  o.timeout = 600;
  auto r = wmbench({"publish", folder, "--out", t.path + "/site"}, o);
  if (has(r.err, "no python3 with matplotlib")) GTEST_SKIP() << "no python with matplotlib here";
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // Nothing (the font cache, fontlist-*.json, matplotlib's config folder) outside --out: the probe
  // for a python with matplotlib (tools/locate.cpp) imports nothing, and the charts' matplotlib
  // keeps its config and cache in a work area inside --out.
  for (const std::string& root : {home, xdg})
    for (const auto& [rel, size] : tree(root)) ADD_FAILURE() << "written outside --out: " << root << "/" << rel;
  for (const auto& [rel, size] : tree(t.path + "/site")) EXPECT_FALSE(has(rel, "scratch")) << rel << ": the work area is removed";
}

// Unlisted: a user's file inside folders/ that the manifest lists (with a hash of other content)
// is not wmbench's: kept.
TEST(Hostile4D, UnlistedAUsersFileInsideFoldersThatTheManifestListsIsKept) {
  Tmp t;
  const std::string site = t.path + "/site";
  const std::string folder = result_copy(t.path + "/in", "a");
  fs::create_directories(site + "/folders/old");
  write(site + "/folders/old/notes.txt", "mine\n");
  write(site + "/.wmbench-site.json", R"({"wmbench_site": 1, "files": ["folders/old/notes.txt"],
    "hashes": {"folders/old/notes.txt": "0000000000000000"}, "charts": {}})");
  auto r = wmbench({"publish", folder, "--out", site, "--no-charts"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(slurp(site + "/folders/old/notes.txt"), "mine\n");
  // What wmbench wrote is still removed when its folder is no longer published.
  auto again = wmbench({"publish", result_copy(t.path + "/in2", "b"), "--out", site, "--no-charts"});
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_FALSE(file_exists(site + "/folders/a/index.html")) << "the page of a folder no longer published is removed";
  EXPECT_TRUE(file_exists(site + "/folders/b/index.html"));
  EXPECT_EQ(slurp(site + "/folders/old/notes.txt"), "mine\n");
}

// ---- E. check of a tune folder verifies what the site shows -----------------------------------

TEST(Hostile4E, EditedSaidHeldLimitAndSwapInTuneJsonAreRefusedByCheck) {
  Tmp t;
  const std::string dir = clean_tune_folder(t);
  ASSERT_EQ(wmbench({"check", dir}).status, 0);
  const nlohmann::json original = read_json(dir + "/tune.json");
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> edits = {
      {"\"said\"", [](nlohmann::json& j) { j["said"] = "Set HIGH 1.9 (LOW 1.9): safe."; }},
      {"probes[0].held_bytes", [](nlohmann::json& j) { j["probes"][0]["held_bytes"] = uint64_t{1} << 40; }},
      {"probes[0].max_allowed_bytes", [](nlohmann::json& j) { j["probes"][0]["max_allowed_bytes"] = uint64_t{64} << 30; }},
      {"probes[0].swap_growth_bytes", [](nlohmann::json& j) { j["probes"][0]["swap_growth_bytes"] = 0 - 1; }},
  };
  for (const auto& [key, f] : edits) {
    nlohmann::json j = original;
    f(j);
    write(dir + "/tune.json", j.dump(2));
    auto r = wmbench({"check", dir});
    EXPECT_NE(r.status, 0) << key << ": " << r.out;
    EXPECT_TRUE(has(r.out + r.err, key)) << key << ": " << r.out << r.err;
  }
}

TEST(Hostile4E, UnlistedEditedPeakAndMaxSettingsAreRefusedAndAnUnknownKeyIsNoted) {
  Tmp t;
  const std::string dir = clean_tune_folder(t);
  const nlohmann::json original = read_json(dir + "/tune.json");
  nlohmann::json j = original;
  j["probes"][0]["peak_footprint_bytes"] = uint64_t{3} << 30;
  write(dir + "/tune.json", j.dump(2));
  auto r = wmbench({"check", dir});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out + r.err, "probes[0].peak_footprint_bytes")) << r.out << r.err;
  j = original;
  j["max_settings"] = 99;
  write(dir + "/tune.json", j.dump(2));
  r = wmbench({"check", dir});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out + r.err, "\"max_settings\"")) << r.out << r.err;
  j = original;
  j["answer_for_everyone"] = "HIGH 2.0";
  write(dir + "/tune.json", j.dump(2));
  r = wmbench({"check", dir});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out + r.err, "answer_for_everyone")) << r.out << r.err;
}

// ---- F. an empty value is refused for every option; releases.md carries no raw HTML -----------

TEST(Hostile4F, PublishOutEqualsEmptyNeverTakesTheNextArgument) {
  Tmp t;
  const std::string a = result_copy(t.path + "/in", "a");
  const std::string b = result_copy(t.path + "/in", "b");
  const auto before = tree(b);
  auto r = wmbench({"publish", a, "--out=", b, "--no-charts"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--out=: an empty value is not allowed")) << r.err;
  EXPECT_EQ(tree(b), before) << "nothing written into the result folder B";
}

TEST(Hostile4F, UnlistedRunCapEqualsEmptyIsRefusedBeforeAnyFolder) {
  Tmp t;
  const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "cpu", "step": "16MiB", "cap": "32MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = wmbench({"run", sc, "--cap=", "64MiB", "--out", t.path + "/out", "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--cap=")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out"));
  // After "--" the words are the command's own: `--x=` there is not wmbench's option.
  const auto job = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  r = wmbench({"guard", "--", job, "--x="});
  EXPECT_FALSE(has(r.err, "an empty value is not allowed")) << r.err;
}

TEST(Hostile4F, ReleasesMdEscapesRawHtmlFromATorchVersion) {
  Tmp t;
  // A --python whose torch says a version holding markup (the probe's one JSON line).
  const auto py = script(t.path, "python", R"(#!/bin/sh
echo '{"python": "3.11.2", "executable": "/x/python", "torch": "2.12.0<script>alert(1)</script>", "file": "/x/torch/__init__.py"}'
)");
  const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "mps-model", "step": "16MiB", "cap": "64MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = wmbench({"releases", "--python", py, "--fill", WMBENCH_FILL_BIN, "--scenario", sc, "--recommended-max", "256MiB",
                    // the fill links Debian's torch 1.13, which the revision table does not cover (issue 45)
                    "--model-revision", "current", "--out", t.path + "/out", "--no-plots"});
  ASSERT_TRUE(fs::exists(t.path + "/out")) << r.out << r.err;
  std::string dir;
  for (auto& e : fs::directory_iterator(t.path + "/out")) dir = e.path().string();
  ASSERT_TRUE(file_exists(dir + "/releases.md")) << r.out << r.err;
  const std::string md = slurp(dir + "/releases.md");
  EXPECT_FALSE(has(md, "<script>")) << md;
  EXPECT_TRUE(has(md, "&lt;script>")) << md;
}

// ---- Doubtful, decided: a bad run option leaves no releases folder behind ---------------------

TEST(Hostile4Doubtful, AReleasesRunWithAnUnknownOnlyLabelLeavesNoFolder) {
  Tmp t;
  const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "cpu", "step": "16MiB", "cap": "32MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = wmbench({"releases", "--fill", WMBENCH_FILL_BIN, "--scenario", sc, "--only", "nosuch", "--out", t.path + "/out",
                    "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "nosuch")) << r.err;
  EXPECT_TRUE(tree(t.path + "/out").empty()) << "no releases folder left behind";
}

}  // namespace test_hostile_round4
