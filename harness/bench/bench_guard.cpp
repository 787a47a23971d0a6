// The guard's reaction, overshoot and own cost, each with the new policy (adaptive check interval,
// guard/pacer.h; the child's end waited for on a pidfd / kqueue, spawn/exit_watch.h) and the old
// one (a check every 100 ms, a 5 ms sleep-poll for the child's end) in the same run, so each
// figure has its ratio. Real children (/bin/sleep, /bin/sh), real signals, fake swap readings.
//
//   GuardReaction     supervise() a real /bin/sleep 30 with a fake probe whose swap jumps past the
//                     budget at a known moment (a step nobody announced: the child writes nothing),
//                     at a different phase of the check cycle each iteration; per policy the mean
//                     and max of crossing -> child gone, split into decision (crossing -> stop
//                     decided) and stop (decided -> gone, SuperviseResult::stop_latency).
//   GuardReaction/announced  the same, but the child writes a fill-protocol step line and the
//                     probe's swap crosses when that line is read (the fill child announces each
//                     512 MiB step): the check the line wakes decides.
//   GuardReaction/pressure  the same unannounced crossing, of the pressure signal (issue 41): the
//                     fake probe's PSI stall total (stall_us) jumps by 1 s at the crossing, past
//                     the 10 % of the last second the guard allows; swap never moves.
//   GuardOvershoot    swap grows at a fixed 2 GiB/s (a fake probe) from 0 past a 2 GiB budget: the
//                     swap grown past the budget by the time the child is gone,
//                     2 GiB/s x (gone - crossing), in bytes and as a share of one 512 MiB fill step.
//   GuardQuietCpu     four supervise() loops at once, each in its own thread on its own quiet
//                     /bin/sleep 60 with the real platform probe: {new, old} x {a stdout pipe (the
//                     fill child's case), none (`wmbench guard`'s case)}; each thread's CPU time
//                     (CLOCK_THREAD_CPUTIME_ID) over the 60 s, as percent of one core.
//   GuardQuietCpu/pressure  the same with the pressure signal on (--pressure-stall 10): each
//                     check also reads /proc/pressure/memory on Linux.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "common/clock.h"
#include "guard/supervisor.h"
#include "probe/probe.h"
#include "spawn/process.h"

namespace wmb::bench {
namespace {

constexpr uint64_t kBudget = uint64_t{2} << 30;
constexpr uint64_t kStep = uint64_t{512} << 20;  // one fill step of the fill child

struct Policy {
  const char* name;
  bool adaptive, event_waits;
};
constexpr Policy kNew{"new", true, true};
constexpr Policy kOld{"old", false, false};  // 100 ms fixed, 5 ms sleep-polls for the child's end

SuperviseOptions options_for(const Policy& p) {
  SuperviseOptions o;
  o.guard.swap_budget = kBudget;
  o.guard.adaptive = p.adaptive;
  if (!p.adaptive) o.guard.check_interval = 0.1;  // the old default; the new one is GuardConfig's
  o.event_waits = p.event_waits;
  o.old_stop_poll = 0.005;
  o.sample_interval = 0.5;
  o.grace = 5;
  return o;
}

SystemMemory reading(uint64_t swap_used) {
  SystemMemory m;
  m.ram_total = uint64_t{24} << 30;
  m.swap_total = uint64_t{64} << 30;
  m.swap_used = swap_used;
  m.level = 50;
  return m;
}

// Swap 0 until `cross_at` (a SteadyClock time, settable later), then budget + 1 GiB; or, for the
// pressure signal, swap 0 throughout and the PSI stall total 0 until `cross_at`, then 1 s.
class StepProbe final : public MemoryProbe {
 public:
  explicit StepProbe(Clock& clock, bool pressure = false) : clock_(clock), pressure_(pressure) {}
  std::atomic<double> cross_at{1e300};
  SystemMemory system() override {
    const bool crossed = clock_.now() >= cross_at.load();
    if (!pressure_) return reading(crossed ? kBudget + (uint64_t{1} << 30) : 0);
    SystemMemory m = reading(0);
    m.stall_us = crossed ? 1000000 : 0;
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return ProcessMemory{}; }
  std::string name() const override { return "bench-step"; }

 private:
  Clock& clock_;
  bool pressure_;
};

// Swap 0 until ramp_at, then growing at `rate` bytes/s.
class RampProbe final : public MemoryProbe {
 public:
  RampProbe(Clock& clock, double ramp_at, double rate) : clock_(clock), ramp_at_(ramp_at), rate_(rate) {}
  SystemMemory system() override {
    return reading(static_cast<uint64_t>(rate_ * std::max(0.0, clock_.now() - ramp_at_)));
  }
  ProcessMemory process(pid_t, const std::string&) override { return ProcessMemory{}; }
  std::string name() const override { return "bench-ramp"; }

