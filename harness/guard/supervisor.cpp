#include "guard/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/interrupt.h"
#include "common/units.h"

namespace wmb {
namespace {

nlohmann::json opt(const std::optional<uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

SuperviseResult supervise(const Child& child, const SuperviseOptions& opts, MemoryProbe& probe, Clock& clock,
                          uint64_t swap_before) {
  SuperviseResult r;
  r.swap_before = r.swap_after = r.swap_peak = swap_before;
  GuardPolicy policy(opts.guard, swap_before);
  const double t0 = clock.now();
  double next_check = t0 + opts.guard.check_interval;
  double next_sample = t0;  // a first sample right away
  double next_tick = t0 + 0.5;
  int fd = child.stdout_fd;
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string pending;
  std::optional<ExitStatus> ended;
  double stop_decided = 0;

  std::function<void(double)> sample;
  auto stop = [&](Stopper who, const std::string& why) {
    // One last sample at the decision: the trace then shows what the guard saw.
    sample(clock.now());
    r.stopper = who;
    r.reason = why;
    stop_decided = clock.now();
    if (opts.trace)
      opts.trace->line({{"type", "event"}, {"t", stop_decided - t0}, {"kind", "stop"},
                        {"by", who == Stopper::Guard ? "guard" : who == Stopper::Timeout ? "timeout" : "interrupted"},
                        {"detail", why}});
    ended = stop_process_group(child.pid, opts.grace, &r.killed);
    r.stop_latency = clock.now() - stop_decided;
  };

  auto drain = [&](bool final_read) {
    if (fd < 0) return;
    char buf[65536];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n <= 0) {
        ::close(fd);
        fd = -1;
        break;
      }
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        if (line.empty()) continue;
        try {
          auto j = nlohmann::json::parse(line);
          if (opts.on_message) opts.on_message(j, clock.now() - t0);
          // The footprint right after each step: the 0.5 s samples alone miss the peak of a
          // fill that ends between two of them.
          if (!final_read) {
            // Memory grows at the child's steps: check the guard right away, not at the next tick.
            next_check = std::min(next_check, clock.now());
            try {
              r.peak_footprint = std::max(r.peak_footprint, probe.process(child.pid, opts.cgroup_dir).footprint);
            } catch (const ProbeError&) {
            }
          }
        } catch (const nlohmann::json::exception&) {
          if (opts.on_bad_line) opts.on_bad_line(line);
        }
      }
      if (!final_read) break;  // one chunk per wake-up keeps the checks on time
    }
  };

  sample = [&](double now) {
    nlohmann::json s = {{"type", "sample"}, {"t", now - t0}};
    try {
      SystemMemory m = probe.system();
      ProcessMemory p = probe.process(child.pid, opts.cgroup_dir);
      r.swap_after = m.swap_used;
      r.swap_peak = std::max(r.swap_peak, m.swap_used);
      r.peak_footprint = std::max(r.peak_footprint, p.footprint);
      if (p.cgroup_usage) r.peak_cgroup_usage = std::max(r.peak_cgroup_usage.value_or(0), *p.cgroup_usage);
      s["footprint"] = p.footprint;
      s["swap_used"] = m.swap_used;
      s["level"] = m.level;
      s["rss"] = opt(p.rss);
      s["process_swap"] = opt(p.swap);
      s["swapins"] = opt(m.swapins);
      s["swapouts"] = opt(m.swapouts);
      s["cgroup_usage"] = opt(p.cgroup_usage);
      s["cgroup_swap"] = opt(p.cgroup_swap);
      if (m.pressure) s["pressure"] = *m.pressure;
    } catch (const ProbeError& e) {
      if (r.probe_error.empty()) r.probe_error = e.what();
      s["probe_error"] = e.what();
    }
    if (opts.decorate_sample) opts.decorate_sample(s);
    if (opts.trace) opts.trace->line(s);
  };

  while (!ended) {
    if (auto st = try_reap(child.pid)) {
      ended = st;
      break;
    }
    const double now = clock.now();
    if (int sig = interrupt_signal()) {
      r.interrupt_signal = sig;
      stop(Stopper::Interrupted, fmt::format("wmbench got {}", signal_name(sig)));
      break;
    }
    if (opts.timeout > 0 && now - t0 >= opts.timeout) {
      stop(Stopper::Timeout, fmt::format("ran past the timeout of {}", format_duration(opts.timeout)));
      break;
    }
    if (now >= next_sample) {
      sample(now);
      next_sample += opts.sample_interval;
      if (next_sample < now) next_sample = now + opts.sample_interval;
    }
    if (now >= next_check) {
      next_check = now + opts.guard.check_interval;
      if (opts.guard_enabled) {
        GuardVerdict v;
        try {
          SystemMemory m = probe.system();
          r.swap_after = m.swap_used;
          r.swap_peak = std::max(r.swap_peak, m.swap_used);
          v = policy.observe(m);
        } catch (const ProbeError& e) {
          if (r.probe_error.empty()) r.probe_error = e.what();
          v = policy.probe_failed(e.what());
        }
        if (v.stop) {
          stop(Stopper::Guard, v.reason);
          break;
        }
      }
    }
    if (now >= next_tick) {
      next_tick = now + 0.5;
      if (opts.on_tick) opts.on_tick(now - t0);
    }
    double wake = std::min(next_check, next_sample);
    if (opts.timeout > 0) wake = std::min(wake, t0 + opts.timeout);
    int wait_ms = static_cast<int>(std::max(0.0, (wake - clock.now()) * 1000.0)) + 1;
    if (fd < 0) wait_ms = std::min(wait_ms, 5);  // stdout closed: the child is ending, reap soon
    struct pollfd fds[2];
    int nfds = 0;
    if (fd >= 0) fds[nfds++] = {fd, POLLIN, 0};
    if (interrupt_fd() >= 0) fds[nfds++] = {interrupt_fd(), POLLIN, 0};
    int pr = ::poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (pr > 0 && fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) drain(false);
  }
  drain(true);  // whatever the child wrote before it ended
  if (fd >= 0) ::close(fd);
  r.status = *ended;
  const double end = clock.now();
  r.duration = end - t0;
  // One more reading after the child is gone: swap it left behind (the kernel frees a dead
  // process's swap slots, so this is usually back near the start).
  try {
    SystemMemory m = probe.system();
    r.swap_end = m.swap_used;
  } catch (const ProbeError& e) {
    if (r.probe_error.empty()) r.probe_error = e.what();
  }
  return r;
}

}  // namespace wmb
