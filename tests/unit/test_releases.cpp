// `wmbench releases`' pure parts: torch version strings (form, pip's requirement, the match
// against what an env imported, the order of releases), the table of releases to model
// revisions, and the words for a failed install from pip's real texts (pip 23.0.1, Debian 12).
#include <gtest/gtest.h>

#include "mpsmodel/release_revision.h"
#include "mpsmodel/revision.h"
#include "releases/env_cache.h"
#include "releases/release_request.h"
#include "releases/torch_version.h"

namespace test_releases {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb::releases;

TEST(ReleaseVersions, OnlyVersionFormsAreTaken) {
  for (const char* v : {"2.12", "2.12.1", "2.13.0.dev20260601", "2.11.0+cpu", "2.12.0rc3", "1.13.0a0", "2.11.0+cu130"})
    EXPECT_EQ(version_problem(v), "") << v;
  for (const char* v : {"", "2", "latest", "2.12; rm -rf /", "$(id)", "-2.12", "2.12 ", "2.12.0.0.0", "2..12", "2.12+",
                        "2.12.0+cpu/../x", "v2.12"})
    EXPECT_NE(version_problem(v), "") << v;
  EXPECT_NE(version_problem(std::string(65, '1')), "");
}

// VERSION@[CHANNEL/]VARIANT (issue 45): PyTorch's index of that build, its channel, and nothing else.
TEST(ReleaseVersions, AVariantNamesPyTorchsIndexOfThatBuildAndItsChannel) {
  for (const char* v : {"2.12@cpu", "2.12@cu130", "2.12.1@cu118", "2.13@test/cu130", "2.14@nightly/cpu",
                        "2.14.0.dev20261201@nightly/cpu", "2.12@rocm6.4", "2.12@xpu", "2.12@rocm7"})
    EXPECT_EQ(request_problem(v), "") << v;
  for (const char* v : {"2.12@", "2.12@cuda", "2.12@cu1", "2.12@cu1300", "2.12@gpu", "2.12@stable/cpu", "2.12@test/",
                        "2.12@/cpu", "2.12@nightly/test/cpu", "2.12@cpu/../x", "2.12@rocm", "2.12@rocm6.", "2.12@rocm.6",
                        "2.12@cpu@cpu", "2.12.0+cpu@cpu", "@cpu", "2.12@CPU", "2.12@cpu ", "2.12@test/cpu;id"})
    EXPECT_NE(request_problem(v), "") << v;
  EXPECT_NE(request_problem("2.12@stable/cpu").find("allowed: test/, nightly/"), std::string::npos);
  EXPECT_NE(request_problem("2.12.0+cpu@cu130").find("give one of them"), std::string::npos);
  EXPECT_EQ(request_problem("2.12@" + std::string(5000, 'a')), "5005 characters (a release is at most 96)");
  EXPECT_EQ(request_problem("2.14.0.dev20261201@nightly/rocm6.4"), "");

  const ReleaseRequest plain = parse_request("2.12");
  EXPECT_FALSE(plain.has_variant());
  EXPECT_EQ(plain.index_url(kPyTorchWheelRoot), "");
  const ReleaseRequest cpu = parse_request("2.12@cpu");
  EXPECT_EQ(cpu.version, "2.12");
  EXPECT_EQ(cpu.index_url(kPyTorchWheelRoot), "https://download.pytorch.org/whl/cpu");
  EXPECT_FALSE(cpu.needs_pre());
  const ReleaseRequest rc = parse_request("2.13@test/cu130");
  EXPECT_EQ(rc.index_url("http://127.0.0.1:8000/whl/"), "http://127.0.0.1:8000/whl/test/cu130");
  const ReleaseRequest nightly = parse_request("2.14@nightly/cpu");
  EXPECT_EQ(nightly.index_url(kPyTorchWheelRoot), "https://download.pytorch.org/whl/nightly/cpu");
  EXPECT_TRUE(nightly.needs_pre());

  // The build an env imported against the one asked for (TorchFacts::variant()).
  EXPECT_TRUE(variant_matches(cpu, "cpu", "linux"));
  EXPECT_FALSE(variant_matches(cpu, "cu130", "linux"));
  EXPECT_FALSE(variant_matches(cpu, "default", "linux"));  // PyPI's Linux CPU-less wheel is not PyTorch's cpu build
  EXPECT_TRUE(variant_matches(cpu, "default", "darwin"));  // macOS: /whl/cpu serves the plain wheel
  EXPECT_FALSE(variant_matches(parse_request("2.12@cu130"), "default", "darwin"));
  EXPECT_TRUE(variant_matches(plain, "cu130", "linux"));
}

TEST(ReleaseVersions, PipsRequirementAndTheMatchOfWhatWasImported) {
  EXPECT_EQ(pip_requirement("2.12"), "torch==2.12.*");
  EXPECT_EQ(pip_requirement("2.12.1"), "torch==2.12.1");
  EXPECT_EQ(pip_requirement("2.13.0.dev20260601"), "torch==2.13.0.dev20260601");
  EXPECT_TRUE(version_matches("2.12", "2.12.0"));
  EXPECT_TRUE(version_matches("2.12", "2.12.3+cpu"));
  EXPECT_FALSE(version_matches("2.12", "2.1.2"));
  EXPECT_FALSE(version_matches("2.12", "2.13.0"));
  EXPECT_TRUE(version_matches("2.12.1", "2.12.1+cu130"));
  EXPECT_TRUE(version_matches("2.12.0", "2.12"));
  EXPECT_FALSE(version_matches("2.12.1", "2.12.2"));
  EXPECT_FALSE(version_matches("2.12.0", "2.12.0rc1"));
  EXPECT_FALSE(version_matches("2.11.0+cpu", "2.11.0+cu130"));
  EXPECT_FALSE(version_matches("1.13", "1.13.0a0x"));
}

TEST(ReleaseVersions, ReleasesAreOrderedAsReleasesNotAsText) {
  EXPECT_LT(compare_versions("2.9.0", "2.12.0"), 0);
  EXPECT_LT(compare_versions("2.12.0", "2.12.1"), 0);
  EXPECT_LT(compare_versions("2.13.0.dev20260601", "2.13.0a1"), 0);
  EXPECT_LT(compare_versions("2.13.0a1", "2.13.0rc1"), 0);
  EXPECT_LT(compare_versions("2.13.0rc1", "2.13.0"), 0);
  EXPECT_LT(compare_versions("2.13.0", "2.13.0.post1"), 0);
  EXPECT_LT(compare_versions("1.13.0a0", "1.13.1"), 0);
  EXPECT_EQ(compare_versions("2.12", "2.12.0"), 0);
  EXPECT_EQ(file_safe("2.11.0+cpu"), "2.11.0_cpu");
}

TEST(ReleaseRevisions, EachReleaseHasTheRevisionOfItsTimeWithThePrsThatSplitThem) {
  using wmb::mpsmodel::revision_for_torch;
  // 1.x is not covered (issue 45, item 6): its MPS allocator had no high limit, which every revision has.
  EXPECT_EQ(revision_for_torch("1.13.0a0"), "");
  EXPECT_NE(wmb::mpsmodel::revision_gap("1.13.0a0").find("no high watermark limit"), std::string::npos);
  EXPECT_EQ(revision_for_torch("2.5.1"), "legacy");
  EXPECT_EQ(revision_for_torch("2.7.0"), "private-pool");
  EXPECT_EQ(revision_for_torch("2.11.0+cpu"), "private-pool");
  EXPECT_EQ(revision_for_torch("2.12.0"), "shared-pool");
  EXPECT_EQ(revision_for_torch("2.13.0.dev20260601"), "shared-pool");
  EXPECT_EQ(revision_for_torch("2.14.0"), "current");
  EXPECT_EQ(revision_for_torch("3.0"), "current");
  EXPECT_EQ(revision_for_torch("nonsense"), "");
  for (const auto& r : wmb::mpsmodel::release_revisions()) EXPECT_NO_THROW(wmb::mpsmodel::find_revision(r.revision)) << r.revision;
  const std::string t = wmb::mpsmodel::release_revision_table();
  EXPECT_NE(t.find("#175818"), std::string::npos) << t;
  EXPECT_NE(t.find("#187441"), std::string::npos) << t;
  EXPECT_NE(t.find("torch 2.7 - 2.11"), std::string::npos) << t;
  EXPECT_NE(t.find("torch 2.14 "), std::string::npos) << t;
  EXPECT_NE(t.find("last checked against torch 2.14"), std::string::npos) << t;
}

TEST(ReleaseInstallFailures, PipsOwnTextsBecomeWhatToDo) {
  const std::string where = "--find-links /w --no-index", what = "torch 2.99 (torch==2.99.*)";
  // pip 23.0.1, an offline wheelhouse without that version
  std::string s = explain_install_failure(
      "Looking in links: /w\nERROR: Could not find a version that satisfies the requirement torch==2.99.* (from versions: "
      "2.11.0, 2.12.0)\nERROR: No matching distribution found for torch==2.99.*\n",
      what, where, "pip install torch==2.99.*");
  EXPECT_NE(s.find("torch 2.99 (torch==2.99.*) is not in --find-links /w --no-index; the versions there for this Python and "
                   "machine: 2.11.0, 2.12.0"),
            std::string::npos)
      << s;
  // no torch at all for this Python
  s = explain_install_failure("ERROR: Could not find a version that satisfies the requirement torch==2.12.* (from versions: none)\n",
                              what, where, "pip");
  EXPECT_NE(s.find("offers no torch wheel for this Python and machine"), std::string::npos) << s;
  // an index that refuses the connection (pip retries, then says none)
  s = explain_install_failure(
      "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by "
      "'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at 0x7f>: Failed to establish a new "
      "connection: [Errno 111] Connection refused')': /simple/torch/\nERROR: Could not find a version that satisfies the "
      "requirement torch==2.13.* (from versions: none)\n",
      what, "--index-url http://127.0.0.1:9/simple", "pip");
  EXPECT_NE(s.find("could not reach its index (--index-url http://127.0.0.1:9/simple)"), std::string::npos) << s;
  EXPECT_NE(s.find("--find-links DIR"), std::string::npos) << s;
  // Debian without python3-venv
  s = explain_install_failure("The virtual environment was not created successfully because ensurepip is not available.\n",
                              what, where, "python3 -m venv");
  EXPECT_NE(s.find("apt-get install python3-venv"), std::string::npos) << s;
  // a full disk: said by pip, or only seen in what is left (venv's ensurepip says just "failed")
  s = explain_install_failure("OSError: [Errno 28] No space left on device: '/c/torch/lib/libtorch_cpu.so'\n", what, where, "pip");
  EXPECT_NE(s.find("the disk filled"), std::string::npos) << s;
  s = explain_install_failure("Error: Command '['/c/bin/python3', '-m', 'ensurepip', '--upgrade', '--default-pip']' returned "
                              "non-zero exit status 1.\n",
                              what, where, "python3 -m venv", true);
  EXPECT_NE(s.find("the disk filled"), std::string::npos) << s;
  s = explain_install_failure("Error: Command '[...]' returned non-zero exit status 1.\n", what, where, "python3 -m venv", false);
  EXPECT_EQ(s.find("the disk filled"), std::string::npos) << s;
  EXPECT_NE(s.find("python3 -m venv failed"), std::string::npos) << s;
}

TEST(ReleaseInstallFailures, IndexValuesAreArgvElementsPipCannotMisread) {
  EXPECT_THROW(checked_index_value("--index-url", ""), EnvError);
  EXPECT_THROW(checked_index_value("--index-url", "--trusted-host=evil"), EnvError);
  EXPECT_THROW(checked_index_value("--index-url", "http://x/\nsimple"), EnvError);
  EXPECT_THROW(checked_index_value("--find-links", "/no/such/wheelhouse"), EnvError);
  EXPECT_EQ(checked_index_value("--index-url", "https://download.pytorch.org/whl/nightly/cpu"),
            "https://download.pytorch.org/whl/nightly/cpu");
  EXPECT_EQ(checked_index_value("--find-links", "/tmp"), "/tmp");
  IndexOptions o;
  o.args = {{"--find-links", "/w"}, {"--no-index", ""}};
  EXPECT_EQ(o.argv(), (std::vector<std::string>{"--find-links", "/w", "--no-index"}));
  // Nothing to download (no dry run asked) only where pip can read nothing but local folders.
  EXPECT_TRUE(o.local_only());
  o.args = {{"--find-links", "/w"}, {"--find-links", "/v"}, {"--no-index", ""}};
  EXPECT_TRUE(o.local_only());
  const std::vector<std::vector<std::pair<std::string, std::string>>> may_download = {
      {},                                                                      // pip's default index
      {{"--find-links", "/w"}},                                                // and the default index
      {{"--no-index", ""}},                                                    // no source at all: pip says so
      {{"--find-links", "https://x/whl.html"}, {"--no-index", ""}},             // a page of links
      {{"--find-links", "/w"}, {"--no-index", ""}, {"--extra-index-url", "http://i/simple"}},
      {{"--index-url", "https://download.pytorch.org/whl/cpu"}},
  };
  for (const auto& a : may_download) {
    o.args = a;
    EXPECT_FALSE(o.local_only()) << o.describe();
  }
}

// Issue 45, items 5 and 7: no wheel for this Python names its tag and --base-python; uv's own texts,
// as uv printed them on the H200 run (wrapped to the terminal's width).
TEST(ReleaseInstallFailures, NoWheelForThisPythonNamesItsTagAndUvsWrappedTextsAreRead) {
  const std::string where = "pip's default index", what = "torch 2.12 (torch==2.12.*)", py = "Python 3.14 (cp314) on x86_64";
  std::string s = explain_install_failure(
      "ERROR: Could not find a version that satisfies the requirement torch==2.12.* (from versions: none)\n", what, where,
      "pip install torch==2.12.*", false, py);
  EXPECT_NE(s.find("no torch wheel for this Python and machine (Python 3.14 (cp314) on x86_64)"), std::string::npos) << s;
  EXPECT_NE(s.find("give --base-python"), std::string::npos) << s;
  EXPECT_EQ(s.find("not in the index"), std::string::npos) << s;
  // uv 0.9: the disk filled, wrapped across two lines
  s = explain_install_failure(
      "error: Failed to install: torch-2.11.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl (torch==2.11.0+cu130)\n"
      "  Caused by: failed to write to file `/c/.tmp/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so`: No space\n"
      "  left on device (os error 28)\n",
      what, where, "uv pip install torch==2.12.*", false, py);
  EXPECT_NE(s.find("the disk filled"), std::string::npos) << s;
  // uv: only another version for this Python
  s = explain_install_failure(
      "  x No solution found when resolving dependencies:\n  `-> Because only torch==2.11.0 is available and you require\n"
      "      torch==2.12.*, we can conclude that your requirements are unsatisfiable.\n",
      what, where, "uv pip install torch==2.12.*", false, py);
  EXPECT_NE(s.find("is not in pip's default index; the versions there for Python 3.14 (cp314) on x86_64: 2.11.0"),
            std::string::npos)
      << s;
  // uv: wheels only for other Pythons
  s = explain_install_failure(
      "  hint: You require CPython 3.14 (`cp314`), but we only found wheels for `torch` (v2.12.0) with the following Python\n"
      "  ABI tags: `cp310`, `cp311`, `cp312`, `cp313`\n",
      what, where, "uv pip install torch==2.12.*", false, py);
  EXPECT_NE(s.find("only for other Pythons than Python 3.14 (cp314)"), std::string::npos) << s;
  EXPECT_NE(s.find("--base-python"), std::string::npos) << s;
}

// Issue 45, item 6: a nightly is placed by its date against the PR that starts its row; what the
// table does not cover is refused (1.x) or flagged (newer than the last release it was checked
// against); 2.14+ says that #190438's reuse of freed memory is not modelled.
TEST(ReleaseRevisions, NightliesByDateAndWhatTheTableDoesNotCoverIsSaid) {
  using wmb::mpsmodel::revision_for_torch;
  using wmb::mpsmodel::revision_note;
  EXPECT_EQ(revision_for_torch("2.12.0.dev20260220"), "private-pool");  // after 2.11's cut, before #175818
  EXPECT_EQ(revision_for_torch("2.12.0.dev20260301+cpu"), "shared-pool");
  EXPECT_EQ(revision_for_torch("2.14.0.dev20260612"), "shared-pool");  // after 2.13's cut, before #187441
  EXPECT_EQ(revision_for_torch("2.14.0.dev20260620"), "current");
  EXPECT_EQ(revision_for_torch("2.13.0.dev20260101"), "shared-pool");  // a 2.13 nightly: its row starts at 2.12
  EXPECT_EQ(revision_note("2.13.0"), "");
  EXPECT_NE(revision_note("2.14.0").find("#190438"), std::string::npos);
  EXPECT_EQ(revision_note("2.14.0").find("newer than the last release"), std::string::npos);
  EXPECT_NE(revision_note("2.15.0").find("newer than the last release the table was checked against (2.14)"), std::string::npos)
      << revision_note("2.15.0");
}

}  // namespace test_releases
