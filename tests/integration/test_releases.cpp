// `wmbench releases` end to end, with no package index: stand-in torch wheels built here
// (tests/integration/standin_torch_wheel.py: a pure-Python `torch` of a given __version__, light on
// mps-model, else loading Debian's python3-torch) in a local wheelhouse, real venvs made by the real pip into a
// cache under a temp XDG_CACHE_HOME, the real runner per release. Nothing here reaches the internet.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "cli_util.h"
#include "releases/torch_version.h"
#include "standin_torch.h"

namespace test_releases {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
namespace fs = std::filesystem;

namespace {

struct Bench {
  Tmp t;
  std::string cache = t.path + "/cache", wheels = t.path + "/wheels", out = t.path + "/out";

  // The stand-ins load the real torch only where a test fills with the release's torch (`real`, or
  // a --limit); on mps-model, where it is only probed, a light one imports in milliseconds.
  bool real = false;
  void wheel(const std::string& version, uint64_t limit = 0, const std::string& says = "", uint64_t pad = 0,
             const std::vector<std::string>& more = {}) {
    std::vector<std::string> a = {WMBENCH_TORCH_PYTHON, "-I", std::string(WMBENCH_SOURCE_DIR) + "/tests/integration/standin_torch_wheel.py",
                                  "--version", version, "--out", wheels};
    if (real || limit) a.insert(a.end(), {"--real", real_torch_init()});
    if (limit) a.insert(a.end(), {"--limit", std::to_string(limit)});
    if (!says.empty()) a.insert(a.end(), {"--says", says});
    if (pad) a.insert(a.end(), {"--pad", std::to_string(pad)});
    a.insert(a.end(), more.begin(), more.end());
    auto r = run(a);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }
  RunOpts opts(double timeout = 600) const {
    RunOpts o;
    o.timeout = timeout;
    o.set_env["XDG_CACHE_HOME"] = cache;
    o.set_env["PIP_CONFIG_FILE"] = "/dev/null";  // the machine's pip.conf and PIP_* stay out
    o.set_env["PIP_RETRIES"] = "1";  // one retry: pip says why it could not connect only when it retries
    o.unset_env = {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "WMBENCH_PYTHON_CHILD"};
    o.set_env["PATH"] = path_without_uv();  // the installer chosen here: pip (no uv), on every machine
    // The model child runs without libtorch: cli_util.h's wmbench() sets that for every test.
    return o;
  }
  // The offline wheelhouse, and the interpreter that makes the envs.
  std::vector<std::string> index() const {
    return {"--base-python", WMBENCH_TORCH_PYTHON, "--find-links", wheels, "--no-index"};
  }
  std::string envs() const { return cache + "/wmbench/envs"; }
  std::vector<std::string> env_dirs() const {
    std::vector<std::string> v;
    if (!fs::exists(envs())) return v;
    for (auto& e : fs::directory_iterator(envs()))
      if (e.is_directory()) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }
  std::string only_releases_dir() const {
    std::vector<std::string> v;
    if (fs::exists(out))
      for (auto& e : fs::directory_iterator(out)) v.push_back(e.path().string());
    return v.size() == 1 ? v[0] : "";
  }
};

// The model, small: a 256 MiB recommended max, 16 MiB steps, a 384 MiB cap.
// --with-envs: these tests are about the environments, which mps-model otherwise does without
// (ReleasesIndex.OnTheModelNoEnvIsMade...).
const std::vector<std::string> kModel = {"--with-envs", "--scenario", "mps-watermark", "--device", "mps-model", "--recommended-max",
                                         "256MiB", "--cap", "384MiB", "--step", "16MiB"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string made_utc(const std::string& env) { return read_json(env + "/wmbench-env.json")["made_utc"]; }

}  // namespace

// The issue's done-when: two stand-in releases from a local wheelhouse on mps-model: a releases
// folder, a chart, exit 0; the revision of each release from the table; two cached envs, reused
// by a second call; --refresh remakes one; --model-revision wins over the table.
TEST(ReleasesStandIns, TwoReleasesOnTheModelGiveAFolderAChartAndExit0AndTheirEnvsAreCached) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.11.0");
  b.wheel("2.12.0");
  auto r = wmbench(cat(cat({"releases", "2.12", "2.11", "--out", b.out}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // A wheelhouse with --no-index: pip reads local files only, so no dry run is asked what it fetches.
  EXPECT_TRUE(has(r.out, "to download for torch 2.12 (torch==2.12.*): nothing (--no-index: only the local --find-links folders)"))
      << r.out;
  const std::string dir = b.only_releases_dir();
  ASSERT_FALSE(dir.empty()) << r.out;
  EXPECT_NE(dir.find("-releases-mps-watermark"), std::string::npos) << dir;
  const auto j = read_json(dir + "/releases.json");
  ASSERT_EQ(j["releases"].size(), 2u);
  // ordered by version, not as given
  EXPECT_EQ(j["releases"][0]["torch_version"], "2.11.0");
  EXPECT_EQ(j["releases"][1]["torch_version"], "2.12.0");
  EXPECT_EQ(j["releases"][0]["model_revision"], "private-pool");
  EXPECT_EQ(j["releases"][1]["model_revision"], "shared-pool");
  EXPECT_EQ(j["releases"][0]["model_revision_from"], "table");
  EXPECT_EQ(j["releases"][1]["torch_git_version"], "0123456789abcdef0123456789abcdef01234567");
  for (const char* f : {"torch-2.11.0", "torch-2.12.0"}) {
    EXPECT_TRUE(file_exists(dir + "/" + f + "/summary.json")) << f;
    EXPECT_EQ(read_json(dir + "/" + f + "/summary.json")["runs"].size(), 6u) << f;
  }
  EXPECT_EQ(read_json(dir + "/torch-2.11.0/machine.json")["model"]["revision"], "private-pool");
  EXPECT_EQ(read_json(dir + "/torch-2.12.0/machine.json")["model"]["revision"], "shared-pool");
  ASSERT_EQ(j["neighbours"].size(), 1u);
  EXPECT_EQ(j["neighbours"][0]["exit_code"], 0) << j["neighbours"].dump(2);
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_TRUE(file_exists(dir + "/compare-torch-2.11.0-to-torch-2.12.0.md"));
  EXPECT_TRUE(has(slurp(dir + "/releases.md"), "torch 2.11.0 (private-pool)")) << slurp(dir + "/releases.md");
  if (!real_python_with_matplotlib().empty()) {  // no matplotlib: the chart is said as not drawn (RunCharts.*)
    EXPECT_TRUE(file_exists(dir + "/plots/releases.png")) << r.out << r.err;
    EXPECT_TRUE(file_exists(dir + "/plots/releases.svg"));
  }
  // two envs, complete, nothing half-made beside them
  const auto envs = b.env_dirs();
  ASSERT_EQ(envs.size(), 2u) << r.out;
  EXPECT_TRUE(has(envs[0], "torch-2.11-py")) << envs[0];
  EXPECT_TRUE(has(envs[1], "torch-2.12-py")) << envs[1];
  for (auto& e : fs::directory_iterator(b.envs())) EXPECT_FALSE(has(e.path().filename().string(), ".tmp-")) << e.path();
  const std::string e11 = b.envs() + "/" + envs[0], e12 = b.envs() + "/" + envs[1];
  const std::string m11 = made_utc(e11), m12 = made_utc(e12);

  // A second call reuses both; --model-revision names one revision for all.
  fs::remove_all(b.out);
  r = wmbench(cat(cat({"releases", "2.11", "2.12", "--out", b.out, "--no-plots", "--model-revision", "current", "--only", "high-1.0-low-1.0"}, kModel), b.index()),
              b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(has(r.out, "making the environment")) << r.out;
  EXPECT_EQ(made_utc(e11), m11);
  EXPECT_EQ(made_utc(e12), m12);
  const auto j2 = read_json(b.only_releases_dir() + "/releases.json");
  EXPECT_EQ(j2["releases"][0]["model_revision"], "current");
  EXPECT_EQ(j2["releases"][1]["model_revision_from"], "--model-revision");

  // --refresh 2.12 remakes that one only.
  fs::remove_all(b.out);
  ::sleep(1);  // made_utc has one-second resolution
  r = wmbench(cat(cat({"releases", "2.11", "2.12", "--out", b.out, "--no-plots", "--refresh", "2.12", "--only", "high-1.0-low-1.0"}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(made_utc(e11), m11);
  EXPECT_NE(made_utc(e12), m12);
  EXPECT_EQ(b.env_dirs().size(), 2u);
}

// A stand-in whose allocator says another max allowed: exit 1, naming the setting and both
// releases, compared by version (2.9 before 2.12, whatever the order given).
TEST(ReleasesStandIns, AReleaseWhoseChildReportsAnotherMaxAllowedIsARegressionNamingTheSettingAndBothReleases) {
  SKIP_WITHOUT_STANDINS();
  SKIP_WITHOUT_PYTHON_TORCH();
  Bench b;
  b.wheel("2.9.0", 256ull << 20);
  b.wheel("2.12.0", 192ull << 20);
  const std::string sc = scenario(b.t.path, "one", R"({"name": "one", "device": "cpu", "step": "32MiB", "cap": "512MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  RunOpts o = b.opts();
  const std::string imports = b.t.path + "/imports.log";
  o.set_env["WMBENCH_STANDIN_IMPORT_LOG"] = imports;
  auto r = wmbench(cat({"releases", "2.12", "2.9", "--scenario", sc, "--out", b.out, "--no-plots"}, b.index()), o);
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  // torch is imported once per release to check its env (`-c`), then once per cell (the Python
  // child): the release's run makes its child from that check, not from another import.
  size_t checks = 0, fills = 0, others = 0;
  std::istringstream in(slurp(imports));
  for (std::string line; std::getline(in, line);) (line == "-c" ? checks : has(line, "wmbench_fill.py") ? fills : others)++;
  EXPECT_EQ(checks, 2u) << slurp(imports);
  EXPECT_EQ(fills, 2u) << slurp(imports);
  EXPECT_EQ(others, 0u) << slurp(imports);
  EXPECT_TRUE(has(r.out, "2.9.0 -> 2.12.0: REGRESSION")) << r.out;
  EXPECT_TRUE(has(r.out, "setting default: ")) << r.out;
  EXPECT_TRUE(has(r.out, "max allowed 256.00 MiB -> 192.00 MiB")) << r.out;
  const std::string dir = b.only_releases_dir();
  const auto j = read_json(dir + "/releases.json");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["neighbours"][0]["base_torch"], "2.9.0");
  EXPECT_EQ(j["neighbours"][0]["new_torch"], "2.12.0");
  // The Python child ran under each release's env and recorded its torch.
  const auto m = read_json(dir + "/torch-2.12.0/machine.json");
  EXPECT_EQ(m["child"]["kind"], "python");
  EXPECT_TRUE(has(m["child"]["python"]["path"].get<std::string>(), "/wmbench/envs/torch-2.12-py")) << m["child"].dump();
  EXPECT_EQ(m["torch_version"], "2.12.0");
  const auto s = read_json(dir + "/torch-2.9.0/summary.json");
  EXPECT_EQ(s["runs"][0]["stopped_by"], "pytorch") << s["runs"][0].dump(2);
  EXPECT_EQ(s["runs"][0]["max_allowed_bytes"], 256ull << 20);
}

// --resume: the releases that did not run (state not done) run; the done ones stay as they are.
TEST(ReleasesStandIns, ResumeRunsOnlyTheReleasesThatDidNotFinish) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.11.0");
  b.wheel("2.13.0");
  auto r = wmbench(cat(cat({"releases", "2.11", "2.13", "--out", b.out, "--no-plots", "--only", "default,high-0.5-low-0.5"}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = b.only_releases_dir();
  // As a session stopped before its second release leaves it.
  auto j = read_json(dir + "/releases.json");
  j["releases"][1]["state"] = "planned";
  j.erase("neighbours");
  write(dir + "/releases.json", j.dump(2));
  fs::remove_all(dir + "/torch-2.13.0");
  const auto first = fs::last_write_time(dir + "/torch-2.11.0/summary.json");
  // The wheelhouse is named again (issue 40: a file never decides what is installed from where).
  r = wmbench({"releases", "--resume", dir, "--no-plots", "--base-python", WMBENCH_TORCH_PYTHON}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--find-links " + b.wheels + " --no-index")) << r.err;
  r = wmbench(cat({"releases", "--resume", dir, "--no-plots"}, b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "release torch 2.11.0: done before")) << r.out;
  EXPECT_TRUE(file_exists(dir + "/torch-2.13.0/summary.json"));
  EXPECT_EQ(fs::last_write_time(dir + "/torch-2.11.0/summary.json"), first);
  const auto j2 = read_json(dir + "/releases.json");
  EXPECT_EQ(j2["releases"][1]["state"], "done");
  EXPECT_EQ(j2["releases"][1]["model_revision"], "shared-pool");
  EXPECT_EQ(j2["neighbours"].size(), 1u);
  // A resumed folder takes no new releases.
  r = wmbench({"releases", "--resume", dir, "2.14"}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
}

TEST(ReleasesBadInput, AnUnknownVersionNamesTheVersionsThereAndLeavesNothing) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.11.0");
  auto r = wmbench(cat(cat({"releases", "2.11", "2.99", "--out", b.out}, kModel), b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "torch 2.99 (torch==2.99.*) is not in")) << r.err;
  EXPECT_TRUE(has(r.err, "the versions there for Python 3.")) << r.err;
  EXPECT_TRUE(has(r.err, ": 2.11.0")) << r.err;
  EXPECT_FALSE(fs::exists(b.out)) << "no releases folder before every release is ready";
  for (const auto& e : b.env_dirs()) EXPECT_FALSE(has(e, "2.99")) << e;
  for (auto& e : fs::directory_iterator(b.envs())) EXPECT_FALSE(has(e.path().filename().string(), ".tmp-")) << e.path();
}

TEST(ReleasesBadInput, AWheelThatImportsAnotherTorchIsRefusedAndNotCached) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.13.0", 0, "2.12.0");
  auto r = wmbench(cat(cat({"releases", "2.13", "--out", b.out}, kModel), b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "imports torch 2.12.0")) << r.err;
  EXPECT_TRUE(has(r.err, "nothing was cached")) << r.err;
  EXPECT_TRUE(b.env_dirs().empty());
  EXPECT_FALSE(fs::exists(b.out));
}

TEST(ReleasesBadInput, NoReachableIndexIsSaidWithWhatToDo) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  // A port nothing listens on: the connection is refused at once.
  auto r = wmbench(cat({"releases", "2.12", "--out", b.out, "--base-python", WMBENCH_TORCH_PYTHON, "--index-url",
                        "http://127.0.0.1:9/simple"},
                       kModel),
                   b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "could not reach its index (--index-url http://127.0.0.1:9/simple)")) << r.err;
  EXPECT_TRUE(has(r.err, "--find-links")) << r.err;
  EXPECT_TRUE(b.env_dirs().empty());
  EXPECT_FALSE(fs::exists(b.out));
}

TEST(ReleasesBadInput, APythonWithoutVenvIsSaidWithWhatToInstall) {
  Bench b;
  // Debian's python3 without python3-venv, as it answers `-m venv`.
  const std::string py = script(b.t.path, "python3-novenv",
                                "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = venv ]; then echo 'The virtual environment was "
                                "not created successfully because ensurepip is not available.' >&2; exit 1; fi; done\nexec " +
                                    find_on_path("python3") + " \"$@\"\n");
  auto r = wmbench(cat({"releases", "2.12", "--out", b.out, "--base-python", py, "--find-links", b.t.path, "--no-index"}, kModel),
                   b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "cannot make a virtual environment")) << r.err;
  EXPECT_TRUE(has(r.err, "python3-venv")) << r.err;
  EXPECT_TRUE(b.env_dirs().empty());
  EXPECT_FALSE(fs::exists(b.out));
}

TEST(ReleasesBadInput, AVersionThatIsNotOneIsRefusedBeforeAnythingRuns) {
  Bench b;
  for (const char* v : {"2.12; rm -rf /", "$(id)", "latest", "2", "-2.12", "2.12.0.0.0"}) {
    auto r = wmbench(cat({"releases", v, "--out", b.out}, kModel), b.opts());
    EXPECT_EQ(r.status, 2) << v << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "not a torch version") || has(r.err, "the following argument")) << v << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(b.cache));
  EXPECT_FALSE(fs::exists(b.out));
}

// Ctrl-C while an env is being made: exit 130, the half-made env removed. A second run that wants
// the same env meanwhile waits at most its --lock-wait, then is refused (exit 2), naming who holds it.
TEST(ReleasesBadInput, CtrlCDuringAnInstallLeavesNoHalfMadeEnvAndASecondRunIsRefusedMeanwhile) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0");
  const std::string marker = b.t.path + "/in-venv";
  // The real interpreter, whose `-m venv` step is slowed down: it makes the venv, says so, then waits.
  const std::string py = script(b.t.path, "slow-python",
                                "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = venv ]; then " + std::string(WMBENCH_TORCH_PYTHON) +
                                    " \"$@\" || exit 1; touch " + marker + "; sleep 60; exit 0; fi; done\nexec " +
                                    WMBENCH_TORCH_PYTHON + " \"$@\"\n");
  std::vector<std::string> args = cat({"releases", "2.12", "--out", b.out, "--base-python", py, "--find-links", b.wheels, "--no-index"}, kModel);
  RunOpts o = b.opts(120);
  Result second;
  o.while_running = [&](pid_t pid) {
    ASSERT_TRUE(wait_for([&] { return file_exists(marker); }, 60));
    second = wmbench(cat(args, {"--lock-wait", "2s"}), b.opts(60));
    ::kill(pid, SIGINT);
  };
  auto r = wmbench(args, o);
  EXPECT_EQ(r.status, 130) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "interrupted by SIGINT")) << r.err;
  EXPECT_TRUE(has(r.err, "nothing was cached")) << r.err;
  EXPECT_EQ(second.status, 2) << second.out << second.err;
  EXPECT_TRUE(has(second.err, "is being made by pid")) << second.err;
  EXPECT_TRUE(has(second.out, "waiting for it (at most 2")) << second.out;
  EXPECT_TRUE(has(second.err, "waited 2")) << second.err;
  EXPECT_TRUE(has(second.err, "XDG_CACHE_HOME")) << second.err;
  EXPECT_TRUE(b.env_dirs().empty()) << "no half-made env";
  for (auto& e : fs::directory_iterator(b.envs())) EXPECT_FALSE(has(e.path().filename().string(), ".tmp-")) << e.path();
  EXPECT_FALSE(fs::exists(b.out));
}

// A disk that fills while a wheel unpacks (a 16 MiB tmpfs as the cache, as root; the stand-in
// carries 24 MiB of random bytes): said as such, exit 2, nothing left on it.
TEST(ReleasesBadInput, ADiskThatFillsWhileAnEnvIsMadeIsSaidAndNothingIsLeft) {
  SKIP_WITHOUT_STANDINS();
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs as the cache";
  Bench b;
  b.wheel("2.12.0", 0, "", 24ull << 20);
  fs::create_directories(b.cache);
  if (run({"/bin/mount", "-t", "tmpfs", "-o", "size=16M", "tmpfs", b.cache}).status != 0)
    GTEST_SKIP() << "mount -t tmpfs failed here (a container without CAP_SYS_ADMIN)";
  struct Unmount {
    std::string p;
    ~Unmount() { run({"/bin/umount", "-l", p}); }
  } unmount{b.cache};
  auto r = wmbench(cat(cat({"releases", "2.12", "--out", b.out}, kModel), b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "the disk filled")) << r.err;
  EXPECT_TRUE(b.env_dirs().empty());
  for (auto& e : fs::directory_iterator(b.envs())) EXPECT_FALSE(has(e.path().filename().string(), ".tmp-")) << e.path();
  EXPECT_FALSE(fs::exists(b.out));
}

// Entries beside versions: an interpreter you already have (--python) and a wmbench-fill built
// against some libtorch (--fill); no env is made, each is ordered by the torch it says.
TEST(ReleasesStandIns, PythonAndFillEntriesAreReleasesOrderedByTheTorchTheySay) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Bench b;
  const std::string sc = scenario(b.t.path, "one", R"({"name": "one", "device": "cpu", "step": "16MiB", "cap": "64MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = wmbench({"releases", "--fill", WMBENCH_FILL_BIN, "--python", WMBENCH_TORCH_PYTHON, "--scenario", sc, "--out", b.out,
                    "--no-plots"},
                   b.opts());
  const auto j = read_json(b.only_releases_dir() + "/releases.json");
  ASSERT_EQ(j["releases"].size(), 2u) << r.out << r.err;
  // Ordered by the version each says, whatever the machine's torch: Debian's 1.13.0a0 (a pre-release)
  // before the C++ headers' 1.13.0; a pip torch's 2.11.0 (the headers) before its 2.11.0+cu130 (issue
  // 45, item 7: the order is PEP 440's, not one kind before the other).
  const std::string v0 = j["releases"][0]["torch_version"], v1 = j["releases"][1]["torch_version"];
  EXPECT_LE(wmb::releases::compare_versions(v0, v1), 0) << v0 << " before " << v1;
  EXPECT_NE(j["releases"][0]["request"]["kind"], j["releases"][1]["request"]["kind"]);
  EXPECT_LT(v0.size(), 24u);
  for (int i : {0, 1}) {
    const std::string kind = j["releases"][i]["request"]["kind"];
    EXPECT_EQ(read_json(b.only_releases_dir() + "/" + j["releases"][i]["folder"].get<std::string>() + "/machine.json")["child"]["kind"],
              kind == "python" ? "python" : "native");
  }
  // The same libtorch under both children: compare says no regression.
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(fs::exists(b.cache)) << "no env for an entry that brings its own torch";
  // --resume runs no program named in releases.json: the entries are named again, or refused.
  r = wmbench({"releases", "--resume", b.only_releases_dir(), "--no-plots"}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "a program named in a file is not run")) << r.err;
  r = wmbench({"releases", "--resume", b.only_releases_dir(), "--no-plots", "--fill", WMBENCH_FILL_BIN, "--python", WMBENCH_TORCH_PYTHON},
              b.opts());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "done before")) << r.out;
}

