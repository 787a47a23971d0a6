// The guard's policy driven by a fake probe, a fake clock and a fake sleeper.
#include <gtest/gtest.h>

#include <deque>

#include "common/units.h"
#include "guard/policy.h"

namespace test_guard_policy {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

class FakeClock : public Clock {
 public:
  double t = 0;
  double now() override { return t; }
};

class FakeSleeper : public Sleeper {
 public:
  explicit FakeSleeper(FakeClock& c) : c_(c) {}
  void sleep(double s) override {
    c_.t += s;
    slept += s;
  }
  double slept = 0;

 private:
  FakeClock& c_;
};

class FakeProbe : public MemoryProbe {
 public:
  std::deque<SystemMemory> readings;  // consumed one per call; the last one repeats
  bool fail = false;
  SystemMemory system() override {
    if (fail) throw ProbeError("cannot read /proc/meminfo: Permission denied");  // portable: an error text for a fake probe
    SystemMemory m = readings.front();
    if (readings.size() > 1) readings.pop_front();
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return {}; }
  std::string name() const override { return "fake"; }
};

SystemMemory mem(uint64_t swap_used, double level = 50) {
  SystemMemory m;
  m.ram_total = 48 * GiB;
  m.swap_total = 64 * GiB;
  m.swap_used = swap_used;
  m.level = level;
  return m;
}

}  // namespace

TEST(GuardPolicy, StopsOnlyWhenSwapGrowthCrossesTheBudget) {
  GuardConfig cfg;
  cfg.swap_budget = 2 * GiB;
  GuardPolicy p(cfg, 6 * GiB);
  EXPECT_FALSE(p.observe(mem(6 * GiB)).stop);
  EXPECT_FALSE(p.observe(mem(8 * GiB)).stop) << "exactly the budget is still allowed";
  auto v = p.observe(mem(8 * GiB + 1));
  EXPECT_TRUE(v.stop);
  EXPECT_NE(v.reason.find("budget 2.00 GiB"), std::string::npos) << v.reason;
}

TEST(GuardPolicy, SwapShrinkingBelowTheStartIsNotGrowth) {
  GuardConfig cfg;
  cfg.swap_budget = 1 * GiB;
  GuardPolicy p(cfg, 6 * GiB);
  EXPECT_FALSE(p.observe(mem(1 * GiB)).stop);
}

TEST(GuardPolicy, KillFreeNeedsTwoChecksInARow) {
  GuardConfig cfg;
  cfg.swap_budget = 0;  // off
  cfg.kill_free = 10;
  GuardPolicy p(cfg, 0);
  EXPECT_FALSE(p.observe(mem(0, 9)).stop) << "one low check is not enough";
  EXPECT_FALSE(p.observe(mem(0, 30)).stop) << "recovery resets the count";
  EXPECT_FALSE(p.observe(mem(0, 9.9)).stop);
  auto v = p.observe(mem(0, 5));
  EXPECT_TRUE(v.stop);
  EXPECT_NE(v.reason.find("under 10.0 %"), std::string::npos) << v.reason;
}

TEST(GuardPolicy, ZeroBudgetAndZeroKillFreeNeverStop) {
  GuardConfig cfg;
  cfg.swap_budget = 0;
  cfg.kill_free = 0;
  GuardPolicy p(cfg, 0);
  EXPECT_FALSE(p.observe(mem(100 * GiB, 0)).stop);
}

TEST(GuardPolicy, AFailingProbeStopsTheChild) {
  GuardPolicy p(GuardConfig{}, 0);
  auto v = p.probe_failed("cannot read /proc/meminfo");  // portable: an error text for a fake probe
  EXPECT_TRUE(v.stop);
  EXPECT_NE(v.reason.find("probe failed"), std::string::npos);
}

TEST(WaitForFree, StartsAtOnceWhenThereIsRoom) {
  FakeClock c;
  FakeSleeper s(c);
  FakeProbe p;
  p.readings = {mem(0, 55)};
  auto w = wait_for_free(p, c, s, 40, 300);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(s.slept, 0);
}

