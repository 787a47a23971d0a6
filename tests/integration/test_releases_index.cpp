// `wmbench releases` against a real PEP 503 index on 127.0.0.1 (local_index.h: pip's own index
// path), with stand-in wheels (standin_torch_wheel.py): an env is reused only for the same torch
// from the same place (issue 45, item 1): the index, the installer and the Python are in its key
// and checked on reuse, and a newer matching release on the index is said.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli_util.h"
#include "local_index.h"
#include "standin_torch.h"

namespace test_releases_index {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
namespace fs = std::filesystem;

namespace {

// --with-envs: these tests are about the environments, which mps-model otherwise does without
// (ReleasesIndex.OnTheModelNoEnvIsMade...).
const std::vector<std::string> kModel = {"--with-envs", "--scenario", "mps-watermark", "--device", "mps-model", "--recommended-max",
                                         "256MiB", "--cap", "384MiB", "--step", "16MiB", "--only", "default", "--no-plots"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Bench {
  Tmp t;
  std::string cache = t.path + "/cache", build = t.path + "/build";
  int outs = 0;
  // A stand-in wheel of `version` (its file name carries a local part as given: 2.12.0+cpu).
  std::string wheel(const std::string& version) {
    auto r = run({WMBENCH_TORCH_PYTHON, "-I", std::string(WMBENCH_SOURCE_DIR) + "/tests/integration/standin_torch_wheel.py",
                  "--version", version, "--out", build});  // light: mps-model only probes it (standin_torch_wheel.py)
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::string p = r.out;
    while (!p.empty() && p.back() == '\n') p.pop_back();
    return p;
  }
  RunOpts opts() const {
    RunOpts o;
    o.timeout = 300;
    o.set_env["XDG_CACHE_HOME"] = cache;
    o.set_env["PIP_CONFIG_FILE"] = "/dev/null";
    o.set_env["PATH"] = path_without_uv();  // no uv: pip's path, on every machine
    o.unset_env = {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "WMBENCH_PYTHON_CHILD"};
    return o;
  }
  // releases VERSION --index-url URL into a fresh --out; returns the result and sets `dir`.
  Result releases(const std::string& version, const std::string& url, std::string& dir, const RunOpts& o) {
    const std::string out = t.path + "/out" + std::to_string(++outs);
    auto r = wmbench(cat({"releases", version, "--out", out, "--base-python", WMBENCH_TORCH_PYTHON, "--index-url", url}, kModel), o);
    dir = only_result_dir(out);
    return r;
  }
  std::vector<std::string> envs() const {
    std::vector<std::string> v;
    const std::string root = cache + "/wmbench/envs";
    if (fs::exists(root))
      for (auto& e : fs::directory_iterator(root))
        if (e.is_directory() && e.path().filename().string()[0] != '.') v.push_back(e.path().string());
    std::sort(v.begin(), v.end());
    return v;
  }
};

}  // namespace

// An env made from one index (PyTorch's /whl/cpu, here 2.12.0+cpu) is not reused for a request to
// another (a CUDA index, 2.12.0+cu130), nor for another installer (a stand-in uv); a marker whose
// identity was changed by hand makes the env be made again.
TEST(ReleasesIndex, AnEnvIsReusedOnlyForTheSameIndexAndInstaller) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex cpu(WMBENCH_TORCH_PYTHON, b.t.path + "/cpu"), cuda(WMBENCH_TORCH_PYTHON, b.t.path + "/cu130");
  ASSERT_TRUE(cpu.ready() && cuda.ready()) << "python3 -m http.server did not start";
  cpu.add(b.wheel("2.12.0+cpu"));
  cuda.add(b.wheel("2.12.0+cu130"));
  std::string dir;
  auto r = b.releases("2.12", cpu.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = read_json(dir + "/releases.json");
  EXPECT_EQ(j["releases"][0]["torch_version"], "2.12.0+cpu");
  EXPECT_EQ(j["releases"][0]["variant"], "cpu");
  EXPECT_EQ(j["releases"][0]["env"]["identity"]["index"][1], cpu.url()) << j.dump(2);

  r = b.releases("2.12", cuda.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  j = read_json(dir + "/releases.json");
  EXPECT_EQ(j["releases"][0]["torch_version"], "2.12.0+cu130") << "the cpu env was reused for another index";
  EXPECT_EQ(j["releases"][0]["variant"], "cu130");
  EXPECT_EQ(b.envs().size(), 2u);

  // The same index again: reused.
  r = b.releases("2.12", cpu.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "(cached)")) << r.out;
  EXPECT_EQ(read_json(dir + "/releases.json")["releases"][0]["torch_version"], "2.12.0+cpu");

  // Another installer: a stand-in uv that checks its argv, then makes the env with venv and pip.
  const std::string bin = b.t.path + "/bin", py = WMBENCH_TORCH_PYTHON;
  fs::create_directories(bin);
  script(bin, "uv",
         "#!/bin/sh\nif [ \"$1\" = venv ] && [ \"$2\" = --python ]; then exec " + py + " -m venv --without-pip \"$4\"; fi\n"
         "if [ \"$1 $2 $3\" = 'pip install --python' ]; then target=\"$4\"; shift 4; exec " + py +
             " -m pip --python \"$target\" install \"$@\"; fi\nexit 9\n");
  RunOpts o = b.opts();
  o.set_env["PATH"] = bin + ":/usr/bin:/bin";
  r = b.releases("2.12", cpu.url(), dir, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "making the environment")) << "the pip env was reused for uv: " << r.out;
  EXPECT_EQ(read_json(dir + "/releases.json")["releases"][0]["env"]["installer"], "uv");
  EXPECT_EQ(b.envs().size(), 3u);

