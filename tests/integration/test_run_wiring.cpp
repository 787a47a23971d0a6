// `wmbench run` wired to both children end to end (issues 14 and 15):
//   - mps-model with --model-revision: machine.json "model" has the revision and the child's own
//     model facts (hello "model"), the error text is that revision's ("private pool", KB/MB/GB),
//     the table's caption names it, and --resume keeps it;
//   - a step shrunk by min_steps reaches the child as --model-unscaled-step (machine.json
//     model.unscaled_step_bytes, the child's tier_scale), without a sandbox;
//   - the Python child refused for mps-model, and for a torch too old for mps, before any folder;
//   - the watermark matrix on cpu with the C++ child and with the Python child: `wmbench compare`
//     calls them equal and says the torch version strings differ for one build; --resume keeps
//     a folder's kind of child.
#include <gtest/gtest.h>

#include <dirent.h>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_util.h"

namespace test_run_wiring {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

RunOpts opts() {
  RunOpts o;
  o.set_env["WMBENCH_FILL"] = WMBENCH_FILL_BIN;
  // The model without libtorch, as cli_util.h's wmbench() runs it: FillHalves.* proves its lines
  // equal to the libtorch half's, and CI's sanitized stage ran these tests so already.
  o.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";
  o.unset_env = {"WMBENCH_PYTHON_CHILD"};
  o.timeout = 300;
  return o;
}

size_t entries(const std::string& dir) {
  size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

// One cell, HIGH = LOW = 0.3 of a 4 GiB recommended max: max allowed 1.2 GiB. Two 512 MiB steps
// (each its own heap: 512 MiB is past the 1 GiB heap's tier), the third is refused.
std::string revision_scenario(const std::string& dir) {
  const std::string p = dir + "/rev.json";
  write(p, R"({"name": "model-revision-test", "description": "t", "device": "mps-model", "step": "512MiB",
  "cap": "1536MiB", "timeout": "2m", "matrix": [{"label": "high-0.3-low-0.3",
  "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.3", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.3"}}]})");
  return p;
}

}  // namespace

TEST(ModelRun, TheRevisionIsRecordedAndTheChildSpeaksItsMessages) {
  WMBT_SKIP_IF(free_memory_below(1536ull << 20));  // a GiB cap: refused where less is free (small Macs)
  const std::string t = tmpdir(), out = t + "/out";
  auto r = run({WMBENCH_BIN, "run", revision_scenario(t), "--model-revision", "legacy", "--recommended-max", "4GiB",
                "--out", out, "--no-plots"},
               opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(out);
  const auto m = read_json(dir + "/machine.json");
  ASSERT_TRUE(m["model"].is_object()) << m.dump(2);
  EXPECT_EQ(m["model"]["revision"], "legacy");
  // From the child's hello "model" object:
  EXPECT_EQ(m["model"]["other_bytes"], 448u << 10);
  EXPECT_TRUE(m["model"]["max_buffer_bytes"].is_number_unsigned()) << m["model"].dump();
  EXPECT_EQ(m["model"]["tier_scale"], 1.0);
  EXPECT_TRUE(m["model"]["unscaled_step_bytes"].is_null()) << "the step was not shrunk";
  const auto s = read_json(dir + "/summary.json");
  ASSERT_EQ(s["runs"].size(), 1u);
  const auto& run0 = s["runs"][0];
  EXPECT_EQ(run0["stopped_by"], "pytorch") << run0.dump(2);
  const std::string text = run0["error_text"];
  EXPECT_EQ(text,
            "MPS backend out of memory (MPS allocated: 1024.00 MB, other allocations: 448.00 KB, max allowed: 1.20 GB). "
            "Tried to allocate 512.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
            "limit for memory allocations (may cause system failure).");
  EXPECT_EQ(run0["held_bytes"], 1u << 30);
  EXPECT_NE(slurp(dir + "/table.md").find("PyTorch revision `legacy`"), std::string::npos) << slurp(dir + "/table.md");
  EXPECT_NE(slurp(dir + "/README.md").find("PyTorch revision `legacy`"), std::string::npos);

  // --resume keeps the folder's revision; another one is refused before anything runs.
  auto other = run({WMBENCH_BIN, "run", "--resume", dir, "--model-revision", "current", "--no-plots"}, opts());
  EXPECT_EQ(other.status, 2) << other.out << other.err;
  EXPECT_NE(other.err.find("was run with revision legacy"), std::string::npos) << other.err;
  auto again = run({WMBENCH_BIN, "run", "--resume", dir, "--no-plots"}, opts());
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(read_json(dir + "/machine.json")["model"]["revision"], "legacy");
}

TEST(ModelRun, ABadRevisionOrAnotherDeviceIsRefusedBeforeAnyFolder) {
  const std::string t = tmpdir(), out = t + "/out";
  auto bad = run({WMBENCH_BIN, "run", revision_scenario(t), "--model-revision", "2.1", "--out", out}, opts());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("allowed: current, shared-pool, private-pool, legacy"), std::string::npos) << bad.err;
  auto cpu = run({WMBENCH_BIN, "run", revision_scenario(t), "--device", "cpu", "--model-revision", "legacy", "--out", out},
                 opts());
  EXPECT_EQ(cpu.status, 2);
  EXPECT_NE(cpu.err.find("applies only to device mps-model"), std::string::npos) << cpu.err;
  EXPECT_EQ(entries(out), 0u);
}

TEST(ModelRun, AShrunkStepReachesTheChildUnscaled) {
  // 512 MiB with min_steps 1024 shrinks to a power of two MiB on any machine this test runs on;
  // the child is told 512 MiB, so each small step gets a heap of its own size (the 512 MiB step's
  // tier on the Mac modelled) instead of sharing 1 GiB heaps: driver = held + other.
  const std::string t = tmpdir(), out = t + "/out";
  write(t + "/s.json", R"({"name": "model-unscaled-test", "description": "t", "device": "mps-model",
  "step": "512MiB", "min_steps": 1024, "cap": "256MiB", "timeout": "2m", "matrix": [{"label": "default", "env": {}}]})");
  auto r = run({WMBENCH_BIN, "run", t + "/s.json", "--out", out, "--no-plots"}, opts());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(out);
  const auto m = read_json(dir + "/machine.json");
  const auto sc = read_json(dir + "/scenario.json");
  const uint64_t step = sc["resolved"]["step_bytes"];
  ASSERT_TRUE(sc["resolved"]["step_shrunk"].get<bool>());
  ASSERT_LT(step, 512u << 20);
  EXPECT_EQ(m["model"]["unscaled_step_bytes"], 512u << 20);
  EXPECT_DOUBLE_EQ(m["model"]["tier_scale"].get<double>(), static_cast<double>(512u << 20) / static_cast<double>(step));
  const auto run0 = read_json(dir + "/summary.json")["runs"][0];
  EXPECT_EQ(run0["stopped_by"], "cap") << run0.dump(2);
  EXPECT_EQ(run0["driver_bytes"].get<uint64_t>(), run0["held_bytes"].get<uint64_t>() + (448u << 10)) << run0.dump(2);
  // The allocator's peak reaches the record and results.csv (the fill only grows: peak = held).
  EXPECT_EQ(run0["allocator_peak_bytes"], run0["held_bytes"]) << run0.dump(2);
  std::ifstream csv(dir + "/results.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_NE(header.find(",allocator_peak_bytes"), std::string::npos) << header;
  // The column by its name in the header (later columns, such as issue 41's peak source, follow it).
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) out.push_back(c);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  };
  const auto names = cells(header), values = cells(row);
  const auto at = std::find(names.begin(), names.end(), "allocator_peak_bytes");
  ASSERT_NE(at, names.end()) << header;
  const size_t col = static_cast<size_t>(at - names.begin());
  ASSERT_LT(col, values.size()) << row;
  EXPECT_EQ(values[col], std::to_string(run0["held_bytes"].get<uint64_t>())) << row;
}

TEST(PythonRun, MpsModelUnderThePythonChildIsRefusedBeforeAnyFolder) {
  const std::string t = tmpdir(), out = t + "/out";
  // No interpreter is even probed: a path that does not exist gets the same refusal.
  auto r = run({WMBENCH_BIN, "run", revision_scenario(t), "--python", "/nonexistent/python3", "--out", out}, opts());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("mps-model is the C++ child's model"), std::string::npos) << r.err;
  EXPECT_EQ(entries(out), 0u) << "nothing written";
  // WMBENCH_PYTHON_CHILD is only a default: mps-model then runs the native child, and says so.
  RunOpts o = opts();
  o.unset_env.clear();
  o.set_env["WMBENCH_PYTHON_CHILD"] = "/nonexistent/python3";
  auto d = run({WMBENCH_BIN, "run", revision_scenario(t), "--recommended-max", "4GiB", "--out", out, "--no-plots"}, o);
  EXPECT_EQ(d.status, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("WMBENCH_PYTHON_CHILD is set, but device mps-model"), std::string::npos) << d.out;
  EXPECT_EQ(read_json(only_result_dir(out) + "/machine.json")["child"]["kind"], "native");
}

