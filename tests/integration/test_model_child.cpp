// The real wmbench-fill child on --device mps-model: the heap allocator model (harness/mpsmodel/
// heap_allocator.h) behind real CPU tensors, driven by the real PYTORCH_MPS_* variables. Fills stay
// under 512 MiB of real memory.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "proc_util.h"

namespace test_model_child {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
using nlohmann::json;

namespace {

constexpr uint64_t MiB = 1ull << 20;
constexpr uint64_t GiB = 1ull << 30;

struct Lines {
  Result r;
  std::vector<json> all;
  std::vector<json> of(const std::string& type) const {
    std::vector<json> v;
    for (const auto& l : all)
      if (l.value("type", "") == type) v.push_back(l);
    return v;
  }
};

Lines child(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  RunOpts o;
  o.set_env = env;
  o.unset_env = {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO"};
  for (const auto& [k, v] : env) o.unset_env.erase(std::remove(o.unset_env.begin(), o.unset_env.end(), k), o.unset_env.end());
  // The model without libtorch (the same harness/fillbase/ code; FillHalves.* proves its lines equal
  // to the libtorch half's) unless a test names the variable: no libtorch start a child (issue 44).
  if (!env.count("WMBENCH_FILL_MODEL_WITHOUT_TORCH")) o.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";
  o.timeout = 120;
  std::vector<std::string> argv = {WMBENCH_FILL_BIN, "--device", "mps-model"};
  argv.insert(argv.end(), args.begin(), args.end());
  Lines l{run(argv, o), {}};
  std::istringstream in(l.r.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) l.all.push_back(json::parse(line));
  return l;
}

const std::map<std::string, std::string> k03 = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.3"},
                                                {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.3"}};

TEST(ModelChild, ANewGiBHeapEndsTheFillAndShowsAboveMaxAllowed) {
  // 64 MiB < 512 MiB: the first step makes a 1 GiB heap; the driver count (1 GiB + 448 KiB) then
  // refuses the second step although the tensors hold 64 MiB (MPSAllocator.mm alloc_buffer).
  auto l = child({"--step", "64MiB", "--cap", "512MiB", "--recommended-max", "2GiB"}, k03);
  EXPECT_EQ(l.r.status, 3) << l.r.out << l.r.err;
  const auto steps = l.of("step");
  ASSERT_EQ(steps.size(), 1u) << l.r.out;
  EXPECT_EQ(steps[0]["held_bytes"], 64 * MiB);
  EXPECT_EQ(steps[0]["allocated_bytes"], 64 * MiB);
  EXPECT_EQ(steps[0]["driver_bytes"], GiB + 448 * 1024);
  const auto err = l.of("error");
  ASSERT_EQ(err.size(), 1u) << l.r.out;
  EXPECT_EQ(err[0]["text"],
            "MPS backend out of memory (MPS allocated: 1024.00 MiB, other allocations: 448.00 KiB, max allowed: "
            "614.40 MiB). Tried to allocate 64.00 MiB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to "
            "disable upper limit for memory allocations (may cause system failure).");
  EXPECT_EQ(l.of("limit").at(0)["max_allowed_bytes"], static_cast<uint64_t>(0.3 * 2.0 * GiB));
  const json model = l.of("hello").at(0)["model"];
  EXPECT_EQ(model["revision"], "current");
  EXPECT_EQ(model["other_bytes"], 448 * 1024);
}

TEST(ModelChild, TheAllocatorPeakIsTheMostInUseAtOnce) {
  // The MPS allocator's m_current_allocated_memory Stat (MPSAllocator.h) keeps its peak when
  // buffers are freed: in the offload program the device bytes fall once moved to the CPU, the
  // peak stays at what was on the device. A fill refused by the limit peaks at what it held.
  // HIGH = LOW = 1.0 of 2 GiB: room for the 1 GiB heap the first 16 MiB buffer makes.
  auto off = child({"--step", "16MiB", "--program", "offload", "--offload-size", "64MiB", "--recommended-max", "2GiB"},
                   {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.0"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "1.0"}});
  ASSERT_EQ(off.r.status, 0) << off.r.out << off.r.err;
  std::map<std::string, json> stage;
  for (const auto& s : off.of("stage")) stage[s.value("name", "")] = s;
  ASSERT_TRUE(stage.count("on_device") && stage.count("moved_to_cpu")) << off.r.out;
  EXPECT_EQ(stage["on_device"]["allocated_bytes"], 64 * MiB) << off.r.out;
  EXPECT_EQ(stage["on_device"]["allocator_peak_bytes"], 64 * MiB) << off.r.out;
  EXPECT_EQ(stage["moved_to_cpu"]["allocated_bytes"], 0u) << off.r.out;
  EXPECT_EQ(stage["moved_to_cpu"]["allocator_peak_bytes"], 64 * MiB) << off.r.out;

  auto fill = child({"--step", "32MiB", "--cap", "512MiB", "--recommended-max", "1GiB", "--model-unscaled-step",
                     "512MiB"},
                    k03);
  EXPECT_EQ(fill.r.status, 3) << fill.r.out << fill.r.err;
  const auto steps = fill.of("step");
  ASSERT_EQ(steps.size(), 9u) << fill.r.out;
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i]["allocator_peak_bytes"], (i + 1) * 32 * MiB) << steps[i];
}

TEST(ModelChild, SandboxStepKeepsTheUnscaledStepsTier) {
  // 32 MiB standing for 512 MiB: one exact heap a step, so 9 steps fit under 0.3 x 1 GiB.
  auto scaled = child({"--step", "32MiB", "--cap", "512MiB", "--recommended-max", "1GiB", "--model-unscaled-step",
                       "512MiB"},
                      k03);
  EXPECT_EQ(scaled.r.status, 3) << scaled.r.out << scaled.r.err;
  EXPECT_EQ(scaled.of("step").size(), 9u) << scaled.r.out;
  EXPECT_NE(scaled.of("error").at(0)["text"].get<std::string>().find("MPS allocated: 288.00 MiB"), std::string::npos)
      << scaled.r.out;
  EXPECT_EQ(scaled.of("hello").at(0)["model"]["tier_scale"], 16.0);
  // Without it, PyTorch's tiers as they are: a 1 GiB heap at the first step, refused at the second.
  auto plain = child({"--step", "32MiB", "--cap", "512MiB", "--recommended-max", "1GiB"}, k03);
  EXPECT_EQ(plain.of("step").size(), 1u) << plain.r.out;
}

TEST(ModelChild, HighZeroRunsToTheCap) {
  auto l = child({"--step", "64MiB", "--cap", "256MiB", "--recommended-max", "1GiB"},
                 {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}});
  EXPECT_EQ(l.r.status, 0) << l.r.out << l.r.err;
  EXPECT_EQ(l.of("done").at(0)["held_bytes"], 256 * MiB);
}

TEST(ModelChild, HighAloneIsRefusedAtTheFirstAllocation) {
  auto l = child({"--step", "64MiB", "--cap", "256MiB", "--recommended-max", "1GiB"},
                 {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.3"}});
  EXPECT_EQ(l.r.status, 3);
  EXPECT_TRUE(l.of("step").empty());
  EXPECT_EQ(l.of("error").at(0)["text"], "invalid low watermark ratio 1.4");
}

TEST(ModelChild, LegacyRevisionSpeaksOfThePrivatePoolInMB) {
  auto l = child({"--step", "64MiB", "--cap", "512MiB", "--recommended-max", "2GiB", "--model-revision", "legacy",
                  "--model-other", "1MiB"},
                 k03);
  EXPECT_EQ(l.of("hello").at(0)["model"]["revision"], "legacy");
  EXPECT_EQ(l.of("error").at(0)["text"],
            "MPS backend out of memory (MPS allocated: 1024.00 MB, other allocations: 1024.00 KB, max allowed: "
            "614.40 MB). Tried to allocate 64.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to "
            "disable upper limit for memory allocations (may cause system failure).");
}

TEST(ModelChild, InvalidBufferSizeOverMaxBufferLength) {
  auto l = child({"--step", "64MiB", "--cap", "256MiB", "--recommended-max", "1GiB", "--model-max-buffer", "64MiB"},
                 {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}});
  EXPECT_EQ(l.r.status, 3);
  EXPECT_EQ(l.of("error").at(0)["text"], "Invalid buffer size: 64.00 MiB");
}

TEST(ModelChild, BadModelFlagsAreUsageErrors) {
  auto a = child({"--step", "64MiB", "--model-revision", "2.1"}, {});
  EXPECT_EQ(a.r.status, 2);
  EXPECT_NE(a.r.err.find("allowed: current, shared-pool, private-pool, legacy"), std::string::npos) << a.r.err;
  auto b = child({"--step", "64MiB", "--model-unscaled-step", "32MiB"}, {});
  EXPECT_EQ(b.r.status, 2);
  EXPECT_NE(b.r.err.find("smaller than --step"), std::string::npos) << b.r.err;
  auto c = run({WMBENCH_FILL_BIN, "--device", "cpu", "--step", "64MiB", "--model-revision", "legacy"});
  EXPECT_EQ(c.status, 2);
  EXPECT_NE(c.err.find("applies only to --device mps-model"), std::string::npos) << c.err;
}

}  // namespace

}  // namespace test_model_child
