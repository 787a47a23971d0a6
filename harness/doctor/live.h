// The checks that start real processes, the same code on Linux and macOS: each one does what
// wmbench's platform code does (spawn/process.h, spawn/exit_watch.h, proctree/) to a few short
// `sleep`s it starts itself, and hands what it saw to a judge of checks.h. Nothing runs longer
// than a few seconds; every process started is stopped and reaped on every way out.
#pragma once

#include <string>

#include "doctor/checks.h"
#include "probe/probe.h"

namespace wmb::doctor {

// What differs by platform in these checks' words (readers_linux.cpp / readers_macos.cpp).
struct LiveNames {
  std::string footprint_call;  // "proc_pid_rusage(RUSAGE_INFO_V2)" | "/proc/PID/status (VmRSS + VmSwap)"
  std::string listing_call;    // "proc_listpgrppids" | "process_tree (/proc/PID/stat pgrp)"
  std::string exit_kind;       // "kqueue" | "pidfd"
  std::string poll_why;        // why "poll" is acceptable here ("" on macOS)
};

// The footprint of this process and of a child, read through `probe` (the injected probe: a test
// plants a wrong one).
Check footprint_of_self(MemoryProbe& probe, const LiveNames& names);
Check footprint_of_child(MemoryProbe& probe, const LiveNames& names);
// A group of three (sh and two sleeps): process_tree() lists all three.
Check group_listing(const LiveNames& names);
// The same group stopped by stop_process_group: nothing left (proctree/leftovers.h).
Check group_stopped_whole();
// A child killed under an ExitWatch: the watch wakes, then waitpid reaps it.
Check exit_watch_then_reap(const LiveNames& names);

}  // namespace wmb::doctor