  // A marker whose identity is not this run's: made again, saying why.
  std::string cpu_env;
  for (const auto& e : b.envs())
    if (read_json(e + "/wmbench-env.json")["torch_version"] == "2.12.0+cpu" &&
        read_json(e + "/wmbench-env.json")["installer"] == "pip")
      cpu_env = e;
  ASSERT_FALSE(cpu_env.empty());
  auto m = read_json(cpu_env + "/wmbench-env.json");
  m["identity"]["index"][1] = "http://127.0.0.1:9/elsewhere";
  write(cpu_env + "/wmbench-env.json", m.dump());
  r = b.releases("2.12", cpu.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "made by another installer, index or Python")) << r.out;
}

// "2.12" is the newest 2.12.x of the day its env was made: when the index has a newer one now, the
// run says so plainly (and which it uses), and --refresh takes it.
TEST(ReleasesIndex, ANewerMatchingReleaseOnTheIndexIsSaid) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex idx(WMBENCH_TORCH_PYTHON, b.t.path + "/index");
  ASSERT_TRUE(idx.ready());
  idx.add(b.wheel("2.12.0"));
  std::string dir;
  auto r = b.releases("2.12", idx.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(has(r.out, "NEWER RELEASE")) << r.out;
  idx.add(b.wheel("2.12.1"));
  r = b.releases("2.12", idx.url(), dir, b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "NEWER RELEASE: --index-url " + idx.url() + " now has torch 2.12.1")) << r.out;
  EXPECT_TRUE(has(r.out, "--refresh 2.12 takes 2.12.1")) << r.out;
  EXPECT_EQ(read_json(dir + "/releases.json")["releases"][0]["torch_version"], "2.12.0");
  r = wmbench(cat({"releases", "2.12", "--out", b.t.path + "/outR", "--base-python", WMBENCH_TORCH_PYTHON, "--index-url",
                   idx.url(), "--refresh", "2.12"},
                  kModel),
              b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_json(only_result_dir(b.t.path + "/outR") + "/releases.json")["releases"][0]["torch_version"], "2.12.1");
}

