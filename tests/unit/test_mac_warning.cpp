// The warning the main job gives on a Mac before its first cell, and when it waits (issue 28):
// job/mac_warning.h, with the terminal and the environment injected.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "job/mac_warning.h"

namespace test_mac_warning {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

Scenario watermark_like() {
  std::vector<std::string> warnings;
  return parse_scenario(R"j({"name": "w", "device": "mps", "step": "512MiB", "cap": "95%RAM", "timeout": "30m",
    "guard": {"swap_budget": "min(2GiB, 5%RAM)"},
    "matrix": [{"label": "default"}, {"label": "high-0.8-low-0.8", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8",
    "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"}}]})j",
                        "w.json", warnings);
}

std::function<const char*(const char*)> env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* n) -> const char* {
    auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST(MacWarning, SaysHowMuchOfThisMacsMemoryWhatStopsItAndHowToStopIt) {
  const uint64_t ram = 48ull << 30;
  const MacFillFacts f = mac_fill_facts(watermark_like(), ram);
  EXPECT_EQ(f.ram, ram);
  EXPECT_EQ(f.cap, SizeExpr{"95%RAM"}.resolve(ram));
  EXPECT_EQ(f.swap_budget, 2ull << 30);
  EXPECT_EQ(f.cells, 2u);
  const std::string w = mac_fill_warning(f);
  EXPECT_NE(w.find("fills REAL memory on this Mac, 2 cell(s)"), std::string::npos) << w;
  EXPECT_NE(w.find("up to " + format_size(f.cap) + " of its " + format_size(ram) + " of RAM"), std::string::npos) << w;
  EXPECT_NE(w.find("swap has grown by " + format_size(2ull << 30) + " (the swap budget)"), std::string::npos) << w;
  EXPECT_NE(w.find("Ctrl-C stops it"), std::string::npos) << w;
  EXPECT_NE(w.find(format_duration(1800)), std::string::npos) << w;
  EXPECT_EQ(w.back(), '\n');
}

TEST(MacWarning, TheCapNeverExceedsTheRam) {
  Scenario s = watermark_like();
  s.cap = SizeExpr{"1TiB"};
  EXPECT_EQ(mac_fill_facts(s, 8ull << 30).cap, 8ull << 30);
  s.cap.reset();
  EXPECT_EQ(mac_fill_facts(s, 8ull << 30).cap, 8ull << 30);
}

TEST(MacWarning, WaitsOnlyOnATerminalAndNotUnderCi) {
  EXPECT_EQ(mac_warning_wait_s(true, true, env({})), 10);
  EXPECT_EQ(mac_warning_wait_s(true, true, env({}), 5), 5);
  EXPECT_EQ(mac_warning_wait_s(false, true, env({})), 0) << "stdin is a pipe";
  EXPECT_EQ(mac_warning_wait_s(true, false, env({})), 0) << "stderr is a pipe or a file";
  EXPECT_EQ(mac_warning_wait_s(true, true, env({{"CI", "true"}})), 0) << "CI";
  EXPECT_EQ(mac_warning_wait_s(true, true, env({{"CI", "1"}})), 0);
  EXPECT_EQ(mac_warning_wait_s(true, true, env({{"CI", ""}})), 10) << "an empty CI is not CI";
  EXPECT_EQ(mac_warning_wait_s(true, true, env({{"CI", "false"}})), 10);
  EXPECT_EQ(mac_warning_wait_s(true, true, env({{"WMBENCH_NO_WAIT", "1"}})), 0);
}

// Issue 40 (doubtful, decided): a RAM that could not be read is said so, never "up to 0 bytes".
TEST(MacWarning, ARamThatCouldNotBeReadIsSaidSoNotZeroBytes) {
  const std::string w = mac_fill_warning(mac_fill_facts(watermark_like(), 0));
  EXPECT_EQ(w.find("0 bytes"), std::string::npos) << w;
  EXPECT_NE(w.find("RAM could not be read"), std::string::npos) << w;
  EXPECT_NE(w.find("Ctrl-C stops it"), std::string::npos) << w;
}

TEST(MacWarning, CountsEveryFillOfReleasesAndTuneNotOneMatrix) {
  // issue 42: `releases` fills the matrix once per release, `tune` one cell per probed setting.
  const MacFillFacts r = mac_fill_facts(watermark_like(), 16ull << 30, {6, "the matrix once for each of 3 release(s)"});
  EXPECT_EQ(r.cells, 6u);
  const std::string w = mac_fill_warning(r);
  EXPECT_NE(w.find("6 cell(s) one after another (the matrix once for each of 3 release(s))"), std::string::npos) << w;
  const MacFillFacts t = mac_fill_facts(watermark_like(), 16ull << 30, {7, "up to 7 settings that tune probes"});
  EXPECT_NE(mac_fill_warning(t).find("7 cell(s) one after another (up to 7 settings"), std::string::npos);
  EXPECT_EQ(mac_fill_facts(watermark_like(), 16ull << 30).what, "") << "run: one matrix, said as before";
}

}  // namespace test_mac_warning
