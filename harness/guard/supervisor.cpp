// supervise(): the loop that ties the concerns together — the pipe (line_reader), the sampler
// (sampler), the guard check (guard_check) and the stop (stop) — on one schedule.
#include "guard/supervisor.h"

#include <poll.h>
#include <sys/wait.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "common/interrupt.h"
#include "common/units.h"
#include "guard/guard_check.h"
#include "guard/line_reader.h"
#include "guard/pacer.h"
#include "guard/sampler.h"
#include "guard/stop.h"
#include "spawn/exit_watch.h"

namespace wmb {
namespace {

// When each concern is due next (clock readings).
struct Schedule {
  double next_check, next_sample, next_tick;
};

// Waits until the next thing is due, the child writes, the child ends (its ExitWatch), or the
// parent gets a signal. True when the child's end descriptor was readable.
bool wait_for_work(LineReader& pipe, const ExitWatch* end, const Schedule& due, const SuperviseOptions& opts,
                   double timeout_at, Clock& clock, const std::function<void()>& on_readable) {
  double wake = std::min(due.next_check, due.next_sample);
  if (opts.timeout > 0) wake = std::min(wake, timeout_at);
  // Rounded up to the next ms, so a wake-up is never early (an early one only loops again).
  int wait_ms = static_cast<int>(std::ceil(std::max(0.0, (wake - clock.now()) * 1000.0)));
  const int end_fd = end ? end->fd() : -1;
  // No descriptor for the child's end (the fallback, or the old waits): reap it within 5 ms once
  // its stdout is closed (it is ending).
  if (end_fd < 0 && pipe.fd() < 0) wait_ms = std::min(wait_ms, 5);
  struct pollfd fds[3];
  int nfds = 0;
  if (pipe.fd() >= 0) fds[nfds++] = {pipe.fd(), POLLIN, 0};
  if (interrupt_fd() >= 0) fds[nfds++] = {interrupt_fd(), POLLIN, 0};
  if (end_fd >= 0) fds[nfds++] = {end_fd, POLLIN, 0};
  int pr = ::poll(fds, static_cast<nfds_t>(nfds), wait_ms);
  if (pr > 0 && pipe.fd() >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) on_readable();
  return pr > 0 && end_fd >= 0 && fds[nfds - 1].revents != 0;
}

// Takes a trace sample when one is due, and schedules the next (never in the past).
void sample_if_due(Sampler& sampler, Schedule& due, double now, const SuperviseOptions& opts) {
  if (now >= due.next_sample) {
    sampler.sample(now);
    due.next_sample += opts.sample_interval;
    if (due.next_sample < now) due.next_sample = now + opts.sample_interval;
  }
}

// Checks the guard when it is due and schedules the next check; the reason when the child must be stopped.
std::optional<std::string> check_if_due(GuardPolicy& policy, CheckPacer& pacer, MemoryProbe& probe, double now,
                                        Schedule& due, const SuperviseOptions& opts, SuperviseResult& r) {
  if (now >= due.next_check) {
    due.next_check = now + opts.guard.check_interval;
    if (opts.guard_enabled) {
      const GuardCheck c = check_guard(policy, pacer, probe, now, r);
      if (c.verdict.stop) {
        r.guard_signal = c.verdict.signal;
        return c.verdict.reason;
      }
      due.next_check = now + c.next_in;
    }
  }
  return std::nullopt;
}

// Calls on_tick (about every 0.5 s) when a tick is due.
void tick_if_due(Schedule& due, double now, double t0, const SuperviseOptions& opts) {
  if (now >= due.next_tick) {
    due.next_tick = now + 0.5;
    if (opts.on_tick) opts.on_tick(now - t0);
  }
}

// True when the child has ended and is not reaped yet (waitid WNOWAIT leaves it a zombie): its
// kernel peak can still be read.
bool ended_unreaped(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == pid;
}

// The end of the result once the child is gone: its status, the run's duration and the swap it left.
void finish_result(SuperviseResult& r, const ExitStatus& status, Clock& clock, double t0, MemoryProbe& probe,
                   const std::string& cgroup_dir, std::optional<uint64_t> oom_before) {
  r.status = status;
  const auto oom_after = probe.oom_kills(cgroup_dir);
  if (oom_before && oom_after) r.oom_kills = *oom_after >= *oom_before ? *oom_after - *oom_before : 0;
  r.duration = clock.now() - t0;
  // One more reading after the child is gone: swap it left behind (the kernel frees a dead
  // process's swap slots, so this is usually back near the start).
  try {
    r.swap_end = probe.system().swap_used;
  } catch (const ProbeError& e) {
    if (r.probe_error.empty()) r.probe_error = e.what();
  }
}

}  // namespace

SuperviseResult supervise(const Child& child, const SuperviseOptions& opts, MemoryProbe& probe, Clock& clock,
                          uint64_t swap_before) {
  SuperviseResult r;
  r.swap_before = r.swap_after = r.swap_peak = swap_before;
  GuardPolicy policy(opts.guard, swap_before);
  CheckPacer pacer(opts.guard, swap_before);
  // The child's end wakes the loop (pidfd / kqueue); the old waits had none (5 ms polls).
  std::unique_ptr<ExitWatch> end;
  if (opts.event_waits) end = std::make_unique<ExitWatch>(child.pid);
  const double t0 = clock.now();
  // The timeout is of the time the child ran: a Ctrl-Z stop (child and wmbench stopped) moves it on.
  const double stopped0 = stopped_seconds();
  const auto timeout_at = [&] { return t0 + opts.timeout + (stopped_seconds() - stopped0); };
  Schedule due{t0 + pacer.first_in(), t0 /* a first sample right away */, t0 + 0.5};
  LineReader pipe(child.stdout_fd);
  Sampler sampler(probe, child.pid, opts.cgroup_dir, opts.trace, opts.decorate_sample, r, t0);
  const StopContext stop{child.pid, opts.grace, t0, clock, sampler, opts.trace, opts.signal_others,
                         opts.event_waits ? 0.0 : opts.old_stop_poll};
  std::optional<ExitStatus> ended;

  bool got_lines = false;
  const LineReader::Sink on_line = [&](std::string_view line, bool cut) {
    got_lines = true;
    if (opts.on_line) opts.on_line(line, cut, clock.now() - t0);
  };
  // After each wake-up's chunk (not each line: a child writing many tiny lines must not slow the
  // loop): memory grows at the child's steps, so check the guard right away, not at the next tick.
  auto read_chunk = [&] {
    got_lines = false;
    pipe.read(false, on_line);
    if (!got_lines) return;
    due.next_check = std::min(due.next_check, clock.now());
    sampler.footprint_now();
  };

  const auto oom_before = probe.oom_kills(opts.cgroup_dir);
  probe.want_pressure_in_checks(opts.guard_enabled && opts.guard.pressure_stall > 0);
  bool end_readable = false;
  while (!ended) {
    // The child ended (its end woke the loop, or no ExitWatch tells): the kernel's last peak,
    // read before the reap while it is a zombie.
    if ((end_readable || !end) && ended_unreaped(child.pid)) sampler.footprint_now();
    if (auto st = try_reap(child.pid)) {
      ended = st;
      break;
    }
    // Readable, yet nothing to reap (someone else's waitpid took it): its descriptor would wake
    // every poll at once from now on, so the loop goes back to the 5 ms polls instead.
    if (end_readable) end.reset();
    const double now = clock.now();
    if (int sig = interrupt_signal()) {
      r.interrupt_signal = sig;
      ended = stop_child(stop, Stopper::Interrupted, fmt::format("wmbench got {}", signal_name(sig)), r);
      break;
    }
    if (opts.timeout > 0 && now >= timeout_at()) {
      ended = stop_child(stop, Stopper::Timeout, fmt::format("ran past the timeout of {}", format_duration(opts.timeout)), r);
      break;
    }
    sample_if_due(sampler, due, now, opts);
    if (const auto why = check_if_due(policy, pacer, probe, now, due, opts, r)) {
      ended = stop_child(stop, Stopper::Guard, *why, r);
      break;
    }
    tick_if_due(due, now, t0, opts);
    end_readable = wait_for_work(pipe, end.get(), due, opts, timeout_at(), clock, read_chunk);
  }
  pipe.read(true, on_line);  // whatever the child wrote before it ended
  finish_result(r, *ended, clock, t0, probe, opts.cgroup_dir, oom_before);
  return r;
}

}  // namespace wmb
