// The guard's policy driven by a fake probe, a fake clock and a fake sleeper.
#include <gtest/gtest.h>

#include <deque>

#include "common/units.h"
#include "guard/policy.h"

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