// Provenance (issue 45): each release's packages (its freeze), the wheels of its install with their
// file names and sha256 and the index, in releases.json and provenance/<folder>.txt; the verdict
// names what changed between neighbours; `wmbench check` verifies it and finds an edit.
TEST(ReleasesIndex, EachReleaseRecordsItsPackagesWheelsAndIndexAndCheckVerifiesThem) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex idx(WMBENCH_TORCH_PYTHON, b.t.path + "/index");
  ASSERT_TRUE(idx.ready());
  idx.add(b.wheel("2.11.0"));
  idx.add(b.wheel("2.12.0"));
  const std::string whl = idx.files() + "/torch-2.12.0-py3-none-any.whl";
  auto h = run({WMBENCH_TORCH_PYTHON, "-I", "-c", "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())", whl});
  std::string sha = h.out;
  while (!sha.empty() && sha.back() == '\n') sha.pop_back();
  const std::string out = b.t.path + "/out";
  auto r = wmbench(cat({"releases", "2.11", "2.12", "--out", out, "--base-python", WMBENCH_TORCH_PYTHON, "--index-url", idx.url()}, kModel),
                   b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The download size, said before the download (pip's --dry-run --report, then each wheel's size).
  EXPECT_TRUE(has(r.out, "to download for torch 2.12 (torch==2.12.*): 1 wheel(s), ")) << r.out;
  const std::string dir = only_result_dir(out);
  const auto j = read_json(dir + "/releases.json");
  const auto& p = j["releases"][1]["provenance"];
  ASSERT_TRUE(p.is_object()) << j.dump(2);
  EXPECT_EQ(p["packages"]["torch"], "2.12.0");
  EXPECT_EQ(p["index"], nlohmann::json({"--index-url", idx.url()}));
  ASSERT_TRUE(p["wheels"].is_array() && p["wheels"].size() == 1) << p.dump(2);
  EXPECT_EQ(p["wheels"][0]["file"], "torch-2.12.0-py3-none-any.whl");
  EXPECT_EQ(p["wheels"][0]["sha256"], sha);
  EXPECT_EQ(p["installer"], "pip");
  EXPECT_EQ(slurp(dir + "/provenance/torch-2.12.0.txt"), "torch==2.12.0\n");
  EXPECT_TRUE(has(slurp(dir + "/releases.md"), "packages bumped: torch 2.11.0 -> 2.12.0")) << slurp(dir + "/releases.md");
  EXPECT_EQ(j["neighbours"][0]["packages"][0], "bumped: torch 2.11.0 -> 2.12.0");

  auto c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  // An edited freeze file, and an edited hash: each found.
  write(dir + "/provenance/torch-2.12.0.txt", "torch==2.12.0\nevil==1.0\n");
  c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_TRUE(has(c.out, "provenance/torch-2.12.0.txt does not hold the packages")) << c.out;
  write(dir + "/provenance/torch-2.12.0.txt", "torch==2.12.0\n");
  auto edited = j;
  edited["releases"][1]["provenance"]["wheels"][0]["sha256"] = "not-a-hash";
  write(dir + "/releases.json", edited.dump(2));
  c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_TRUE(has(c.out, "sha256 is not 64 hex digits")) << c.out;
}

