// SIGINT/SIGTERM/SIGHUP to the parent: remembered, and announced on a self-pipe so that a
// poll() loop wakes at once. The loop then stops the child, writes what it has, and the program
// exits 128+N.
#pragma once

#include <string>

#include "common/clock.h"

namespace wmb {

void install_interrupt_handlers();
int interrupt_signal();   // 0 when none arrived
int interrupt_fd();       // readable once a signal arrived (-1 before install)
// Seconds this process spent stopped by Ctrl-Z (SIGTSTP until SIGCONT), over its whole life: a
// run's timeout counts the time it ran, not the time the user held it stopped.
double stopped_seconds();
// The process group that a SIGTSTP to wmbench stops too (and SIGCONT continues); 0 = none.
// install_interrupt_handlers() catches SIGTSTP and SIGCONT for it. `cgroup_procs`: the child's
// cgroup.procs file (a sandbox, or a job's tracking cgroup as root), whose processes are stopped
// and continued too, also those that left the group with setsid ("" = none; a path of 4 KiB or
// more is not kept).
void set_watched_child_group(int pgid, const std::string& cgroup_procs = "");

// Holds back a Ctrl-Z (SIGTSTP blocked in this thread, and in threads it starts meanwhile) from
// before a child is spawned until its group is watched: release() (or the end of the scope)
// delivers one that came meanwhile, now to the child as well. Without it, a SIGTSTP between the
// spawn and set_watched_child_group stopped wmbench alone and the child ran on (seen under load).
class CtrlZHold {
 public:
  CtrlZHold();
  ~CtrlZHold() { release(); }
  CtrlZHold(const CtrlZHold&) = delete;
  CtrlZHold& operator=(const CtrlZHold&) = delete;
  void release();

 private:
  bool held_ = false;
};

// Sleeps until the time passes or a signal arrives (then at once); interrupted() says which.
class InterruptibleSleeper : public Sleeper {
 public:
  void sleep(double seconds) override;
  bool interrupted() const override { return interrupt_signal() != 0; }
};

}  // namespace wmb
