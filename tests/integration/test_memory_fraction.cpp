// scenarios/memory-fraction.json on the model, through the real runner and wmbench-fill: a
// memory_fraction cell gives max allowed = F x recommended max to the byte, F = 0.8 with no LOW
// runs, HIGH = 0.8 alone by environment is still a config error. And `predict`: --other-allocations
// changes the stop where the source says it does, --from-error reads a pasted message.
#include <unistd.h>

#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "cli_util.h"

namespace test_memory_fraction {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

const std::string kScenarios = std::string(WMBENCH_SOURCE_DIR) + "/scenarios/";
constexpr uint64_t MiB = 1ull << 20;

std::map<std::string, nlohmann::json> runs_by_label(const nlohmann::json& summary) {
  std::map<std::string, nlohmann::json> m;
  for (const auto& r : summary["runs"]) m[r["label"].get<std::string>()] = r;
  return m;
}

}  // namespace

TEST(MemoryFractionScenario, FractionSetsHighOnlyToTheByte) {
  WMBT_SKIP_IF(free_memory_below(1ull << 30));  // a GiB cap: refused where less is free (small Macs)
  // 8 MiB steps share 32 MiB heaps; 256 MiB recommended max keeps the real memory under 250 MiB.
  const uint64_t rec = 256 * MiB;
  const std::string t = tmpdir();
  auto r = wmbench({"run", kScenarios + "memory-fraction.json", "--device", "mps-model", "--recommended-max",
                    std::to_string(rec), "--step", "8MiB", "--cap", "1GiB", "--other-allocations", "1MiB", "--only",
                    "env-high-0.8-low-0.8,fraction-0.8,env-high-0.8-alone,env-high-0.8-alone-fraction-0.8,fraction-0.5,"
                    "env-high-0.0-fraction-0.5,fraction-2.5",
                    "--out", t, "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t);
  auto runs = runs_by_label(read_json(dir + "/summary.json"));
  ASSERT_EQ(runs.size(), 7u);
  const auto max_of = [&](double f) { return static_cast<uint64_t>(f * static_cast<double>(rec)); };
  EXPECT_EQ(runs["fraction-0.8"]["stopped_by"], "pytorch") << runs["fraction-0.8"].dump(2);
  EXPECT_EQ(runs["fraction-0.8"]["max_allowed_bytes"], max_of(0.8));
  EXPECT_EQ(runs["fraction-0.8"]["memory_fraction"], 0.8);
  EXPECT_EQ(runs["env-high-0.8-low-0.8"]["stopped_by"], "pytorch");
  EXPECT_EQ(runs["env-high-0.8-low-0.8"]["max_allowed_bytes"], max_of(0.8));
  EXPECT_EQ(runs["fraction-0.5"]["max_allowed_bytes"], max_of(0.5));
  EXPECT_EQ(runs["env-high-0.0-fraction-0.5"]["max_allowed_bytes"], max_of(0.5));
  EXPECT_EQ(runs["env-high-0.8-alone"]["stopped_by"], "config");
  EXPECT_EQ(runs["env-high-0.8-alone"]["error_text"], "invalid low watermark ratio 1.4");
  EXPECT_EQ(runs["env-high-0.8-alone-fraction-0.8"]["stopped_by"], "config");
  EXPECT_EQ(runs["env-high-0.8-alone-fraction-0.8"]["error_text"], "invalid low watermark ratio 1.4");
  EXPECT_EQ(runs["fraction-2.5"]["stopped_by"], "config") << runs["fraction-2.5"].dump(2);
  EXPECT_EQ(runs["fraction-2.5"]["error_text"], "Invalid fraction value: 2.5. Allowed range: 0~2");
  // --other-allocations reached the model: the messages (PyTorch prints 1 MiB as 1024.00 KiB) and machine.json.
  EXPECT_NE(runs["fraction-0.8"]["error_text"].get<std::string>().find("other allocations: 1024.00 KiB"), std::string::npos)
      << runs["fraction-0.8"]["error_text"];
  const auto machine = read_json(dir + "/machine.json");
  EXPECT_EQ(machine["model"]["other_bytes"], MiB);
  EXPECT_EQ(machine["model"]["version"], 2);
}

TEST(MemoryFractionScenario, AResumeRunsTheFoldersCellsWithTheirFractionAndOtherAllocations) {
  WMBT_SKIP_IF(free_memory_below(1ull << 30));  // a GiB cap: refused where less is free (small Macs)
  // The folder's scenario.json keeps each cell's memory_fraction, and machine.json the model's
  // other allocations: a resumed cell runs as the first session ran it, not with the defaults.
  const uint64_t rec = 256 * MiB;
  const std::string t = tmpdir();
  auto first = wmbench({"run", kScenarios + "memory-fraction.json", "--device", "mps-model", "--recommended-max",
                        std::to_string(rec), "--step", "8MiB", "--cap", "1GiB", "--other-allocations", "1MiB", "--only",
                        "fraction-0.8,fraction-0.5", "--out", t, "--no-plots"});
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  const std::string dir = only_result_dir(t);
  std::map<std::string, double> fraction;
  const auto folder_scenario = read_json(dir + "/scenario.json");  // kept: a range-for over a temporary's member dangles
  for (const auto& c : folder_scenario["matrix"])
    if (c.contains("memory_fraction")) fraction[c["label"].get<std::string>()] = c["memory_fraction"].get<double>();
  EXPECT_EQ(fraction, (std::map<std::string, double>{{"fraction-0.8", 0.8}, {"fraction-0.5", 0.5}}));
  // As if the session had ended before the second cell: its record and trace are gone.
  ASSERT_EQ(::unlink((dir + "/runs/02-fraction-0.5.json").c_str()), 0);
  ::unlink((dir + "/runs/02-fraction-0.5.trace.jsonl").c_str());
  auto other = wmbench({"run", "--resume", dir, "--other-allocations", "2MiB", "--no-plots"});
  EXPECT_EQ(other.status, 2) << other.out << other.err;
  EXPECT_TRUE(has(other.err, "was run with 1024.00 KiB")) << other.err;
  auto resumed = wmbench({"run", "--resume", dir, "--no-plots"});
  ASSERT_EQ(resumed.status, 0) << resumed.out << resumed.err;
  const auto rerun = read_json(dir + "/runs/02-fraction-0.5.json");
  EXPECT_EQ(rerun["memory_fraction"], 0.5) << rerun.dump(2);
  EXPECT_EQ(rerun["stopped_by"], "pytorch") << rerun.dump(2);
  EXPECT_EQ(rerun["max_allowed_bytes"], static_cast<uint64_t>(0.5 * static_cast<double>(rec))) << rerun.dump(2);
  EXPECT_NE(rerun["error_text"].get<std::string>().find("other allocations: 1024.00 KiB"), std::string::npos)
      << rerun["error_text"];
}

TEST(MemoryFractionScenario, OtherAllocationsOnlyForTheModel) {
  const std::string t = tmpdir();
  auto r = wmbench({"run", kScenarios + "memory-fraction.json", "--device", "cpu", "--other-allocations", "1MiB",
                    "--out", t, "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--other-allocations applies only to device mps-model")) << r.err;
}

TEST(PredictOtherAllocations, ZeroAndTheDefaultDifferWhereTheDriverCountDecides) {
  // 0.8 x 12.5 GiB = 10 GiB = 20 steps of 512 MiB exactly. alloc_buffer refuses when
  // current_allocated_size() + size > max (MPSAllocator.mm): with no other allocations the 20th
  // step fits to the byte; with the write-up's 448 KiB it does not. 0.5 x 12.5 GiB = 6.25 GiB leaves
  // room either way: the same 12 steps.
  auto steps = [](const std::vector<std::string>& extra) {
    std::vector<std::string> a = {WMBENCH_BIN, "predict", "--ram", "16GiB", "--recommended-max", "12.5GiB", "--free",
                                  "15GiB", "--json"};
    a.insert(a.end(), extra.begin(), extra.end());
    auto r = run(a);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::map<std::string, uint64_t> m;
    if (r.status != 0) return m;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // named: a temporary's ["settings"] would dangle
    for (const auto& s : j["settings"]) m[s["label"].get<std::string>()] = s["steps"].get<uint64_t>();
    return m;
  };
  const auto def = steps({}), zero = steps({"--other-allocations", "0"});
  ASSERT_TRUE(def.count("high-0.8-low-0.8") && zero.count("high-0.8-low-0.8"));
  EXPECT_EQ(zero.at("high-0.8-low-0.8"), 20u);
  EXPECT_EQ(def.at("high-0.8-low-0.8"), 19u);
  EXPECT_EQ(zero.at("high-0.5-low-0.5"), 12u);
  EXPECT_EQ(def.at("high-0.5-low-0.5"), 12u);
}

TEST(PredictFromError, ReadsTheWriteUpsMessage) {
  // The write-up's message (M5 Pro 48 GB, HIGH 0.5): max allowed 18.72 GiB -> recommended max 37.44 GiB.
  const std::string t = tmpdir();
  const std::string file = t + "/err.txt";
  write(file,
        "RuntimeError: MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB, max "
        "allowed: 18.72 GiB). Tried to allocate 512.00 MiB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 "
        "to disable upper limit for memory allocations (may cause system failure).\n");
  auto r = run({WMBENCH_BIN, "predict", "--from-error", file, "--high", "0.5", "--free", "34GiB", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const uint64_t rec = j["from_error"]["recommended_max_bytes"];
  EXPECT_NEAR(static_cast<double>(rec), 37.44 * (1ull << 30), 0.01 * (1ull << 30));
  EXPECT_EQ(j["recommended_max_bytes"], rec);
  EXPECT_EQ(j["model"]["other_bytes"], 448 * 1024);
  EXPECT_EQ(j["model"]["step_bytes"], 512 * MiB);
  EXPECT_EQ(j["ram_bytes"], 48ull << 30) << "the likely RAM class of that recommended max";
  // Not an MPS out-of-memory message: exit 2, saying what it read.
  write(file, "CUDA out of memory. Tried to allocate 2.00 GiB.\n");
  auto bad = run({WMBENCH_BIN, "predict", "--from-error", file});
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.err, "not an MPS out-of-memory message")) << bad.err;
}

TEST(ModelRevisionList, ListsEachRevisionWithItsPr) {
  for (const char* cmd : {"run", "predict"}) {
    auto r = wmbench({cmd, "--model-revision", "list"});
    EXPECT_EQ(r.status, 0) << r.err;
    for (const char* s : {"current", "shared-pool", "private-pool", "legacy", "#175818", "#187441"})
      EXPECT_TRUE(has(r.out, s)) << cmd << ": " << s << "\n" << r.out;
  }
}

}  // namespace test_memory_fraction