// --installer (issue 45, item 4): uv reads neither pip.conf nor PIP_*, and takes the first index
// that has a package: wmbench passes pip's configured index to it as --index-url and, with an
// extra index, pip's rule (--index-strategy unsafe-best-match). A stand-in uv records its argv
// (no uv here) and makes the env with venv and pip. --installer pip keeps uv out though it is on PATH.
TEST(ReleasesIndex, InstallerUvIsGivenPipsIndexAndRuleAndInstallerPipLeavesUvOut) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex idx(WMBENCH_TORCH_PYTHON, b.t.path + "/index"), extra(WMBENCH_TORCH_PYTHON, b.t.path + "/extra");
  ASSERT_TRUE(idx.ready() && extra.ready());
  idx.add(b.wheel("2.12.0"));
  const std::string bin = b.t.path + "/bin", log = b.t.path + "/uv.log", py = WMBENCH_TORCH_PYTHON;
  fs::create_directories(bin);
  script(bin, "uv",
         "#!" + py + " -I\nimport os, sys\nopen(" + nlohmann::json(log).dump() + ", 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
         "a = sys.argv[1:]\nPY = " + nlohmann::json(py).dump() + "\n"
         "if a[:2] == ['venv', '--python']:\n    os.execv(PY, [PY, '-m', 'venv', '--without-pip', a[3]])\n"
         "if a[:3] == ['pip', 'install', '--python']:\n    rest, out, i = a[4:], [], 0\n"
         "    while i < len(rest):\n        if rest[i] == '--index-strategy':\n            i += 2\n            continue\n"
         "        out.append(rest[i])\n        i += 1\n"
         "    os.execv(PY, [PY, '-m', 'pip', '--python', a[3], 'install'] + out)\nsys.exit(9)\n");
  RunOpts o = b.opts();
  o.set_env["PATH"] = bin + ":/usr/bin:/bin";
  o.unset_env.erase(std::remove(o.unset_env.begin(), o.unset_env.end(), "PIP_INDEX_URL"), o.unset_env.end());
  o.set_env["PIP_INDEX_URL"] = idx.url();
  const std::string out1 = b.t.path + "/o1";
  auto r = wmbench(cat({"releases", "2.12", "--installer", "uv", "--out", out1, "--base-python", py}, kModel), o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(slurp(log), "pip install --python ")) << slurp(log);
  EXPECT_TRUE(has(slurp(log), "torch==2.12.* --index-url " + idx.url())) << slurp(log);
  EXPECT_TRUE(has(r.out, "uv reads neither pip.conf nor PIP_*")) << r.out;
  EXPECT_EQ(read_json(only_result_dir(out1) + "/releases.json")["releases"][0]["env"]["installer"], "uv");

  const std::string out2 = b.t.path + "/o2";
  r = wmbench(cat({"releases", "2.12", "--installer", "uv", "--out", out2, "--base-python", py, "--index-url", idx.url(),
                   "--extra-index-url", extra.url()},
                  kModel),
              o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(slurp(log), "--extra-index-url " + extra.url() + " --index-strategy unsafe-best-match")) << slurp(log);

  const std::string calls = slurp(log), out3 = b.t.path + "/o3";
  r = wmbench(cat({"releases", "2.12", "--installer", "pip", "--out", out3, "--base-python", py}, kModel), o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(slurp(log), calls) << "uv ran under --installer pip";
  EXPECT_EQ(read_json(only_result_dir(out3) + "/releases.json")["releases"][0]["env"]["installer"], "pip");
  // --installer uv without uv: refused before anything.
  o.set_env["PATH"] = path_without_uv();
  r = wmbench(cat({"releases", "2.12", "--installer", "uv", "--out", b.t.path + "/o4", "--base-python", py}, kModel), o);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--installer uv: no uv")) << r.err;
}

