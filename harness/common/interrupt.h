// SIGINT/SIGTERM/SIGHUP to the parent: remembered, and announced on a self-pipe so that a
// poll() loop wakes at once. The loop then stops the child, writes what it has, and the program
// exits 128+N.
#pragma once

#include "common/clock.h"

namespace wmb {

void install_interrupt_handlers();
int interrupt_signal();   // 0 when none arrived
int interrupt_fd();       // readable once a signal arrived (-1 before install)
// The process group that a SIGTSTP to wmbench stops too (and SIGCONT continues); 0 = none.
// install_interrupt_handlers() catches SIGTSTP and SIGCONT for it.
void set_watched_child_group(int pgid);

// Sleeps until the time passes or a signal arrives (then at once); interrupted() says which.
class InterruptibleSleeper : public Sleeper {
 public:
  void sleep(double seconds) override;
  bool interrupted() const override { return interrupt_signal() != 0; }
};

}  // namespace wmb