// uv on PATH makes the envs: `uv venv --python BASE DIR`, then `uv pip install --python
// DIR/bin/python REQ INDEX-OPTIONS...`, each an argv. A stand-in uv records its argv and does the
// same with venv and pip (no uv here).
TEST(ReleasesStandIns, UvOnPathMakesTheEnvWithTheIndexOptionsAsArgv) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0");
  const std::string bin = b.t.path + "/bin", log = b.t.path + "/uv.log";
  fs::create_directories(bin);
  const std::string py = WMBENCH_TORCH_PYTHON;
  script(bin, "uv",
         "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log +
             // uv's own .lock in the env, writable by every user as real uv makes it (seen with 0.11.15)
             "\nif [ \"$1\" = venv ]; then " + py + " -m venv --without-pip \"$4\" || exit 1; : > \"$4/.lock\"; "
             "chmod 0777 \"$4/.lock\"; exit 0; fi\n"
             "if [ \"$1\" = pip ]; then target=\"$4\"; shift 4; exec " + py + " -m pip --python \"$target\" install \"$@\"; fi\nexit 9\n");
  RunOpts o = b.opts();
  o.set_env["PATH"] = bin + ":/usr/bin:/bin";
  auto r = wmbench(cat(cat({"releases", "2.12", "--out", b.out, "--no-plots", "--only", "default"}, kModel), b.index()), o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string calls = slurp(log);
  EXPECT_TRUE(has(calls, "venv --python " + py + " ")) << calls;
  EXPECT_TRUE(has(calls, "pip install --python ")) << calls;
  EXPECT_TRUE(has(calls, "torch==2.12.* --find-links " + b.wheels + " --no-index")) << calls;
  const auto j = read_json(b.only_releases_dir() + "/releases.json");
  EXPECT_EQ(j["releases"][0]["env"]["installer"], "uv");
  // Made writable by its owner only before anything of the env ran, so the env is used again.
  const auto envs = b.env_dirs();
  ASSERT_EQ(envs.size(), 1u);
  struct stat st;
  ASSERT_EQ(::stat((b.envs() + "/" + envs[0] + "/.lock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 022, 0u) << std::oct << st.st_mode;
  fs::remove_all(b.out);
  r = wmbench(cat(cat({"releases", "2.12", "--out", b.out, "--no-plots", "--only", "default"}, kModel), b.index()), o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "(cached)")) << r.out;
}

// Issue 45, item 5: the messages and the cases they are about.

// A second run that wants the env another run is making waits for it (bounded), then uses it.
TEST(ReleasesMessages, ASecondRunWaitsForTheEnvAnotherRunIsMakingThenUsesIt) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0");
  const std::string marker = b.t.path + "/in-venv";
  const std::string py = script(b.t.path, "slow-python",
                                "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = venv ]; then " + std::string(WMBENCH_TORCH_PYTHON) +
                                    " \"$@\" || exit 1; touch " + marker + "; sleep 3; exit 0; fi; done\nexec " +
                                    WMBENCH_TORCH_PYTHON + " \"$@\"\n");
  const std::vector<std::string> rest = cat({"--find-links", b.wheels, "--no-index", "--no-plots", "--only", "default"}, kModel);
  RunOpts o = b.opts(300);
  Result second;
  o.while_running = [&](pid_t) {
    ASSERT_TRUE(wait_for([&] { return file_exists(marker); }, 60));
    second = wmbench(cat({"releases", "2.12", "--out", b.t.path + "/out2", "--base-python", WMBENCH_TORCH_PYTHON}, rest), b.opts(300));
  };
  auto r = wmbench(cat({"releases", "2.12", "--out", b.out, "--base-python", py}, rest), o);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_TRUE(has(second.out, "is being made by pid")) << second.out;
  EXPECT_TRUE(has(second.out, "waiting for it")) << second.out;
  EXPECT_TRUE(has(second.out, "(cached)")) << second.out;
  EXPECT_EQ(b.env_dirs().size(), 1u);
}

// No wheel for this Python: said as such, with the Python's tag and --base-python (not "not in the index").
TEST(ReleasesMessages, NoWheelForThisPythonNamesItsTagAndBasePython) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0", 0, "", 0, {"--tag", "cp39-cp39-manylinux1_x86_64"});
  auto r = wmbench(cat(cat({"releases", "2.12", "--out", b.out}, kModel), b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "no torch wheel for this Python and machine (Python 3.")) << r.err;
  EXPECT_TRUE(has(r.err, "(cp3")) << r.err;
  EXPECT_TRUE(has(r.err, "give --base-python")) << r.err;
  EXPECT_FALSE(fs::exists(b.out));
}