TEST(PythonRun, ATorchTooOldForMpsIsRefusedBeforeAnyFolder) {
#ifndef __APPLE__
  // Off a Mac `run` refuses device mps before any child or python is asked (scenario/device_here.cpp,
  // since issue 22), so this path is reached only on a Mac; here the refusal of an old torch is
  // unit.PythonChild.ATorchTooOldForMpsIsRefusedWithWhatWasFound's.
  GTEST_SKIP() << "device mps is refused off a Mac before the Python child's torch is asked";
#endif
  SKIP_WITHOUT_PYTHON_TORCH();
  const std::string t = tmpdir(), out = t + "/out";
  // Bounded as every test on a real device is (proc_util.h, issue 28): with a torch new enough
  // for mps, on a Mac this runs one cell of at most 64 MiB for at most 30 s, not the matrix.
  auto r = run({WMBENCH_BIN, "run", "mps-watermark", "--device", "mps", "--only", "default", "--cap", "64MiB", "--step",
                "8MiB", "--timeout", "30s", "--python", WMBENCH_TORCH_PYTHON, "--out", out},
               opts());
  if (r.err.find("needs torch 2.0") == std::string::npos) {
    // A torch 2.x with torch.mps: the run starts, so there is a folder; not this test's case.
    GTEST_SKIP() << "this python's torch has torch.mps: " << r.err;
  }
  EXPECT_EQ(entries(out), 0u) << "nothing written";
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("found torch "), std::string::npos) << r.err;
}