// Issue 45, item 2: on Linux without an NVIDIA GPU and with no index chosen, the envs take PyTorch's
// CPU wheels, not PyPI's CUDA ones (~2.8 GB a release). A stand-in uv records where it was sent and
// stops there (nothing is downloaded).
TEST(ReleasesIndex, WithoutAGpuAndWithNoIndexChosenTheCpuWheelsAreTaken) {
  if (!kLinux) GTEST_SKIP() << "Linux only: a Mac's default wheels are its own";
  if (file_exists("/dev/nvidiactl")) GTEST_SKIP() << "this machine has an NVIDIA GPU: PyPI's CUDA wheels are right here";
  Bench b;
  const std::string bin = b.t.path + "/bin", log = b.t.path + "/uv.log", py = find_on_path("python3");
  fs::create_directories(bin);
  script(bin, "uv",
         "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log + "\nif [ \"$1\" = venv ]; then exec " + py +
             " -m venv --without-pip \"$4\"; fi\nexit 9\n");
  RunOpts o = b.opts();
  o.set_env["PATH"] = bin + ":/usr/bin:/bin";
  auto r = wmbench(cat({"releases", "2.12", "--installer", "uv", "--out", b.t.path + "/o", "--base-python", py}, kModel), o);
  EXPECT_EQ(r.status, 2) << r.out << r.err;  // the stand-in installs nothing
  EXPECT_TRUE(has(r.out, "no NVIDIA GPU here and no index chosen: CPU wheels from https://download.pytorch.org/whl/cpu")) << r.out;
  EXPECT_TRUE(has(slurp(log), "torch==2.12.* --index-url https://download.pytorch.org/whl/cpu")) << slurp(log);
}

// VERSION@[CHANNEL/]VARIANT (issue 45): one command takes each release from PyTorch's index of its
// build, here a local server laid out as https://download.pytorch.org/whl is (cpu/, test/cpu/,
// nightly/cpu/, cu130/), given as --variant-index-root: a release, its candidate (the same final
// version number from test/, a second env and folder) and a nightly (a dev version, --pre) side by
// side; an index serving another build than its name is refused; a resume under another root is
// refused, naming it.
TEST(ReleasesIndex, AVersionAtVariantComesFromPyTorchsIndexOfThatBuildAndChannel) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex whl(WMBENCH_TORCH_PYTHON, b.t.path + "/whl");
  ASSERT_TRUE(whl.ready());
  whl.add(b.wheel("2.12.0+cpu"), "cpu");
  whl.add(b.wheel("2.12.0+cpu"), "test/cpu");
  whl.add(b.wheel("2.13.0.dev20261201+cpu"), "nightly/cpu");
  whl.add(b.wheel("2.12.0+cpu"), "cu130");  // a wrong build under that name
  const std::string out = b.t.path + "/out";
  auto r = wmbench(cat({"releases", "2.12@cpu", "2.13@nightly/cpu", "2.12@test/cpu", "--out", out, "--base-python",
                        WMBENCH_TORCH_PYTHON, "--variant-index-root", whl.root_url()},
                       kModel),
                   b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(out);
  const auto j = read_json(dir + "/releases.json");
  ASSERT_EQ(j["releases"].size(), 3u) << j.dump(2);
  EXPECT_EQ(j["variant_index_root"], whl.root_url());
  auto rel = [&](size_t i) { return j["releases"][i]; };
  EXPECT_EQ(rel(0)["request"]["given"], "2.12@cpu");
  EXPECT_EQ(rel(0)["torch_version"], "2.12.0+cpu");
  EXPECT_EQ(rel(0)["folder"], "torch-2.12.0_cpu");
  EXPECT_EQ(rel(0)["provenance"]["index"], nlohmann::json({"--index-url", whl.url("cpu")})) << rel(0).dump(2);
  EXPECT_EQ(rel(1)["request"]["given"], "2.12@test/cpu");
  EXPECT_EQ(rel(1)["folder"], "torch-2.12.0_cpu-2");
  EXPECT_EQ(rel(1)["provenance"]["index"], nlohmann::json({"--index-url", whl.url("test/cpu")}));
  EXPECT_NE(rel(0)["env"]["dir"], rel(1)["env"]["dir"]) << "the candidate was taken from the release's env";
  EXPECT_EQ(rel(2)["torch_version"], "2.13.0.dev20261201+cpu");
  EXPECT_EQ(rel(2)["provenance"]["index"], nlohmann::json({"--index-url", whl.url("nightly/cpu"), "--pre"}));
  EXPECT_EQ(b.envs().size(), 3u);

  // The cu130 index serves a cpu wheel: refused, naming both builds; nothing run.
  const std::string out2 = b.t.path + "/out2";
  r = wmbench(cat({"releases", "2.12@cu130", "--out", out2, "--base-python", WMBENCH_TORCH_PYTHON, "--variant-index-root",
                   whl.root_url()},
                  kModel),
              b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "the cpu build, not the cu130 build 2.12@cu130 was asked for")) << r.err;
  EXPECT_FALSE(fs::exists(out2) && !fs::is_empty(out2)) << "a folder was made for a refused release";

  // A resume is installed from the same place or refused, saying the value to name.
  r = wmbench({"releases", "--resume", dir, "--base-python", WMBENCH_TORCH_PYTHON}, b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--variant-index-root " + whl.root_url())) << r.err;
}

// Issue 45, item 2: on mps-model the release's torch is never run (the model is wmbench-fill's), so
// by default no environment is made and nothing is downloaded: each version is the newest the index
// lists for the base Python (pip's `index versions`: one page), its revision from the table; the
// record says so, `wmbench check` takes it, --prepare-only says it. A variant is checked against
// the listed build. --with-envs makes the env (the tests above).
TEST(ReleasesIndex, OnTheModelNoEnvIsMadeAndTheIndexSaysTheVersion) {
  SKIP_WITHOUT_STANDINS();
  Bench b;
  LocalIndex idx(WMBENCH_TORCH_PYTHON, b.t.path + "/index");
  ASSERT_TRUE(idx.ready());
  idx.add(b.wheel("2.11.0"));
  idx.add(b.wheel("2.12.0"));
  idx.add(b.wheel("2.12.1"));
  idx.add(b.wheel("2.12.0+cpu"), "cpu");
  std::vector<std::string> model(kModel.begin() + 1, kModel.end());  // without --with-envs
  ASSERT_EQ(kModel.front(), "--with-envs");
  const std::string out = b.t.path + "/out";
  auto r = wmbench(cat({"releases", "2.12", "2.11", "2.12@cpu", "--out", out, "--base-python", WMBENCH_TORCH_PYTHON,
                        "--index-url", idx.url(), "--variant-index-root", idx.root_url()},
                       model),
                   b.opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // One page of each index for the run: 2.12 and 2.11 are read from the same listing.
  EXPECT_EQ(idx.requests("GET /simple/torch/"), 1u) << r.out;
  EXPECT_EQ(idx.requests("GET /cpu/torch/"), 1u) << r.out;
  EXPECT_TRUE(b.envs().empty()) << "an env was made for a model run";
  EXPECT_FALSE(has(r.out, "making the environment")) << r.out;
  EXPECT_TRUE(has(r.out, "release 2.12: torch 2.12.1 (default), the newest --index-url " + idx.url() + " lists")) << r.out;
  const std::string dir = only_result_dir(out);
  const auto j = read_json(dir + "/releases.json");
  ASSERT_EQ(j["releases"].size(), 3u) << j.dump(2);
  EXPECT_EQ(j["releases"][0]["torch_version"], "2.11.0");
  EXPECT_EQ(j["releases"][0]["model_revision"], "private-pool");
  EXPECT_EQ(j["releases"][1]["torch_version"], "2.12.0+cpu");
  EXPECT_EQ(j["releases"][1]["resolved"]["index"], nlohmann::json({"--index-url", idx.url("cpu")}));
  EXPECT_EQ(j["releases"][2]["torch_version"], "2.12.1");
  EXPECT_EQ(j["releases"][2]["model_revision"], "shared-pool");
  EXPECT_TRUE(j["releases"][2]["env"].is_null()) << j["releases"][2].dump(2);
  EXPECT_EQ(j["releases"][2]["resolved"]["by"], "pip index versions");
  EXPECT_EQ(j["releases"][2]["state"], "done");
  auto c = wmbench({"check", dir});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_FALSE(has(c.out, "no provenance recorded")) << c.out;

  // A resume prepares it the same way: no env.
  auto planned = j;
  planned["releases"][2]["state"] = "planned";
  write(dir + "/releases.json", planned.dump(2));
  r = wmbench({"releases", "--resume", dir, "--base-python", WMBENCH_TORCH_PYTHON, "--index-url", idx.url(),
               "--variant-index-root", idx.root_url()},
              b.opts());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_json(dir + "/releases.json")["releases"][2]["state"], "done");
  EXPECT_TRUE(b.envs().empty()) << r.out;

  // --prepare-only says it; a version the index does not list is refused, naming what it lists.
  r = wmbench(cat({"releases", "2.12", "--prepare-only", "--base-python", WMBENCH_TORCH_PYTHON, "--index-url", idx.url()}, model),
              b.opts());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "(no environment: mps-model runs no torch")) << r.out;
  r = wmbench(cat({"releases", "2.13", "--out", b.t.path + "/out2", "--base-python", WMBENCH_TORCH_PYTHON, "--index-url", idx.url()},
                  model),
              b.opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "has no torch 2.13 for Python")) << r.err;
  EXPECT_TRUE(has(r.err, "2.12.1, 2.12.0, 2.11.0")) << r.err;
  EXPECT_TRUE(b.envs().empty());
}

}  // namespace test_releases_index
