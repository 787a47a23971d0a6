// Exit codes shared by the subcommands (cli/) and the drivers they call (job/run_setup, doctor/).
#pragma once

namespace wmb {

constexpr int kExitOk = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
// An exception no command handled (a wmbench bug, or memory exhausted): main prints it, says so,
// and exits with this (EX_SOFTWARE of sysexits.h). Run files already written stay on disk.
constexpr int kExitInternal = 70;

// `wmbench guard -- CMD` (guard/guard_command.h), as users of such guards know them: 3 the guard
// stopped the command, 4 no room to start it, 127 it could not be started, 128+N when the guard
// itself got signal N (it stops the command first), otherwise the command's own status (128+N if
// a signal ended it); 2 bad input.
constexpr int kGuardStopped = 3;
constexpr int kGuardNoRoom = 4;
constexpr int kGuardCannotStart = 127;
constexpr int kGuardBadInput = kExitUsage;

}  // namespace wmb
