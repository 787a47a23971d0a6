// The adaptive check interval (guard/pacer.h) driven by a fake clock, a fake sleeper and a fake
// probe whose swap grows at a fixed rate: the same loop the supervisor runs (read, decide, wait
// for the pacer's interval), with time that only the sleeper moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/units.h"
#include "guard/pacer.h"
#include "guard/policy.h"

namespace test_guard_pacer {  // one namespace per test file: the unity build compiles 8 files as one

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
    slept.push_back(s);
  }
  std::vector<double> slept;

 private:
  FakeClock& c_;
};

// Swap at `start` until ramp_at, then growing at `rate` bytes/s; free level falling at
// level_rate percent/s from `level` (when set).
class RampProbe : public MemoryProbe {
 public:
  RampProbe(Clock& c, uint64_t start, double ramp_at, double rate) : c_(c), start_(start), ramp_at_(ramp_at), rate_(rate) {}
  double level = 50, level_rate = 0;
  SystemMemory system() override {
    const double t = c_.now();
    const double ramp = std::max(0.0, t - ramp_at_);
    SystemMemory m;
    m.ram_total = 24 * GiB;
    m.swap_total = 64 * GiB;
    m.swap_used = start_ + static_cast<uint64_t>(rate_ * ramp);
    m.level = std::max(0.0, level - level_rate * ramp);
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return {}; }
  std::string name() const override { return "ramp"; }

 private:
  Clock& c_;
  uint64_t start_;
  double ramp_at_, rate_;
};

struct Outcome {
  double stopped_at = -1;  // clock time of the stop verdict; -1: none before the end
  int checks = 0;
  std::vector<double> intervals;
};

// The supervisor's loop with fakes: a check, the verdict, then the pacer's interval.
Outcome watch(const GuardConfig& cfg, MemoryProbe& probe, FakeClock& clock, FakeSleeper& sleeper, uint64_t start,
              double until) {
  GuardPolicy policy(cfg, start);
  CheckPacer pacer(cfg, start);
  Outcome o;
  sleeper.sleep(pacer.first_in());
  while (clock.now() < until) {
    const SystemMemory m = probe.system();
    ++o.checks;
    if (policy.observe(m).stop) {
      o.stopped_at = clock.now();
      return o;
    }
    const double next = pacer.next_in(clock.now(), m);
    o.intervals.push_back(next);
    sleeper.sleep(next);
  }
  return o;
}

// A range wide enough to see the pacing in: 100 ms far, 5 ms near (the defaults are 10 and 2 ms).
GuardConfig paced(GuardConfig cfg = GuardConfig{}) {
  cfg.check_interval = 0.1;
  cfg.near_interval = 0.005;
  cfg.assumed_rate = 4 * GiB;
  return cfg;
}

GuardConfig budget(uint64_t b) {
  GuardConfig cfg = paced();
  cfg.swap_budget = b;
  return cfg;
}

}  // namespace

TEST(GuardPacer, QuietSwapIsCheckedAtTheSlowInterval) {
  FakeClock c;
  FakeSleeper s(c);
  RampProbe p(c, 1 * GiB, 1e9, 0);  // never grows
  const Outcome o = watch(budget(2 * GiB), p, c, s, 1 * GiB, 60);
  EXPECT_LT(o.stopped_at, 0);
  ASSERT_FALSE(o.intervals.empty());
  for (double i : o.intervals) EXPECT_DOUBLE_EQ(i, 0.1) << "2 GiB of headroom at 4 GiB/s is 250 ms: the 100 ms cap";
  EXPECT_LE(o.checks, 60 / 0.1 + 2) << "no more checks than the old fixed 100 ms in a quiet minute";
}

TEST(GuardPacer, NearTheBudgetItChecksEveryFewMilliseconds) {
  GuardConfig cfg = budget(2 * GiB);
  CheckPacer pacer(cfg, 0);
  SystemMemory m;
  m.ram_total = 24 * GiB;
  m.level = 50;
  m.swap_used = 2 * GiB - 8 * MiB;  // 8 MiB of headroom
  EXPECT_DOUBLE_EQ(pacer.next_in(0, m), 0.005);
  m.swap_used = 2 * GiB - 400 * MiB;  // 400 MiB at 4 GiB/s: 98 ms, half of it
  EXPECT_NEAR(pacer.next_in(1, m), 400.0 / 4096 / 2, 1e-9);
  m.swap_used = 0;
  EXPECT_DOUBLE_EQ(pacer.next_in(2, m), 0.1);
}