// A cached env whose interpreter vanished (its base Python removed or upgraded): made again, saying why.
TEST(ReleasesMessages, ACachedEnvWhoseInterpreterVanishedIsMadeAgain) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0");
  const std::vector<std::string> args = cat(cat({"releases", "2.12", "--out", b.out, "--no-plots", "--only", "default"}, kModel), b.index());
  auto r = wmbench(args, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  ASSERT_EQ(b.env_dirs().size(), 1u);
  const std::string py = b.envs() + "/" + b.env_dirs()[0] + "/bin/python";
  fs::remove(py);
  fs::create_symlink("/nonexistent/python3.11", py);
  fs::remove_all(b.out);
  r = wmbench(args, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "its interpreter /nonexistent/python3.11 is gone")) << r.out;
  EXPECT_TRUE(has(r.out, "made again")) << r.out;
}

// The same release asked twice (2.12 and 2.12.0 are one torch here): one env, one run.
TEST(ReleasesMessages, TheSameReleaseAskedTwiceMakesOneEnvAndOneRun) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.12.0");
  auto r = wmbench(cat(cat({"releases", "2.12", "2.12.0", "2.12", "--out", b.out, "--no-plots", "--only", "default"}, kModel), b.index()),
                   b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(b.env_dirs().size(), 1u);
  EXPECT_EQ(read_json(b.only_releases_dir() + "/releases.json")["releases"].size(), 1u);
  EXPECT_TRUE(has(r.out, "release 2.12.0: the same as 2.12 (torch 2.12.0)")) << r.out;
}