 private:
  Clock& clock_;
  double ramp_at_, rate_;
};

struct Stats {
  double sum = 0, max = 0;
  int n = 0;
  void add(double v) {
    sum += v;
    max = std::max(max, v);
    ++n;
  }
  double mean() const { return n ? sum / n : 0; }
};

Child spawn(const std::vector<std::string>& argv, bool pipe) {
  SpawnOptions so;
  so.argv = argv;
  so.env = current_environment();
  so.own_process_group = true;
  so.capture_stdout = pipe;
  return spawn_child(so);
}

// ---- reaction ----------------------------------------------------------------------------------

void guard_reaction(benchmark::State& state, bool announced, bool pressure = false) {
  SteadyClock clock;
  Stats total[2], decision[2], stop[2];
  int k = 0;
  for (auto _ : state) {
    // The crossing at a different phase of the check cycle each iteration; new and old alternate.
    const double offset = 0.2 + std::fmod(0.037 * k, 0.1);
    for (int pi = 0; pi < 2; ++pi) {
      const Policy& pol = pi == 0 ? kNew : kOld;
      SuperviseOptions opts = options_for(pol);
      if (pressure) opts.guard.pressure_stall = 10;  // percent of the last second
      StepProbe probe(clock, pressure);
      Child child;
      try {
        if (announced) {
          // A fill-protocol step line after `offset`, then quiet (exec: the shell's pid is sleep's).
          const std::string script = "sleep " + std::to_string(offset) +
                                     "; echo '{\"type\":\"step\",\"held\":2684354560}'; exec sleep 30";
          child = spawn({"/bin/sh", "-c", script}, true);
        } else {
          child = spawn({"/bin/sleep", "30"}, false);
        }
      } catch (const SpawnError& e) {
        state.SkipWithError(e.what());
        return;
      }
      const double start = clock.now();
      if (announced)
        opts.on_line = [&](std::string_view, bool, double) {
          if (probe.cross_at.load() > 1e299) probe.cross_at = clock.now();
        };
      else
        probe.cross_at = start + offset;
      const SuperviseResult r = supervise(child, opts, probe, clock, 0);
      if (r.stopper != Stopper::Guard) {
        state.SkipWithError(("the guard did not stop the child: " + r.reason).c_str());
        return;
      }
      // supervise() measures duration from its own start (~start) to the child gone.
      const double gone = start + r.duration;
      const double decided = gone - r.stop_latency;
      const double cross = probe.cross_at.load();
      total[pi].add(gone - cross);
      decision[pi].add(decided - cross);
      stop[pi].add(r.stop_latency);
      if (pi == 0) state.SetIterationTime(gone - cross);
    }
    ++k;
  }
  for (int pi = 0; pi < 2; ++pi) {
    const std::string p = pi == 0 ? "new_" : "old_";
    state.counters[p + "ms"] = 1000 * total[pi].mean();
    state.counters[p + "max_ms"] = 1000 * total[pi].max;
    state.counters[p + "decision_ms"] = 1000 * decision[pi].mean();
    state.counters[p + "decision_max_ms"] = 1000 * decision[pi].max;
    state.counters[p + "stop_ms"] = 1000 * stop[pi].mean();
    state.counters[p + "stop_max_ms"] = 1000 * stop[pi].max;
  }
  if (total[1].mean() > 0) state.counters["new/old"] = total[0].mean() / total[1].mean();
}

// ---- overshoot ---------------------------------------------------------------------------------

void guard_overshoot(benchmark::State& state) {
  SteadyClock clock;
  const double rate = 2.0 * kGiB;  // bytes/s
  Stats over[2];
  int k = 0;
  for (auto _ : state) {
    const double phase = std::fmod(0.037 * k++, 0.1);
    for (int pi = 0; pi < 2; ++pi) {
      SuperviseOptions opts = options_for(pi == 0 ? kNew : kOld);
      Child child;
      try {
        child = spawn({"/bin/sleep", "30"}, false);
      } catch (const SpawnError& e) {
        state.SkipWithError(e.what());
        return;
      }
      const double start = clock.now();
      const double ramp_at = start + 0.1 + phase;
      RampProbe probe(clock, ramp_at, rate);
      const SuperviseResult r = supervise(child, opts, probe, clock, 0);
      if (r.stopper != Stopper::Guard) {
        state.SkipWithError(("the guard did not stop the child: " + r.reason).c_str());
        return;
      }
      const double cross = ramp_at + static_cast<double>(kBudget) / rate;
      const double gone = start + r.duration;
      const double overshoot = rate * std::max(0.0, gone - cross);  // bytes past the budget when gone
      over[pi].add(overshoot);
      if (pi == 0) state.SetIterationTime(gone - cross);
    }
  }
  const double mib = double(uint64_t{1} << 20);
  for (int pi = 0; pi < 2; ++pi) {
    const std::string p = pi == 0 ? "new_" : "old_";
    state.counters[p + "MiB"] = over[pi].mean() / mib;
    state.counters[p + "max_MiB"] = over[pi].max / mib;
    state.counters[p + "steps"] = over[pi].mean() / static_cast<double>(kStep);
    state.counters[p + "max_steps"] = over[pi].max / static_cast<double>(kStep);
  }
  if (over[1].mean() > 0) state.counters["new/old"] = over[0].mean() / over[1].mean();
}

// ---- the guard's own CPU -----------------------------------------------------------------------

double thread_cpu_seconds() {
  struct timespec ts;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void guard_quiet_cpu(benchmark::State& state, double seconds, bool pressure = false) {
  struct Lane {
    Policy policy;
    bool pipe;
    std::string name;
    double cpu = 0, wall = 0;
    std::string error;
  };
  std::vector<Lane> lanes = {{kNew, true, "new_pipe", 0, 0, {}}, {kOld, true, "old_pipe", 0, 0, {}},
                             {kNew, false, "new_nopipe", 0, 0, {}}, {kOld, false, "old_nopipe", 0, 0, {}}};
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (auto& lane : lanes) {
      threads.emplace_back([&lane, seconds, pressure] {
        try {
          auto probe = make_platform_probe();
          SteadyClock clock;
          SuperviseOptions opts = options_for(lane.policy);
          if (pressure) opts.guard.pressure_stall = 10;
          opts.timeout = 0;
          const uint64_t swap_before = probe->system().swap_used;
          Child child = spawn({"/bin/sleep", std::to_string(seconds)}, lane.pipe);
          const double c0 = thread_cpu_seconds(), w0 = clock.now();
          const SuperviseResult r = supervise(child, opts, *probe, clock, swap_before);
          lane.cpu = thread_cpu_seconds() - c0;
          lane.wall = clock.now() - w0;
          if (r.stopper != Stopper::None) lane.error = lane.name + ": stopped by " + r.reason;
          if (child.stdout_fd >= 0) ::close(child.stdout_fd);
        } catch (const std::exception& e) {
          lane.error = lane.name + ": " + e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& lane : lanes)
      if (!lane.error.empty()) {
        state.SkipWithError(lane.error.c_str());
        return;
      }
    state.SetIterationTime(lanes[0].wall);
  }
  for (auto& lane : lanes) state.counters[lane.name + "_cpu_pct"] = lane.wall > 0 ? 100 * lane.cpu / lane.wall : 0;
  if (lanes[1].cpu > 0) state.counters["new/old_pipe"] = lanes[0].cpu / lanes[1].cpu;
  if (lanes[3].cpu > 0) state.counters["new/old_nopipe"] = lanes[2].cpu / lanes[3].cpu;
}

}  // namespace

void register_guard_benchmarks() {
  benchmark::RegisterBenchmark("GuardReaction", [](benchmark::State& s) { guard_reaction(s, false); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(20)
      ->UseManualTime();
  benchmark::RegisterBenchmark("GuardReaction/announced", [](benchmark::State& s) { guard_reaction(s, true); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(20)
      ->UseManualTime();
  benchmark::RegisterBenchmark("GuardReaction/pressure", [](benchmark::State& s) { guard_reaction(s, false, true); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(20)
      ->UseManualTime();
  benchmark::RegisterBenchmark("GuardOvershoot", guard_overshoot)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(20)
      ->UseManualTime();
  // WMBENCH_QUIET_SECONDS: a shorter quiet child for a quick look (BENCHMARKS.md uses the 60 s).
  double quiet = 60;
  if (const char* q = std::getenv("WMBENCH_QUIET_SECONDS")) {
    char* end = nullptr;
    const double v = std::strtod(q, &end);
    if (end != q && *end == '\0' && v >= 1 && v <= 3600) quiet = v;
  }
  benchmark::RegisterBenchmark("GuardQuietCpu", [quiet](benchmark::State& s) { guard_quiet_cpu(s, quiet); })
      ->Unit(benchmark::kSecond)
      ->Iterations(1)
      ->UseManualTime();
  benchmark::RegisterBenchmark("GuardQuietCpu/pressure", [quiet](benchmark::State& s) { guard_quiet_cpu(s, quiet, true); })
      ->Unit(benchmark::kSecond)
      ->Iterations(1)
      ->UseManualTime();
}

}  // namespace wmb::bench
