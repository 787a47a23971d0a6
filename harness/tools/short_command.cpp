#include "tools/short_command.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/interrupt.h"

namespace wmb {
namespace {

constexpr size_t kKeep = 64 * 1024;

// After the command itself ended, its stdout may stay open in a process it left behind (a chart
// python's daemon): reading stops this long after the end instead of at the timeout (600 s).
constexpr double kAfterExitGrace = 2.0;

// Reads the command's stdout until it closes, the deadline, a signal to the parent, or
// kAfterExitGrace after the command ended (`st` then holds its status).
void read_until_closed(int fd, pid_t pid, CommandOutput& r, std::optional<ExitStatus>& st, double deadline,
                       Clock& clock, bool stop_on_interrupt) {
  char buf[4096];
  double ended_at = -1;
  while (true) {
    const double now = clock.now(), left = deadline - now;
    if (left <= 0) {
      r.timed_out = !st.has_value();
      return;
    }
    if (stop_on_interrupt && (r.interrupted = interrupt_signal())) return;
    if (!st && (st = try_reap(pid))) ended_at = now;
    if (st && now - ended_at >= kAfterExitGrace) return;
    struct pollfd fds[2] = {{fd, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    const nfds_t nfds = stop_on_interrupt && interrupt_fd() >= 0 ? 2 : 1;
    int pr = ::poll(fds, nfds, static_cast<int>(std::min(left, 0.1) * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    if (r.out.size() < kKeep) r.out.append(buf, std::min(static_cast<size_t>(n), kKeep - r.out.size()));
  }
}

// Waits for the command to end once its stdout closed (a child that closed stdout and lingers).
std::optional<ExitStatus> reap_until(pid_t pid, double deadline, Clock& clock, bool stop_on_interrupt) {
  while (true) {
    if (auto st = try_reap(pid)) return st;
    if (clock.now() >= deadline || (stop_on_interrupt && interrupt_signal())) return std::nullopt;
    ::poll(nullptr, 0, 5);
  }
}

}  // namespace

std::string CommandOutput::failure() const {
  if (!started) return start_error;
  if (timed_out) return "it did not finish in time and was stopped";
  if (interrupted) return fmt::format("stopped: wmbench got {}", signal_name(interrupted));
  if (status.signal) return fmt::format("killed by {}", signal_name(*status.signal));
  return fmt::format("exit {}", status.code.value_or(-1));
}

CommandOutput run_short_command(const std::vector<std::string>& argv, double timeout_s, const std::string& stderr_path,
                                const std::optional<std::map<std::string, std::string>>& env,
                                const std::string& cwd, bool stop_on_interrupt) {
  CommandOutput r;
  SpawnOptions so;
  so.argv = argv;
  so.env = env ? *env : current_environment();
  so.capture_stdout = true;
  so.stderr_path = stderr_path;
  so.cwd = cwd;
  Child c;
  try {
    c = spawn_child(so);
  } catch (const SpawnError& e) {
    r.start_error = e.what();
    return r;
  }
  r.started = true;
  SteadyClock clock;
  const double deadline = clock.now() + timeout_s;
  std::optional<ExitStatus> st;
  read_until_closed(c.stdout_fd, c.pid, r, st, deadline, clock, stop_on_interrupt);
  ::close(c.stdout_fd);
  if (st) {
    // The command ended (it may have left a process holding stdout): its group's stragglers go.
    ::kill(-c.pid, SIGKILL);
    r.status = *st;
    if (r.interrupted) r.timed_out = false;
    return r;
  }
  if (!r.timed_out && !r.interrupted) st = reap_until(c.pid, deadline, clock, stop_on_interrupt);
  if (!st) {
    if (!r.interrupted && stop_on_interrupt) r.interrupted = interrupt_signal();
    r.timed_out = !r.interrupted;
    st = stop_process_group(c.pid, 1.0);
  }
  r.status = *st;
  return r;
}

}  // namespace wmb