TEST(CompareChildren, TheCpuMatrixWithBothChildrenIsEqual) {
  SKIP_WITHOUT_PYTHON_TORCH();
  const std::string t = tmpdir(), a = t + "/native", b = t + "/python";
  // On cpu the watermark variables change nothing, so three of the matrix's cells (no variable,
  // a pair, HIGH alone) show all there is; each cell starts each child once (the Python child's
  // import of torch is its cost).
  const std::vector<std::string> common = {"mps-watermark", "--device", "cpu", "--cap", "128MiB", "--step", "64MiB",
                                           "--only", "default,high-0.8-low-0.8,high-0.8-alone", "--no-plots"};
  auto with = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> argv = {WMBENCH_BIN, "run"};
    argv.insert(argv.end(), common.begin(), common.end());
    argv.insert(argv.end(), {"--out", out});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv, opts());
  };
  auto rn = with(a, {});
  ASSERT_EQ(rn.status, 0) << rn.out << rn.err;
  auto rp = with(b, {"--python", WMBENCH_TORCH_PYTHON});
  ASSERT_EQ(rp.status, 0) << rp.out << rp.err;
  const std::string da = only_result_dir(a), db = only_result_dir(b);
  const auto mp = read_json(db + "/machine.json");
  EXPECT_EQ(mp["child"]["kind"], "python");
  EXPECT_EQ(mp["child"]["program"], WMBENCH_PYFILL);
  EXPECT_TRUE(mp["child"]["python"]["version"].is_string()) << mp["child"].dump();
  EXPECT_TRUE(mp.contains("torch_git_version")) << "the Python child's hello says it";
  EXPECT_NE(slurp(db + "/README.md").find("python child"), std::string::npos);
  EXPECT_NE(slurp(db + "/table.md").find("(python child)"), std::string::npos);

  // A folder is one kind of child: resuming the Python child's folder with the native child is refused.
  auto resume = run({WMBENCH_BIN, "run", "--resume", db, "--no-plots"}, opts());
  EXPECT_EQ(resume.status, 2) << resume.out << resume.err;
  // The folder's interpreter is named, never as a ready-to-paste `--python PATH` (issue 30).
  EXPECT_NE(resume.err.find(std::string("names \"") + WMBENCH_TORCH_PYTHON + "\""), std::string::npos) << resume.err;
  EXPECT_EQ(resume.err.find(std::string("--python ") + WMBENCH_TORCH_PYTHON), std::string::npos) << resume.err;
  // Refused before any child is started for its hello: a stand-in for wmbench-fill notes each start.
  const std::string starts = t + "/fill-starts";
  const std::string noting = script(t, "fill-that-notes", "#!/bin/sh\necho started >> '" + starts + "'\nexit 1\n");
  auto refused = run({WMBENCH_BIN, "run", "--resume", db, "--no-plots", "--fill", noting}, opts());
  EXPECT_EQ(refused.status, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("a folder holds one kind of child"), std::string::npos) << refused.err;
  EXPECT_FALSE(file_exists(starts)) << "a child was started for a resume that was refused";

  auto c = run({WMBENCH_BIN, "compare", da, db}, opts());
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("no regression"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("base native child, new python child"), std::string::npos) << c.out;
  const auto ma = read_json(da + "/machine.json");
  if (ma["torch_version"] != mp["torch_version"] && ma["torch_library"] == mp["torch_library"])
    EXPECT_NE(c.out.find("report different version strings"), std::string::npos) << c.out;
}

}  // namespace test_run_wiring
