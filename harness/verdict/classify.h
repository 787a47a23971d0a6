// Who stopped a run: guard | pytorch | config | cap | finished | crash | timeout | interrupted |
// kernel (the kernel ended it: SIGKILL while the sandbox cgroup's oom_kill grew, or a macOS
// JetsamEvent report names the child; Classification::kernel_event says which)
// (and not_started, decided before the child starts).
#pragma once

#include <optional>
#include <string>

#include "errparse/error_parser.h"
#include "guard/supervisor.h"
#include "protocol/child_report.h"

namespace wmb {

struct Classification {
  std::string stopped_by;
  std::string detail;
  std::optional<ParsedError> error;
  std::string kernel_event = "";  // stopped_by "kernel": oom-kill | jetsam (common/guard_signals.h kernel_events)
};

// `stderr_tail`: the end of the child's stderr log, when the caller has it ("" otherwise): it
// tells an uncaught exception ("terminate called after throwing ... std::bad_alloc") from a
// plain abort.
//
// A signal is read as the child's own crash when the child raises it itself (SIGABRT from
// abort()/an uncaught exception/a failed check, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS),
// and as "killed from outside wmbench" only for the signals others send (SIGKILL from the OOM
// killer or jetsam, SIGTERM, SIGINT, SIGHUP, ...). Both are stopped_by "crash"; the detail says which.
Classification classify(const SuperviseResult& sup, const ChildReport& child, const std::string& stderr_tail = "");

// True for the signals a process raises on itself when it crashes (see classify).
bool self_inflicted_signal(int sig);

}  // namespace wmb