TEST(WaitForFree, WaitsUntilTheLevelRises) {
  FakeClock c;
  FakeSleeper s(c);
  FakeProbe p;
  p.readings = {mem(0, 20), mem(0, 30), mem(0, 41)};
  auto w = wait_for_free(p, c, s, 40, 300, 1.0);
  EXPECT_TRUE(w.ok);
  EXPECT_DOUBLE_EQ(w.waited, 2.0);
}

TEST(WaitForFree, GivesUpAfterTheBoundAndSaysWhy) {
  FakeClock c;
  FakeSleeper s(c);
  FakeProbe p;
  p.readings = {mem(0, 12)};
  auto w = wait_for_free(p, c, s, 40, 10, 1.0);
  EXPECT_FALSE(w.ok);
  EXPECT_GE(w.waited, 10.0);
  EXPECT_LE(w.waited, 11.0);
  EXPECT_NE(w.why.find("12.0 %"), std::string::npos) << w.why;
  EXPECT_NE(w.why.find("40.0 %"), std::string::npos) << w.why;
}

TEST(WaitForFree, AFailingProbeIsNoRoom) {
  FakeClock c;
  FakeSleeper s(c);
  FakeProbe p;
  p.fail = true;
  auto w = wait_for_free(p, c, s, 40, 10);
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.why.find("probe failed"), std::string::npos);
}

// Issue 41: the signals besides swap, each at its threshold and not below, each naming itself.

TEST(GuardSignals, SwapAndFreeFloorAndProbeNameTheirSignal) {
  GuardConfig cfg;
  cfg.swap_budget = 1 * GiB;
  GuardPolicy p(cfg, 0);
  EXPECT_EQ(p.observe(mem(2 * GiB)).signal, "swap");
  GuardConfig f;
  f.swap_budget = 0;
  f.kill_free = 10;
  GuardPolicy q(f, 0);
  q.observe(mem(0, 5));
  EXPECT_EQ(q.observe(mem(0, 5)).signal, "free-floor");
  EXPECT_EQ(q.probe_failed("x").signal, "probe");
}

TEST(GuardSignals, MacPressureStopsAtCriticalByDefaultAndNotAtWarn) {
  GuardConfig cfg;  // pressure_level 4: critical
  cfg.swap_budget = 0;
  GuardPolicy p(cfg, 0);
  SystemMemory m = mem(0);
  m.pressure = 1;
  EXPECT_FALSE(p.observe(m).stop);
  m.pressure = 2;
  EXPECT_FALSE(p.observe(m).stop) << "warn is below the default";
  m.pressure = 4;
  const GuardVerdict v = p.observe(m);
  EXPECT_TRUE(v.stop);
  EXPECT_EQ(v.signal, "pressure");
  EXPECT_NE(v.reason.find("critical"), std::string::npos) << v.reason;
}

TEST(GuardSignals, MacPressureAtWarnWhenAskedAndNeverWhenOff) {
  GuardConfig warn;
  warn.swap_budget = 0;
  warn.pressure_level = *pressure_level_from_name("warn");
  GuardPolicy p(warn, 0);
  SystemMemory m = mem(0);
  m.pressure = 1;
  EXPECT_FALSE(p.observe(m).stop);
  m.pressure = 2;
  EXPECT_TRUE(p.observe(m).stop);
  GuardConfig off;
  off.swap_budget = 0;
  off.pressure_level = *pressure_level_from_name("off");
  GuardPolicy q(off, 0);
  m.pressure = 4;
  EXPECT_FALSE(q.observe(m).stop);
  EXPECT_FALSE(pressure_level_from_name("urgent").has_value());
}

namespace {
SystemMemory stall(uint64_t us) {
  SystemMemory m = mem(0);
  m.stall_us = us;
  return m;
}
}  // namespace

