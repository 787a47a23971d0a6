#include "common/interrupt.h"

#include <poll.h>

#include "common/pipe.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <initializer_list>

namespace wmb {
namespace {
std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};
std::atomic<int> g_child_group{0};  // the watched child's process group (0 = none)

// Ctrl-Z: the child runs in its own process group, so the terminal's SIGTSTP never reaches it.
// wmbench stops it first, then itself; SIGCONT (fg/bg) continues the child with wmbench.
// Only async-signal-safe calls: kill, raise, sigaction.
void on_tstp(int) {
  const int g = g_child_group.load();
  if (g > 0) ::kill(-g, SIGSTOP);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGTSTP, &dfl, nullptr);
  ::raise(SIGTSTP);  // stops here (SIGTSTP is unblocked once the handler returns)
}

void on_cont(int) {
  const int g = g_child_group.load();
  if (g > 0) ::kill(-g, SIGCONT);
  struct sigaction sa {};
  sa.sa_handler = on_tstp;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTSTP, &sa, nullptr);
}

void on_signal(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  if (g_pipe[1] >= 0) {
    char c = 1;
    (void)!::write(g_pipe[1], &c, 1);
  }
}
}  // namespace

void install_interrupt_handlers() {
  if (g_pipe[0] < 0) {
    if (make_pipe(g_pipe, /*nonblock=*/true) != 0) g_pipe[0] = g_pipe[1] = -1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction tstp {};
  tstp.sa_handler = on_tstp;
  sigemptyset(&tstp.sa_mask);
  ::sigaction(SIGTSTP, &tstp, nullptr);
  struct sigaction cont {};
  cont.sa_handler = on_cont;
  sigemptyset(&cont.sa_mask);
  cont.sa_flags = SA_RESTART;
  ::sigaction(SIGCONT, &cont, nullptr);
}

void set_watched_child_group(int pgid) { g_child_group.store(pgid); }

int interrupt_signal() { return g_signal.load(); }
int interrupt_fd() { return g_pipe[0]; }

void InterruptibleSleeper::sleep(double seconds) {
  if (interrupt_signal()) return;
  struct pollfd p = {interrupt_fd(), POLLIN, 0};
  ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, static_cast<int>(seconds * 1000));
}

}  // namespace wmb
