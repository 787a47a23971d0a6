// `wmbench releases`' env cache trusts nothing it did not make (issue 40, classes B and C): a
// cached env another user owns or can write is not run, a planted install log (a link or a hard
// link) is not written through, a cache folder that is another user's link is not followed, and
// a program is found only where it was named (a relative --python/--base-python from the current
// folder, never ./uv from an empty PATH entry). Each case as root with decoys only.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli_util.h"
#include "standin_torch.h"

namespace test_releases_trust {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
namespace fs = std::filesystem;

namespace {

constexpr uid_t kNobody = 65534;

// --with-envs: these tests are about the environments, which mps-model otherwise does without
// (ReleasesIndex.OnTheModelNoEnvIsMade...).
const std::vector<std::string> kModel = {"--with-envs", "--scenario", "mps-watermark", "--device", "mps-model", "--recommended-max",
                                         "256MiB", "--cap", "384MiB", "--step", "16MiB"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string base_python() {
  static const std::string py = std::string(WMBENCH_TORCH_PYTHON).empty() ? find_on_path("python3") : WMBENCH_TORCH_PYTHON;
  return py;
}

struct Cache {
  Tmp t;
  std::string cache = t.path + "/cache", envs = cache + "/wmbench/envs", empty = t.path + "/empty", out = t.path + "/out";
  Cache() { fs::create_directories(empty); }
  RunOpts opts(double timeout = 120) const {
    RunOpts o;
    o.timeout = timeout;
    o.set_env["XDG_CACHE_HOME"] = cache;
    o.set_env["PIP_CONFIG_FILE"] = "/dev/null";
    o.unset_env = {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "WMBENCH_PYTHON_CHILD"};
    o.set_env["PATH"] = path_without_uv();  // no uv: pip's path, on every machine
    return o;
  }
  // releases 2.12 from an empty wheelhouse, on the model
  std::vector<std::string> args(const std::string& base) const {
    return cat({"releases", "2.12", "--out", out, "--base-python", base, "--find-links", empty, "--no-index"}, kModel);
  }
  // The key of the env a run asked for: the name of the one <key>.lock in the cache.
  std::string key() const {
    for (auto& e : fs::directory_iterator(envs)) {
      const std::string n = e.path().filename().string();
      if (n.size() > 5 && n.substr(n.size() - 5) == ".lock") return n.substr(0, n.size() - 5);
    }
    return "";
  }
};

void chown_tree(const std::string& dir, uid_t uid) {
  ASSERT_EQ(::lchown(dir.c_str(), uid, uid), 0);
  for (auto& e : fs::recursive_directory_iterator(dir)) ASSERT_EQ(::lchown(e.path().c_str(), uid, uid), 0) << e.path();
}

#define SKIP_UNLESS_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make files another user owns"

}  // namespace

// B: an env another user owns is not run as root (its bin/python never starts); one that root
// owns but every user can write (a case of the same class) neither; --refresh is named.
TEST(ReleasesCacheTrust, ACachedEnvAnotherUserOwnsOrCanWriteIsNotRun) {
  SKIP_UNLESS_ROOT();
  SKIP_WITHOUT_STANDINS();
  Cache c;
  const std::string wheels = c.t.path + "/wheels";
  auto w = run({WMBENCH_TORCH_PYTHON, "-I", std::string(WMBENCH_SOURCE_DIR) + "/tests/integration/standin_torch_wheel.py",
                "--version", "2.12.0", "--out", wheels});  // light: mps-model only probes it
  ASSERT_EQ(w.status, 0) << w.out << w.err;
  const auto args = cat({"releases", "2.12", "--base-python", WMBENCH_TORCH_PYTHON, "--find-links", wheels, "--no-index",
                         "--no-plots", "--only", "default"},
                        kModel);
  auto r = wmbench(cat(args, {"--out", c.out}), c.opts(300));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string env = c.envs + "/" + c.key();
  ASSERT_TRUE(fs::is_directory(env)) << env;
  // The env, as another user could leave it: theirs, with a bin/python of theirs.
  const std::string mark = c.t.path + "/ran";
  fs::remove(env + "/bin/python");
  script(env + "/bin", "python", "#!/bin/sh\ntouch " + mark + "\nexec " + std::string(WMBENCH_TORCH_PYTHON) + " \"$@\"\n");
  chown_tree(env, kNobody);
  r = wmbench(cat(args, {"--out", c.out + "2"}), c.opts(300));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "owned by user 65534")) << r.err;
  EXPECT_TRUE(has(r.err, "--refresh 2.12")) << r.err;
  EXPECT_FALSE(file_exists(mark)) << "the other user's bin/python ran";

  chown_tree(env, 0);
  ::chmod((env + "/bin/python").c_str(), 0777);
  r = wmbench(cat(args, {"--out", c.out + "3"}), c.opts(300));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "writable by every user")) << r.err;
  EXPECT_FALSE(file_exists(mark));
  EXPECT_FALSE(fs::exists(c.out + "3"));
}