TEST(GuardPacer, SwapGrowingAt2GiBPerSecondIsStoppedWithinTheNearInterval) {
  // The crossing at a different phase each time; the old fixed 100 ms decides up to 100 ms late.
  double worst_new = 0, worst_old = 0;
  for (int k = 0; k < 20; ++k) {
    const double ramp_at = 1.0 + 0.0137 * k;
    const double rate = 2.0 * GiB;
    const double crossing = ramp_at + (2.0 * GiB) / rate;
    for (bool adaptive : {true, false}) {
      FakeClock c;
      FakeSleeper s(c);
      RampProbe p(c, 0, ramp_at, rate);
      GuardConfig cfg = budget(2 * GiB);
      cfg.adaptive = adaptive;
      const Outcome o = watch(cfg, p, c, s, 0, 30);
      ASSERT_GE(o.stopped_at, crossing) << "stopped before the budget was crossed";
      (adaptive ? worst_new : worst_old) = std::max(adaptive ? worst_new : worst_old, o.stopped_at - crossing);
    }
  }
  EXPECT_LE(worst_new, 0.005 + 1e-9) << "decided within one near interval of the crossing";
  EXPECT_GT(worst_old, 0.05) << "the old fixed interval, the same assertion would fail: this test can tell them apart";
}

TEST(GuardPacer, ARateFasterThanAssumedIsFollowed) {
  // 16 GiB/s, four times the assumed 4 GiB/s: the seen rate shortens the interval, so the
  // decision is still within one near interval (plus the first, not yet informed, interval).
  FakeClock c;
  FakeSleeper s(c);
  const double rate = 16.0 * GiB;
  RampProbe p(c, 0, 0.5, rate);
  const Outcome o = watch(budget(4 * GiB), p, c, s, 0, 30);
  const double crossing = 0.5 + 4.0 * GiB / rate;
  ASSERT_GE(o.stopped_at, crossing);
  EXPECT_LE(o.stopped_at - crossing, 0.005 + 1e-9);
}

TEST(GuardPacer, FreeMemoryNearKillFreeIsCheckedFast) {
  GuardConfig cfg = paced();
  cfg.swap_budget = 0;
  cfg.kill_free = 10;
  CheckPacer pacer(cfg, 0);
  SystemMemory m;
  m.ram_total = 24 * GiB;
  m.level = 60;  // 12 GiB above the limit: slow
  EXPECT_DOUBLE_EQ(pacer.next_in(0, m), 0.1);
  m.level = 10.05;  // 12 MiB above it
  EXPECT_DOUBLE_EQ(pacer.next_in(0.1, m), 0.005);
  m.level = 9;  // under it: the confirming second check comes fast too
  EXPECT_DOUBLE_EQ(pacer.next_in(0.105, m), 0.005);
}

TEST(GuardPacer, KillFreeFallingFastIsStoppedSoonAfterTwoLowChecks) {
  FakeClock c;
  FakeSleeper s(c);
  RampProbe p(c, 0, 1.0, 0);
  p.level = 60;
  p.level_rate = 25;  // percent of 24 GiB per second: 6 GiB/s
  GuardConfig cfg = paced();
  cfg.swap_budget = 0;
  cfg.kill_free = 10;
  const Outcome o = watch(cfg, p, c, s, 0, 30);
  const double under = 1.0 + 50.0 / 25;  // level reaches 10 %
  ASSERT_GE(o.stopped_at, under);
  EXPECT_LE(o.stopped_at - under, 2 * 0.005 + 1e-9) << "two checks a near interval apart";
}

TEST(GuardPacer, TheOldPolicyIsAFixedInterval) {
  GuardConfig cfg = budget(2 * GiB);
  cfg.adaptive = false;
  CheckPacer pacer(cfg, 0);
  EXPECT_DOUBLE_EQ(pacer.first_in(), 0.1);
  SystemMemory m;
  m.ram_total = 24 * GiB;
  m.swap_used = 2 * GiB - 1;
  EXPECT_DOUBLE_EQ(pacer.next_in(0, m), 0.1);
}

TEST(GuardPacer, ShrinkingSwapAndOddReadingsStayInsideTheBounds) {
  GuardConfig cfg = budget(2 * GiB);
  cfg.kill_free = 5;
  CheckPacer pacer(cfg, 4 * GiB);
  SystemMemory m;
  m.ram_total = 0;  // a probe that knows no RAM size: the free limit is left out
  m.swap_used = 8 * GiB;  // past the budget already: near
  EXPECT_DOUBLE_EQ(pacer.next_in(0, m), 0.005);
  m.swap_used = 1 * GiB;  // shrank below the start: growth 0, full headroom
  EXPECT_DOUBLE_EQ(pacer.next_in(0.005, m), 0.1);
  m.swap_used = 2 * GiB;
  EXPECT_DOUBLE_EQ(pacer.next_in(0.005, m), 0.1) << "the same time again (dt 0) is not a rate";
  // A check_interval shorter than near_interval: near is capped at it.
  GuardConfig fast = budget(2 * GiB);
  fast.check_interval = 0.002;
  CheckPacer p2(fast, 0);
  m.ram_total = 24 * GiB;
  m.swap_used = 2 * GiB;
  EXPECT_DOUBLE_EQ(p2.next_in(0, m), 0.002);
}

}  // namespace test_guard_pacer