// pip installs into a new env as `pip --python ENV_PY` would, but started in the env's python
// directly (pip's __pip-runner__.py, as the base python names it): the base python is not asked
// for a `-m pip --python` install. A runner answer that is not an absolute plain file (here a link
// to the real one) is not run: that pip is asked through --python, and the env is made the same.
// The same start of the base python reads pip's configuration (the index settings an env is keyed
// by) as `pip config list` prints it, which is then not started; where that answer is "unknown"
// (lie), `pip config list` is asked, with the same result.
TEST(ReleasesMessages, PipRunsInTheEnvsPythonThroughItsRunnerAndAnUnusableRunnerAnswerFallsBackToPython) {
  SKIP_WITHOUT_STANDINS();
  for (const bool lie : {false, true}) {
    SCOPED_TRACE(lie ? "a link as the runner, the configuration unknown" : "the runner as pip names it");
    Bench b;
    b.wheel("2.12.0");
    const std::string log = b.t.path + "/base-python.log", link = b.t.path + "/runner-link.py";
    const std::string real = WMBENCH_TORCH_PYTHON;
    // The base python: logs each call, and (lie) answers wmbench's pip question with a link as
    // the runner (line 2) and "-- config unknown" for the configuration.
    const std::string py = script(
        b.t.path, "base-python",
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log + "\ncase \"$*\" in *__pip-runner__*)\n" +
            (lie ? "  r=$(" + real + " \"$@\") || exit 1\n  ln -sf \"$(printf '%s\\n' \"$r\" | sed -n 2p)\" " + link +
                       "\n  printf '%s\\n' \"$r\" | head -n 1\n  echo " + link + "\n  echo '-- config unknown'\n  exit 0;;\n"
                 : std::string("  ;;\n")) +
            "esac\nexec " + real + " \"$@\"\n");
    // A pip configuration with index settings (the same wheelhouse the command line names).
    const std::string conf = b.t.path + "/pip.conf";
    write(conf, "[global]\ntimeout = 30\n[install]\nno-index = true\nfind-links = " + b.wheels + "\n");
    RunOpts o = b.opts();
    o.set_env["PIP_CONFIG_FILE"] = conf;
    auto r = wmbench(cat({"releases", "2.12", "--prepare-only", "--base-python", py, "--find-links", b.wheels, "--no-index"}, kModel),
                     o);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    ASSERT_EQ(b.env_dirs().size(), 1u) << r.out;
    const std::string calls = slurp(log);
    EXPECT_TRUE(has(calls, "__pip-runner__")) << calls;
    EXPECT_EQ(has(calls, "-m pip --python"), lie) << calls;
    EXPECT_EQ(has(calls, "-m pip config list"), lie) << calls;
    if (lie) EXPECT_TRUE(fs::is_symlink(link)) << "the link was planted: " << calls;
    // The env is keyed by what `pip config list` says of the index, either way.
    auto listed = run({real, "-I", "-m", "pip", "config", "list"}, o);
    ASSERT_EQ(listed.status, 0) << listed.err;
    nlohmann::json want = nlohmann::json::array();
    std::istringstream in(listed.out);
    for (std::string line; std::getline(in, line);)
      for (const char* k : {"index-url", "extra-index-url", "find-links", "no-index", ".pre="})
        if (has(line, k)) {
          want.push_back(line);
          break;
        }
    ASSERT_EQ(want.size(), 2u) << listed.out;
    const auto m = read_json(b.envs() + "/" + b.env_dirs()[0] + "/wmbench-env.json");
    EXPECT_EQ(m["identity"]["pip_config"], want) << m["identity"].dump(2);
  }
}