// B: a planted <key>.install.log, a link or a hard link to a file of someone else's, is refused,
// never truncated nor written through.
TEST(ReleasesCacheTrust, APlantedInstallLogLinkOrHardLinkIsNotWrittenThrough) {
  Cache c;
  // A Python whose `-m venv` fails at once (it writes to the log first).
  const std::string py = script(c.t.path, "python3-novenv",
                                "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = venv ]; then echo 'venv failed here' >&2; exit 1; "
                                "fi; done\nexec " + base_python() + " \"$@\"\n");
  // A first run leaves <key>.lock and <key>.install.log (its venv failed): the names to plant.
  auto r = wmbench(c.args(py), c.opts());
  ASSERT_EQ(r.status, 2) << r.out << r.err;
  const std::string log = c.envs + "/" + c.key() + ".install.log";
  ASSERT_TRUE(file_exists(log)) << log;
  const std::string victim = c.t.path + "/victim";
  write(victim, "keep\n");
  fs::remove(log);
  fs::create_symlink(victim, log);
  r = wmbench(c.args(py), c.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "symbolic link")) << r.err;
  EXPECT_EQ(slurp(victim), "keep\n");

  fs::remove(log);
  fs::create_hard_link(victim, log);
  r = wmbench(c.args(py), c.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "hard links")) << r.err;
  EXPECT_EQ(slurp(victim), "keep\n");
  EXPECT_FALSE(fs::exists(c.out));
}

// B: $XDG_CACHE_HOME/wmbench as a link another user owns is not followed; an envs folder every
// user can write (the same class) is refused.
TEST(ReleasesCacheTrust, ACacheFolderThatIsAnotherUsersLinkOrWritableByAllIsRefused) {
  SKIP_UNLESS_ROOT();
  Cache c;
  const std::string elsewhere = c.t.path + "/elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(c.cache);
  fs::create_directory_symlink(elsewhere, c.cache + "/wmbench");
  ASSERT_EQ(::lchown((c.cache + "/wmbench").c_str(), kNobody, kNobody), 0);
  auto r = wmbench(c.args(base_python()), c.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "symbolic link owned by user 65534")) << r.err;
  EXPECT_FALSE(fs::exists(elsewhere + "/envs")) << "followed the other user's link";

  fs::remove(c.cache + "/wmbench");
  fs::create_directories(c.envs);
  ::chmod(c.envs.c_str(), 0777);
  r = wmbench(c.args(base_python()), c.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "writable by every user")) << r.err;
  EXPECT_FALSE(fs::exists(c.out));
}

// C: a relative --base-python is the one in the current folder (it used to be probed from "/").
TEST(ReleasesCacheTrust, ARelativeBasePythonIsFoundFromTheCurrentFolder) {
  Cache c;
  fs::create_directories(c.t.path + "/py");
  script(c.t.path + "/py", "python3", "#!/bin/sh\nexec " + base_python() + " \"$@\"\n");
  RunOpts o = c.opts();
  o.cwd = c.t.path;
  auto r = wmbench(c.args("py/python3"), o);
  EXPECT_EQ(r.status, 2) << r.out << r.err;  // the empty wheelhouse has no torch
  EXPECT_FALSE(has(r.err, "--base-python py/python3:")) << r.err;
  EXPECT_TRUE(has(r.out, "making the environment")) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "no torch wheel") || has(r.err, "is not in")) << r.err;
}

// C: README's own example, `--python venv/bin/python`, from the folder that holds venv/.
TEST(ReleasesCacheTrust, ARelativePythonEntryIsFoundFromTheCurrentFolder) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Cache c;
  fs::create_directories(c.t.path + "/venv/bin");
  script(c.t.path + "/venv/bin", "python", "#!/bin/sh\nexec " + std::string(WMBENCH_TORCH_PYTHON) + " \"$@\"\n");
  RunOpts o = c.opts(300);
  o.cwd = c.t.path;
  // --model-revision: Debian's torch is 1.13, which the table of revisions does not cover.
  auto r = wmbench(cat({"releases", "--python", "venv/bin/python", "--out", c.out, "--no-plots", "--only", "default",
                        "--model-revision", "current"},
                       kModel),
                   o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = read_json(only_result_dir(c.out) + "/releases.json");
  EXPECT_EQ(j["releases"][0]["python"], c.t.path + "/venv/bin/python") << j.dump(2);
}

// C: an empty PATH entry is not the current folder: a ./uv there is never found nor run.
TEST(ReleasesCacheTrust, AnEmptyPathEntryNeverFindsUvInTheCurrentFolder) {
  Cache c;
  const std::string mark = c.t.path + "/uv-ran";
  script(c.t.path, "uv", "#!/bin/sh\ntouch " + mark + "\nexit 9\n");
  RunOpts o = c.opts();
  o.cwd = c.t.path;
  o.set_env["PATH"] = ":" + path_without_uv();
  auto r = wmbench(c.args(base_python()), o);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_FALSE(has(r.out, "uv ./uv")) << r.out;
  EXPECT_FALSE(has(r.err, "./uv")) << r.err;
  EXPECT_TRUE(has(r.out, "-m venv + pip")) << r.out;
  EXPECT_FALSE(file_exists(mark));
}

#undef SKIP_UNLESS_ROOT  // this file's own macro: the unity build compiles other test files after it

}  // namespace test_releases_trust