TEST(GuardSignals, PsiStallStopsPastItsShareOfTheLastSecondAndNotAtIt) {
  GuardConfig cfg;
  cfg.swap_budget = 0;
  cfg.pressure_stall = 10;  // 100 ms of the last 1 s
  GuardPolicy p(cfg, 0);
  EXPECT_FALSE(p.observe(stall(5000000), 10.0).stop) << "the counter since boot is not the run's";
  EXPECT_FALSE(p.observe(stall(5000000 + 60000), 10.2).stop);
  EXPECT_FALSE(p.observe(stall(5000000 + 100000), 10.3).stop) << "exactly the limit is allowed";
  const GuardVerdict v = p.observe(stall(5000000 + 100001), 10.31);
  EXPECT_TRUE(v.stop) << "reacts at the first check past the limit, not after a 10 s average";
  EXPECT_EQ(v.signal, "pressure");
  EXPECT_NE(v.reason.find("PSI"), std::string::npos) << v.reason;
}

TEST(GuardSignals, PsiStallOlderThanTheWindowDoesNotCount) {
  GuardConfig cfg;
  cfg.swap_budget = 0;
  cfg.pressure_stall = 10;
  GuardPolicy p(cfg, 0);
  // 90 ms of stall per second, second after second: 9 %, under 10 %, however long it lasts.
  for (int i = 0; i <= 20; ++i) EXPECT_FALSE(p.observe(stall(90000ull * i), 0.5 * i * 2).stop) << i;
  GuardConfig off = cfg;
  off.pressure_stall = 0;
  GuardPolicy q(off, 0);
  EXPECT_FALSE(q.observe(stall(0), 0).stop);
  EXPECT_FALSE(q.observe(stall(900000), 0.5).stop) << "off";
  GuardPolicy blind(cfg, 0);
  EXPECT_FALSE(blind.observe(mem(0), 0).stop) << "no PSI here: the signal is not read";
}

TEST(GuardSignals, CompressorGrowthStopsPastItsBudgetAndNotAtIt) {
  GuardConfig cfg;
  cfg.swap_budget = 0;
  cfg.compressor_budget = 2 * GiB;
  GuardPolicy p(cfg, 0);
  SystemMemory m = mem(0);
  m.compressor_bytes = 5 * GiB;  // the first reading is the start
  EXPECT_FALSE(p.observe(m).stop);
  m.compressor_bytes = 7 * GiB;
  EXPECT_FALSE(p.observe(m).stop) << "exactly the budget";
  m.compressor_bytes = 7 * GiB + 1;
  const GuardVerdict v = p.observe(m);
  EXPECT_TRUE(v.stop);
  EXPECT_EQ(v.signal, "compressor");
  EXPECT_NE(v.reason.find("budget 2.00 GiB"), std::string::npos) << v.reason;
}

TEST(GuardSignals, WiredGrowthStopsPastItsBudgetAndNotAtIt) {
  GuardConfig cfg;
  cfg.swap_budget = 0;
  cfg.wired_budget = 3 * GiB;
  GuardPolicy p(cfg, 0);
  SystemMemory m = mem(0);
  m.wired_bytes = 2 * GiB;
  EXPECT_FALSE(p.observe(m).stop);
  m.wired_bytes = 5 * GiB;
  EXPECT_FALSE(p.observe(m).stop) << "exactly the budget";
  m.wired_bytes = 5 * GiB + 1;
  const GuardVerdict v = p.observe(m);
  EXPECT_TRUE(v.stop);
  EXPECT_EQ(v.signal, "wired");
  SystemMemory none = mem(0);  // Linux: no wired reading, never a stop
  GuardPolicy q(cfg, 0);
  EXPECT_FALSE(q.observe(none).stop);
}

TEST(GuardSignals, AScenarioGuardBlockResolvesAgainstRam) {
  GuardSettings s;  // the defaults: critical, PSI off, 25 %RAM compressor, 75 %RAM wired
  GuardConfig g;
  apply_guard_signals(s, 8 * GiB, g);
  EXPECT_EQ(g.pressure_level, 4);
  EXPECT_EQ(g.pressure_stall, 0);
  EXPECT_EQ(g.compressor_budget, 2 * GiB);
  EXPECT_EQ(g.wired_budget, 6 * GiB);
  s.pressure = "off";
  s.compressor_budget.reset();
  apply_guard_signals(s, 8 * GiB, g);
  EXPECT_EQ(g.pressure_level, 0);
  EXPECT_EQ(g.compressor_budget, 0u);
}

}  // namespace test_guard_policy