// --resume compares what each release ran under: another wheel of the same version is refused.
TEST(ReleasesMessages, ResumeUnderAnotherWheelOfTheSameVersionIsRefused) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.11.0");
  b.wheel("2.13.0");
  auto r = wmbench(cat(cat({"releases", "2.11", "2.13", "--out", b.out, "--no-plots", "--only", "default"}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = b.only_releases_dir();
  auto j = read_json(dir + "/releases.json");
  j["releases"][1]["state"] = "planned";
  j.erase("neighbours");
  write(dir + "/releases.json", j.dump(2));
  fs::remove_all(dir + "/torch-2.13.0");
  // The wheelhouse now holds another build of 2.11.0 (another git hash), and its env is remade.
  fs::remove(b.wheels + "/torch-2.11.0-py3-none-any.whl");
  b.wheel("2.11.0", 0, "", 0, {"--git", "fedcba9876543210fedcba9876543210fedcba98"});
  // The wheelhouse is named again: a resume installs only from what the command line names (issue 40, A).
  r = wmbench(cat({"releases", "--resume", dir, "--no-plots", "--refresh", "2.11"}, b.index()),
              b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "git fedcba9876543210fedcba9876543210fedcba98, the folder ran git 0123456789abcdef")) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/torch-2.13.0"));
}

// Issue 45, item 3: torch.cuda.is_available() (torch.backends.mps.is_available() on mps) is asked
// of every release before the first fill: a release that cannot run the device is refused before
// any folder, not found after the ones before it ran.
TEST(ReleasesMessages, AReleaseThatCannotRunTheDeviceIsRefusedBeforeAnyRun) {
  SKIP_WITHOUT_STANDINS();
  if (run({WMBENCH_TORCH_PYTHON, "-I", "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"}).status == 0)
    GTEST_SKIP() << "this machine's torch has CUDA: the stand-ins (which load it) can run device cuda";
  Bench b;
  b.real = true;  // the Python child's checks for device cuda, on the real torch
  b.wheel("2.11.0");
  b.wheel("2.12.0");
  const std::string sc = scenario(b.t.path, "one", R"({"name": "one", "device": "cuda", "step": "16MiB", "cap": "64MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = wmbench(cat({"releases", "2.11", "2.12", "--scenario", sc, "--out", b.out, "--no-plots"}, b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "release 2.11 (torch 2.11.0 under ")) << r.err;
  EXPECT_TRUE(has(r.err, "torch.cuda.is_available() is False")) << r.err;
  EXPECT_FALSE(fs::exists(b.out)) << "a folder before every release was checked";
  // Device mps: the Python child's own check (torch.mps with current_allocated_memory, which
  // Debian's 1.13 under the stand-ins lacks), from what the release's probe found.
  const std::string mps = scenario(b.t.path, "mps", R"({"name": "mps", "device": "mps", "step": "16MiB", "cap": "64MiB",
    "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  r = wmbench(cat({"releases", "2.12", "--scenario", mps, "--out", b.out, "--no-plots"}, b.index()), b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "device mps needs torch 2.0 or newer with torch.backends.mps and torch.mps")) << r.err;
  EXPECT_TRUE(has(r.err, "torch.backends.mps present, torch.mps missing or without current_allocated_memory")) << r.err;
  EXPECT_FALSE(fs::exists(b.out));
}

// Issue 45: --prepare-only makes every env and stops (no folder, no run); --list-envs shows the
// cache (release, torch, size, in use, leftovers); --prune keeps the versions named, removes the
// rest and the leftovers, and never an env a run holds.
TEST(ReleasesStandIns, PrepareOnlyMakesTheEnvsListEnvsShowsThemAndPruneKeepsWhatIsNamedOrHeld) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  b.wheel("2.11.0");
  b.wheel("2.12.0");
  auto r = wmbench(cat(cat({"releases", "2.11", "2.12", "--out", b.out, "--prepare-only"}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "2 release(s) ready, nothing run")) << r.out;
  EXPECT_TRUE(has(r.out, "(made now)")) << r.out;
  EXPECT_FALSE(fs::exists(b.out)) << "--prepare-only made a folder";
  const auto envs = b.env_dirs();
  ASSERT_EQ(envs.size(), 2u) << r.out;
  r = wmbench(cat(cat({"releases", "2.11", "2.12", "--out", b.out, "--prepare-only"}, kModel), b.index()), b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "(cached)")) << r.out;
  EXPECT_FALSE(has(r.out, "(made now)")) << r.out;

  // A build that died leaves .tmp-KEY-PID; the list says it, with each env's torch and size.
  const std::string leftover = b.envs() + "/.tmp-" + envs[0] + "-99999";
  fs::create_directories(leftover + "/lib");
  write(leftover + "/lib/half.py", std::string(4096, 'x'));
  r = wmbench({"releases", "--list-envs"}, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, envs[0]) && has(r.out, envs[1])) << r.out;
  EXPECT_TRUE(has(r.out, "2.11.0") && has(r.out, "2.12.0")) << r.out;
  EXPECT_TRUE(has(r.out, "left by a build that did not finish")) << r.out;
  EXPECT_TRUE(has(r.out, "3 environment(s)")) << r.out;

  // A run holds 2.11's env (its lock, shared): --prune keeps it, says so and exits 1.
  const std::string lock = b.envs() + "/" + envs[0] + ".lock";
  ASSERT_TRUE(file_exists(lock)) << lock;
  {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_SH), 0);
    r = wmbench({"releases", "--prune", "2.12"}, b.opts());
    ::close(fd);
  }
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "kept " + envs[0] + ": a run holds it now")) << r.out;
  EXPECT_TRUE(fs::exists(b.envs() + "/" + envs[0]));
  EXPECT_TRUE(has(r.out, "kept " + envs[1])) << r.out;
  EXPECT_TRUE(fs::exists(leftover)) << "the leftover of 2.11's key is under the same lock";

  // Free now: 2.11's env and the leftover go, 2.12 (named) stays.
  r = wmbench({"releases", "--prune", "2.12"}, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "removed " + envs[0])) << r.out;
  EXPECT_TRUE(has(r.out, "2 removed")) << r.out;
  EXPECT_FALSE(fs::exists(b.envs() + "/" + envs[0]));
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_EQ(b.env_dirs(), std::vector<std::string>{envs[1]});
  // Nothing named: every env goes; then the cache is empty.
  r = wmbench({"releases", "--prune"}, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(b.env_dirs().empty());
  r = wmbench({"releases", "--list-envs"}, b.opts());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "No cached environments")) << r.out;
  // The cache commands take nothing else.
  r = wmbench({"releases", "--list-envs", "2.12"}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  r = wmbench({"releases", "--prune", "--python", "python3"}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  // --prune keeps by version (every build of it), so a VERSION@VARIANT is refused, saying which to give.
  r = wmbench({"releases", "--prune", "2.12@cpu"}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "it keeps by version, every build of it: give 2.12")) << r.err;
}

}  // namespace test_releases
