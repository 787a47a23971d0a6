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
}

int interrupt_signal() { return g_signal.load(); }
int interrupt_fd() { return g_pipe[0]; }

void InterruptibleSleeper::sleep(double seconds) {
  if (interrupt_signal()) return;
  struct pollfd p = {interrupt_fd(), POLLIN, 0};
  ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, static_cast<int>(seconds * 1000));
}

}  // namespace wmb
